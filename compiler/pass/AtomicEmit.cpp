//===- AtomicEmit.cpp - tables, hooks and checks for atomic regions -------===//
//
// Emits what include/vigil/atomic.h describes: the constant tables (shared
// variables, ARs, ends, checked access sites), a constructor registering
// them, begin before each AR's first access, end after each second access,
// clear before each return, and — with the software detector — the inline
// check around every other access that may touch an AR's variable (a
// write's, below; a read's, checkAccess):
//
//     if (__vigil_atomic_filter[(addr >> 3) & 4095] & 0xff) __vigil_access(addr, site);
//
// The filter is read with relaxed (or acquire) atomic loads: a plain load
// could be hoisted out of a loop without calls by LICM, and an AR begun by
// another thread during the loop would go unseen.  On x86 it is the same
// `mov`.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"
#include "Pass.h"

#include "vigil/atomic.h"

#include "llvm/IR/CFG.h"
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

/// The kinds of what a region and the regions chained to it (their first
/// access is one of its ends) can still access: a fixed point, since a
/// loop chains a region to itself.
std::vector<unsigned> laterKinds(const FunctionRegions &FR) {
  std::map<unsigned, unsigned> ByFirst; // access -> region index
  std::vector<unsigned> Later(FR.Regions.size(), 0);
  for (unsigned I = 0; I < FR.Regions.size(); ++I) {
    ByFirst[FR.Regions[I].First] = I;
    for (unsigned E : FR.Regions[I].Ends)
      Later[I] |= FR.Accesses[E].Kind;
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 0; I < FR.Regions.size(); ++I)
      for (unsigned E : FR.Regions[I].Ends) {
        auto It = ByFirst.find(E);
        if (It == ByFirst.end() || (Later[It->second] & ~Later[I]) == 0)
          continue;
        Later[I] |= Later[It->second];
        Changed = true;
      }
  }
  return Later;
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
    Ar = StructType::get(C, {I32, I32, Ptr, Loc, I8, I8, I8, I8, I8, I8, I8, I8});
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

/// Clears region R on every edge after which none of its ends can come:
/// `x = 0; if (c) x = 1;` leaves the region of `x = 0` open on the path
/// where c is false, and without this it would stay open until the
/// function returns, holding other threads for the timeout (main() never
/// returns while the workers run).  Block-level: the blocks that can still
/// reach an end, entered from the first access.
void clearDeadEdges(const FunctionRegions &FR, const Region &R, FunctionCallee Clear) {
  SmallPtrSet<BasicBlock *, 16> CanEnd;
  SmallVector<BasicBlock *, 16> Work;
  for (unsigned E : R.Ends)
    if (CanEnd.insert(FR.Accesses[E].I->getParent()).second)
      Work.push_back(FR.Accesses[E].I->getParent());
  while (!Work.empty())
    for (BasicBlock *P : predecessors(Work.pop_back_val()))
      if (CanEnd.insert(P).second)
        Work.push_back(P);
  // a block whose last access of R is an end has finished R on every path
  SmallPtrSet<const Instruction *, 8> EndAt;
  for (unsigned E : R.Ends)
    EndAt.insert(FR.Accesses[E].I);
  auto EndsIt = [&](BasicBlock *BB) {
    for (Instruction &I : reverse(*BB)) {
      if (&I == FR.Accesses[R.First].I)
        return false;
      if (EndAt.count(&I))
        return true;
    }
    return false;
  };
  BasicBlock *FirstBB = FR.Accesses[R.First].I->getParent();
  SmallPtrSet<BasicBlock *, 16> Seen{FirstBB};
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 4> Dead;
  Work.push_back(FirstBB);
  while (!Work.empty()) {
    BasicBlock *BB = Work.pop_back_val();
    for (BasicBlock *S : successors(BB)) {
      if (!CanEnd.count(S)) {
        if (!S->isEHPad() && !EndsIt(BB))
          Dead.push_back({BB, S});
      } else if (Seen.insert(S).second) {
        Work.push_back(S);
      }
    }
  }
  for (auto [From, To] : Dead) {
    BasicBlock *At = To->getSinglePredecessor() ? To : SplitEdge(From, To);
    IRBuilder<> B(&*At->getFirstInsertionPt());
    B.CreateCall(Clear, {B.getInt32(R.Id), B.getInt32(1)})
        ->setDebugLoc(FR.Accesses[R.First].I->getDebugLoc());
  }
}

void AtomicRegions::instrumentFunction(FunctionRegions &FR) {
  Types T(M.getContext());
  FunctionCallee Begin = M.getOrInsertFunction(
      "__vigil_ar_begin", FunctionType::get(T.Void, {T.I32, T.Ptr, T.I64}, false));
  FunctionCallee End = M.getOrInsertFunction(
      "__vigil_ar_end", FunctionType::get(T.Void, {T.I32, T.Ptr}, false));
  FunctionCallee Clear = M.getOrInsertFunction(
      "__vigil_ar_clear", FunctionType::get(T.Void, {T.I32, T.I32}, false));
  const DataLayout &DL = M.getDataLayout();
  // every begin first: a read that is a B and also an A is the begin's read
  for (Region &R : FR.Regions) {
    SharedAccess &A = FR.Accesses[R.First];
    Annotated.insert(A.I);
    auto *LI = dyn_cast<LoadInst>(A.I);
    if (LoadInst *Dead = LI ? beginRead(M, LI, R.Id, DL) : nullptr) {
      ReadByBegin.push_back(Dead);
      ReadByRuntime.insert(Dead);
    } else {
      IRBuilder<> B(A.I);
      Value *V = B.getInt64(0);
      if (auto *SI = dyn_cast<StoreInst>(A.I)) {
        Type *Ty = SI->getValueOperand()->getType();
        if (Ty->isPointerTy() || ((Ty->isIntegerTy() || Ty->isFloatingPointTy()) &&
                                  DL.getTypeSizeInBits(Ty) <= 64))
          V = toI64(B, SI->getValueOperand(), DL);
      }
      B.CreateCall(Begin, {B.getInt32(R.Id), A.Ptr, V})->setDebugLoc(A.I->getDebugLoc());
    }
  }
  for (Region &R : FR.Regions) {
    for (unsigned E : R.Ends) {
      SharedAccess &S = FR.Accesses[E];
      unsigned EndId = EndRows.size();
      EndRows.push_back(ConstantStruct::get(
          T.End, {ConstantInt::get(T.I32, R.Id), ConstantInt::get(T.I8, S.Kind),
                  ConstantInt::get(T.I8, S.Size), ConstantInt::get(T.I16, 0),
                  locConst(M, T, locOf(S.I))}));
      if (E == R.First) // a loop: the next begin ends it (atomic.h)
        continue;
      auto *LI = dyn_cast<LoadInst>(S.I);
      if (LoadInst *Dead = LI && !ReadByRuntime.count(LI) ? endRead(M, LI, EndId, DL) : nullptr) {
        ReadByBegin.push_back(Dead);
        ReadByRuntime.insert(Dead);
        Annotated.insert(Dead); // no check on a read the runtime makes
        continue;
      }
      IRBuilder<> After(S.I->getNextNode());
      After.CreateCall(End, {After.getInt32(EndId), S.Ptr})
          ->setDebugLoc(S.I->getDebugLoc());
    }
  }
  if (FR.Regions.empty())
    return;
  for (Region &R : FR.Regions)
    clearDeadEdges(FR, R, Clear);
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
  ArrayType *FilterTy = filterType(M.getContext());
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
    checkAccess(I, P, SiteId, Write, Access, Filter);
  }
}

/// The inline check of one access.  A write is checked before it: the
/// runtime holds it while an AR it would break is open; a write the runtime
/// can exchange is also checked after it (AtomicExchange.cpp), which closes
/// the window between the first check and the store.  A read is read again
/// if an AR was open at it: a check before the read leaves a window between
/// the filter's load and the read in which another thread can begin an AR
/// and write (measured on mysql-791: a row lost in 15-30% of the runs).  A
/// check after it alone misses an AR that began and ended while the reader
/// was preempted between its read and the check (mysql-791 again: about 1
/// run in 300 under load lost a row with nothing reported).  So the bucket's
/// word, which counts the ends too (include/vigil/atomic.h), is loaded
/// before and after the read: an open count or a changed word sends the read
/// to the runtime.  The read again is the runtime's own
/// (`__vigil_access_read`) when it can make it in one instruction: it looks
/// at the ARs once more after it, since an AR can begin between its wait
/// and a read made here (measured on mysql-791: the bucket was set by the
/// region that ends where the breaking one begins, the wait found nothing
/// to wait for, and the read made here saw LOG_CLOSED).  The acquire load
/// and fence keep the compiler from moving the read out from between the
/// two loads of the word (x86 does not reorder loads; neither emits an
/// instruction there).
void AtomicRegions::checkAccess(Instruction *I, Value *P, unsigned SiteId, bool Write,
                                FunctionCallee Access, GlobalVariable *Filter) {
  Types T(M.getContext());
  const DataLayout &DL = M.getDataLayout();
  Instruction *At = Write ? I : I->getNextNode();
  IRBuilder<> B(I);
  B.SetCurrentDebugLocation(I->getDebugLoc());
  Value *Idx = B.CreateAnd(B.CreateLShr(B.CreatePtrToInt(P, T.I64), 3),
                           VIGIL_ATOMIC_FILTER_SIZE - 1);
  Value *Busy;
  if (Write) {
    Busy = B.CreateICmpNE(loadFilterCount(B, Filter, Idx, AtomicOrdering::Monotonic, DL),
                          B.getInt8(0));
  } else {
    Value *Word = filterWord(B, Filter, Idx);
    LoadInst *Before = B.CreateLoad(T.I32, Word);
    Before->setAtomic(AtomicOrdering::Acquire);
    Before->setAlignment(Align(4));
    B.SetInsertPoint(At);
    B.SetCurrentDebugLocation(I->getDebugLoc());
    B.CreateFence(AtomicOrdering::Acquire);
    LoadInst *After = B.CreateLoad(T.I32, Word);
    After->setAtomic(AtomicOrdering::Monotonic);
    After->setAlignment(Align(4));
    Value *Moved = B.CreateOr(B.CreateXor(Before, After),
                              B.CreateAnd(Before, VIGIL_ATOMIC_FILTER_COUNT));
    Busy = B.CreateICmpNE(Moved, B.getInt32(0));
  }
  Instruction *Then = SplitBlockAndInsertIfThen(
      Busy, At, false, MDBuilder(M.getContext()).createUnlikelyBranchWeights());
  IRBuilder<> S(Then);
  S.SetCurrentDebugLocation(I->getDebugLoc());
  Instruction *Again = Write ? nullptr
                             : readAgain(M, cast<LoadInst>(I), SiteId, M.getDataLayout(), S);
  if (!Again)
    S.CreateCall(Access, {P, S.getInt32(SiteId)});
  if (Write) {
    if (AtomicRMWInst *X = exchangeWrite(cast<StoreInst>(I), M.getDataLayout()))
      secondCheck(M, X, Filter, Idx, SiteId, M.getDataLayout());
    return;
  }
  if (!Again)
    S.Insert(Again = I->clone());
  BasicBlock *Tail = At->getParent();
  PHINode *Phi = PHINode::Create(I->getType(), 2, "", Tail->begin());
  I->replaceUsesWithIf(Phi, [&](Use &U) { return U.getUser() != Phi; });
  Phi->addIncoming(I, I->getParent());
  Phi->addIncoming(Again, Then->getParent());
  Phi->setDebugLoc(I->getDebugLoc());
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
  for (FunctionRegions &FR : Fns) {
    std::vector<unsigned> Later = laterKinds(FR);
    for (unsigned RI = 0; RI < FR.Regions.size(); ++RI) {
      Region &R = FR.Regions[RI];
      SharedAccess &A = FR.Accesses[R.First];
      unsigned Seconds = 0;
      for (unsigned E : R.Ends)
        Seconds |= FR.Accesses[E].Kind;
      ArRows.push_back(ConstantStruct::get(
          T.Ar, {ConstantInt::get(T.I32, A.Var), ConstantInt::get(T.I32, R.FunctionFirst),
                 str(M, FR.F->getName()), locConst(M, T, locOf(A.I)),
                 ConstantInt::get(T.I8, A.Kind), ConstantInt::get(T.I8, Seconds),
                 ConstantInt::get(T.I8, watchOf(A.Kind, Seconds)),
                 ConstantInt::get(T.I8, A.Size), ConstantInt::get(T.I8, Later[RI]),
                 ConstantInt::get(T.I8, 0), ConstantInt::get(T.I8, 0),
                 ConstantInt::get(T.I8, 0)}));
    }
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
  for (LoadInst *LI : ReadByBegin) // every table and check is made: nothing refers to it
    LI->eraseFromParent();
  ReadByBegin.clear();
}

void AtomicRegions::explain() const {
  const DataLayout &DL = M.getDataLayout();
  json::Array Functions;
  unsigned NRegions = 0, NProtected = 0;
  std::string Text;
  raw_string_ostream OS(Text);
  for (const FunctionRegions &FR : Fns) {
    json::Array Regions;
    std::vector<unsigned> Later = laterKinds(FR);
    NProtected += FR.Protected;
    OS << "function " << FR.F->getName() << ": " << FR.Regions.size() << " ARs";
    if (FR.Protected)
      OS << ", " << FR.Protected << " pairs under a lock left out";
    OS << "\n";
    for (unsigned RI = 0; RI < FR.Regions.size(); ++RI) {
      const Region &R = FR.Regions[RI];
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
      OS << "  (watch remote " << kindName(W) << "s";
      if (Later[RI] != Seconds) // a chained region accesses it again
        OS << "; then " << kindName(Later[RI]) << "s it";
      OS << ")\n";
      Regions.push_back(json::Object{{"id", R.Id},
                                     {"variable", Var},
                                     {"first", json::Object{{"kind", kindName(A.Kind)},
                                                            {"location", locText(locOf(A.I))}}},
                                     {"ends", std::move(Ends)},
                                     {"watch", kindName(W)},
                                     {"later", kindName(Later[RI])}});
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
