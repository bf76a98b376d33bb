//===- AtomicWaits.cpp - loops that wait for another thread -------------===//
//
// A loop that exits on the value of an atomic or volatile load waits for
// another thread to store it: a hand-made barrier, a join on a flag, a
// ready bit (`while (__atomic_load_n(&arrived, ACQUIRE) < n)`).  After it,
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

/// Does this conditional branch stay in a cycle on one side and leave it
/// on the other (a loop's exit test)?
bool exitsLoop(const BranchInst &BI) {
  const BasicBlock *BB = BI.getParent();
  bool Stays = false, Leaves = false;
  for (const BasicBlock *S : successors(BB))
    (isPotentiallyReachable(S, BB) ? Stays : Leaves) = true;
  return Stays && Leaves;
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
      if (LI && exitsLoop(*BI))
        WaitLoads.insert(LI);
    }
  }
}

} // namespace pass
} // namespace vigil
