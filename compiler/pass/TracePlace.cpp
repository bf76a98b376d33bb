//===- TracePlace.cpp - where each record goes, in which phase ------------===//
//
// Callee side: the entry record after the entry block's allocas and -O0
// spills (it reads the parameters themselves, not their spill slots), a
// return record before every `ret`.  Caller side: the entry record just before the call
// (with its argument operands), the return record just after it (with its
// result), or at the start of an invoke's normal destination.  Nothing may
// come between a musttail call and its `ret`: such a return is not
// recorded, with a warning.  The phases are explained in Trace.h.
//
//===----------------------------------------------------------------------===//
#include "TraceInternal.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;
using namespace vigil::trace;

namespace vigil {

static void warnMusttail(const Traced &T, const Twine &Where) {
  errs() << "vigil: warning: --vigil-trace: " << Where << " of '" << T.F->getName()
         << "' is a musttail call; its return is not recorded\n";
}

/// The argument words of T's entry record at call CB.
static std::vector<Word> callWords(const Traced &T, CallBase *CB) {
  std::vector<Word> W;
  for (const ArgWord &A : T.Sig.Args)
    W.push_back({A.Index < CB->arg_size() ? CB->getArgOperand(A.Index) : nullptr, A.Signed});
  return W;
}

/// Callee-side returns, caller-side entries.
void Tracer::Impl::beforeHooks(Traced &T) {
  if (T.CallerSide) {
    for (CallBase *CB : T.Calls)
      emitRecord(P, CB, T.Entry, callWords(T, CB));
    return;
  }
  std::vector<ReturnInst *> Rets;
  for (BasicBlock &BB : *T.F)
    if (auto *RI = dyn_cast<ReturnInst>(BB.getTerminator()))
      Rets.push_back(RI);
  bool Warned = false;
  for (ReturnInst *RI : Rets) {
    auto *Tail = dyn_cast_or_null<CallInst>(RI->getPrevNode());
    if (Tail && Tail->isMustTailCall()) {
      if (!Warned)
        warnMusttail(T, "a return");
      Warned = true;
      continue;
    }
    std::vector<Word> W;
    if (T.Sig.HasRet)
      W.push_back({RI->getReturnValue(), T.Sig.RetSigned});
    emitRecord(P, RI, T.Return, W);
  }
}

/// Callee-side entries, caller-side returns.
void Tracer::Impl::afterHooks(Traced &T) {
  if (!T.CallerSide) {
    // After the allocas and the -O0 spills of the parameters, where the
    // assertion hooks go (Points.cpp): a debugger's breakpoint on the
    // function, placed after them, then sees the parameters.
    Instruction *Pt = &*T.F->getEntryBlock().getFirstInsertionPt();
    auto Spill = [](Instruction *I) {
      auto *SI = dyn_cast<StoreInst>(I);
      return SI && isa<Argument>(SI->getValueOperand()) &&
             isa<AllocaInst>(SI->getPointerOperand());
    };
    while (isa<AllocaInst>(Pt) || isa<DbgInfoIntrinsic>(Pt) || Spill(Pt))
      Pt = Pt->getNextNode();
    std::vector<Word> W;
    for (const ArgWord &A : T.Sig.Args)
      W.push_back({T.F->getArg(A.Index), A.Signed});
    emitRecord(P, Pt, T.Entry, W);
    return;
  }
  for (CallBase *CB : T.Calls) {
    std::vector<Word> W;
    if (T.Sig.HasRet)
      W.push_back({CB->getType()->isVoidTy() ? nullptr : CB, T.Sig.RetSigned});
    Instruction *After;
    if (auto *CI = dyn_cast<CallInst>(CB)) {
      if (CI->isMustTailCall()) {
        warnMusttail(T, ("a call in '" + CB->getFunction()->getName() + "'").str());
        continue;
      }
      After = CI->getNextNode();
    } else {
      auto *II = cast<InvokeInst>(CB);
      BasicBlock *Normal = II->getNormalDest();
      if (!Normal->getSinglePredecessor())
        Normal = SplitEdge(II->getParent(), Normal);
      After = &*Normal->getFirstInsertionPt();
    }
    emitRecord(P, After, T.Return, W);
  }
}

/// A constructor that declares every event when the stream is on.
void Tracer::Impl::declareEvents() {
  Type *I8 = Type::getInt8Ty(C), *I32 = Type::getInt32Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  auto *Fn = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                              GlobalValue::InternalLinkage, "__vigil_trace_declare", M);
  FunctionCallee Declare = M.getOrInsertFunction(
      "vigil_stream_declare_named",
      FunctionType::get(I32, {Ptr, Ptr, I32, Ptr, Ptr}, false));
  BasicBlock *Entry = BasicBlock::Create(C, "entry", Fn);
  BasicBlock *Work = BasicBlock::Create(C, "declare", Fn);
  BasicBlock *Done = BasicBlock::Create(C, "done", Fn);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateICmpNE(B.CreateLoad(I8, P.On), B.getInt8(0)), Work, Done);
  B.SetInsertPoint(Work);
  auto Strings = [&](const std::vector<std::string> &S, const char *Name) -> Value * {
    if (S.empty())
      return ConstantPointerNull::get(Ptr);
    std::vector<Constant *> Elems;
    for (const std::string &X : S)
      Elems.push_back(B.CreateGlobalStringPtr(X, Name));
    auto *AT = ArrayType::get(Ptr, Elems.size());
    return new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                              ConstantArray::get(AT, Elems), Name);
  };
  for (unsigned I = 0; I < Table.size(); ++I) {
    const Event &E = Table[I];
    Value *Id = B.CreateCall(Declare, {B.CreateGlobalStringPtr(E.Name, "vigil.trace.name"),
                                       B.CreateGlobalStringPtr(E.Kind, "vigil.trace.kind"),
                                       B.getInt32(E.Types.size()),
                                       Strings(E.Types, "vigil.trace.types"),
                                       Strings(E.Names, "vigil.trace.names")});
    B.CreateStore(Id, B.CreateConstGEP1_32(I32, P.Ids, I));
  }
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
  appendToGlobalCtors(M, Fn, 102);
}

bool Tracer::instrumentBeforeHooks() {
  for (Traced &T : P->Fns)
    P->beforeHooks(T);
  return !P->Fns.empty();
}

bool Tracer::instrumentAfterHooks() {
  if (P->Fns.empty())
    return false;
  for (Traced &T : P->Fns)
    P->afterHooks(T);
  P->declareEvents();
  // Last: the copies must be of functions instrumented in full
  // (TraceClone.cpp).
  for (Traced &T : P->Fns)
    if (!T.CallerSide)
      P->split(T);
  return true;
}

} // namespace vigil
