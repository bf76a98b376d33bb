//===- AtomicRegions.cpp - pairs of accesses that should be atomic -------===//
//
// Kivati's annotator (§3.1) runs an intra-procedural, path-insensitive
// data-flow analysis that pairs every access to a shared variable with the
// accesses to the same variable that can precede it, "conceptually similar
// to a reaching-definition analysis except that it considers all preceding
// accesses".  The same here, with three changes:
//
//  * "the same variable" is must-alias (LLVM's alias analysis on the two
//    locations: p->count and q->count are one variable when p == q is
//    known, `a` and `a` through two casts too), not the same name;
//  * a pair under one held lock is no AR: a second fact set records which
//    reaching accesses lost the protection of every lock held at them
//    (an unlock, a condition wait, a wrapper of either); a pair is
//    protected when its first access kept it and a lock is held at the
//    second (must: on every path);
//  * each access also learns whether it is reached from the function's
//    entry without a previous access to its variable (a pseudo-access per
//    variable): if not, and every access reaching it opens an AR, it is
//    always inside an AR of its own thread and needs no access check.
//
// Why not MemorySSA: it links a read to the write that clobbers it, but
// reads are not chained to reads, and the read-read pairs are half of the
// patterns (RWR: a remote write between two local reads).
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"

#include "vigil/atomic.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
/// Functions with more accesses than this are analysed in part: the first
/// MaxAccesses accesses only (the rest are never ARs; a warning says so).
constexpr unsigned MaxAccesses = 4096;

struct FlowState {
  BitVector Reach;   // accesses (and entry pseudo-accesses) that can be last
  BitVector Unprot;  // of those, the ones no lock has covered since
  int Held = -1;     // locks held on every path; -1: not reached yet
  bool operator==(const FlowState &O) const {
    return Held == O.Held && Reach == O.Reach && Unprot == O.Unprot;
  }
};

struct Flow {
  Flow(Function &F, const SharedMemory &Mem, FunctionRegions &FR)
      : F(F), Mem(Mem), FR(FR) {}
  Function &F;
  const SharedMemory &Mem;
  FunctionRegions &FR;
  unsigned NClasses = 0;
  std::vector<BitVector> ClassMask; // per class: its accesses + pseudo
  DenseMap<const Instruction *, unsigned> AccessAt;
  /// (first, second) -> protected on every path
  std::map<std::pair<unsigned, unsigned>, bool> Pairs;
  std::vector<bool> Exposed; // per access: reached from entry

  unsigned size() const { return FR.Accesses.size() + NClasses; }

  void meet(FlowState &Into, const FlowState &From) const {
    if (From.Held < 0)
      return;
    if (Into.Held < 0) {
      Into = From;
      return;
    }
    Into.Reach |= From.Reach;
    Into.Unprot |= From.Unprot;
    Into.Held = std::min(Into.Held, From.Held);
  }

  void access(FlowState &S, unsigned X, bool Record) {
    unsigned C = FR.Accesses[X].Class;
    if (Record) {
      for (int A = S.Reach.find_first(); A >= 0; A = S.Reach.find_next(A)) {
        if (!ClassMask[C].test(A))
          continue;
        if (unsigned(A) >= FR.Accesses.size()) {
          Exposed[X] = true;
          continue;
        }
        bool Prot = !S.Unprot.test(A) && S.Held > 0;
        auto It = Pairs.try_emplace({unsigned(A), X}, Prot).first;
        It->second = It->second && Prot;
      }
    }
    S.Reach.reset(ClassMask[C]);
    S.Unprot.reset(ClassMask[C]);
    S.Reach.set(X);
    if (S.Held <= 0)
      S.Unprot.set(X);
  }

  void transfer(BasicBlock &BB, FlowState &S, bool Record) {
    for (Instruction &I : BB) {
      auto It = AccessAt.find(&I);
      if (It != AccessAt.end()) {
        access(S, It->second, Record);
        continue;
      }
      if (Mem.waits(I)) { // a loop waiting for another thread: as a barrier
        S = acrossBackEdge(S);
        continue;
      }
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      int E = Mem.lockEffect(*CB);
      if (E == -3) {
        // another thread's accesses before a join are meant to be seen
        // after it (Figure 5's required violation): nothing pairs across
        S = acrossBackEdge(S);
        continue;
      }
      if (E == 1)
        ++S.Held;
      if (E < 0)
        S.Unprot |= S.Reach;
      if (E == -1 && S.Held > 0)
        --S.Held;
    }
  }

  /// A pair whose only connection is a loop's back edge spans the rest of
  /// one iteration and the start of the next: `counter++` in a loop would
  /// pair its write with the next iteration's read, `while (!flag)` its
  /// read with the next read (the paper's required violation, Figure 5),
  /// `p = p->next` two different objects.  Those are not atomic regions a
  /// programmer means; they would hold other threads for whole iterations
  /// and report spin-waits.  Kivati's path-insensitive analysis kept them;
  /// here a back edge turns every fact into "reached, no known first
  /// access" (the accesses after it are checked, not paired).  A join or a
  /// barrier does the same.
  FlowState acrossBackEdge(const FlowState &S) const {
    FlowState T{BitVector(size()), BitVector(size()), S.Held};
    for (unsigned C = 0; C < NClasses; ++C)
      if (S.Reach.anyCommon(ClassMask[C])) {
        T.Reach.set(FR.Accesses.size() + C);
        T.Unprot.set(FR.Accesses.size() + C);
      }
    return T;
  }

  using BlockOrder = DenseMap<BasicBlock *, unsigned>;

  static bool backEdge(BasicBlock *P, BasicBlock *BB, const BlockOrder &Order) {
    return Order.lookup(P) >= Order.lookup(BB);
  }

  /// The successor of a loop header that its first test never takes, or
  /// null.  The pass sees loops before rotation: `for (t = 0; t < 4; t++)`
  /// tests t < 4 in the header, and the edge that skips the body would
  /// let an access before the loop pair with one after it, across the
  /// pthread_join in the body, into a region that spans the threads' whole
  /// life.  Only the plain case: the header compares one of its phis with
  /// a constant and the phi is a constant on every edge into the loop.
  static BasicBlock *neverFirst(BasicBlock *H, const BlockOrder &Order) {
    auto *Br = dyn_cast<BranchInst>(H->getTerminator());
    auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
    if (!Cmp || Br->getSuccessor(0) == Br->getSuccessor(1))
      return nullptr;
    bool PhiFirst = isa<PHINode>(Cmp->getOperand(0));
    auto *Phi = dyn_cast<PHINode>(Cmp->getOperand(PhiFirst ? 0 : 1));
    auto *Bound = dyn_cast<ConstantInt>(Cmp->getOperand(PhiFirst ? 1 : 0));
    if (!Phi || !Bound || Phi->getParent() != H)
      return nullptr;
    int Taken = -1;
    bool Loop = false;
    for (BasicBlock *P : predecessors(H)) {
      if (backEdge(P, H, Order)) {
        Loop = true;
        continue;
      }
      auto *Init = dyn_cast<ConstantInt>(Phi->getIncomingValueForBlock(P));
      if (!Init)
        return nullptr;
      const APInt &L = PhiFirst ? Init->getValue() : Bound->getValue();
      const APInt &R = PhiFirst ? Bound->getValue() : Init->getValue();
      int T = ICmpInst::compare(L, R, Cmp->getPredicate()) ? 0 : 1;
      if (Taken >= 0 && T != Taken)
        return nullptr;
      Taken = T;
    }
    return Loop && Taken >= 0 ? Br->getSuccessor(1 - Taken) : nullptr;
  }

  /// What reaches BB from its predecessors; the edge a header's first test
  /// never takes carries only what came around the loop (Skip, OutBack).
  FlowState meetPreds(BasicBlock *BB, const BlockOrder &Order,
                      DenseMap<BasicBlock *, FlowState> &Out,
                      DenseMap<BasicBlock *, BasicBlock *> &Skip,
                      DenseMap<BasicBlock *, FlowState> &OutBack) const {
    FlowState S{BitVector(size()), BitVector(size()), -1};
    for (BasicBlock *P : predecessors(BB)) {
      auto SkipIt = Skip.find(P);
      if (SkipIt != Skip.end() && SkipIt->second == BB) {
        auto It = OutBack.find(P);
        if (It != OutBack.end())
          meet(S, It->second);
        continue;
      }
      auto It = Out.find(P);
      if (It == Out.end())
        continue;
      meet(S, backEdge(P, BB, Order) ? acrossBackEdge(It->second) : It->second);
    }
    return S;
  }

  /// A header's out state counting only the loop's back edges.
  FlowState aroundLoop(BasicBlock *H, const BlockOrder &Order,
                       DenseMap<BasicBlock *, FlowState> &Out) {
    FlowState S{BitVector(size()), BitVector(size()), -1};
    for (BasicBlock *P : predecessors(H)) {
      auto It = Out.find(P);
      if (It != Out.end() && backEdge(P, H, Order))
        meet(S, acrossBackEdge(It->second));
    }
    if (S.Held >= 0)
      transfer(*H, S, false);
    return S;
  }

  void run() {
    ReversePostOrderTraversal<Function *> RPO(&F);
    BlockOrder Order;
    unsigned N = 0;
    for (BasicBlock *BB : RPO)
      Order[BB] = N++;
    DenseMap<BasicBlock *, BasicBlock *> Skip;
    for (BasicBlock *BB : RPO)
      if (BasicBlock *Never = neverFirst(BB, Order))
        Skip[BB] = Never;
    DenseMap<BasicBlock *, FlowState> In, Out, OutBack;
    FlowState Entry{BitVector(size()), BitVector(size()), 0};
    for (unsigned C = 0; C < NClasses; ++C) {
      Entry.Reach.set(FR.Accesses.size() + C);
      Entry.Unprot.set(FR.Accesses.size() + C);
    }
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (BasicBlock *BB : RPO) {
        FlowState S = BB == &F.getEntryBlock() ? Entry
                                               : meetPreds(BB, Order, Out, Skip, OutBack);
        if (S.Held < 0)
          continue;
        In[BB] = S;
        transfer(*BB, S, false);
        auto It = Out.find(BB);
        if (It == Out.end() || !(It->second == S)) {
          Out[BB] = S;
          Changed = true;
        }
        if (!Skip.count(BB))
          continue;
        FlowState Back = aroundLoop(BB, Order, Out);
        auto BackIt = OutBack.find(BB);
        if (Back.Held >= 0 && (BackIt == OutBack.end() || !(BackIt->second == Back))) {
          OutBack[BB] = Back;
          Changed = true;
        }
      }
    }
    for (BasicBlock *BB : RPO) {
      auto It = In.find(BB);
      if (It != In.end()) {
        FlowState S = It->second;
        transfer(*BB, S, true);
      }
    }
  }
};

bool accessOf(Instruction &I, Value *&Ptr, unsigned &Kind, Type *&Ty) {
  if (auto *LI = dyn_cast<LoadInst>(&I)) {
    if (!LI->isSimple())
      return false;
    Ptr = LI->getPointerOperand(), Kind = VIGIL_AR_READ, Ty = LI->getType();
    return true;
  }
  if (auto *SI = dyn_cast<StoreInst>(&I)) {
    if (!SI->isSimple())
      return false;
    Ptr = SI->getPointerOperand(), Kind = VIGIL_AR_WRITE;
    Ty = SI->getValueOperand()->getType();
    return true;
  }
  return false;
}

void collectAccesses(Function &F, const SharedMemory &Mem, FunctionRegions &FR) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  for (Instruction &I : instructions(F)) {
    Value *Ptr;
    unsigned Kind;
    Type *Ty;
    if (!accessOf(I, Ptr, Kind, Ty) ||
        Ptr->getType()->getPointerAddressSpace() != 0 ||
        !Mem.isShared(Ptr, DL))
      continue;
    if (FR.Accesses.size() == MaxAccesses) {
      errs() << "vigil: warning: " << F.getName() << ": more than "
             << MaxAccesses << " accesses to shared memory; the rest have no "
             << "atomic regions\n";
      break;
    }
    uint64_t Size = DL.getTypeStoreSize(Ty);
    SharedAccess A;
    A.I = &I, A.Ptr = Ptr, A.Kind = Kind, A.Size = Size <= 8 ? Size : 0;
    FR.Accesses.push_back(A);
  }
}

/// Must-alias classes: the first access of each class is its
/// representative; an access joins the first class whose representative
/// it must-aliases.
unsigned classify(FunctionRegions &FR, AAResults &AA) {
  std::vector<unsigned> Reps;
  for (unsigned I = 0; I < FR.Accesses.size(); ++I) {
    SharedAccess &A = FR.Accesses[I];
    MemoryLocation LA = MemoryLocation::get(A.I);
    unsigned C = 0;
    for (; C < Reps.size(); ++C) {
      const SharedAccess &R = FR.Accesses[Reps[C]];
      if (R.Ptr->stripPointerCasts() == A.Ptr->stripPointerCasts() ||
          AA.alias(MemoryLocation::get(R.I), LA) == AliasResult::MustAlias)
        break;
    }
    if (C == Reps.size())
      Reps.push_back(I);
    A.Class = C;
  }
  return Reps.size();
}

bool whitelisted(const SharedAccess &A, const std::string &Var,
                 const Whitelist &WL) {
  if (WL.variable(Var))
    return true;
  const DebugLoc &DL = A.I->getDebugLoc();
  return DL && WL.location(DL->getFilename(), DL->getLine());
}
} // namespace

FunctionRegions findRegions(Function &F, const SharedMemory &Mem,
                            AAResults &AA, const Whitelist &WL) {
  FunctionRegions FR;
  FR.F = &F;
  collectAccesses(F, Mem, FR);
  if (FR.Accesses.empty())
    return FR;
  Flow Fl(F, Mem, FR);
  Fl.NClasses = classify(FR, AA);
  Fl.ClassMask.assign(Fl.NClasses, BitVector(Fl.size()));
  for (unsigned I = 0; I < FR.Accesses.size(); ++I) {
    Fl.ClassMask[FR.Accesses[I].Class].set(I);
    Fl.AccessAt[FR.Accesses[I].I] = I;
  }
  for (unsigned C = 0; C < Fl.NClasses; ++C)
    Fl.ClassMask[C].set(FR.Accesses.size() + C);
  Fl.Exposed.assign(FR.Accesses.size(), false);
  Fl.run();

  const DataLayout &DL = F.getParent()->getDataLayout();
  std::map<unsigned, std::vector<unsigned>> ByFirst;
  std::vector<bool> Uncovered(FR.Accesses.size(), false);
  for (auto &[Pair, Prot] : Fl.Pairs) {
    const SharedAccess &A = FR.Accesses[Pair.first];
    if (Prot || whitelisted(A, Mem.describe(A, DL).Name, WL)) {
      FR.Protected += Prot;
      Uncovered[Pair.second] = true;
      continue;
    }
    ByFirst[Pair.first].push_back(Pair.second);
  }
  for (auto &[First, Ends] : ByFirst) {
    Region R;
    R.First = First;
    R.Ends = Ends;
    FR.Regions.push_back(R);
  }
  for (unsigned I = 0; I < FR.Accesses.size(); ++I)
    FR.Accesses[I].Covered = !Fl.Exposed[I] && !Uncovered[I];
  return FR;
}

} // namespace pass
} // namespace vigil
