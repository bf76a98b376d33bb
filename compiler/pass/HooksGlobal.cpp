//===- HooksGlobal.cpp - the inline path of global groups -----------------===//
//
// A global assertion's instance and its group's bound are shared by every
// thread and serialised by the bound's spin lock (runtime/entry.c).  Before
// this file every event, site, entry and exit of a global group called the
// runtime, which took the lock around a table step (runtime/shortcut.c):
// some 200 instructions an event, most of them the call, the guards and the
// statistics around the step.  Here each of them takes the lock inline and
// does, inside that one critical section, what the per-thread inline path
// does on thread-local storage (vigil/abi.h, "Global groups inline"):
//
//   event, site:  peek at bound.gen (even: outside, no lock), lock,
//                 the per-thread hook's body, unlock;
//   entry, exit:  lock, depth / gen / touched / pending as the runtime
//                 does them, the runtime's settle at the outermost exit
//                 with pending instances, unlock.
//
// Why a lock and not one compare-and-swap of a packed state: an event does
// more than step a state byte (the first event of a bound touches the
// instance and links it into the bound's list, the done state settles it,
// captured values are compared and stored), and whatever the inline code
// cannot decide the runtime must decide on the same consistent instance.
// One uncontended lock covers all of it and keeps the runtime's own
// locking unchanged; a contended lock goes to the runtime's locking entry
// points, which spin (so a hook never spins inline).  The lock word holds
// its owner's thread pointer, so taking it is one compare-and-swap and
// releasing it one store, and the tag alone tells a signal handler that
// its own thread holds the lock (a thread-local flag set and cleared
// around every critical section did that before: 3 more instructions an
// event, 18 a bound of benchmark A).
//
// The body of an event or site hook is the per-thread hook itself
// (Hooks.cpp), built with its runtime calls redirected to the entry points
// that expect the lock held (__vigil_event_locked, __vigil_site_locked):
// one emission of the transition tables, one semantics.  Both are
// always-inline, so the result is one flat function after inlining.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"

#include <cstddef>

using namespace llvm;

namespace vigil {
namespace pass {

/// Takes bound.lock inline, tagged with this thread (vigil_lock_tag(): the
/// thread pointer, llvm.thread.pointer); continues, holding it, in a new
/// block left in B.  A lock this thread holds itself (a signal handler that
/// interrupted its critical section, or the runtime's handler calling
/// instrumented code) goes to Ret, as the runtime ignores it; a lock held
/// by another thread goes to Contended (the runtime's locking entry point
/// waits for it, so no hook spins inline).
void Instrumenter::emitGlobalLock(IRBuilder<> &B, Value *Bound,
                                  BasicBlock *Contended, BasicBlock *Ret) {
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Held = BasicBlock::Create(C, "locked", F);
  BasicBlock *Busy = BasicBlock::Create(C, "busy", F);
  Value *Tag = B.CreatePtrToInt(
      B.CreateIntrinsic(Intrinsic::thread_pointer, {}, {}, nullptr, "thread"), I64);
  Value *Got = B.CreateAtomicCmpXchg(
      at(B, Bound, offsetof(vigil_bound, lock)), B.getInt64(0), Tag,
      MaybeAlign(8), AtomicOrdering::Acquire, AtomicOrdering::Monotonic);
  B.CreateCondBr(B.CreateExtractValue(Got, 1), Held, Busy,
                 MDBuilder(C).createLikelyBranchWeights());
  B.SetInsertPoint(Busy);
  B.CreateCondBr(B.CreateICmpEQ(B.CreateExtractValue(Got, 0), Tag), Ret, Contended);
  B.SetInsertPoint(Held);
}

/// Releases bound.lock.
void Instrumenter::emitGlobalUnlock(IRBuilder<> &B, Value *Bound) {
  StoreInst *S = B.CreateStore(B.getInt64(0),
                               at(B, Bound, offsetof(vigil_bound, lock)));
  S->setAtomic(AtomicOrdering::Release);
  S->setAlignment(Align(8));
}

/// A relaxed store: bound.gen and bound.depth are read without the lock.
static void storeRelaxed(IRBuilder<> &B, Value *V, Value *P, unsigned Bytes) {
  StoreInst *S = B.CreateStore(V, P);
  S->setAtomic(AtomicOrdering::Monotonic);
  S->setAlignment(Align(Bytes));
}

/// A hook of global group G whose Body runs under the bound's lock.  With
/// Peek, nothing happens outside the bound (gen even: as in the runtime,
/// which peeks at depth, no lock for the events of a bound not open).
/// Body builds from the lock held and branches to the Unlock block it is
/// given; a contended lock calls Runtime instead (the runtime waits).
Function *Instrumenter::lockedHook(
    const Twine &Name, ArrayRef<Type *> Params, unsigned G, bool Peek,
    function_ref<void(IRBuilder<> &, Value *, BasicBlock *)> Body,
    function_ref<void(IRBuilder<> &, Value *)> Runtime) {
  Function *F = newHook(Name, Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Contended = BasicBlock::Create(C, "runtime", F);
  BasicBlock *Unlock = BasicBlock::Create(C, "unlock", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  if (Peek) {
    BasicBlock *Inside = BasicBlock::Create(C, "inside", F);
    LoadInst *Gen = B.CreateLoad(I64, at(B, Bound, offsetof(vigil_bound, gen)), "gen");
    Gen->setAtomic(AtomicOrdering::Monotonic);
    Gen->setAlignment(Align(8));
    B.CreateCondBr(B.CreateTrunc(Gen, B.getInt1Ty()), Inside, Ret,
                   MDBuilder(C).createLikelyBranchWeights());
    B.SetInsertPoint(Inside);
  }
  emitGlobalLock(B, Bound, Contended, Ret);
  Body(B, Bound, Unlock);
  B.SetInsertPoint(Unlock);
  emitGlobalUnlock(B, Bound);
  B.CreateBr(Ret);
  B.SetInsertPoint(Contended);
  Runtime(B, Bound);
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return F;
}

/// The entry of a global bound: as vg_engine_bound_enter under the lock
/// (no frame: a global bound's depth counts every thread's entries, so one
/// thread's frame says nothing about abandonment).
Function *Instrumenter::globalEnterHook(unsigned G) {
  if (Groups[G].Enter)
    return Groups[G].Enter;
  auto Body = [&](IRBuilder<> &B, Value *Bound, BasicBlock *Unlock) {
    BasicBlock *First = BasicBlock::Create(C, "outermost", B.GetInsertBlock()->getParent());
    Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
    Value *D = B.CreateLoad(I32, DepthP, "depth");
    storeRelaxed(B, B.CreateAdd(D, B.getInt32(1)), DepthP, 4);
    B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), First, Unlock);
    B.SetInsertPoint(First);
    Value *GenP = at(B, Bound, offsetof(vigil_bound, gen));
    storeRelaxed(B, B.CreateAdd(B.CreateLoad(I64, GenP), B.getInt64(1)), GenP,
                 8); // odd: inside
    B.CreateStore(ConstantPointerNull::get(Ptr),
                  at(B, Bound, offsetof(vigil_bound, touched)));
    B.CreateBr(Unlock);
  };
  auto Runtime = [&](IRBuilder<> &B, Value *Bound) {
    B.CreateCall(BoundEnterFn, {Bound, B.getInt32(1), ConstantPointerNull::get(Ptr)});
  };
  return Groups[G].Enter = lockedHook("__vigil_global_enter." + Twine(G), {Ptr}, G,
                                      /*Peek=*/false, Body, Runtime);
}

/// The exit of a global bound: as __vigil_bound_exit under the lock; the
/// outermost exit settles the pending instances (the runtime, still inside
/// the critical section and with depth 1, as __vigil_bound_exit does).
Function *Instrumenter::globalExitHook(unsigned G) {
  if (Groups[G].Exit)
    return Groups[G].Exit;
  auto Body = [&](IRBuilder<> &B, Value *Bound, BasicBlock *Unlock) {
    Function *F = B.GetInsertBlock()->getParent();
    BasicBlock *Inside = BasicBlock::Create(C, "inside", F);
    BasicBlock *Outer = BasicBlock::Create(C, "outermost", F);
    BasicBlock *Settle = BasicBlock::Create(C, "settle", F);
    BasicBlock *Close = BasicBlock::Create(C, "close", F);
    BasicBlock *Leave = BasicBlock::Create(C, "leave", F);
    Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
    Value *D = B.CreateLoad(I32, DepthP, "depth");
    B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), Unlock, Inside);
    B.SetInsertPoint(Inside);
    B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(1)), Outer, Leave);
    B.SetInsertPoint(Outer);
    Value *PendingP = at(B, Bound, offsetof(vigil_bound, pending));
    B.CreateCondBr(B.CreateICmpNE(B.CreateLoad(I32, PendingP), B.getInt32(0)),
                   Settle, Close);
    B.SetInsertPoint(Settle);
    B.CreateCall(BoundSettleFn, {Bound});
    B.CreateBr(Close);
    B.SetInsertPoint(Close);
    B.CreateStore(B.getInt32(0), PendingP);
    Value *GenP = at(B, Bound, offsetof(vigil_bound, gen));
    storeRelaxed(B, B.CreateAdd(B.CreateLoad(I64, GenP), B.getInt64(1)), GenP,
                 8); // even: outside
    B.CreateBr(Leave);
    B.SetInsertPoint(Leave);
    storeRelaxed(B, B.CreateSub(D, B.getInt32(1)), DepthP, 4);
    B.CreateBr(Unlock);
  };
  auto Runtime = [&](IRBuilder<> &B, Value *Bound) {
    B.CreateCall(BoundExitFn, {Bound, B.getInt32(1)});
  };
  return Groups[G].Exit = lockedHook("__vigil_global_exit." + Twine(G), {}, G,
                                     /*Peek=*/false, Body, Runtime);
}

/// A hook of a global assertion around Body (the per-thread hook built
/// with the locked runtime entry points): peek, lock, Body, unlock; a
/// contended lock calls Runtime(words) instead.
Function *Instrumenter::globalWrapper(
    const Twine &Name, unsigned A, Function *Body,
    function_ref<void(IRBuilder<> &, ArrayRef<Value *>)> Runtime) {
  auto Words = [](IRBuilder<> &B) {
    std::vector<Value *> W;
    for (Argument &Arg : B.GetInsertBlock()->getParent()->args())
      W.push_back(&Arg);
    return W;
  };
  return lockedHook(
      Name, std::vector<Type *>(Body->arg_size(), I64), GroupOf[A], /*Peek=*/true,
      [&](IRBuilder<> &B, Value *, BasicBlock *Unlock) {
        B.CreateCall(Body, Words(B));
        B.CreateBr(Unlock);
      },
      [&](IRBuilder<> &B, Value *) { Runtime(B, Words(B)); });
}

Function *Instrumenter::globalEventHook(unsigned A, unsigned S) {
  auto Key = std::make_pair(A, S);
  if (Function *F = GlobalEventFns[Key])
    return F;
  // The body: Hooks.cpp's hook, whose runtime call is the locked entry.
  FunctionCallee Unlocked = EventFn;
  EventFn = EventLockedFn;
  BuildingGlobalBody = true;
  Function *Body = eventHook(A, S);
  BuildingGlobalBody = false;
  EventFn = Unlocked;
  Function *F = globalWrapper(
      "__vigil_global_event." + Twine(A) + "." + Twine(S), A, Body,
      [&](IRBuilder<> &B, ArrayRef<Value *> Words) {
        B.CreateCall(EventFn, {AssertionGVs[A], groupPtr(B, GroupOf[A]),
                               instance(B, A), B.getInt32(S),
                               wordBuffer(B, Words)});
      });
  return GlobalEventFns[Key] = F;
}

Function *Instrumenter::globalSiteHook(unsigned A) {
  if (Function *F = GlobalSiteFns[A])
    return F;
  FunctionCallee Unlocked = SiteReachedFn;
  SiteReachedFn = SiteLockedFn;
  BuildingGlobalBody = true;
  Function *Body = siteHook(A);
  BuildingGlobalBody = false;
  SiteReachedFn = Unlocked;
  Function *F = globalWrapper(
      "__vigil_global_site." + Twine(A), A, Body,
      [&](IRBuilder<> &B, ArrayRef<Value *> Words) {
        B.CreateCall(SiteReachedFn, {AssertionGVs[A], groupPtr(B, GroupOf[A]),
                                     instance(B, A), wordBuffer(B, Words)});
      });
  return GlobalSiteFns[A] = F;
}

} // namespace pass
} // namespace vigil
