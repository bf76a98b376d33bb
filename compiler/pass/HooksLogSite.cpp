//===- HooksLogSite.cpp - the site decided inline from the inline log -----===//
//
// Benchmarks G and H: events before the site carry values only the site
// captures, so nothing can be decided before it and every event was a
// runtime call (~3 000 instructions per bound against 37-50 by hand).  The
// inline log (HooksStore.cpp) made the events appends; here the site
// replays the log itself for an assertion vigil_fast_log_site accepts (one
// recording alternative, guideline mode, no free variables, Pre and Post
// disjoint): the entries whose CAPTURE words equal the site's, in order,
// through the DFA's `next` from state 0, then the site step.  That is the
// runtime's replay with an exact store (runtime/replay.c vg_replay_site:
// the same occurrences, the same order, vg_cand_step being `next` alone);
// the table is the same compiled DFA, not a second engine.  Whatever is
// not a plain transition (a missing one is a violation, the runtime words
// it) calls the runtime, which drains the log first and decides as before.
//
// After a plain site the instance is an ordinary fast instance past its
// site: fast[0] is the post-site state (or done, settled inline), the
// captures are the instance's, and fast[1] = n + 1 records that the site
// came after the first n entries.  Later Pre events are still logged (a
// second tuple's replay needs them); Post events take table steps.  If the
// runtime is called later in the bound it rebuilds the same history from
// the log (runtime/inline_log.c): the first n entries, the site with the
// instance's captures, then the rest, and takes fast[0] over.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
/// A constant byte table named Name.
GlobalVariable *byteTable(Module &M, ArrayRef<uint8_t> Bytes, const Twine &Name) {
  Constant *Init = ConstantDataArray::get(M.getContext(), Bytes);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, Name);
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  return GV;
}
} // namespace

/// Replays A's log for the site's captured words Caps from DFA state 0;
/// returns the DFA state reached (i8; nstates, the sink, when an entry had
/// no transition: the runtime reports it) and sets N to the entries it
/// read (i32); a symbol that is not logged goes to Slow.  Unmatched entries
/// are another tuple's: skipped, as vg_tuple_matches skips them.
Value *Instrumenter::emitLogReplay(IRBuilder<> &B, unsigned A, Value *Inst,
                                   ArrayRef<Value *> Caps, BasicBlock *Slow,
                                   Value *&N) {
  const HostAlt &H = *Host[A][0];
  const vigil_automaton &Au = H.Au;
  unsigned NS = H.M.nsymbols, Stride = logStride(A);
  Function *F = B.GetInsertBlock()->getParent();
  Value *HeadP = logHead(B, A, Inst);
  N = B.CreateTrunc(B.CreateLoad(I64, HeadP, "log.head"), I32, "log.n");
  BasicBlock *Pre = B.GetInsertBlock();
  BasicBlock *Loop = BasicBlock::Create(C, "replay", F);
  BasicBlock *Body = BasicBlock::Create(C, "replay.entry", F);
  BasicBlock *Latch = BasicBlock::Create(C, "replay.next", F);
  BasicBlock *Done = BasicBlock::Create(C, "replay.done", F);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  PHINode *I = B.CreatePHI(I32, 2, "i");
  PHINode *D = B.CreatePHI(I8, 2, "d");
  I->addIncoming(B.getInt32(0), Pre);
  D->addIncoming(B.getInt8(0), Pre);
  B.CreateCondBr(B.CreateICmpULT(I, N), Body, Done);
  B.SetInsertPoint(Body);
  Value *Word = B.CreateAdd(B.CreateMul(B.CreateZExt(I, I64), B.getInt64(Stride)),
                            B.getInt64(1));
  Value *EntryP = B.CreateInBoundsGEP(I64, HeadP, Word, "entry");
  Value *Sym = B.CreateLoad(I64, EntryP, "entry.symbol");
  SwitchInst *Sw = B.CreateSwitch(Sym, Slow); // no other symbol is logged
  PHINode *Next = PHINode::Create(I8, 0, "d.next");
  for (unsigned S = SymSite + 1; S < NS; ++S) {
    if (!((Au.alphabet >> S) & 1))
      continue;
    const vigil::Event &E = As[A].Symbols[S];
    // A missing transition leads to the sink (nstates), which keeps it:
    // the site's row says SLOW there, one test for the whole replay.
    std::vector<uint8_t> Row(Au.nstates + 1u, uint8_t(Au.nstates));
    for (unsigned Dd = 0; Dd < Au.nstates; ++Dd) {
      uint16_t T = Au.next[Dd * NS + S];
      if (T != VIGIL_NO_STATE)
        Row[Dd] = uint8_t(T);
    }
    BasicBlock *Case = BasicBlock::Create(C, "replay.s" + Twine(S), F);
    Sw->addCase(B.getInt64(S), Case);
    B.SetInsertPoint(Case);
    Value *Match = B.getTrue();
    for (unsigned K = 0; K < E.Values.size(); ++K)
      if (E.Values[K].Kind == VAL_CAPTURE)
        Match = B.CreateAnd(Match, B.CreateICmpEQ(
                                       B.CreateLoad(I64, B.CreateConstInBoundsGEP1_32(
                                                             I64, EntryP, 1 + K)),
                                       Caps[E.Values[K].Index]));
    GlobalVariable *GV = byteTable(M, Row, "vigil.replay");
    Value *T = B.CreateLoad(I8, B.CreateInBoundsGEP(I8, GV, B.CreateZExt(D, I64)));
    Value *Stepped = B.CreateSelect(Match, T, D);
    Next->addIncoming(Stepped, B.GetInsertBlock());
    B.CreateBr(Latch);
  }
  B.SetInsertPoint(Latch);
  B.Insert(Next);
  I->addIncoming(B.CreateAdd(I, B.getInt32(1)), Latch);
  D->addIncoming(Next, Latch);
  B.CreateBr(Loop);
  B.SetInsertPoint(Done);
  return D;
}

/// The site hook of a log-site assertion.  fast[0] == 1: replay the log,
/// take the site, become a fast instance past it.  Otherwise the ordinary
/// fast site step (past the site: the same captures are nothing to do;
/// fast[0] == 0, the runtime owns the instance: its call).
Function *Instrumenter::logSiteHook(unsigned A) {
  if (Function *F = SiteFns[A])
    return F;
  const HostAlt &H = *Host[A][0];
  const vigil_automaton &Au = H.Au;
  unsigned NCaps = As[A].Captures.size();
  std::vector<Type *> Params(NCaps, I64);
  Function *F = newHook("__vigil_log_site." + Twine(A), Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Replay = BasicBlock::Create(C, "replay.start", F);
  BasicBlock *Past = BasicBlock::Create(C, "past", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  emitTouch(B, A, Bound, Inst, Slow, Ret);
  std::vector<Value *> Caps;
  for (unsigned I = 0; I < NCaps; ++I)
    Caps.push_back(F->getArg(I));
  Value *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST), "fast");
  BasicBlock *NotFirst = BasicBlock::Create(C, "not.first", F);
  B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(1)), Replay, NotFirst,
                 MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(NotFirst); // a signal handler inside this very hook: ignored
  if (As[A].Locality == GLOBAL) // (under the lock: none, see emitTouch)
    B.CreateBr(Past);
  else
    B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(VIGIL_FAST_BUSY)), Ret, Past);

  B.SetInsertPoint(Past);
  std::vector<Step> Steps = emitSteps(B, A, SymSite, Inst);
  std::vector<std::pair<unsigned, Value *>> CapWords;
  for (unsigned I = 0; I < NCaps; ++I)
    CapWords.push_back({I, Caps[I]});
  emitSwitch(B, A, SymSite, Bound, Inst, Steps[0], CapWords, Slow, Ret);

  B.SetInsertPoint(Replay);
  Value *N = nullptr;
  Value *D = emitLogReplay(B, A, Inst, Caps, Slow, N);
  // The site from DFA state d: the fast state it enters (done when FINAL
  // in guideline mode, vigil/fastpath.h vigil_fast__enter), 0 when no
  // transition (the runtime reports it).
  std::vector<uint8_t> SiteRow(Au.nstates + 1u, VIGIL_FAST_SLOW); // (the sink)
  unsigned Done = Au.nstates + 1u;
  for (unsigned Dd = 0; Dd < Au.nstates; ++Dd) {
    uint16_t T = Au.next[Dd * H.M.nsymbols + SymSite];
    if (T == VIGIL_NO_STATE || (Au.states[Dd].flags & VIGIL_SF_PAST_SITE))
      continue; // (the replay never leaves phase 1: no site came before)
    SiteRow[Dd] = (Au.states[T].flags & VIGIL_SF_FINAL) ? Done : T + 1u;
  }
  GlobalVariable *GV = byteTable(M, SiteRow, "vigil.replay.site");
  Value *Next = B.CreateLoad(I8, B.CreateInBoundsGEP(I8, GV, B.CreateZExt(D, I64)),
                             "fast.next");
  BasicBlock *Take = BasicBlock::Create(C, "site.take", F);
  B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt8(VIGIL_FAST_SLOW)), Slow, Take);
  B.SetInsertPoint(Take);
  // Claimed, then written: a signal handler that took the site meanwhile
  // made the claim fail (its site stands; ours is the runtime's, a second
  // tuple), one that comes after the claim is ignored (VIGIL_FAST_BUSY).
  BasicBlock *Claimed = BasicBlock::Create(C, "site.claimed", F);
  Value *FastP = at(B, Inst, VIGIL_HDR_FAST);
  if (As[A].Locality == GLOBAL) { // under the bound's lock (emitTouch)
    B.CreateBr(Claimed);
  } else {
    Value *Claim = B.CreateAtomicCmpXchg(FastP, B.getInt8(1), B.getInt8(VIGIL_FAST_BUSY),
                                         MaybeAlign(1), AtomicOrdering::Monotonic,
                                         AtomicOrdering::Monotonic, SyncScope::SingleThread);
    B.CreateCondBr(B.CreateExtractValue(Claim, 1), Claimed, Slow,
                   MDBuilder(C).createLikelyBranchWeights());
  }
  B.SetInsertPoint(Claimed);
  for (unsigned I = 0; I < NCaps; ++I)
    storeCapture(B, A, I, Caps[I], Inst);
  // the site came after the entries the replay read (a handler's append
  // since is after it)
  B.CreateStore(B.CreateAdd(B.CreateTrunc(N, I8), B.getInt8(1)),
                at(B, Inst, VIGIL_HDR_FAST + 1));
  BasicBlock *Settle = BasicBlock::Create(C, "done", F);
  BasicBlock *Release = BasicBlock::Create(C, "site.release", F);
  B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt8(Done)), Settle, Release);
  B.SetInsertPoint(Settle); // before the release: a handler's runtime call
  B.CreateStore(B.getInt8(1), at(B, Inst, VIGIL_HDR_SETTLED)); // sees it settled
  bump(B, I64, at(B, Inst, VIGIL_HDR_PASSES), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), -1);
  B.CreateBr(Release);
  B.SetInsertPoint(Release);
  // the writes above before the release, for a signal handler (a compiler
  // barrier: the single-thread fence)
  B.CreateFence(AtomicOrdering::Release, SyncScope::SingleThread);
  B.CreateStore(Next, FastP);
  B.CreateBr(Ret);
  return SiteFns[A] = finishSiteHook(F, A, Bound, Inst, Slow, Ret);
}

} // namespace pass
} // namespace vigil
