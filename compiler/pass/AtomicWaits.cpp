//===- AtomicWaits.cpp - loops that wait for another thread -------------===//
//
// A loop that does nothing but test an atomic or volatile load (and yield
// or sleep) waits for another thread to store it: a hand-made barrier, a
// join on a flag, a ready bit (`while (__atomic_load_n(&arrived, ACQUIRE)
// < n)`).  A loop that works and tests a stop flag each time round is not
// one (mysql-3596's connection loop: cutting its pairs there changed which
// regions find mode paused).  After it,
// the other thread's writes are meant to be seen, as after
// pthread_barrier_wait or pthread_join, so no pair of accesses spans it
// (lockEffect -3).  Without this, a harness's spin barrier left a pair of
// reads of `obj->vobj` before and after the round's barrier, and the next
// round's object at the same address was reported (apache-21287/fixed.c).
//
// Only loads: a loop on an exchange or compare-and-swap acquires something
// (a spin lock), and a pair across a lock acquire is exactly the bug
// `tmp = x; lock(); x = tmp + 1;`, so those stay as they are.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
/// The atomic or volatile load V is computed from, through compares,
/// casts and bit operations (a few steps), or null.
const LoadInst *waitedLoad(const Value *V, int Depth = 0) {
  if (Depth > 4)
    return nullptr;
  if (auto *LI = dyn_cast<LoadInst>(V))
    return LI->isAtomic() || LI->isVolatile() ? LI : nullptr;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !(isa<CmpInst>(I) || isa<CastInst>(I) || isa<BinaryOperator>(I) ||
              isa<FreezeInst>(I)))
    return nullptr;
  for (const Value *Op : I->operands())
    if (const LoadInst *LI = waitedLoad(Op, Depth + 1))
      return LI;
  return nullptr;
}

/// A call a waiting loop may make: yield, sleep, a pause hint.
bool waitsOnly(const CallBase &CB) {
  if (CB.isInlineAsm())
    return true; // `pause`, a compiler barrier
  const Function *F = CB.getCalledFunction();
  if (!F)
    return false;
  StringRef N = F->getName();
  return F->isIntrinsic() || N == "sched_yield" || N == "usleep" || N == "nanosleep" ||
         N == "clock_nanosleep" || N == "pthread_yield" || N == "sleep";
}

/// Does I change memory or call something a wait would not?  (An ordered
/// load or a fence counts as a write for LLVM; not here.)
bool works(const Instruction &I) {
  if (auto *CB = dyn_cast<CallBase>(&I))
    return !waitsOnly(*CB);
  if (isa<LoadInst>(I) || isa<FenceInst>(I))
    return false;
  return I.mayWriteToMemory();
}

/// Does this conditional branch test the exit of a loop that only waits:
/// one side stays in a cycle back to the branch, the other leaves it, and
/// the cycle's blocks (at most a few) store nothing and call nothing but
/// yields and sleeps?  A loop that works and tests a stop flag
/// (`for (; !atomic_load(&stop); ) serve();`) is not a wait.
bool exitsWaitLoop(const BranchInst &BI) {
  const BasicBlock *BB = BI.getParent();
  const BasicBlock *Stay = nullptr;
  bool Leaves = false;
  for (const BasicBlock *S : successors(BB))
    if (isPotentiallyReachable(S, BB))
      Stay = S;
    else
      Leaves = true;
  if (!Stay || !Leaves)
    return false;
  SmallVector<const BasicBlock *, 8> Work{Stay};
  SmallPtrSet<const BasicBlock *, 8> Seen{BB};
  while (!Work.empty()) {
    const BasicBlock *B = Work.pop_back_val();
    if (!Seen.insert(B).second)
      continue;
    if (Seen.size() > 8 || !isPotentiallyReachable(B, BB))
      return false; // a loop body of its own, or a way out
    for (const Instruction &I : *B)
      if (works(I))
        return false;
    for (const BasicBlock *S : successors(B))
      Work.push_back(S);
  }
  for (const Instruction &I : *BB)
    if (works(I))
      return false;
  return true;
}
} // namespace

void SharedMemory::findWaitLoops(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    for (Instruction &I : instructions(F)) {
      auto *BI = dyn_cast<BranchInst>(&I);
      if (!BI || !BI->isConditional())
        continue;
      const LoadInst *LI = waitedLoad(BI->getCondition());
      if (LI && exitsWaitLoop(*BI))
        WaitLoads.insert(LI);
    }
  }
}

} // namespace pass
} // namespace vigil
