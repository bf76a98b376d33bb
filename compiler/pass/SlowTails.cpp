//===- SlowTails.cpp - no stack frame on the fast path for a rare call ----===//
//
// An inline hook's runtime call is out of line, in a cold function
// (Hooks.cpp coldHook), and only its block needs the stack: the call's
// alignment (a push on x86-64).  Shrink-wrapping puts that set-up in the
// call's block when nothing after it needs the frame, but LLVM's
// ShrinkWrap counts an instruction that may touch memory without saying
// where (an empty asm with a memory clobber, an opaque volatile access) as
// a stack access once a block before it has used the stack: when the
// call's block and the fast path merge before such an instruction, the
// frame goes to the function's entry, a push and a pop on every call.
//
// After the LTO pipeline (nothing merges identical tails again before the
// frame is laid out) this gives the call's block a copy of the rest of the
// function where that rest is small and makes no call: the fast path's
// blocks then reach no block the call reaches, and its frame shrinks into
// the rare path.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <set>
#include <vector>

using namespace llvm;

namespace vigil {
namespace pass {

/// The most instructions a copied tail may have.
static const unsigned MaxTail = 8;

/// Whether I calls one of the pass's cold out-of-line functions.
static bool rareCall(const Instruction &I) {
  auto *CI = dyn_cast<CallInst>(&I);
  if (!CI)
    return false;
  Function *Callee = CI->getCalledFunction();
  return Callee && Callee->hasFnAttribute(Attribute::Cold) &&
         Callee->getName().starts_with("__vigil_");
}

/// The blocks reachable from Start, when they are few, make no call (an
/// asm statement or an intrinsic aside), hold nothing that must not be
/// duplicated, have no PHI and do not lead back to From: else empty.
static std::vector<BasicBlock *> smallTail(BasicBlock *Start, BasicBlock *From) {
  std::vector<BasicBlock *> Blocks{Start};
  std::set<BasicBlock *> Seen{Start};
  unsigned N = 0;
  for (size_t I = 0; I < Blocks.size(); ++I) {
    BasicBlock *B = Blocks[I];
    if (B == From || isa<PHINode>(B->front()) || B->isEHPad())
      return {};
    for (Instruction &Inst : *B) {
      if (isa<DbgInfoIntrinsic>(Inst))
        continue;
      if (++N > MaxTail)
        return {};
      if (Inst.getType()->isTokenTy())
        return {};
      if (auto *CB = dyn_cast<CallBase>(&Inst))
        if ((!CB->isInlineAsm() && !isa<IntrinsicInst>(CB)) ||
            CB->cannotDuplicate() || CB->isConvergent())
          return {};
      if (isa<CallBrInst>(Inst) || isa<IndirectBrInst>(Inst))
        return {};
    }
    for (BasicBlock *S : successors(B))
      if (Seen.insert(S).second)
        Blocks.push_back(S);
  }
  return Blocks;
}

PreservedAnalyses SlowTails::run(Function &F, FunctionAnalysisManager &) {
  bool Changed = false;
  std::vector<BasicBlock *> Rare;
  for (BasicBlock &B : F)
    for (Instruction &I : B)
      if (rareCall(I)) {
        Rare.push_back(&B);
        break;
      }
  for (BasicBlock *B : Rare) {
    auto *Br = dyn_cast<BranchInst>(B->getTerminator());
    if (!Br || !Br->isUnconditional())
      continue;
    BasicBlock *Succ = Br->getSuccessor(0);
    if (Succ->getSinglePredecessor()) // only the rare path goes there
      continue;
    std::vector<BasicBlock *> Tail = smallTail(Succ, B);
    if (Tail.empty())
      continue;
    ValueToValueMapTy VMap;
    std::vector<BasicBlock *> Copies;
    for (BasicBlock *T : Tail) {
      BasicBlock *Copy = CloneBasicBlock(T, VMap, ".rare", &F);
      VMap[T] = Copy;
      Copies.push_back(Copy);
    }
    remapInstructionsInBlocks(Copies, VMap);
    Br->setSuccessor(0, cast<BasicBlock>(VMap[Succ]));
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace pass
} // namespace vigil
