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
// settling and a joint fast case for the site (emitOrSiteCases).  What is left to the runtime: every alternative failing (the
// report), a second value tuple, and whatever is not plain.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"

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

/// The site of an OR assertion, before the per-alternative steps: one
/// load of the packed fast bytes and a switch on the joint states a passing
/// program most likely brings, one alternative ready for the site (a state
/// before it where the site is a plain transition) and every other one
/// not begun (fast state 1).  Each case's result is computed here from the
/// same rows the generic code reads (no SLOW, no IGNORE: no comparison of
/// captured values is needed, and they are stored, as the generic path
/// does), so the case stores the packed result with one store instead of
/// a load, a lookup, two tests and a select per alternative (K: about 48
/// instructions at the site, three alternatives).  Anything else goes to
/// Generic, left in B.  Bytes past the alternatives are 0 (abi.h: touching
/// stores the whole word; nothing else writes them).
void Instrumenter::emitOrSiteCases(IRBuilder<> &B, unsigned A, Value *Bound,
                                   Value *Inst, ArrayRef<Value *> Caps,
                                   BasicBlock *Ret) {
  unsigned N = As[A].Alternatives.size();
  if (N < 2 || N > 8)
    return;
  unsigned Bytes = N <= 2 ? 2 : N <= 4 ? 4 : 8;
  std::vector<std::vector<uint8_t>> Rows;
  for (unsigned Alt = 0; Alt < N; ++Alt)
    Rows.push_back(siteRow(A, Alt));
  auto Plain = [&](unsigned Alt, unsigned Fs) {
    uint8_t V = Fs < Rows[Alt].size() ? Rows[Alt][Fs] : uint8_t(VIGIL_FAST_SLOW);
    return V != VIGIL_FAST_SLOW && V != VIGIL_FAST_IGNORE;
  };
  // (joint state in, joint state out, hot)
  std::map<uint64_t, std::pair<uint64_t, bool>> Cases;
  for (unsigned I = 0; I < N; ++I) {
    const HostAlt &H = *Host[A][I];
    for (unsigned D = 0; D < H.Au.nstates && Cases.size() < 16; ++D) {
      if ((H.Au.states[D].flags & VIGIL_SF_PAST_SITE) || !Plain(I, D + 1) ||
          !vigil_fast_eligible(&H.M))
        continue;
      uint64_t In = 0, Out = 0;
      bool OK = true;
      for (unsigned J = 0; J < N && OK; ++J) {
        unsigned Fs = J == I ? D + 1 : 1;
        OK = Plain(J, Fs);
        In |= uint64_t(Fs) << (8 * J);
        Out |= uint64_t(OK ? Rows[J][Fs] : 0) << (8 * J);
      }
      if (OK)
        Cases.emplace(In, std::make_pair(Out, I == 0 && H.HotSym[D] == SymSite));
    }
  }
  if (Cases.empty())
    return;
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Generic = BasicBlock::Create(C, "or.generic", F);
  Type *W = IntegerType::get(C, 8 * Bytes);
  Value *Joint = B.CreateLoad(W, at(B, Inst, VIGIL_HDR_FAST), "or.joint");
  SwitchInst *Sw = B.CreateSwitch(Joint, Generic);
  std::vector<uint32_t> Weights{1};
  unsigned Off = VIGIL_CAPTURES_OFFSET(N);
  for (auto &[In, OutHot] : Cases) {
    BasicBlock *BB = BasicBlock::Create(C, "or.site", F);
    IRBuilder<> CB(BB);
    for (unsigned I = 0; I < Caps.size(); ++I)
      CB.CreateStore(Caps[I], at(CB, Inst, Off + 8 * I));
    CB.CreateStore(ConstantInt::get(W, OutHot.first), at(CB, Inst, VIGIL_HDR_FAST));
    bool Done = false;
    for (unsigned J = 0; J < N; ++J)
      Done |= ((OutHot.first >> (8 * J)) & 0xff) == Host[A][J]->Au.nstates + 1u;
    if (Done && !Eager[A]) // eager: the exit decides (Hooks.cpp emitEagerEnd)
      emitOrSettle(CB, Bound, Inst);
    CB.CreateBr(Ret);
    Sw->addCase(cast<ConstantInt>(ConstantInt::get(W, In)), BB);
    Weights.push_back(OutHot.second ? 1000 : 10);
  }
  Sw->setMetadata(LLVMContext::MD_prof, MDBuilder(C).createBranchWeights(Weights));
  B.SetInsertPoint(Generic);
}

} // namespace pass
} // namespace vigil
