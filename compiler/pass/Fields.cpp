//===- Fields.cpp - stores to struct fields -------------------------------===//
//
// A field event names the LLVM struct type ("struct.object"), the field's
// byte offset and size.  A store (plain or atomic), or an atomicrmw
// add / sub / xchg, writes that field when its address is, at a constant
// offset equal to the field's, inside an object of that type.  What tells
// us the object's type, for the address or any pointer it was computed
// from by constant-offset GEPs:
//
//  * the struct-path TBAA tag clang puts on `p->f` accesses at -O1 and
//    above (base type name "object", offset of the access) — this covers
//    the `getelementptr inbounds i8, ptr %p, i64 off` form, and stores to
//    field 0 through %p itself, without debug info;
//  * a typed GEP (`getelementptr %struct.object, ptr %p, i64 0, i32 1`,
//    nested levels included), or a GEP on the same base elsewhere;
//  * an alloca or global of the struct type (for a parameter, also what
//    its direct callers pass);
//  * the debug info of the base pointer (#dbg_value of a `struct object *`).
//
// Types renamed by the IR linker ("struct.object.12") match their record.
// The hook gets the struct's address (the store address minus the field
// offset), the new value, and for a change (+= / -=) the old one: the
// program's own load when the store computes from it (`f += x`, `f++`),
// the value of an atomic add/sub, or (TESLA's rule for any store) a load
// just before a plain store.  That last load may read a field that was
// never initialised (the store initialises it), which memcheck reports
// where the comparison branches: those stores call an out-of-line hook,
// `__vigil_point.<struct>.<offset>.plain`, so that one suppression
// (valgrind/vigil.supp) covers them without hiding the program's errors.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace vigil {
namespace pass {

/// "struct.object" or "struct.object.<n>" (renamed by the IR linker).
static bool nameMatches(StringRef Type, StringRef Record) {
  if (Type == Record)
    return true;
  if (!Type.starts_with(Record) || Type.size() <= Record.size() + 1 ||
      Type[Record.size()] != '.')
    return false;
  StringRef Rest = Type.drop_front(Record.size() + 1);
  return llvm::all_of(Rest, [](char Ch) { return Ch >= '0' && Ch <= '9'; });
}

/// The struct a `T *` debug type points to: "struct.T" / "union.T" and its
/// size in bytes.
static bool structOfPointer(DIType *T, std::string &Name, uint64_t &Size) {
  std::string Typedef;
  auto Strip = [&](DIType *X) {
    while (auto *D = dyn_cast_or_null<DIDerivedType>(X)) {
      unsigned Tag = D->getTag();
      if (Tag == dwarf::DW_TAG_typedef)
        Typedef = D->getName().str();
      else if (Tag != dwarf::DW_TAG_const_type &&
               Tag != dwarf::DW_TAG_volatile_type &&
               Tag != dwarf::DW_TAG_restrict_type &&
               Tag != dwarf::DW_TAG_atomic_type)
        break;
      X = D->getBaseType();
    }
    return X;
  };
  auto *P = dyn_cast_or_null<DIDerivedType>(Strip(T));
  if (!P || P->getTag() != dwarf::DW_TAG_pointer_type)
    return false;
  Typedef.clear();
  auto *CT = dyn_cast_or_null<DICompositeType>(Strip(P->getBaseType()));
  if (!CT || (CT->getTag() != dwarf::DW_TAG_structure_type &&
              CT->getTag() != dwarf::DW_TAG_union_type))
    return false;
  std::string N = CT->getName().empty() ? Typedef : CT->getName().str();
  if (N.empty())
    return false;
  Name = (CT->getTag() == dwarf::DW_TAG_union_type ? "union." : "struct.") + N;
  Size = CT->getSizeInBits() / 8;
  return true;
}

/// What V itself says of the object it points to (Off bytes before the
/// stored-to address): an alloca, a global, a typed GEP it is or feeds.
static void localTypes(const DataLayout &DL, Value *V, uint64_t Off,
                       std::vector<FieldCandidate> &Out) {
  auto Add = [&](Type *T) {
    auto *ST = dyn_cast<StructType>(T);
    if (ST && ST->hasName() && ST->isSized())
      Out.push_back({ST->getName().str(), Off, DL.getTypeAllocSize(ST)});
  };
  if (auto *AI = dyn_cast<AllocaInst>(V))
    Add(AI->getAllocatedType());
  if (auto *GV = dyn_cast<GlobalVariable>(V))
    Add(GV->getValueType());
  if (auto *G = dyn_cast<GEPOperator>(V))
    Add(G->getResultElementType());
  unsigned N = 0;
  for (User *U : V->users()) {
    if (++N > 64)
      break;
    if (auto *G = dyn_cast<GEPOperator>(U))
      if (G->getPointerOperand() == V)
        Add(G->getSourceElementType());
  }
}

/// What we know of the type of the object V points to, V being Off bytes
/// before the stored-to address; for a parameter, also what the direct
/// callers pass.
void Instrumenter::typesOf(Value *V, uint64_t Off,
                           std::vector<FieldCandidate> &Out) {
  localTypes(DL, V, Off, Out);
  if (auto *A = dyn_cast<Argument>(V)) {
    unsigned N = 0;
    for (User *U : A->getParent()->users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand() != A->getParent() ||
          A->getArgNo() >= CB->arg_size() || ++N > 16)
        continue;
      localTypes(DL, CB->getArgOperand(A->getArgNo()), Off, Out);
    }
  }
  if (!isa<Instruction>(V) && !isa<Argument>(V))
    return;
  SmallVector<DbgValueInst *, 2> DVs;
  SmallVector<DbgVariableRecord *, 2> DVRs;
  findDbgValues(DVs, V, &DVRs);
  std::vector<std::pair<DILocalVariable *, DIExpression *>> Vars;
  for (DbgValueInst *D : DVs)
    Vars.push_back({D->getVariable(), D->getExpression()});
  for (DbgVariableRecord *D : DVRs)
    Vars.push_back({D->getVariable(), D->getExpression()});
  for (auto &[Var, Expr] : Vars) {
    std::string Name;
    uint64_t Size;
    if (Var && Expr && Expr->getNumElements() == 0 &&
        structOfPointer(Var->getType(), Name, Size))
      Out.push_back({Name, Off, Size});
  }
}

/// The struct-path TBAA base type Base ({name, member type, offset, ...})
/// and, going down the members holding the access, the structs nested in
/// it, each with the access's offset in it.
static void tbaaCandidates(MDNode *Base, uint64_t Off,
                           std::vector<FieldCandidate> &Out) {
  for (unsigned Depth = 0; Base && Depth < 8; ++Depth) {
    auto *Name = Base->getNumOperands() >= 3
                     ? dyn_cast<MDString>(Base->getOperand(0))
                     : nullptr;
    if (!Name)
      return;
    Out.push_back({("struct." + Name->getString()).str(), Off, 0});
    MDNode *Member = nullptr;
    uint64_t MemberOff = 0;
    for (unsigned I = 1; I + 1 < Base->getNumOperands(); I += 2) {
      auto *T = dyn_cast<MDNode>(Base->getOperand(I));
      auto *O = mdconst::dyn_extract<ConstantInt>(Base->getOperand(I + 1));
      if (T && O && O->getZExtValue() <= Off &&
          (!Member || O->getZExtValue() >= MemberOff))
        Member = T, MemberOff = O->getZExtValue();
    }
    Base = Member;
    Off -= MemberOff;
  }
}

/// Every (struct, offset) the store I to address P may write into.
void Instrumenter::storeCandidates(Instruction *I, Value *P,
                                   std::vector<FieldCandidate> &Out) {
  if (MDNode *Tag = I->getMetadata(LLVMContext::MD_tbaa))
    if (Tag->getNumOperands() >= 3)
      if (auto *Off = mdconst::dyn_extract<ConstantInt>(Tag->getOperand(2)))
        tbaaCandidates(dyn_cast<MDNode>(Tag->getOperand(0)), Off->getZExtValue(),
                       Out);
  int64_t Off = 0;
  Value *V = P;
  for (unsigned Depth = 0; Depth < 8 && Off >= 0; ++Depth) {
    typesOf(V, uint64_t(Off), Out);
    auto *G = dyn_cast<GEPOperator>(V);
    if (!G)
      break;
    // Per index: the struct it selects a field of (if any), its offset, and
    // whether it is constant.  The levels after the last variable index
    // (`objs[i].f`) still locate the store inside their struct.
    struct Level {
      StructType *ST;
      int64_t Off;
      bool Const;
    };
    std::vector<Level> Levels;
    for (gep_type_iterator GTI = gep_type_begin(G), E = gep_type_end(G);
         GTI != E; ++GTI) {
      auto *CI = dyn_cast<ConstantInt>(GTI.getOperand());
      if (StructType *ST = GTI.getStructTypeOrNull())
        Levels.push_back({ST, int64_t(DL.getStructLayout(ST)->getElementOffset(
                                  CI->getZExtValue())),
                          true});
      else if (TypeSize TS = GTI.getSequentialElementStride(DL);
               CI && !TS.isScalable())
        Levels.push_back({nullptr, CI->getSExtValue() * int64_t(TS.getFixedValue()),
                          true});
      else
        Levels.push_back({nullptr, 0, false});
    }
    int64_t Suffix = 0;
    bool AllConst = true;
    for (size_t K = Levels.size(); K-- > 0;) {
      if (!Levels[K].Const) {
        AllConst = false;
        break;
      }
      Suffix += Levels[K].Off;
      StructType *ST = Levels[K].ST;
      if (ST && ST->hasName() && Off + Suffix >= 0)
        Out.push_back({ST->getName().str(), uint64_t(Off + Suffix),
                       DL.getTypeAllocSize(ST)});
    }
    if (!AllConst)
      break;
    Off += Suffix;
    V = G->getPointerOperand();
  }
}

void Instrumenter::matchStores(Function &F, std::vector<FieldRef> &Out) {
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      Value *P;
      Type *T;
      if (auto *SI = dyn_cast<StoreInst>(&I)) {
        P = SI->getPointerOperand();
        T = SI->getValueOperand()->getType();
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        auto Op = RMW->getOperation();
        if (Op != AtomicRMWInst::Add && Op != AtomicRMWInst::Sub &&
            Op != AtomicRMWInst::Xchg)
          continue;
        P = RMW->getPointerOperand();
        T = RMW->getValOperand()->getType();
      } else {
        continue;
      }
      if (!T->isSized())
        continue;
      uint64_t Size = DL.getTypeStoreSize(T);
      std::vector<FieldCandidate> Cands;
      bool Have = false;
      for (unsigned PI : FieldPoints) {
        const Point &Pt = Points[PI];
        if (Pt.Size != Size)
          continue;
        if (!Have)
          storeCandidates(&I, P, Cands), Have = true;
        for (const FieldCandidate &K : Cands)
          if (K.Offset == Pt.Offset && nameMatches(K.Name, Pt.Record) &&
              (!K.Size || !Pt.RecordSize || K.Size == Pt.RecordSize)) {
            Out.push_back({&I, PI});
            break;
          }
      }
    }
}

/// Whether A and B compute the same address: the same value, the same
/// GEP of the same address, or loads of the same pointer variable (clang's
/// `o->f = o->f + 1` reloads `o` for each access).
static bool sameAddress(Value *A, Value *B, unsigned Depth = 0) {
  if (A == B)
    return true;
  if (Depth > 4)
    return false;
  auto *GA = dyn_cast<GEPOperator>(A), *GB = dyn_cast<GEPOperator>(B);
  if (GA && GB) {
    if (GA->getSourceElementType() != GB->getSourceElementType() ||
        GA->getNumIndices() != GB->getNumIndices())
      return false;
    for (unsigned I = 1; I < GA->getNumOperands(); ++I) {
      Value *X = GA->getOperand(I), *Y = GB->getOperand(I);
      auto *CX = dyn_cast<ConstantInt>(X), *CY = dyn_cast<ConstantInt>(Y);
      if (X != Y && !(CX && CY && CX->getSExtValue() == CY->getSExtValue()))
        return false;
    }
    return sameAddress(GA->getPointerOperand(), GB->getPointerOperand(), Depth + 1);
  }
  auto *LA = dyn_cast<LoadInst>(A), *LB = dyn_cast<LoadInst>(B);
  return LA && LB && !LA->isVolatile() && !LB->isVolatile() &&
         LA->getParent() == LB->getParent() &&
         sameAddress(LA->getPointerOperand(), LB->getPointerOperand(), Depth + 1);
}

/// The load of the old value a `+=` / `-=` store computes its value from
/// (`store (add (load p), x), p`), if any.
static LoadInst *oldValueLoad(StoreInst *SI) {
  auto *BO = dyn_cast<BinaryOperator>(SI->getValueOperand());
  if (!BO || (BO->getOpcode() != Instruction::Add &&
              BO->getOpcode() != Instruction::Sub))
    return nullptr;
  for (unsigned I = 0; I < 2; ++I) {
    if (I == 1 && BO->getOpcode() == Instruction::Sub)
      break; // x - old is not a change of old
    auto *L = dyn_cast<LoadInst>(BO->getOperand(I));
    if (L && L->getType() == SI->getValueOperand()->getType() &&
        L->getParent() == SI->getParent() &&
        sameAddress(L->getPointerOperand(), SI->getPointerOperand()))
      return L;
  }
  return nullptr;
}

void Instrumenter::instrumentStore(const FieldRef &R) {
  Instruction *I = R.I;
  const Point &P = Points[R.Point];
  bool NeedOld = false;
  for (const Observer &O : P.Obs)
    NeedOld |= O.Ev->Op != OP_ASSIGN;
  IRBuilder<> B(I);
  locate(B, I);
  Value *Addr, *NewW, *OldW = ConstantInt::get(I64, 0);
  Value *HasOld = ConstantInt::get(I64, 0);
  bool OutOfLine = false;
  if (auto *SI = dyn_cast<StoreInst>(I)) {
    Addr = SI->getPointerOperand();
    if (NeedOld) {
      // `f += x` already loaded the old value; a plain store loads it now
      // (TESLA's rule: the store matches `+= k` when new == old + k).
      LoadInst *L = oldValueLoad(SI);
      if (!L) {
        L = B.CreateAlignedLoad(SI->getValueOperand()->getType(), Addr,
                                SI->getAlign(), "vigil.old");
        L->setVolatile(SI->isVolatile());
        if (SI->isAtomic())
          L->setAtomic(AtomicOrdering::Monotonic, SI->getSyncScopeID());
        OutOfLine = true;
      }
      OldW = toWord(B, L);
      HasOld = ConstantInt::get(I64, 1);
    }
    B.SetInsertPoint(SI->getNextNode());
    NewW = toWord(B, SI->getValueOperand());
  } else {
    auto *RMW = cast<AtomicRMWInst>(I);
    Addr = RMW->getPointerOperand();
    B.SetInsertPoint(RMW->getNextNode());
    Value *V = RMW->getValOperand();
    Value *New = RMW->getOperation() == AtomicRMWInst::Add   ? B.CreateAdd(RMW, V)
                 : RMW->getOperation() == AtomicRMWInst::Sub ? B.CreateSub(RMW, V)
                                                             : V;
    OldW = toWord(B, RMW);
    NewW = toWord(B, New);
    HasOld = ConstantInt::get(I64, 1);
  }
  Value *Base = B.CreateSub(B.CreatePtrToInt(Addr, I64),
                            ConstantInt::get(I64, P.Offset), "vigil.base");
  B.CreateCall(pointHook(R.Point, 0, false, "", OutOfLine),
               {Base, NewW, OldW, HasOld});
}

} // namespace pass
} // namespace vigil
