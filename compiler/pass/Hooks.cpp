//===- Hooks.cpp - the inline fast path and the bound hooks ---------------===//
//
// For per-thread assertions whose alternatives vigil/fastpath.h accepts, a
// symbol's hook is a small internal always-inline function: touch the
// instance (abi.h "Touching"), look up each alternative's next fast state in
// a constant table built from vigil_fast_next / vigil_fast_site, and either
// store it (plain transition) or call the runtime for the whole event.
// Bound hooks of per-thread groups are inline too; the runtime is called only
// when a bound closes with instances pending.  Global groups: HooksGlobal.cpp
// (the same hooks under the bound's lock).
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

Value *at(IRBuilder<> &B, Value *Base, unsigned Off) {
  if (!Off)
    return Base;
  return B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Base, Off);
}

void bump(IRBuilder<> &B, Type *Ty, Value *P, int Delta) {
  Value *V = B.CreateLoad(Ty, P);
  B.CreateStore(B.CreateAdd(V, ConstantInt::get(Ty, Delta, true)), P);
}

// Thread-local instances and bounds are used as constant addresses, not
// through llvm.threadlocal.address: that intrinsic is one value per
// function, which LLVM keeps in a callee-saved register across the bound
// function's calls (pushes, pops and the address computation on every
// bound), where a constant folds into each access (%fs:offset, local-exec).
// The intrinsic exists for coroutines that move between threads; no hook
// is in one (the pass instruments the merged module before CoroSplit, and a
// coroutine frame is no place for a bound).
Value *Instrumenter::instance(IRBuilder<> &B, unsigned A) {
  (void)B;
  return InstanceGVs[A];
}

Value *Instrumenter::groupPtr(IRBuilder<> &B, unsigned G) {
  (void)B;
  return Groups[G].GV;
}

Function *Instrumenter::newHook(const Twine &Name, ArrayRef<Type *> Params) {
  auto *F = Function::Create(FunctionType::get(Void, Params, false),
                             GlobalValue::InternalLinkage, Name, M);
  F->addFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoUnwind);
  return F;
}

/// header.fast[] as written on touch: 1 for each eligible alternative.
uint64_t Instrumenter::fastInit(unsigned A) const {
  uint64_t V = 0;
  for (unsigned Alt = 0; Alt < Host[A].size() && Alt < 8; ++Alt)
    if (Host[A][Alt]->Eligible)
      V |= uint64_t(1) << (8 * Alt); // little-endian byte Alt
  return V;
}

std::vector<uint8_t> Instrumenter::eventRow(unsigned A, unsigned Alt,
                                            unsigned S) const {
  const vigil_fast_model &Mo = Host[A][Alt]->M;
  unsigned N = As[A].Alternatives.size(); // top-level OR: dead states too
  std::vector<uint8_t> Row;
  for (unsigned F = 0; F < vigil_fast_states(&Mo, N); ++F)
    Row.push_back(uint8_t(vigil_fast_next_or(&Mo, N, F, S)));
  return Row;
}

std::vector<uint8_t> Instrumenter::siteRow(unsigned A, unsigned Alt) const {
  const vigil_fast_model &Mo = Host[A][Alt]->M;
  unsigned N = As[A].Alternatives.size(); // top-level OR: dies inline
  std::vector<uint8_t> Row;
  for (unsigned F = 0; F < vigil_fast_states(&Mo, N); ++F)
    Row.push_back(uint8_t(vigil_fast_site_or(&Mo, N, F)));
  return Row;
}

/// Whether a row ever lets the event through without the runtime.
static bool someFast(const std::vector<uint8_t> &Row) {
  for (size_t F = 1; F < Row.size(); ++F)
    if (Row[F] != VIGIL_FAST_SLOW)
      return true;
  return false;
}

/// An inline hook for symbol S: every alternative observing it is eligible
/// and one of them can take it inline.
bool Instrumenter::symbolInline(unsigned A, unsigned S) const {
  if (!Fast[A] || S <= SymSite)
    return false;
  bool Some = false;
  for (unsigned Alt = 0; Alt < Host[A].size(); ++Alt) {
    if (!((Host[A][Alt]->Au.alphabet >> S) & 1))
      continue;
    if (!Host[A][Alt]->Eligible)
      return false;
    Some |= someFast(eventRow(A, Alt, S));
  }
  return Some;
}

bool Instrumenter::siteInline(unsigned A) const {
  if (!Fast[A])
    return false;
  bool Some = false;
  for (unsigned Alt = 0; Alt < Host[A].size(); ++Alt) {
    if (!Host[A][Alt]->Eligible)
      return false;
    Some |= someFast(siteRow(A, Alt));
  }
  return Some;
}

/// Row[Fs] from a constant table padded to 256 entries with SLOW, so the
/// byte indexes it without a bounds check (one load on the hot path).
Value *Instrumenter::lookup(IRBuilder<> &B, const std::vector<uint8_t> &Row,
                            Value *Fs) {
  GlobalVariable *&GV = RowGVs[Row];
  if (!GV) {
    std::vector<uint8_t> Padded(Row);
    Padded.resize(256, VIGIL_FAST_SLOW);
    Constant *Init = ConstantDataArray::get(C, ArrayRef<uint8_t>(Padded));
    GV = new GlobalVariable(M, Init->getType(), true,
                            GlobalValue::PrivateLinkage, Init, "vigil.fast");
    GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  }
  return B.CreateLoad(I8, B.CreateInBoundsGEP(I8, GV, B.CreateZExt(Fs, I64)),
                      "fast.next");
}

/// Touching, inline (vigil/abi.h).  Continues in a new block left in B; an
/// instance never touched on this thread goes to Slow (the runtime
/// registers it), an event outside the bound to Ret.
void Instrumenter::emitTouch(IRBuilder<> &B, unsigned A, Value *Bound,
                             Value *Inst, BasicBlock *Slow, BasicBlock *Ret) {
  // bound.gen is odd inside the bound and even outside, so one comparison
  // says "inside the bound and already touched" (the common case).
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Cont = BasicBlock::Create(C, "touched", F);
  BasicBlock *Inside = BasicBlock::Create(C, "inside", F);
  BasicBlock *Check = BasicBlock::Create(C, "untouched", F);
  BasicBlock *Touch = BasicBlock::Create(C, "touch", F);
  Value *G = B.CreateLoad(I64, at(B, Inst, VIGIL_HDR_GEN), "gen");
  Value *BG = B.CreateLoad(I64, at(B, Bound, offsetof(vigil_bound, gen)),
                           "bound.gen");
  B.CreateCondBr(B.CreateICmpEQ(G, BG), Cont, Inside);
  B.SetInsertPoint(Inside);
  B.CreateCondBr(B.CreateTrunc(BG, B.getInt1Ty()), Check, Ret);
  B.SetInsertPoint(Check);
  B.CreateCondBr(B.CreateICmpEQ(G, ConstantInt::get(I64, 0)), Slow, Touch);
  B.SetInsertPoint(Touch);
  BasicBlock *Link = BasicBlock::Create(C, "link", F);
  Value *GenP = at(B, Inst, VIGIL_HDR_GEN);
  if (As[A].Locality == GLOBAL) {
    // Under the bound's lock: no other thread, and a signal handler of
    // this one would wait for the lock it holds (docs/faults.md).
    B.CreateBr(Link);
  } else {
    // A signal handler on this thread may touch the same instance between
    // the check above and the claim (tests/lit/faults/signal.c): linking
    // it twice made the touched list a cycle, and the bound's end walked
    // it for ever.  One compare-and-swap claims it, so exactly one of them
    // links it; the claim is gen = VIGIL_GEN_TOUCHING (0) until the fields
    // are this bound's, so a handler in between calls the runtime, which
    // ignores it (vg_inline_busy), instead of taking the last bound's state
    // for this one's (its inline site counted a pass twice), abi.h
    // "Touching".
    Value *Claim = B.CreateAtomicCmpXchg(GenP, G, ConstantInt::get(I64, VIGIL_GEN_TOUCHING),
                                         MaybeAlign(8), AtomicOrdering::Monotonic,
                                         AtomicOrdering::Monotonic, SyncScope::SingleThread);
    B.CreateCondBr(B.CreateExtractValue(Claim, 1), Link, Cont);
  }
  B.SetInsertPoint(Link);
  B.CreateStore(ConstantInt::get(I64, fastInit(A)), at(B, Inst, VIGIL_HDR_FAST));
  B.CreateStore(ConstantInt::get(I32, 0), at(B, Inst, VIGIL_HDR_FLAGS));
  for (unsigned Alt = 0; Alt < As[A].Alternatives.size(); ++Alt)
    B.CreateStore(ConstantInt::get(I64, 0), at(B, Inst, VIGIL_HDR_EVER + 8 * Alt));
  Value *TouchedP = at(B, Bound, offsetof(vigil_bound, touched));
  B.CreateStore(B.CreateLoad(Ptr, TouchedP), at(B, Inst, VIGIL_HDR_NEXT));
  B.CreateStore(Inst, TouchedP);
  bump(B, I64, at(B, Inst, VIGIL_HDR_BOUNDS), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), 1);
  if (logSite(A)) {
    // Its log is the replay's input: an earlier bound's entries go (the
    // runtime drains it only when it is called; abi.h "Inline log").
    Value *HeadP = logHead(B, A, Inst);
    Value *Head = B.CreateLoad(I64, HeadP);
    B.CreateStore(B.CreateShl(B.CreateAdd(B.CreateLShr(Head, 32), B.getInt64(1)), 32),
                  HeadP);
  }
  B.CreateFence(AtomicOrdering::Release, SyncScope::SingleThread);
  StoreInst *Open = B.CreateStore(BG, GenP);
  Open->setAtomic(AtomicOrdering::Monotonic);
  Open->setAlignment(Align(8));
  B.CreateBr(Cont);
  B.SetInsertPoint(Cont);
}

/// Loads fast[alt] and its table entry for every alternative observing S.
std::vector<Step> Instrumenter::emitSteps(IRBuilder<> &B, unsigned A,
                                          unsigned S, Value *Inst) {
  std::vector<Step> Steps;
  for (unsigned Alt = 0; Alt < Host[A].size(); ++Alt) {
    if (S != SymSite && !((Host[A][Alt]->Au.alphabet >> S) & 1))
      continue;
    Value *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST + Alt), "fast");
    std::vector<uint8_t> Row = S == SymSite ? siteRow(A, Alt) : eventRow(A, Alt, S);
    // An eager OR instance outside its bound steps to itself (the steps of
    // several alternatives are applied with no switch to catch the state).
    std::vector<uint8_t> Table(Row);
    if (Eager[A] && Host[A].size() > 1) {
      Table.resize(256, VIGIL_FAST_SLOW);
      Table[VIGIL_FAST_OUTSIDE] = VIGIL_FAST_OUTSIDE;
    }
    Value *N = lookup(B, Table, Fs);
    Steps.push_back(Step{Alt, Fs, N, std::move(Row)});
  }
  return Steps;
}

/// Stores the plain transitions (IGNORE leaves the state) and records S in
/// ever[alt]; an alternative entering "done" settles the instance (several
/// alternatives: the first one, HooksOr.cpp).
/// Only what a row can produce is emitted: `ever` words a failure at the
/// site (the event named is one before the site), so only symbols before
/// the site are recorded, and recording one in the done state (IGNORE) is
/// harmless: nothing is named after it without a new window, which clears
/// `ever`.
void Instrumenter::emitApply(IRBuilder<> &B, unsigned A, unsigned S,
                             Value *Bound, Value *Inst, ArrayRef<Step> Steps,
                             BasicBlock *Ret) {
  auto Has = [](const std::vector<uint8_t> &Row, unsigned V) {
    return std::find(Row.begin(), Row.end(), uint8_t(V)) != Row.end();
  };
  for (const Step &St : Steps) {
    Value *Next = St.Next;
    if (Has(St.Row, VIGIL_FAST_IGNORE))
      Next = B.CreateSelect(
          B.CreateICmpEQ(St.Next, ConstantInt::get(I8, VIGIL_FAST_IGNORE)),
          St.Fs, St.Next);
    B.CreateStore(Next, at(B, Inst, VIGIL_HDR_FAST + St.Alt));
    const HostAlt &H = *Host[A][St.Alt];
    if (S != SymSite && ((H.Au.pre >> S) & 1) && ((H.EverRead >> S) & 1)) {
      Value *EverP = at(B, Inst, VIGIL_HDR_EVER + 8 * St.Alt);
      Value *Old = B.CreateLoad(I64, EverP);
      Value *New = B.CreateOr(Old, ConstantInt::get(I64, uint64_t(1) << S));
      if (orDeadIn(St.Row)) // a dead state's ever words its failure: keep it
        New = B.CreateSelect(
            B.CreateICmpEQ(St.Next, ConstantInt::get(I8, VIGIL_FAST_IGNORE)), Old, New);
      B.CreateStore(New, EverP);
    }
  }
  if (As[A].Alternatives.size() > 1) {
    if (Eager[A]) // the exit decides from the joint state (emitEagerEnd)
      B.CreateBr(Ret);
    else
      emitOrSettleSteps(B, A, Bound, Inst, Steps, Ret); // HooksOr.cpp
    return;
  }
  unsigned DoneState = Host[A][0]->Au.nstates + 1u;
  if (As[A].Alternatives.size() != 1 || Steps.size() != 1 || Eager[A] ||
      !Has(Steps[0].Row, DoneState)) {
    B.CreateBr(Ret);
    return;
  }
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Done = BasicBlock::Create(C, "done", F);
  B.CreateCondBr(B.CreateICmpEQ(Steps[0].Next, ConstantInt::get(I8, DoneState)),
                 Done, Ret);
  B.SetInsertPoint(Done);
  B.CreateStore(ConstantInt::get(I8, 1), at(B, Inst, VIGIL_HDR_SETTLED));
  bump(B, I64, at(B, Inst, VIGIL_HDR_PASSES), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), -1);
  B.CreateBr(Ret);
}

/// Stores captured value I (a word) into the instance.  A value the site
/// passes as an integer of at most 32 bits is stored as its low half: the
/// upper half of that slot is zero from the start and every writer (this
/// hook, the runtime, with the same site's words) writes zero there, so the
/// slot holds the same word, and the site need not keep a zero-extended
/// copy of the value in a register of its own.
void Instrumenter::storeCapture(IRBuilder<> &B, unsigned A, unsigned I,
                                Value *W, Value *Inst) {
  unsigned Off = VIGIL_CAPTURES_OFFSET(As[A].Alternatives.size()) + 8 * I;
  unsigned Bits = 64;
  for (auto &[CI, Id] : Sites)
    if (Id == int(A) && 1 + I < CI->arg_size()) {
      Value *V = CI->getArgOperand(1 + I);
      if (auto *Z = dyn_cast<ZExtInst>(V)) // the plugin's conversion to a word
        V = Z->getOperand(0);
      if (V->getType()->isIntegerTy())
        Bits = V->getType()->getIntegerBitWidth();
    }
  if (Bits <= 32)
    B.CreateStore(B.CreateTrunc(W, I32), at(B, Inst, Off));
  else
    B.CreateStore(W, at(B, Inst, Off));
}

/// Whether any (capture index, observed word) differs from the instance's.
Value *Instrumenter::capturesDiffer(
    IRBuilder<> &B, unsigned A, Value *Inst,
    ArrayRef<std::pair<unsigned, Value *>> Words) {
  Value *Differ = B.getFalse();
  unsigned Off = VIGIL_CAPTURES_OFFSET(As[A].Alternatives.size());
  for (auto &[I, W] : Words) {
    Value *Cap = B.CreateLoad(I64, at(B, Inst, Off + 8 * I), "capture");
    Differ = B.CreateOr(Differ, B.CreateICmpNE(W, Cap));
  }
  return Differ;
}

/// A scratch array holding Words (null when there are none).
Value *Instrumenter::wordBuffer(IRBuilder<> &B, ArrayRef<Value *> Words) {
  if (Words.empty())
    return ConstantPointerNull::get(Ptr);
  Function *F = B.GetInsertBlock()->getParent();
  IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
  AllocaInst *Buf = EB.CreateAlloca(ArrayType::get(I64, Words.size()), nullptr,
                                    "vigil.words");
  Buf->setAlignment(Align(8));
  for (unsigned I = 0; I < Words.size(); ++I)
    B.CreateStore(Words[I], B.CreateConstInBoundsGEP2_32(
                                Buf->getAllocatedType(), Buf, 0, I));
  return Buf;
}

/// The eager instances of group G (vigil/abi.h), as an array for the
/// runtime (built where the call is, which is never on the hot path).
Value *Instrumenter::eagerInstances(IRBuilder<> &B, unsigned G) {
  std::vector<Value *> Insts;
  for (unsigned AI : Groups[G].Eager)
    Insts.push_back(instance(B, AI));
  Function *F = B.GetInsertBlock()->getParent();
  IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
  AllocaInst *Buf = EB.CreateAlloca(ArrayType::get(Ptr, Insts.size()), nullptr,
                                    "vigil.eager");
  for (unsigned I = 0; I < Insts.size(); ++I)
    B.CreateStore(Insts[I], B.CreateConstInBoundsGEP2_32(Buf->getAllocatedType(),
                                                         Buf, 0, I));
  return Buf;
}

/// The outermost entry's initialisation of the eager instances: the
/// initial fast state (`ever` only where a hook sets its bits: the runtime
/// reads no other, vigil/abi.h).
void Instrumenter::emitEagerInit(IRBuilder<> &B, unsigned G) {
  for (unsigned AI : Groups[G].Eager) {
    Value *Inst = instance(B, AI);
    B.CreateStore(fastWord(AI, fastInit(AI)), at(B, Inst, VIGIL_HDR_FAST));
    for (unsigned Alt = 0; Alt < Host[AI].size(); ++Alt)
      if (Host[AI][Alt]->EverRead)
        B.CreateStore(ConstantInt::get(I64, 0), at(B, Inst, VIGIL_HDR_EVER + 8 * Alt));
  }
}

/// The fast bytes of an eager instance as one word: one byte per
/// alternative, rounded up to a power of two (the bytes past the
/// alternatives are 0, as the OR site's packed load expects).
Constant *Instrumenter::fastWord(unsigned A, uint64_t V) const {
  size_t N = Host[A].size();
  unsigned Bytes = N <= 1 ? 1 : N <= 2 ? 2 : N <= 4 ? 4 : 8;
  return ConstantInt::get(IntegerType::get(C, 8 * Bytes), V);
}

/// The outermost exit's look at each eager instance (vigil_fast_end),
/// along two chains of blocks: the clean one, while no instance needs the
/// runtime, and the other once one does (it ends in Settle); a pass is
/// counted with one compare on both.  Leaves B at the end of the clean
/// chain.  An instance with several alternatives (top-level OR) is decided
/// from their joint state (emitEagerEndOr).
void Instrumenter::emitEagerEnd(IRBuilder<> &B, unsigned G, BasicBlock *Settle) {
  Function *F = B.GetInsertBlock()->getParent();
  const std::vector<unsigned> &Eager = Groups[G].Eager;
  // Asked[i]: the other chain's block for instance i (Asked[n]: Settle).
  std::vector<BasicBlock *> Asked(Eager.size() + 1, Settle);
  for (size_t I = 0; I < Eager.size(); ++I)
    Asked[I] = BasicBlock::Create(C, "eager.asked", F);
  IRBuilder<> AB(C);
  for (size_t I = 0; I < Eager.size(); ++I) {
    unsigned AI = Eager[I];
    if (Host[AI].size() > 1) {
      emitEagerEndOr(B, AI, Asked[I + 1]);
      AB.SetInsertPoint(Asked[I]);
      emitEagerEndOrAsked(AB, AI, Asked[I + 1]);
      continue;
    }
    const HostAlt &H = *Host[AI][0];
    Value *Inst = instance(B, AI);
    uint8_t Done = uint8_t(vigil_fast_done(&H.M));
    // the other chain: count a pass, nothing else to decide
    AB.SetInsertPoint(Asked[I]);
    BasicBlock *APass = BasicBlock::Create(C, "eager.asked.pass", F);
    Value *AFs = AB.CreateLoad(I8, at(AB, Inst, VIGIL_HDR_FAST));
    AB.CreateCondBr(AB.CreateICmpEQ(AFs, AB.getInt8(Done)), APass, Asked[I + 1]);
    AB.SetInsertPoint(APass);
    bump(AB, I64, at(AB, Inst, VIGIL_HDR_PASSES), 1);
    AB.CreateBr(Asked[I + 1]);
    // the clean chain
    std::vector<uint8_t> Row(VIGIL_FAST_OUTSIDE + 1, VIGIL_END_RUNTIME);
    for (unsigned Fs = 0; Fs < Row.size(); ++Fs)
      Row[Fs] = uint8_t(vigil_fast_end(&H.M, Fs));
    BasicBlock *Next = BasicBlock::Create(C, "eager.next", F);
    emitPassIfDone(B, Inst, Done, BasicBlock::Create(C, "eager.pass", F), Next);
    LoadInst *Again = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST), "fast.again");
    Again->setAtomic(AtomicOrdering::Monotonic); // as in emitSwitch
    Again->setAlignment(Align(1));
    Value *End = lookup(B, Row, Again);
    B.CreateCondBr(B.CreateICmpEQ(End, B.getInt8(VIGIL_END_RUNTIME)),
                   Asked[I + 1], Next);
    B.SetInsertPoint(Next);
  }
}

/// The passing program's exit: fast[0] done, the likely case, goes to Pass
/// (filled here: one more pass, then Next); B is left in the other case.
void Instrumenter::emitPassIfDone(IRBuilder<> &B, Value *Inst, uint8_t Done,
                                  BasicBlock *Pass, BasicBlock *Next) {
  BasicBlock *Other = BasicBlock::Create(C, Pass->getName() + ".not", Pass->getParent());
  Value *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST), "fast");
  B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(Done)), Pass, Other,
                 MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(Pass);
  bump(B, I64, at(B, Inst, VIGIL_HDR_PASSES), 1);
  B.CreateBr(Next);
  B.SetInsertPoint(Other);
}

/// vigil_fast_end_joint of eager OR instance A's alternatives, computed
/// with one table load per alternative (vigil_fast_end_class) and one for
/// the union of their classes.
Value *Instrumenter::eagerEndJoint(IRBuilder<> &B, unsigned A) {
  Value *Inst = instance(B, A);
  unsigned N = Host[A].size();
  Value *Classes = B.getInt8(0);
  for (unsigned Alt = 0; Alt < N; ++Alt) {
    std::vector<uint8_t> Row(256);
    for (unsigned Fs = 0; Fs < 256; ++Fs)
      Row[Fs] = uint8_t(vigil_fast_end_class(&Host[A][Alt]->M, N, Fs));
    LoadInst *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST + Alt), "fast.again");
    Fs->setAtomic(AtomicOrdering::Monotonic); // as in emitSwitch
    Fs->setAlignment(Align(1));
    Classes = B.CreateOr(Classes, lookup(B, Row, Fs));
  }
  std::vector<uint8_t> Joint(8);
  for (unsigned K = 0; K < 8; ++K)
    Joint[K] = uint8_t(vigil_fast_end_joint(K));
  return lookup(B, Joint, Classes);
}

/// The clean chain's look at an eager OR instance.  The passing program's
/// case first: the first alternative done is PASS whatever the others are
/// (vigil_fast_end_joint), one compare.  Anything else: the joint decision.
/// RUNTIME goes on along the other chain (Asked); B is left where the
/// clean chain goes on.
void Instrumenter::emitEagerEndOr(IRBuilder<> &B, unsigned A, BasicBlock *Asked) {
  Function *F = B.GetInsertBlock()->getParent();
  Value *Inst = instance(B, A);
  BasicBlock *Pass = BasicBlock::Create(C, "eager.or.pass", F);
  BasicBlock *Next = BasicBlock::Create(C, "eager.or.next", F);
  uint8_t Done = uint8_t(vigil_fast_done(&Host[A][0]->M));
  emitPassIfDone(B, Inst, Done, Pass, Next);
  Value *End = eagerEndJoint(B, A);
  BasicBlock *NotRuntime = BasicBlock::Create(C, "eager.or.decided", F);
  B.CreateCondBr(B.CreateICmpEQ(End, B.getInt8(VIGIL_END_RUNTIME)), Asked, NotRuntime);
  B.SetInsertPoint(NotRuntime);
  B.CreateCondBr(B.CreateICmpEQ(End, B.getInt8(VIGIL_END_PASS)), Pass, Next);
  B.SetInsertPoint(Next);
}

/// The other chain's look at an eager OR instance: count a pass, then Next.
void Instrumenter::emitEagerEndOrAsked(IRBuilder<> &B, unsigned A, BasicBlock *Next) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Pass = BasicBlock::Create(C, "eager.asked.pass", F);
  Value *End = eagerEndJoint(B, A);
  B.CreateCondBr(B.CreateICmpEQ(End, B.getInt8(VIGIL_END_PASS)), Pass, Next);
  B.SetInsertPoint(Pass);
  bump(B, I64, at(B, instance(B, A), VIGIL_HDR_PASSES), 1);
  B.CreateBr(Next);
}

/// A nested entry of an anchored group: a nesting unless its frame is not
/// below an intact recorded frame; then the runtime decides (and closes an
/// abandoned bound, vigil/abi.h "Abandoned bounds").
void Instrumenter::emitNestedEntry(IRBuilder<> &B, unsigned G, Value *Bound,
                                   Value *Frame, Value *D, BasicBlock *Ret) {
  Function *F = B.GetInsertBlock()->getParent();
  Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
  if (Groups[G].Anchored) {
    Value *FrameP = at(B, Bound, offsetof(vigil_bound, frame));
    Value *ReturnP = at(B, Bound, offsetof(vigil_bound, frame_return));
    BasicBlock *Check = BasicBlock::Create(C, "below", F);
    BasicBlock *Nest = BasicBlock::Create(C, "nest", F);
    BasicBlock *Ask = BasicBlock::Create(C, "abandoned?", F);
    Value *Old = B.CreateLoad(Ptr, FrameP);
    Value *Below = B.CreateICmpULT(B.CreatePtrToInt(Frame, I64),
                                   B.CreatePtrToInt(Old, I64));
    B.CreateCondBr(Below, Check, Ask, MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Check);
    Value *Intact = B.CreateICmpEQ(B.CreateLoad(Ptr, Old),
                                   B.CreateLoad(Ptr, ReturnP));
    B.CreateCondBr(Intact, Nest, Ask, MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Ask);
    const Group &Gr = Groups[G];
    if (Gr.Eager.empty())
      B.CreateCall(BoundEnterFn, {Bound, B.getInt32(0), Frame});
    else
      B.CreateCall(BoundEnterEagerFn,
                   {Bound, Frame, B.getInt32(Gr.Eager.size()), Gr.EagerAs,
                    eagerInstances(B, G)});
    B.CreateBr(Ret);
    B.SetInsertPoint(Nest);
  }
  B.CreateStore(B.CreateAdd(D, B.getInt32(1)), DepthP);
  B.CreateBr(Ret);
}

/// The entry of a per-thread bound, with the frame that enters it (null
/// unless the group is anchored).  The outermost entry initialises the
/// eager instances, opens the bound (gen odd) and, where some member is
/// touched late, empties the touched list.
Function *Instrumenter::enterHook(unsigned G) {
  if (Groups[G].Global)
    return globalEnterHook(G); // HooksGlobal.cpp
  if (Groups[G].Enter)
    return Groups[G].Enter;
  Function *F = newHook("__vigil_fast_enter." + Twine(G), {Ptr});
  Value *Frame = F->getArg(0);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *First = BasicBlock::Create(C, "outermost", F);
  BasicBlock *Nested = BasicBlock::Create(C, "nested", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
  Value *D = B.CreateLoad(I32, DepthP);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), First, Nested,
                 MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(First);
  if (Groups[G].Anchored) { // first: the frame is not kept across a call
    B.CreateStore(Frame, at(B, Bound, offsetof(vigil_bound, frame)));
    B.CreateStore(B.CreateLoad(Ptr, Frame, "vigil.return"),
                  at(B, Bound, offsetof(vigil_bound, frame_return)));
  }
  if (Groups[G].Entries) {
    // gen counts entries from ~0: the thread's first makes it 0 and
    // registers the eager instances (still outside: nothing is ended)
    Value *GenP = at(B, Bound, offsetof(vigil_bound, gen));
    Value *Gen = B.CreateAdd(B.CreateLoad(I64, GenP), B.getInt64(1));
    B.CreateStore(Gen, GenP);
    BasicBlock *Register = BasicBlock::Create(C, "register", F);
    BasicBlock *Init = BasicBlock::Create(C, "init", F);
    B.CreateCondBr(B.CreateICmpEQ(Gen, B.getInt64(0)), Register, Init,
                   MDBuilder(C).createUnlikelyBranchWeights());
    B.SetInsertPoint(Register);
    B.CreateCall(settleEagerHook(G));
    B.CreateBr(Init);
    B.SetInsertPoint(Init);
  }
  emitEagerInit(B, G);
  B.CreateStore(B.getInt32(1), DepthP);
  if (!Groups[G].Entries)
    bump(B, I64, at(B, Bound, offsetof(vigil_bound, gen)), 1); // odd inside
  if (Groups[G].HasLazy || Groups[G].Eager.empty())
    B.CreateStore(ConstantPointerNull::get(Ptr),
                  at(B, Bound, offsetof(vigil_bound, touched)));
  B.CreateBr(Ret);
  B.SetInsertPoint(Nested);
  B.CreateCall(nestHook(G), {Frame});
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return Groups[G].Enter = F;
}

/// A function of its own, never inlined, for what a bound's hooks do
/// rarely (nesting): the hot path then loads depth once, into its compare
/// (cmpl $0, depth), and keeps no register for it.
///
/// It has the unwind tables the module's functions have: a violation
/// reported from it (the runtime at an eager group's exit) shows the
/// program's stack through it, as one reported from an inline hook does
/// (without them the backtrace stopped at this frame and was empty).
Function *Instrumenter::coldHook(const Twine &Name, ArrayRef<Type *> Params) {
  Function *F = newHook(Name, Params);
  F->removeFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr(Attribute::Cold);
  if (M.getUwtable() != UWTableKind::None)
    F->setUWTableKind(M.getUwtable());
  return F;
}

/// __vigil_bound_settle_eager for group G, out of line: the array of its
/// eager instances lives in this cold function's frame, not in the bound
/// function's.
Function *Instrumenter::settleEagerHook(unsigned G) {
  std::string Name = "__vigil_fast_settle." + std::to_string(G);
  if (Function *F = M.getFunction(Name))
    return F;
  Function *F = coldHook(Name, {});
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  const Group &Gr = Groups[G];
  B.CreateCall(BoundSettleEagerFn, {groupPtr(B, G), B.getInt32(Gr.Eager.size()),
                                    Gr.EagerAs, eagerInstances(B, G)});
  B.CreateRetVoid();
  return F;
}

/// A nested entry (depth > 0), out of line.
Function *Instrumenter::nestHook(unsigned G) {
  Function *F = coldHook("__vigil_fast_nest." + Twine(G), {Ptr});
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  Value *D = B.CreateLoad(I32, at(B, Bound, offsetof(vigil_bound, depth)));
  emitNestedEntry(B, G, Bound, F->getArg(0), D, Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return F;
}

/// An exit that is not the outermost one (depth > 1, or 0: an exit whose
/// entry was not seen), out of line.
Function *Instrumenter::unnestHook(unsigned G) {
  Function *F = coldHook("__vigil_fast_unnest." + Twine(G), {});
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Dec = BasicBlock::Create(C, "leave", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *DepthP = at(B, groupPtr(B, G), offsetof(vigil_bound, depth));
  Value *D = B.CreateLoad(I32, DepthP);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), Ret, Dec);
  B.SetInsertPoint(Dec);
  B.CreateStore(B.CreateSub(D, B.getInt32(1)), DepthP);
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return F;
}

/// The exit of a per-thread bound.  The outermost exit (the common case,
/// tested first) looks at the eager instances, calls the runtime when one
/// of them or a touched instance still needs a look, and closes the bound:
/// eager instances outside, gen even, depth 0.  As __vigil_bound_exit,
/// depth stays 1 while the runtime settles (a handler re-entering the bound
/// nests in it).
Function *Instrumenter::exitHook(unsigned G) {
  if (Groups[G].Global)
    return globalExitHook(G); // HooksGlobal.cpp
  if (Groups[G].Exit)
    return Groups[G].Exit;
  const Group &Gr = Groups[G];
  Function *F = newHook("__vigil_fast_exit." + Twine(G), {});
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Inner = BasicBlock::Create(C, "inner", F);
  BasicBlock *Outer = BasicBlock::Create(C, "outermost", F);
  BasicBlock *Settle = BasicBlock::Create(C, "settle", F);
  BasicBlock *Close = BasicBlock::Create(C, "close", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
  Value *D = B.CreateLoad(I32, DepthP);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(1)), Outer, Inner,
                 MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(Inner);
  B.CreateCall(unnestHook(G));
  B.CreateBr(Ret);
  B.SetInsertPoint(Outer);
  emitEagerEnd(B, G, Settle);
  Value *PendingP = at(B, Bound, offsetof(vigil_bound, pending));
  if (Gr.Entries) { // nothing is ever pending (vigil/abi.h)
    B.CreateBr(Close);
  } else {
    Value *P = B.CreateLoad(I32, PendingP);
    B.CreateCondBr(B.CreateICmpNE(P, B.getInt32(0)), Settle, Close,
                   MDBuilder(C).createUnlikelyBranchWeights());
  }
  B.SetInsertPoint(Settle);
  if (Gr.Eager.empty())
    B.CreateCall(BoundSettleFn, {Bound});
  else
    B.CreateCall(settleEagerHook(G));
  B.CreateStore(B.getInt32(0), PendingP);
  B.CreateBr(Close);
  B.SetInsertPoint(Close);
  for (unsigned AI : Gr.Eager) {
    uint64_t Outside = 0;
    for (unsigned Alt = 0; Alt < Host[AI].size(); ++Alt)
      Outside |= uint64_t(VIGIL_FAST_OUTSIDE) << (8 * Alt);
    B.CreateStore(fastWord(AI, Outside), at(B, instance(B, AI), VIGIL_HDR_FAST));
  }
  if (!Gr.Entries)
    bump(B, I64, at(B, Bound, offsetof(vigil_bound, gen)), 1); // even outside
  B.CreateStore(B.getInt32(0), DepthP);
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return Groups[G].Exit = F;
}

/// How likely a passing program takes S in fast state Fs: 0 on the
/// shortest path from the start (HotSym); 1 on some shortest path from Fs
/// to a final state; 2 to another state as far from a final one (an
/// optional event, an OR block's other member after the first); 3
/// otherwise, left to the switch or table.
static unsigned likelyRank(const HostAlt &H, unsigned S, unsigned Fs) {
  if (Fs < 1 || Fs > H.Au.nstates || S >= 64)
    return 3;
  if (H.HotSym[Fs - 1] == S)
    return 0;
  if ((H.Likely[Fs - 1] >> S) & 1)
    return 1;
  if ((H.Sideways[Fs - 1] >> S) & 1)
    return 2;
  return 3;
}

/// Whether fast state Fs is one the hook of S tests before its table or
/// switch.  The site's: any state of rank 0-2 (it is reached once per
/// bound, in whichever state the events before it left: optional events,
/// an OR block in either order).  An event's: the state of the start's
/// shortest path (rank 0); or, for a symbol on no shortest path at all (an
/// optional event), where it moves sideways (2).  Not where the symbol
/// takes some other shortest path (1): that is mostly an OR block's other
/// member, which a program calling both members takes second, where the
/// row ignores it, and a test there that fails costs that program more
/// (two instructions and a jump) than a hit saves another (three).
static bool hotCandidate(const HostAlt &H, unsigned S, unsigned Fs) {
  unsigned R = likelyRank(H, S, Fs);
  if (S == SymSite || R == 0)
    return R < 3;
  if (R != 2)
    return false;
  for (uint64_t L : H.Likely)
    if ((L >> S) & 1)
      return false;
  return true;
}

/// The states a hook tests one by one before its table or switch (Hot:
/// the candidates), most likely first (likelyRank, then state order).  An
/// event's hook tests one: a miss costs two instructions, and its table
/// (five or six) is cheaper than a second reload and compare chain.  The
/// site's hook tests up to three: it runs once per bound in whichever
/// state the events before it left (optional events, OR blocks in either
/// order), and its fallback is a switch (bit tests, about a dozen).
static std::vector<unsigned> orderHot(const HostAlt &H, unsigned S,
                                      std::vector<unsigned> Hot) {
  std::sort(Hot.begin(), Hot.end(), [&](unsigned X, unsigned Y) {
    return std::make_pair(likelyRank(H, S, X), X) <
           std::make_pair(likelyRank(H, S, Y), Y);
  });
  size_t Max = S == SymSite ? 3 : 1;
  if (Hot.size() > Max)
    Hot.resize(Max);
  return Hot;
}

/// The state reloaded for what follows a compare on the hook's first load
/// (volatile: LLVM neither merges it with that load nor with another
/// reload, and, unlike an atomic load, folds its zero extension).
static Value *reloadFast(IRBuilder<> &B, Value *FastP) {
  LoadInst *Again = B.CreateLoad(B.getInt8Ty(), FastP, /*isVolatile=*/true,
                                 "fast.again");
  Again->setAlignment(Align(1));
  return Again;
}

/// Tests the hot states one by one: the first on the hook's own load of
/// the state (Fs: one use, folded into the compare), the others on one
/// reload.  Returns the state for the switch or table that follows, in
/// B's block: a reload of its own after two or more compares where Split
/// (a switch: LLVM would otherwise fold the compares into it).
static Value *emitHotChain(IRBuilder<> &B, Value *Fs, Value *FastP,
                           ArrayRef<std::pair<unsigned, BasicBlock *>> Hot,
                           bool Split) {
  LLVMContext &C = B.getContext();
  Function *F = B.GetInsertBlock()->getParent();
  for (size_t I = 0; I < Hot.size(); ++I) {
    if (I == 1)
      Fs = reloadFast(B, FastP);
    BasicBlock *Next = BasicBlock::Create(C, "unlikely", F);
    B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(uint8_t(Hot[I].first))),
                   Hot[I].second, Next, MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Next);
  }
  if (Hot.size() == 1 || (Hot.size() > 1 && Split))
    Fs = reloadFast(B, FastP);
  return Fs;
}

/// One alternative observes the symbol (the common case): a switch on its
/// fast state, one case per distinct table entry, so each case stores a
/// constant and knows at compile time whether it enters "done"; LLVM lowers
/// a small switch to a compare chain and a large one to a jump table.
/// Caps are compared where the runtime must decide on other values: on a
/// plain transition of an event (phase 2), on an ignored site (a new
/// tuple); a site that moves to phase 2 stores them.
void Instrumenter::emitSwitch(IRBuilder<> &B, unsigned A, unsigned S,
                              Value *Bound, Value *Inst, const Step &St,
                              ArrayRef<std::pair<unsigned, Value *>> Caps,
                              BasicBlock *Slow, BasicBlock *Ret) {
  Function *F = B.GetInsertBlock()->getParent();
  // The likely cases are tested first (emitHotChain), the first on its own
  // load, which then has one use and folds into the compare (cmpb $state,
  // %fs:fast); the switch is on a reload of the state (volatile: LLVM does
  // not merge it with the first) rather than on a register kept for the
  // rare cases.
  BasicBlock *Head = B.GetInsertBlock();
  BasicBlock *SwBB = BasicBlock::Create(C, "switch", F);
  B.SetInsertPoint(SwBB);
  SwitchInst *Sw = B.CreateSwitch(B.getInt8(0), Slow); // condition: below
  std::vector<std::pair<unsigned, BasicBlock *>> HotCases;
  std::map<std::pair<uint8_t, bool>, BasicBlock *> Cases; // (entry, hot)
  unsigned DoneState = Host[A][St.Alt]->Au.nstates + 1u;
  bool Single = As[A].Alternatives.size() == 1;
  const HostAlt &H = *Host[A][St.Alt];
  bool Pre = S != SymSite && ((H.Au.pre >> S) & 1) && ((H.EverRead >> S) & 1);
  std::vector<uint32_t> Weights{1}; // the default: the runtime
  // The row's entry for fast state Fs as the hook treats it.  Fewer cases,
  // fewer jump tables: a self-loop whose symbol `ever` already holds
  // changes nothing, and a final state is never a fast state in guideline
  // mode (entering it is "done"); both are ignored.
  auto Entry = [&](unsigned Fs) {
    uint8_t V = St.Row[Fs];
    if (V != VIGIL_FAST_SLOW && Caps.empty() && Fs >= 1 && Fs <= H.Au.nstates &&
        V != VIGIL_FAST_IGNORE) {
      bool Known = !Pre || ((H.Surely[Fs - 1] >> S) & 1);
      bool Unreached = H.M.mode == VIGIL_MODE_GUIDELINE &&
                       (H.Au.states[Fs - 1].flags & VIGIL_SF_FINAL);
      if ((V == Fs && Known) || Unreached)
        V = VIGIL_FAST_IGNORE;
    }
    return V;
  };
  // The likely cases, each with a block of its own, tested before the
  // switch (one compare each) rather than folded into bit tests or a table.
  std::vector<unsigned> Likely;
  for (unsigned Fs = 0; Fs < St.Row.size(); ++Fs) {
    uint8_t V = Entry(Fs);
    if (V != VIGIL_FAST_SLOW && V != VIGIL_FAST_IGNORE && V != Fs &&
        hotCandidate(H, S, Fs))
      Likely.push_back(Fs);
  }
  std::vector<unsigned> HotStates = orderHot(H, S, Likely);
  for (unsigned Fs = 0; Fs < St.Row.size(); ++Fs) {
    uint8_t V = Entry(Fs);
    if (V == VIGIL_FAST_SLOW)
      continue;
    bool Hot = std::count(HotStates.begin(), HotStates.end(), Fs) != 0;
    BasicBlock *&BB = Cases[{V, Hot}];
    if (!BB) {
      BB = BasicBlock::Create(C, V == VIGIL_FAST_IGNORE ? "ignore" : "to", F);
      IRBuilder<> CB(BB);
      bool Compare = !Caps.empty() && ((S == SymSite) == (V == VIGIL_FAST_IGNORE));
      if (Compare) {
        BasicBlock *Go = BasicBlock::Create(C, "same", F);
        CB.CreateCondBr(capturesDiffer(CB, A, Inst, Caps), Slow, Go);
        CB.SetInsertPoint(Go);
      }
      if (V != VIGIL_FAST_IGNORE) {
        if (S == SymSite)
          for (auto &[I, W] : Caps)
            storeCapture(CB, A, I, W, Inst);
        CB.CreateStore(CB.getInt8(V), at(CB, Inst, VIGIL_HDR_FAST + St.Alt));
        if (Pre) {
          Value *EverP = at(CB, Inst, VIGIL_HDR_EVER + 8 * St.Alt);
          CB.CreateStore(CB.CreateOr(CB.CreateLoad(I64, EverP),
                                     ConstantInt::get(I64, uint64_t(1) << S)),
                         EverP);
        }
        if (V == DoneState && Single && !Eager[A]) { // eager: the exit counts
          CB.CreateStore(ConstantInt::get(I8, 1), at(CB, Inst, VIGIL_HDR_SETTLED));
          bump(CB, I64, at(CB, Inst, VIGIL_HDR_PASSES), 1);
          bump(CB, I32, at(CB, Bound, offsetof(vigil_bound, pending)), -1);
        } else if (V == DoneState && !Single && !Eager[A]) {
          emitOrSettle(CB, Bound, Inst); // HooksOr.cpp
        }
      }
      CB.CreateBr(Ret);
    }
    Sw->addCase(B.getInt8(uint8_t(Fs)), BB);
    Weights.push_back(1);
  }
  for (unsigned Fs : HotStates)
    HotCases.push_back({Fs, Cases[{Entry(Fs), true}]});
  B.SetInsertPoint(Head);
  Value *Again = emitHotChain(B, St.Fs, at(B, Inst, VIGIL_HDR_FAST + St.Alt),
                              HotCases, /*Split=*/true);
  B.CreateBr(SwBB);
  Sw->setCondition(Again);
  if (Eager[A]) { // outside the bound
    Sw->addCase(B.getInt8(VIGIL_FAST_OUTSIDE), Ret);
    Weights.push_back(1);
  }
  Sw->setMetadata(LLVMContext::MD_prof, MDBuilder(C).createBranchWeights(Weights));
}

/// An eager instance's event without captured values: the happy path's
/// case peeled (cmpb, jne, movb), every other state one table load, whose
/// entry is the state to store, the state itself where the row ignores the
/// event (done, outside the bound: storing it changes nothing, and an
/// eager instance has no bookkeeping on "done"), or 0 for the runtime.
/// Five instructions for any state instead of a compare chain, bit tests
/// or a jump table.  The `ever` bit is set with every step that is not the
/// runtime's (in "done" or outside the bound nothing reads it before the
/// next window or entry clears it).
void Instrumenter::emitEagerStep(IRBuilder<> &B, unsigned A, unsigned S,
                                 Value *Inst, const Step &St, BasicBlock *Slow,
                                 BasicBlock *Ret) {
  Function *F = B.GetInsertBlock()->getParent();
  const HostAlt &H = *Host[A][St.Alt];
  bool Pre = ((H.Au.pre >> S) & 1) && ((H.EverRead >> S) & 1);
  std::vector<uint8_t> Row(256, VIGIL_FAST_SLOW);
  std::vector<unsigned> HotStates;
  for (unsigned Fs = 0; Fs < 256; ++Fs) {
    uint8_t V = Fs < St.Row.size() ? St.Row[Fs] : uint8_t(VIGIL_FAST_SLOW);
    Row[Fs] = V == VIGIL_FAST_IGNORE ? uint8_t(Fs) : V;
    if (Fs == VIGIL_FAST_OUTSIDE)
      Row[Fs] = uint8_t(Fs);
    if (hotCandidate(H, S, Fs) && V != VIGIL_FAST_IGNORE &&
        V != VIGIL_FAST_SLOW && V != Fs)
      HotStates.push_back(Fs);
  }
  auto Store = [&](IRBuilder<> &CB, Value *V) {
    CB.CreateStore(V, at(CB, Inst, VIGIL_HDR_FAST + St.Alt));
    if (Pre) {
      Value *EverP = at(CB, Inst, VIGIL_HDR_EVER + 8 * St.Alt);
      CB.CreateStore(CB.CreateOr(CB.CreateLoad(I64, EverP),
                                 ConstantInt::get(I64, uint64_t(1) << S)),
                     EverP);
    }
    CB.CreateBr(Ret);
  };
  // The likely states one by one (as in emitSwitch), then the table on a
  // reload (without a likely state: on the hook's load, its one use).
  std::vector<std::pair<unsigned, BasicBlock *>> Hot;
  for (unsigned HotFs : orderHot(H, S, HotStates)) {
    BasicBlock *HotBB = BasicBlock::Create(C, "hot", F);
    IRBuilder<> HB(HotBB);
    Store(HB, HB.getInt8(Row[HotFs]));
    Hot.push_back({HotFs, HotBB});
  }
  Value *Fs = emitHotChain(B, St.Fs, at(B, Inst, VIGIL_HDR_FAST + St.Alt), Hot,
                           /*Split=*/false);
  Value *Next = lookup(B, Row, Fs);
  BasicBlock *Go = BasicBlock::Create(C, "step", F);
  B.CreateCondBr(B.CreateICmpEQ(Next, B.getInt8(VIGIL_FAST_SLOW)), Slow, Go);
  B.SetInsertPoint(Go);
  Store(B, Next);
}

/// The inline hook of symbol S; its parameters are the symbol's slot words.
Function *Instrumenter::eventHook(unsigned A, unsigned S) {
  if (As[A].Locality == GLOBAL && !BuildingGlobalBody)
    return globalEventHook(A, S); // HooksGlobal.cpp: this, under the lock
  auto Key = std::make_pair(A, S);
  if (Function *F = EventFns[Key])
    return F;
  const vigil::Event &E = As[A].Symbols[S];
  std::vector<Type *> Params(E.Values.size(), I64);
  Function *F = newHook("__vigil_fast_event." + Twine(A) + "." + Twine(S), Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Apply = BasicBlock::Create(C, "apply", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  if (!Eager[A]) // an eager instance is ready (and outside: ignored)
    emitTouch(B, A, Bound, Inst, Slow, Ret);
  if (logSite(A)) // HooksLogSite.cpp: before the site, logged
    emitLogFirst(B, A, S, Inst, Slow, Ret);
  std::vector<Step> Steps = emitSteps(B, A, S, Inst);
  std::vector<std::pair<unsigned, Value *>> Caps;
  for (unsigned I = 0; I < E.Values.size(); ++I)
    if (E.Values[I].Kind == VAL_CAPTURE)
      Caps.push_back({E.Values[I].Index, F->getArg(I)});
  // emitEagerStep records S in ever[] in every state it does not send to
  // the runtime; a dead OR alternative's ever[] words its failure.
  bool DeadEver = false;
  if (Steps.size() == 1 && Host[A].size() > 1) {
    const HostAlt &H = *Host[A][Steps[0].Alt];
    DeadEver = ((H.Au.pre >> S) & 1) && ((H.EverRead >> S) & 1) &&
               orDeadIn(Steps[0].Row);
  }
  if (Steps.size() == 1 && Eager[A] && Caps.empty() && !DeadEver) {
    emitEagerStep(B, A, S, Inst, Steps[0], Slow, Ret);
    Apply->eraseFromParent();
    return finishEventHook(F, A, S, Bound, Inst, Slow, Ret);
  }
  if (Steps.size() == 1) {
    emitSwitch(B, A, S, Bound, Inst, Steps[0], Caps, Slow, Ret);
    Apply->eraseFromParent();
    return finishEventHook(F, A, S, Bound, Inst, Slow, Ret);
  }
  Value *ToSlow = B.getFalse(), *Plain = B.getFalse();
  for (const Step &St : Steps) {
    ToSlow = B.CreateOr(ToSlow, B.CreateICmpEQ(St.Next, B.getInt8(VIGIL_FAST_SLOW)));
    Plain = B.CreateOr(Plain, B.CreateICmpNE(St.Next, B.getInt8(VIGIL_FAST_IGNORE)));
  }
  // Phase 2: another value than the captured one is the runtime's call.
  if (!Caps.empty())
    ToSlow = B.CreateOr(ToSlow, B.CreateAnd(Plain, capturesDiffer(B, A, Inst, Caps)));
  B.CreateCondBr(ToSlow, Slow, Apply);
  B.SetInsertPoint(Apply);
  emitApply(B, A, S, Bound, Inst, Steps, Ret);
  return finishEventHook(F, A, S, Bound, Inst, Slow, Ret);
}

/// The runtime call of hook F, out of line: a cold function with F's
/// parameters that puts them in a word buffer and calls the runtime
/// (Call).  In the hook the call passes the words in registers, so the
/// function the hook is inlined into needs no stack buffer for them (a
/// frame of its own on every call, for the rare case).
Function *Instrumenter::slowCall(Function *F, const Twine &Name,
                                 function_ref<void(IRBuilder<> &, Value *)> Call) {
  std::vector<Type *> Params(F->arg_size(), I64);
  Function *G = coldHook(Name, Params);
  IRBuilder<> B(BasicBlock::Create(C, "entry", G));
  std::vector<Value *> Words;
  for (Argument &Arg : G->args())
    Words.push_back(&Arg);
  Call(B, wordBuffer(B, Words));
  B.CreateRetVoid();
  return G;
}

/// The runtime call of an event hook and its return.
Function *Instrumenter::finishEventHook(Function *F, unsigned A, unsigned S,
                                        Value *Bound, Value *Inst,
                                        BasicBlock *Slow, BasicBlock *Ret) {
  IRBuilder<> B(Slow);
  std::vector<Value *> Words;
  for (Argument &Arg : F->args())
    Words.push_back(&Arg);
  auto Call = [&](IRBuilder<> &CB, Value *Vals) {
    CB.CreateCall(EventFn, {AssertionGVs[A], groupPtr(CB, GroupOf[A]),
                            instance(CB, A), CB.getInt32(S), Vals});
  };
  // Out of line only where the runtime is rare (an eager instance: even
  // without words the hook then sets up no arguments); a late one's hook
  // calls it in line, as often as not (one call, not two).
  Function *Out = Eager[A] ? slowCall(F, "__vigil_slow_event." + Twine(A) + "." +
                                             Twine(S), Call)
                           : nullptr;
  if (Out)
    B.CreateCall(Out, Words);
  else
    Call(B, wordBuffer(B, Words));
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return EventFns[std::make_pair(A, S)] = F;
}

/// The inline site hook; its parameters are the captured values.
Function *Instrumenter::siteHook(unsigned A) {
  if (As[A].Locality == GLOBAL && !BuildingGlobalBody)
    return globalSiteHook(A); // HooksGlobal.cpp: this, under the lock
  if (logSite(A))
    return logSiteHook(A); // HooksLogSite.cpp
  if (Function *F = SiteFns[A])
    return F;
  unsigned NCaps = As[A].Captures.size();
  std::vector<Type *> Params(NCaps, I64);
  Function *F = newHook("__vigil_fast_site." + Twine(A), Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Apply = BasicBlock::Create(C, "apply", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  if (!Eager[A])
    emitTouch(B, A, Bound, Inst, Slow, Ret);
  std::vector<Value *> Args;
  for (unsigned I = 0; I < NCaps; ++I)
    Args.push_back(F->getArg(I));
  emitOrSiteCases(B, A, Bound, Inst, Args, Ret); // HooksOr.cpp (OR only)
  std::vector<Step> Steps = emitSteps(B, A, SymSite, Inst);
  std::vector<std::pair<unsigned, Value *>> Caps;
  for (unsigned I = 0; I < NCaps; ++I)
    Caps.push_back({I, F->getArg(I)});
  if (Steps.size() == 1) {
    emitSwitch(B, A, SymSite, Bound, Inst, Steps[0], Caps, Slow, Ret);
    Apply->eraseFromParent();
    return finishSiteHook(F, A, Bound, Inst, Slow, Ret);
  }
  Value *ToSlow = B.getFalse(), *Ignored = B.getFalse();
  for (const Step &St : Steps) {
    ToSlow = B.CreateOr(ToSlow, B.CreateICmpEQ(St.Next, B.getInt8(VIGIL_FAST_SLOW)));
    Ignored = B.CreateOr(Ignored, B.CreateICmpEQ(St.Next, B.getInt8(VIGIL_FAST_IGNORE)));
  }
  // Past the site (or done), another value tuple is a new check.
  if (NCaps)
    ToSlow = B.CreateOr(ToSlow, B.CreateAnd(Ignored, capturesDiffer(B, A, Inst, Caps)));
  B.CreateCondBr(ToSlow, Slow, Apply);
  B.SetInsertPoint(Apply);
  // Phase 1 -> 2: the captures belong to the instance, then the state.
  unsigned Off = VIGIL_CAPTURES_OFFSET(As[A].Alternatives.size());
  (void)Off;
  for (unsigned I = 0; I < NCaps; ++I)
    storeCapture(B, A, I, F->getArg(I), Inst);
  emitApply(B, A, SymSite, Bound, Inst, Steps, Ret);
  return finishSiteHook(F, A, Bound, Inst, Slow, Ret);
}

/// The runtime call of a site hook (with the captures) and its return.
Function *Instrumenter::finishSiteHook(Function *F, unsigned A, Value *Bound,
                                       Value *Inst, BasicBlock *Slow,
                                       BasicBlock *Ret) {
  IRBuilder<> B(Slow);
  std::vector<Value *> Words;
  for (Argument &Arg : F->args())
    Words.push_back(&Arg);
  auto Call = [&](IRBuilder<> &CB, Value *Vals) {
    CB.CreateCall(SiteReachedFn, {AssertionGVs[A], groupPtr(CB, GroupOf[A]),
                                  instance(CB, A), Vals});
  };
  Function *Out = Eager[A] ? slowCall(F, "__vigil_slow_site." + Twine(A), Call) : nullptr;
  if (Out)
    B.CreateCall(Out, Words);
  else
    Call(B, wordBuffer(B, Words));
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return SiteFns[A] = F;
}

} // namespace pass
} // namespace vigil

