//===- HooksOr.cpp - top-level OR on the inline path ----------------------===//
//
// An assertion with several top-level alternatives used to leave the inline
// path twice per bound in its passing case: at the site, where the
// alternatives that had not begun fail (the runtime only marked them), and
// at the end of the bound, which had to ask the runtime whether some
// alternative held.  Both are plain (vigil/abi.h "Top-level OR inline"):
//   - the site's table (vigil_fast_site_or) sends such an alternative to a
//     dead fast state, which keeps the DFA state the failure is worded
//     from and ignores the rest of the bound; the runtime turns it into its
//     own lazy failure when it needs it (runtime/or.c);
//   - the first alternative to enter "done" settles the instance (settled
//     = 2, so the runtime knows to undo it if it is called later), and the
//     end of the bound finds nothing pending.
// The hooks' other code (Hooks.cpp) is unchanged; this file adds the
// settling.  What is left to the runtime: every alternative failing (the
// report), a second value tuple, and whatever is not plain.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"

#include <algorithm>
#include <cstddef>

using namespace llvm;

namespace vigil {
namespace pass {

/// Whether a step read from Row may leave the state as it is (done, dead):
/// then the symbol must not reach ever[], which words a dead alternative's
/// failure (the runtime's inert alternative ignores the event too).
bool Instrumenter::orDeadIn(const std::vector<uint8_t> &Row) {
  return std::find(Row.begin(), Row.end(), uint8_t(VIGIL_FAST_IGNORE)) != Row.end();
}

/// Settles the instance for an alternative that entered done, once: bytes
/// 40..41 (settled, dropped) are 0 unless another alternative settled it
/// already or the runtime dropped the bound's verdict.  settled = 2 tells
/// the runtime it was the inline path's (runtime/or.c undoes it).
void Instrumenter::emitOrSettle(IRBuilder<> &B, Value *Bound, Value *Inst) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Settle = BasicBlock::Create(C, "or.settle", F);
  BasicBlock *Cont = BasicBlock::Create(C, "or.settled", F);
  Value *Flags = B.CreateLoad(I16, at(B, Inst, VIGIL_HDR_SETTLED), "or.flags");
  B.CreateCondBr(B.CreateICmpEQ(Flags, ConstantInt::get(I16, 0)), Settle, Cont);
  B.SetInsertPoint(Settle);
  B.CreateStore(ConstantInt::get(I8, 2), at(B, Inst, VIGIL_HDR_SETTLED));
  bump(B, I64, at(B, Inst, VIGIL_HDR_PASSES), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), -1);
  B.CreateBr(Cont);
  B.SetInsertPoint(Cont);
}

/// After the stores of several alternatives' steps: settle if one of them
/// entered done (only rows that can produce done are tested), then Ret.
void Instrumenter::emitOrSettleSteps(IRBuilder<> &B, unsigned A, Value *Bound,
                                     Value *Inst, ArrayRef<Step> Steps,
                                     BasicBlock *Ret) {
  Value *Done = B.getFalse();
  bool Any = false;
  for (const Step &St : Steps) {
    uint8_t D = uint8_t(Host[A][St.Alt]->Au.nstates + 1u);
    if (std::find(St.Row.begin(), St.Row.end(), D) == St.Row.end())
      continue;
    Done = B.CreateOr(Done, B.CreateICmpEQ(St.Next, ConstantInt::get(I8, D)));
    Any = true;
  }
  if (!Any) {
    B.CreateBr(Ret);
    return;
  }
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Yes = BasicBlock::Create(C, "or.done", F);
  B.CreateCondBr(Done, Yes, Ret);
  B.SetInsertPoint(Yes);
  emitOrSettle(B, Bound, Inst);
  B.CreateBr(Ret);
}

} // namespace pass
} // namespace vigil
