//===- Points.cpp - one hook per observation point ------------------------===//
//
// A point's hook is an internal always-inline function taking the observed
// words: for a function entry or return, one word per IR parameter and the
// return value (0 at entry); for a field store, the struct's address, the
// new and the old value of the field.  For each observer it computes the
// slot words of its event (docs/engine.md "Event values": indirect slots
// read through the pointer, NULL meaning "not this event"), checks the
// CONST / FLAGS / MASK slots inline, and dispatches: bound hooks, the
// symbol's inline fast-path hook, __vigil_event or __vigil_object_event.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace vigil {
namespace pass {

void locate(IRBuilder<> &B, Instruction *I) {
  if (I->getDebugLoc()) {
    B.SetCurrentDebugLocation(I->getDebugLoc());
    return;
  }
  if (DISubprogram *SP = I->getFunction()->getSubprogram())
    B.SetCurrentDebugLocation(DILocation::get(
        I->getContext(), SP->getScopeLine() ? SP->getScopeLine() : SP->getLine(),
        0, SP));
}

Value *Instrumenter::toWord(IRBuilder<> &B, Value *V) {
  Type *T = V->getType();
  if (T->isPointerTy())
    return B.CreatePtrToInt(V, I64);
  if (T->isFloatingPointTy() && T->getPrimitiveSizeInBits() <= 64) {
    V = B.CreateBitCast(V, IntegerType::get(C, T->getPrimitiveSizeInBits()));
    T = V->getType();
  }
  if (T->isIntegerTy())
    return B.CreateZExtOrTrunc(V, I64);
  return ConstantInt::get(I64, 0);
}

/// Whether the IR signature lets us read E's slots (C's parameter indices).
bool Instrumenter::slotsUsable(const vigil::Event &E, unsigned NArgs,
                               bool HasRet, StringRef Where) {
  if (E.Values.empty())
    return true;
  bool OK = E.ExactParams ? NArgs == E.NumParams : NArgs >= E.NumParams;
  for (const vigil::Value &V : E.Values) {
    if (V.Role == ROLE_ARG)
      OK &= V.ArgIndex < NArgs && (E.ExactParams || V.ArgIndex < E.NumParams);
    else if (V.Role == ROLE_RETURN)
      OK &= HasRet;
    else
      OK = false;
  }
  if (!OK)
    warn("event '" + E.Text + "': the IR signature of '" + E.Function +
         "' in " + Where + " does not match its C prototype; not instrumented");
  return OK;
}

/// The word slot V reads.  Indirect slots branch to Skip on NULL.
Value *Instrumenter::slotWord(IRBuilder<> &B, Function *F, const vigil::Event &E,
                              const vigil::Value &V, unsigned NArgs,
                              BasicBlock *Skip) {
  if (isField(E)) {
    if (V.Role == ROLE_BASE)
      return F->getArg(0);
    if (V.Role != ROLE_VALUE)
      return ConstantInt::get(I64, 0);
    Value *New = F->getArg(1), *Old = F->getArg(2);
    if (E.Op != OP_ASSIGN) {
      // The caller says whether it has the old value (Fields.cpp: always
      // when an observer of the point needs it).
      BasicBlock *Change = BasicBlock::Create(C, "change", F);
      B.CreateCondBr(B.CreateICmpEQ(F->getArg(3), ConstantInt::get(I64, 0)),
                     Skip, Change);
      B.SetInsertPoint(Change);
    }
    Value *W = E.Op == OP_ADD   ? B.CreateSub(New, Old)
               : E.Op == OP_SUB ? B.CreateSub(Old, New)
                                : New;
    if (E.Op != OP_ASSIGN && E.FieldSize && E.FieldSize < 8)
      W = B.CreateAnd(W, ConstantInt::get(I64, (uint64_t(1) << (8 * E.FieldSize)) - 1));
    return W;
  }
  if (V.Role == ROLE_RETURN)
    return F->getArg(NArgs);
  Value *W = F->getArg(V.ArgIndex);
  if (!V.Indirect)
    return W;
  BasicBlock *Load = BasicBlock::Create(C, "deref", F);
  B.CreateCondBr(B.CreateICmpEQ(W, ConstantInt::get(I64, 0)), Skip, Load);
  B.SetInsertPoint(Load);
  unsigned Bytes = V.Indirect > 8 ? 8 : V.Indirect;
  Type *T = IntegerType::get(C, 8 * Bytes);
  LoadInst *L = B.CreateAlignedLoad(T, B.CreateIntToPtr(W, Ptr), Align(1), "indirect");
  return B.CreateZExt(L, I64);
}

void Instrumenter::dispatch(IRBuilder<> &B, const Observer &O,
                            ArrayRef<Value *> Words) {
  const Group *G = O.T == Observer::Event ? nullptr : &Groups[O.G];
  switch (O.T) {
  case Observer::BoundStart: {
    Value *Frame = ConstantPointerNull::get(Ptr);
    if (G->Anchored)
      Frame = B.CreateIntrinsic(Intrinsic::addressofreturnaddress, {Ptr}, {},
                                nullptr, "vigil.frame");
    if (FastPath) // Hooks.cpp (per-thread) or HooksGlobal.cpp
      B.CreateCall(enterHook(O.G), {Frame});
    else
      B.CreateCall(BoundEnterFn,
                   {groupPtr(B, O.G), B.getInt32(G->Global), Frame});
    return;
  }
  case Observer::BoundEnd:
    if (FastPath) // Hooks.cpp (per-thread) or HooksGlobal.cpp
      B.CreateCall(exitHook(O.G));
    else
      B.CreateCall(BoundExitFn, {groupPtr(B, O.G), B.getInt32(G->Global)});
    return;
  case Observer::Event:
    break;
  }
  if (As[O.A].Kind == AK_STRUCT) {
    B.CreateCall(ObjectEventFn,
                 {AssertionGVs[O.A], B.getInt32(O.S), wordBuffer(B, Words)});
  } else if (logSite(O.A) && O.S > SymSite) {
    // HooksLogSite.cpp: Pre is only logged; Post is logged before the site
    // and a table step after it
    bool Post = !((Host[O.A][0]->Au.pre >> O.S) & 1);
    B.CreateCall(Post ? eventHook(O.A, O.S) : logHook(O.A, O.S), Words);
  } else if (symbolInline(O.A, O.S)) {
    B.CreateCall(eventHook(O.A, O.S), Words);
  } else if (O.S > SymSite && logSlots(O.A)) {
    B.CreateCall(logHook(O.A, O.S), Words); // HooksStore.cpp
  } else {
    B.CreateCall(EventFn, {AssertionGVs[O.A], groupPtr(B, O.G),
                           instance(B, O.A), B.getInt32(O.S),
                           wordBuffer(B, Words)});
  }
}

/// One observer in a point hook: slot words, inline checks, dispatch.
void Instrumenter::emitObserver(IRBuilder<> &B, Function *F, const Observer &O,
                                unsigned NArgs) {
  const vigil::Event &E = *O.Ev;
  BasicBlock *Skip = BasicBlock::Create(C, "next", F);
  std::vector<Value *> Words;
  Value *Cond = B.getTrue();
  for (const vigil::Value &V : E.Values) {
    Value *W = slotWord(B, F, E, V, NArgs, Skip);
    Words.push_back(W);
    Value *K = ConstantInt::get(I64, V.Constant);
    if (V.Kind == VAL_CONST)
      Cond = B.CreateAnd(Cond, B.CreateICmpEQ(W, K));
    else if (V.Kind == VAL_FLAGS)
      Cond = B.CreateAnd(Cond, B.CreateICmpEQ(B.CreateAnd(W, K), K));
    else if (V.Kind == VAL_MASK)
      Cond = B.CreateAnd(Cond, B.CreateICmpEQ(B.CreateAnd(W, ~V.Constant),
                                              ConstantInt::get(I64, 0)));
  }
  BasicBlock *Go = BasicBlock::Create(C, "observe", F);
  B.CreateCondBr(Cond, Go, Skip);
  B.SetInsertPoint(Go);
  dispatch(B, O, Words);
  B.CreateBr(Skip);
  B.SetInsertPoint(Skip);
}

/// The hook of point P for a signature of NArgs words (+ the return word).
Function *Instrumenter::pointHook(unsigned PI, unsigned NArgs, bool HasRet,
                                  StringRef Where, bool OutOfLine) {
  Point &P = Points[PI];
  unsigned Key = P.Field ? unsigned(OutOfLine) : NArgs * 2 + HasRet;
  if (Function *F = P.Hooks[Key])
    return F;
  unsigned NW = P.Field ? 4 : NArgs + 1;
  std::string Name =
      P.Field ? "__vigil_point." + P.Record + "." + std::to_string(P.Offset)
              : "__vigil_point." + P.Function + (P.AtReturn ? ".return" : ".entry") +
                    (P.CallerSide ? ".caller" : "");
  Function *F = newHook(Name + (OutOfLine ? ".plain" : ""),
                        std::vector<Type *>(NW, I64));
  if (OutOfLine) {
    F->removeFnAttr(Attribute::AlwaysInline);
    F->addFnAttr(Attribute::NoInline);
  }
  IRBuilder<> B(BasicBlock::Create(C, "entry", F));
  for (const Observer &O : P.Obs)
    if (P.Field || slotsUsable(*O.Ev, NArgs, HasRet, Where))
      emitObserver(B, F, O, NArgs);
  B.CreateRetVoid();
  return P.Hooks[Key] = F;
}

/// A function that enters an anchored bound keeps a frame of its own: once
/// inlined, its entry would record its caller's frame, which outlives a
/// longjmp out of the bound, and a later entry from below that frame would
/// look nested (runtime/abandon.c).
void Instrumenter::keepFrame(Function &F, unsigned P) {
  for (const Observer &O : Points[P].Obs)
    if (O.T == Observer::BoundStart && Groups[O.G].Anchored &&
        !F.hasFnAttribute(Attribute::AlwaysInline))
      F.addFnAttr(Attribute::NoInline);
}

void Instrumenter::callPoint(Instruction *Before, unsigned P,
                             ArrayRef<Value *> Args, Value *Ret, StringRef Where,
                             bool Entry) {
  keepFrame(*Before->getFunction(), P);
  IRBuilder<> B(Before);
  DISubprogram *SP = Before->getFunction()->getSubprogram();
  if (Entry && SP) // the function's opening line
    B.SetCurrentDebugLocation(DILocation::get(
        C, SP->getScopeLine() ? SP->getScopeLine() : SP->getLine(), 0, SP));
  else
    locate(B, Before);
  std::vector<Value *> Words;
  for (Value *A : Args)
    Words.push_back(toWord(B, A));
  Words.push_back(Ret ? toWord(B, Ret) : ConstantInt::get(I64, 0));
  B.CreateCall(pointHook(P, Args.size(), Ret != nullptr, Where), Words);
}

/// Caller side: around every direct call of a function observed there.
void Instrumenter::instrumentCalls(Function &F, ArrayRef<CallInst *> Calls) {
  for (CallInst *CI : Calls) {
    auto *Callee = cast<Function>(CI->getCalledOperand()->stripPointerCasts());
    StringRef Name = Callee->getName();
    std::string Where = ("a call in '" + F.getName() + "'").str();
    unsigned N = CI->arg_size();
    if (Callee->isVarArg())
      N = std::min<unsigned>(N, Callee->getFunctionType()->getNumParams());
    // An sret pointer is not a C parameter.
    unsigned First = N && CI->paramHasAttr(0, Attribute::StructRet) ? 1 : 0;
    std::vector<Value *> Args(CI->arg_begin() + First, CI->arg_begin() + N);
    auto E = CallerEntry.find(Name);
    if (E != CallerEntry.end())
      callPoint(CI, E->second, Args, nullptr, Where, false);
    auto R = CallerReturn.find(Name);
    if (R == CallerReturn.end())
      continue;
    if (CI->isMustTailCall()) {
      warn("a musttail call of '" + Name + "' in '" + F.getName() +
           "' cannot be instrumented at its return");
      continue;
    }
    callPoint(CI->getNextNode(), R->second, Args,
              CI->getType()->isVoidTy() ? nullptr : CI, Where, false);
  }
}

void Instrumenter::instrumentFunction(Function &F) {
  // Collect the points first: instrumentation adds calls and blocks.
  std::vector<CallInst *> Calls;
  std::vector<ReturnInst *> Rets;
  std::vector<FieldRef> Stores;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *CI = dyn_cast<CallInst>(&I)) {
        auto *Callee = dyn_cast<Function>(CI->getCalledOperand()->stripPointerCasts());
        if (Callee && !Callee->isIntrinsic() &&
            (CallerEntry.count(Callee->getName()) ||
             CallerReturn.count(Callee->getName())))
          Calls.push_back(CI);
      } else if (auto *RI = dyn_cast<ReturnInst>(&I)) {
        Rets.push_back(RI);
      }
    }
  if (!FieldPoints.empty())
    matchStores(F, Stores);

  std::vector<Value *> Args;
  for (Argument &A : F.args())
    if (!A.hasStructRetAttr()) // an sret pointer is not a C parameter
      Args.push_back(&A);
  auto E = CalleeEntry.find(F.getName());
  if (E != CalleeEntry.end()) {
    // After the allocas and the spills of the parameters (-O0): a debugger
    // stopped in the hook sees the parameters.
    Instruction *Pt = &*F.getEntryBlock().getFirstInsertionPt();
    auto Spill = [](Instruction *I) {
      auto *SI = dyn_cast<StoreInst>(I);
      return SI && isa<Argument>(SI->getValueOperand()) &&
             isa<AllocaInst>(SI->getPointerOperand());
    };
    while (isa<AllocaInst>(Pt) || isa<DbgInfoIntrinsic>(Pt) || Spill(Pt))
      Pt = Pt->getNextNode();
    callPoint(Pt, E->second, Args, nullptr, "its body", true);
  }
  auto R = CalleeReturn.find(F.getName());
  if (R != CalleeReturn.end())
    for (ReturnInst *RI : Rets) {
      auto *Tail = dyn_cast_or_null<CallInst>(RI->getPrevNode());
      if (Tail && Tail->isMustTailCall()) {
        warn("a musttail return of '" + F.getName() +
             "' cannot be instrumented");
        continue;
      }
      callPoint(RI, R->second, Args, RI->getReturnValue(), "its body", false);
    }
  instrumentCalls(F, Calls);
  for (const FieldRef &S : Stores)
    instrumentStore(S);
}

void Instrumenter::replaceSite(CallInst *CI, unsigned A) {
  Function *F = CI->getFunction();
  IRBuilder<> B(CI);
  locate(B, CI);
  unsigned N = CI->arg_size() - 1;
  if (N != As[A].Captures.size())
    warn(As[A].Location + ": the site passes " + Twine(N) +
         " captured values, the assertion has " + Twine(As[A].Captures.size()));
  std::vector<Value *> Caps;
  for (unsigned I = 0; I < As[A].Captures.size(); ++I)
    Caps.push_back(I < N ? toWord(B, CI->getArgOperand(1 + I))
                         : ConstantInt::get(I64, 0));
  if (logSite(A) || siteInline(A)) { // (HooksLogSite.cpp for logSite)
    B.CreateCall(siteHook(A), Caps);
  } else {
    (void)F;
    B.CreateCall(SiteReachedFn, {AssertionGVs[A], groupPtr(B, GroupOf[A]),
                                 instance(B, A), wordBuffer(B, Caps)});
  }
  CI->eraseFromParent();
}

} // namespace pass
} // namespace vigil
