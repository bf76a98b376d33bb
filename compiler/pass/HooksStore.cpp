//===- HooksStore.cpp - the inline log of events recorded before the site -===//
//
// An assertion whose every alternative records (its events before the site
// name values the site captures: benchmarks G and H) decides nothing before
// its site: until then the runtime only appends each event to a temporal
// store (runtime/store.c), and the site replays the store.  The call was
// the cost: ~3 000 instructions per bound for 37-50 by hand.  Here the
// event hook appends the event to a small log in the instance instead
// (vigil/abi.h "Inline log"), and the runtime replays the log, in order, as
// the calls it stands for, before it looks at the instance for anything
// else (runtime/inline_log.c).  The verdicts, reports and statistics are
// therefore those of the calls: the runtime sees the same events in the
// same order, only later, and nothing could be decided in between.
//
// Why not decide the site inline too: the replay (tags or history store,
// per-tuple checks, OR blocks, conditional passes) is the runtime's, and a
// second inline copy of it is a second engine to keep in step.  The log
// removes the per-event calls; the site stays one runtime call.
//
// Global groups: the same body under the bound's lock (HooksGlobal.cpp's
// wrapper), its runtime call the locked entry point; the log is the shared
// instance's, written and drained only under that lock.
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

/// Entries of A's inline log, 0 when its events must reach the runtime as
/// they happen: a forward alternative steps its DFA before the site (and
/// may report there), free variables bind, strict mode reports an
/// unexpected event at once.  What is left only records until the site.
unsigned Instrumenter::logSlots(unsigned A) const {
  const Assertion &X = As[A];
  if (!FastPath || X.Kind != AK_INLINE || X.Mode == MODE_STRICT || !X.Free.empty() || Host[A].empty())
    return 0;
  for (const auto &H : Host[A])
    if (H->Au.flags & (VIGIL_AF_FORWARD | VIGIL_AF_FREE | VIGIL_AF_FAST))
      return 0;
  return VIGIL_LOG_SLOTS;
}

/// Words per entry: the symbol, then the most value words of any symbol.
unsigned Instrumenter::logStride(unsigned A) const {
  size_t W = 0;
  for (size_t S = SymSite + 1; S < As[A].Symbols.size(); ++S)
    W = std::max(W, As[A].Symbols[S].Values.size());
  return unsigned(1 + W);
}

/// The hook of symbol S: append (S, words) when the runtime has nothing to
/// decide (touched in this bound, site not seen, an entry free), else call
/// the runtime, which replays the log first.
Function *Instrumenter::logHook(unsigned A, unsigned S) {
  auto Key = std::make_pair(A, S);
  if (Function *F = LogFns[Key])
    return F;
  if (As[A].Locality == GLOBAL && !BuildingGlobalBody) {
    // The body below, its runtime call the locked entry, inside the lock.
    FunctionCallee Unlocked = EventFn;
    EventFn = EventLockedFn;
    BuildingGlobalBody = true;
    Function *Body = logHook(A, S);
    BuildingGlobalBody = false;
    EventFn = Unlocked; // (the wrapper replaces the body's cache entry)
    Function *F = globalWrapper(
        "__vigil_global_log." + Twine(A) + "." + Twine(S), A, Body,
        [&](IRBuilder<> &B, ArrayRef<Value *> Words) {
          B.CreateCall(EventFn, {AssertionGVs[A], groupPtr(B, GroupOf[A]),
                                 instance(B, A), B.getInt32(S),
                                 wordBuffer(B, Words)});
        });
    return LogFns[Key] = F;
  }
  const vigil::Event &E = As[A].Symbols[S];
  std::vector<Type *> Params(E.Values.size(), I64);
  Function *F = newHook("__vigil_log_event." + Twine(A) + "." + Twine(S), Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Before = BasicBlock::Create(C, "before.site", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  auto Likely = MDBuilder(C).createLikelyBranchWeights();
  // Touching is the fast path's (Hooks.cpp); an instance this thread never
  // registered goes to the runtime.  So does an event while bound.gen is
  // even: outside the bound, where the runtime ignores it too, but also in
  // a signal handler that interrupted the inline exit between its gen and
  // depth stores, where the runtime, which looks at depth, takes it
  // (tests/lit/faults/signal.c): these events were runtime calls before
  // the log, and stay so.  The log is empty on touching: the runtime
  // drains it at the end of every bound (pending counts this instance
  // until then) and forgets it when it touches the instance itself.
  emitTouch(B, A, Bound, Inst, Slow, /*outside the bound*/ Slow);
  if (logSite(A)) {
    // Pre and Post disjoint (vigil_fast_log_site): after any site a Pre
    // event is only recorded, for a later tuple; logged, it reaches the
    // runtime's store in the same order, before anything it could change.
    B.CreateBr(Before);
  } else {
    Value *Site = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FLAGS + 3), "site");
    B.CreateCondBr(B.CreateICmpEQ(Site, B.getInt8(0)), Before, Slow, Likely);
  }
  B.SetInsertPoint(Before);
  emitLogAppend(B, A, S, F, Inst, Ret, Slow);
  B.SetInsertPoint(Slow);
  std::vector<Value *> Words;
  for (Argument &Arg : F->args())
    Words.push_back(&Arg);
  B.CreateCall(EventFn, {AssertionGVs[A], Bound, Inst, B.getInt32(S),
                         wordBuffer(B, Words)});
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return LogFns[Key] = F;
}

/// Appends (S, F's words) to A's log and returns (Ret), or goes to Slow
/// when the log is full or a signal handler changed it meanwhile.
void Instrumenter::emitLogAppend(IRBuilder<> &B, unsigned A, unsigned S,
                                 Function *F, Value *Inst, BasicBlock *Ret,
                                 BasicBlock *Slow) {
  const vigil::Event &E = As[A].Symbols[S];
  BasicBlock *Append = BasicBlock::Create(C, "append", F);
  auto Likely = MDBuilder(C).createLikelyBranchWeights();
  unsigned Slots = logSlots(A), Stride = logStride(A);
  Value *HeadP = logHead(B, A, Inst);
  Value *Head = B.CreateLoad(I64, HeadP, "log.head");
  Value *N = B.CreateAnd(Head, ConstantInt::get(I64, 0xffffffffu), "log.n");
  B.CreateCondBr(B.CreateICmpULT(N, ConstantInt::get(I64, Slots)), Append, Slow,
                 Likely);
  B.SetInsertPoint(Append);
  // entry n: word 1 + n * Stride of the log
  Value *Word = B.CreateAdd(B.CreateMul(N, ConstantInt::get(I64, Stride)),
                            ConstantInt::get(I64, 1));
  Value *EntryP = B.CreateInBoundsGEP(I64, HeadP, Word, "log.entry");
  B.CreateStore(ConstantInt::get(I64, S), EntryP);
  for (unsigned I = 0; I < E.Values.size(); ++I)
    B.CreateStore(F->getArg(I), B.CreateConstInBoundsGEP1_32(I64, EntryP, 1 + I));
  // The claim comes after the entry is written: a signal handler that
  // appends or drains in between changes head and the claim fails (abi.h).
  Value *Claim = B.CreateAtomicCmpXchg(
      HeadP, Head, B.CreateAdd(Head, ConstantInt::get(I64, 1)), MaybeAlign(8),
      AtomicOrdering::Monotonic, AtomicOrdering::Monotonic,
      SyncScope::SingleThread);
  B.CreateCondBr(B.CreateExtractValue(Claim, 1), Ret, Slow, Likely);
}

Value *Instrumenter::logHead(IRBuilder<> &B, unsigned A, Value *Inst) {
  return at(B, Inst, VIGIL_LOG_OFFSET(As[A].Alternatives.size(),
                                      As[A].Captures.size()));
}

/// Whether A's site is decided inline from its log (vigil/fastpath.h
/// vigil_fast_log_site); a global one's hooks run under the bound's lock.
bool Instrumenter::logSite(unsigned A) const {
  return FastPath && logSlots(A) &&
         vigil_fast_log_site(&Host[A][0]->Au, Host[A].size(), As[A].Mode,
                             As[A].Free.size());
}

/// A symbol after the site of a log-site assertion: while the instance is
/// in state 0 (fast[0] == 1: touched inline, the runtime has not looked at
/// it, the site not passed) it is logged like the others; past the site
/// the caller's table step follows.
void Instrumenter::emitLogFirst(IRBuilder<> &B, unsigned A, unsigned S,
                                Value *Inst, BasicBlock *Slow, BasicBlock *Ret) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Log = BasicBlock::Create(C, "log", F);
  BasicBlock *Step = BasicBlock::Create(C, "step", F);
  BasicBlock *NotFirst = BasicBlock::Create(C, "not.first", F);
  Value *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST), "fast");
  B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(1)), Log, NotFirst);
  B.SetInsertPoint(NotFirst); // a signal handler inside the site hook: ignored
  if (As[A].Locality == GLOBAL) // (under the bound's lock: none, emitTouch)
    B.CreateBr(Step);
  else
    B.CreateCondBr(B.CreateICmpEQ(Fs, B.getInt8(VIGIL_FAST_BUSY)), Ret, Step);
  B.SetInsertPoint(Log);
  emitLogAppend(B, A, S, F, Inst, Ret, Slow);
  B.SetInsertPoint(Step);
}

} // namespace pass
} // namespace vigil
