//===- AtomicEmit.cpp - tables, hooks and checks for atomic regions -------===//
//
// Emits what include/vigil/atomic.h describes: the constant tables (shared
// variables, ARs, ends, checked access sites), a constructor registering
// them, begin before each AR's first access, end after each second access,
// clear before each return, and — with the software detector — the inline
// check before every other access that may touch an AR's variable:
//
//     if (__vigil_atomic_filter[(addr >> 3) & 4095]) __vigil_access(addr, site);
//
// The filter byte is read with a relaxed atomic load: a plain load could be
// hoisted out of a loop without calls by LICM, and an AR begun by another
// thread during the loop would go unseen.  On x86 it is the same `mov`.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"
#include "Pass.h"

#include "vigil/atomic.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
struct Loc {
  std::string File;
  unsigned Line = 0, Column = 0;
};

Loc locOf(const Instruction *I) {
  Loc L;
  if (const DebugLoc &D = I->getDebugLoc()) {
    L.File = D->getFilename().str();
    L.Line = D->getLine();
    L.Column = D->getColumn();
  }
  return L;
}

std::string locText(const Loc &L) {
  if (L.File.empty())
    return "?";
  return L.File + ":" + std::to_string(L.Line) + ":" + std::to_string(L.Column);
}

const char *kindName(unsigned K) {
  return K == VIGIL_AR_READ ? "read" : K == VIGIL_AR_WRITE ? "write" : "read-write";
}

/// Figure 6: the remote kinds that make (first, remote, second)
/// non-serializable: a remote read only between two local writes.
unsigned watchOf(unsigned First, unsigned Seconds) {
  unsigned W = 0;
  for (unsigned S : {VIGIL_AR_READ, VIGIL_AR_WRITE})
    if (Seconds & S)
      W |= (First == VIGIL_AR_WRITE && S == VIGIL_AR_WRITE) ? VIGIL_AR_READ
                                                            : VIGIL_AR_WRITE;
  return W;
}

struct Types {
  Type *I8, *I16, *I32, *I64, *Ptr, *Void;
  StructType *Loc, *Var, *Ar, *End, *Site, *Prog;
  explicit Types(LLVMContext &C) {
    I8 = Type::getInt8Ty(C), I16 = Type::getInt16Ty(C);
    I32 = Type::getInt32Ty(C), I64 = Type::getInt64Ty(C);
    Ptr = PointerType::getUnqual(C), Void = Type::getVoidTy(C);
    // literal (uniqued) types: every Types made in the pass is the same
    Loc = StructType::get(C, {Ptr, I32, I32});
    Var = StructType::get(C, {Ptr, Loc});
    Ar = StructType::get(C, {I32, I32, Ptr, Loc, I8, I8, I8, I8, I32});
    End = StructType::get(C, {I32, I8, I8, I16, Loc});
    Site = End; // same layout (include/vigil/atomic.h)
    Prog = StructType::get(C, {I32, I32, I32, I32, I32, I32, Ptr, Ptr, Ptr, Ptr});
  }
};

Constant *str(Module &M, StringRef S) {
  IRBuilder<> B(M.getContext());
  auto *GV = new GlobalVariable(M, ArrayType::get(B.getInt8Ty(), S.size() + 1), true,
                                GlobalValue::PrivateLinkage,
                                ConstantDataArray::getString(M.getContext(), S),
                                "vigil.atomic.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return GV;
}

Constant *locConst(Module &M, const Types &T, const Loc &L) {
  return ConstantStruct::get(T.Loc, {str(M, L.File), ConstantInt::get(T.I32, L.Line),
                                     ConstantInt::get(T.I32, L.Column)});
}

Constant *table(Module &M, Type *Elem, ArrayRef<Constant *> Rows, const char *Name) {
  if (Rows.empty())
    return ConstantPointerNull::get(PointerType::getUnqual(M.getContext()));
  auto *AT = ArrayType::get(Elem, Rows.size());
  return new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                            ConstantArray::get(AT, Rows), Name);
}
} // namespace

void AtomicRegions::instrumentFunction(FunctionRegions &FR) {
  Types T(M.getContext());
  FunctionCallee Begin = M.getOrInsertFunction(
      "__vigil_ar_begin", FunctionType::get(T.Void, {T.I32, T.Ptr, T.I64}, false));
  FunctionCallee End = M.getOrInsertFunction(
      "__vigil_ar_end", FunctionType::get(T.Void, {T.I32, T.Ptr}, false));
  FunctionCallee Clear = M.getOrInsertFunction(
      "__vigil_ar_clear", FunctionType::get(T.Void, {T.I32, T.I32}, false));
  const DataLayout &DL = M.getDataLayout();
  for (Region &R : FR.Regions) {
    SharedAccess &A = FR.Accesses[R.First];
    IRBuilder<> B(A.I);
    Value *V = B.getInt64(0);
    if (auto *SI = dyn_cast<StoreInst>(A.I)) {
      Value *X = SI->getValueOperand();
      Type *Ty = X->getType();
      if (Ty->isPointerTy())
        V = B.CreatePtrToInt(X, T.I64);
      else if ((Ty->isIntegerTy() || Ty->isFloatingPointTy()) &&
               DL.getTypeSizeInBits(Ty) <= 64) {
        if (!Ty->isIntegerTy())
          X = B.CreateBitCast(X, B.getIntNTy(DL.getTypeSizeInBits(Ty)));
        V = B.CreateZExt(X, T.I64);
      }
    }
    B.CreateCall(Begin, {B.getInt32(R.Id), A.Ptr, V})->setDebugLoc(A.I->getDebugLoc());
    Annotated.insert(A.I);
    for (unsigned E : R.Ends) {
      SharedAccess &S = FR.Accesses[E];
      unsigned EndId = EndRows.size();
      EndRows.push_back(ConstantStruct::get(
          T.End, {ConstantInt::get(T.I32, R.Id), ConstantInt::get(T.I8, S.Kind),
                  ConstantInt::get(T.I8, S.Size), ConstantInt::get(T.I16, 0),
                  locConst(M, T, locOf(S.I))}));
      if (E == R.First) // a loop: the next begin ends it (atomic.h)
        continue;
      IRBuilder<> After(S.I->getNextNode());
      After.CreateCall(End, {After.getInt32(EndId), S.Ptr})
          ->setDebugLoc(S.I->getDebugLoc());
    }
  }
  if (FR.Regions.empty())
    return;
  unsigned First = FR.Regions.front().FunctionFirst;
  for (BasicBlock &BB : *FR.F) {
    Instruction *Term = BB.getTerminator();
    if (isa<ReturnInst>(Term) || isa<ResumeInst>(Term)) {
      IRBuilder<> B(Term);
      B.CreateCall(Clear, {B.getInt32(First), B.getInt32(FR.Regions.size())})
          ->setDebugLoc(Term->getDebugLoc());
    }
  }
}

void AtomicRegions::insertChecks() {
  Types T(M.getContext());
  FunctionCallee Access = M.getOrInsertFunction(
      "__vigil_access", FunctionType::get(T.Void, {T.Ptr, T.I32}, false));
  auto *FilterTy = ArrayType::get(T.I8, VIGIL_ATOMIC_FILTER_SIZE);
  GlobalVariable *Filter = M.getGlobalVariable("__vigil_atomic_filter");
  if (!Filter)
    Filter = new GlobalVariable(M, FilterTy, false, GlobalValue::ExternalLinkage,
                                nullptr, "__vigil_atomic_filter");
  DenseSet<const Instruction *> Covered;
  for (FunctionRegions &FR : Fns)
    for (SharedAccess &A : FR.Accesses)
      if (A.Covered)
        Covered.insert(A.I);
  const DataLayout &DL = M.getDataLayout();
  std::vector<std::pair<Instruction *, Value *>> Todo;
  for (Function &F : M) {
    if (F.isDeclaration() || F.getName().starts_with("__vigil") ||
        F.getName().starts_with("vigil_"))
      continue;
    for (Instruction &I : instructions(F)) {
      Value *P = nullptr;
      if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->isSimple())
        P = LI->getPointerOperand();
      else if (auto *SI = dyn_cast<StoreInst>(&I); SI && SI->isSimple())
        P = SI->getPointerOperand();
      if (P && !Annotated.count(&I) && !Covered.count(&I) && needsCheck(P))
        Todo.push_back({&I, P});
    }
  }
  for (auto &[I, P] : Todo) {
    bool Write = isa<StoreInst>(I);
    Type *Ty = Write ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
    uint64_t Size = DL.getTypeStoreSize(Ty);
    SharedAccess A;
    A.I = I, A.Ptr = P;
    auto It = VarIndex.find(Mem->describe(A, DL).Name);
    unsigned Var = It == VarIndex.end() ? UINT32_MAX : It->second;
    unsigned SiteId = SiteRows.size();
    SiteRows.push_back(ConstantStruct::get(
        T.Site, {ConstantInt::get(T.I32, Var),
                 ConstantInt::get(T.I8, Write ? VIGIL_AR_WRITE : VIGIL_AR_READ),
                 ConstantInt::get(T.I8, Size <= 8 ? Size : 0),
                 ConstantInt::get(T.I16, 0), locConst(M, T, locOf(I))}));
    IRBuilder<> B(I);
    B.SetCurrentDebugLocation(I->getDebugLoc());
    Value *Idx = B.CreateAnd(B.CreateLShr(B.CreatePtrToInt(P, T.I64), 3),
                             VIGIL_ATOMIC_FILTER_SIZE - 1);
    LoadInst *Byte = B.CreateLoad(T.I8, B.CreateInBoundsGEP(FilterTy, Filter,
                                                            {B.getInt64(0), Idx}));
    Byte->setAtomic(AtomicOrdering::Monotonic);
    Byte->setAlignment(Align(1));
    Instruction *Then = SplitBlockAndInsertIfThen(
        B.CreateICmpNE(Byte, B.getInt8(0)), I, false,
        MDBuilder(M.getContext()).createUnlikelyBranchWeights());
    IRBuilder<> S(Then);
    S.CreateCall(Access, {P, S.getInt32(SiteId)})->setDebugLoc(I->getDebugLoc());
  }
}

void AtomicRegions::emit() {
  Types T(M.getContext());
  for (FunctionRegions &FR : Fns)
    instrumentFunction(FR);
  if (Mode == Checks)
    insertChecks();
  std::vector<Constant *> VarRows, ArRows;
  for (const SharedVar &V : Vars)
    VarRows.push_back(ConstantStruct::get(
        T.Var, {str(M, V.Name), locConst(M, T, {V.File, V.Line, 0})}));
  for (FunctionRegions &FR : Fns)
    for (Region &R : FR.Regions) {
      SharedAccess &A = FR.Accesses[R.First];
      unsigned Seconds = 0;
      for (unsigned E : R.Ends)
        Seconds |= FR.Accesses[E].Kind;
      ArRows.push_back(ConstantStruct::get(
          T.Ar, {ConstantInt::get(T.I32, A.Var), ConstantInt::get(T.I32, R.FunctionFirst),
                 str(M, FR.F->getName()), locConst(M, T, locOf(A.I)),
                 ConstantInt::get(T.I8, A.Kind), ConstantInt::get(T.I8, Seconds),
                 ConstantInt::get(T.I8, watchOf(A.Kind, Seconds)),
                 ConstantInt::get(T.I8, A.Size), ConstantInt::get(T.I32, 0)}));
    }
  auto N = [&](size_t X) { return ConstantInt::get(T.I32, X); };
  Constant *Init = ConstantStruct::get(
      T.Prog, {N(VIGIL_ATOMIC_ABI), N(Mode == Checks ? VIGIL_ATOMIC_CHECKS : 0),
               N(VarRows.size()), N(ArRows.size()), N(EndRows.size()), N(SiteRows.size()),
               table(M, T.Var, VarRows, "vigil.atomic.vars"),
               table(M, T.Ar, ArRows, "vigil.atomic.ars"),
               table(M, T.End, EndRows, "vigil.atomic.ends"),
               table(M, T.Site, SiteRows, "vigil.atomic.sites")});
  Program = new GlobalVariable(M, T.Prog, true, GlobalValue::PrivateLinkage, Init,
                               "vigil.atomic.program");
  FunctionCallee Register = M.getOrInsertFunction(
      "__vigil_atomic_register", FunctionType::get(T.Void, {T.Ptr}, false));
  Function *Ctor = Function::Create(FunctionType::get(T.Void, false),
                                    GlobalValue::InternalLinkage,
                                    "__vigil_atomic_ctor", M);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "", Ctor));
  B.CreateCall(Register, {Program});
  B.CreateRetVoid();
  // before the program's constructors, which may start threads
  appendToGlobalCtors(M, Ctor, 101);
}

void AtomicRegions::explain() const {
  const DataLayout &DL = M.getDataLayout();
  json::Array Functions;
  unsigned NRegions = 0, NProtected = 0;
  std::string Text;
  raw_string_ostream OS(Text);
  for (const FunctionRegions &FR : Fns) {
    json::Array Regions;
    NProtected += FR.Protected;
    OS << "function " << FR.F->getName() << ": " << FR.Regions.size() << " ARs";
    if (FR.Protected)
      OS << ", " << FR.Protected << " pairs under a lock left out";
    OS << "\n";
    for (const Region &R : FR.Regions) {
      ++NRegions;
      const SharedAccess &A = FR.Accesses[R.First];
      std::string Var = Mem->describe(A, DL).Name;
      json::Array Ends;
      unsigned Seconds = 0;
      OS << "  AR " << R.Id << " `" << Var << "`: " << kindName(A.Kind) << " at "
         << locText(locOf(A.I)) << " ->";
      for (unsigned E : R.Ends) {
        const SharedAccess &S = FR.Accesses[E];
        Seconds |= S.Kind;
        OS << " " << kindName(S.Kind) << " at " << locText(locOf(S.I));
        Ends.push_back(json::Object{{"kind", kindName(S.Kind)},
                                    {"location", locText(locOf(S.I))}});
      }
      unsigned W = watchOf(A.Kind, Seconds);
      OS << "  (watch remote " << kindName(W) << "s)\n";
      Regions.push_back(json::Object{{"id", R.Id},
                                     {"variable", Var},
                                     {"first", json::Object{{"kind", kindName(A.Kind)},
                                                            {"location", locText(locOf(A.I))}}},
                                     {"ends", std::move(Ends)},
                                     {"watch", kindName(W)}});
    }
    Functions.push_back(json::Object{{"function", FR.F->getName()},
                                     {"regions", std::move(Regions)},
                                     {"protected_pairs", FR.Protected}});
  }
  if (Explain == Json) {
    json::Array VarNames;
    for (const SharedVar &V : Vars)
      VarNames.push_back(V.Name);
    outs() << formatv("{0:2}", json::Value(json::Object{
                                   {"regions", NRegions},
                                   {"protected_pairs", NProtected},
                                   {"variables", std::move(VarNames)},
                                   {"functions", std::move(Functions)}}))
           << "\n";
    return;
  }
  outs() << NRegions << " atomic regions on " << Vars.size() << " shared variables";
  if (NProtected)
    outs() << " (" << NProtected << " pairs under a lock left out)";
  outs() << "\n" << OS.str();
}

} // namespace pass
} // namespace vigil
