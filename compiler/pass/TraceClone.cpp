//===- TraceClone.cpp - a traced copy, so that the stream off costs a test ===//
//
// Why: a record's rare path calls __vigil_stream_reserve, and that call
// makes the function save callee-saved registers in its prologue and
// restore them in its epilogue whether the stream is on or not (a tiny leaf
// function paid 14 instructions per call for a 3-instruction test; moving
// the recording out of line did not remove the saves).  So, as XRay and
// function multiversioning do, each callee-side traced function F that can
// be split becomes two:
//
//   F.vigil.traced  (internal, noinline) F exactly as instrumented: every
//                   trace record, every assertion and monitor hook
//   F               `if (__vigil_stream_on) return musttail
//                   F.vigil.traced(args...)` at its very start, then F's
//                   body with the same hooks and no trace record
//
// The tail call leaves no frame of F behind, and the records' reserve
// calls are gone from F, so F's normal path has no saved register of
// theirs: the stream off costs the load, the compare and the branch.
//
// Why the hooks run exactly once and in the same order.  The split runs
// last, after the two trace phases and the assertion and monitor passes
// (Trace.h), so the copy is the instrumented F: with the stream on the
// program runs the code it ran before, record-before-hooks order and
// verdict-after-record order included.  F itself only loses its records:
// each record's flag-test branch (tagged by emitRecord) now goes straight
// to the code after the record, which is what it did at run time with the
// stream off.  Hooks are untouched in both.  The dispatch goes in front of
// everything but the entry block's allocas, so before every hook (the
// entry hooks of Points.cpp and MonitorBindings.cpp come after the allocas),
// and a musttail call is followed by nothing but its `ret`: a call of F
// runs either F's body or the copy's, never both, never part of each.  So
// the hooks, and with them the assertions' and monitors' verdicts, are the
// same with the stream on and off.  One difference: F's path tests the flag
// once, at entry; a stream turned on while F runs (only the runtime's
// constructor at priority 101 turns it on) leaves that call unrecorded
// rather than recording its return without its entry.
//
// The hooks that read a frame (an anchored bound's
// llvm.addressofreturnaddress) see the same slot in both: a musttail call
// reuses the caller's return address.  Debug info: CloneFunction clones
// the DISubprogram (a distinct one, same name and lines) in the same
// module, so gdb puts a breakpoint on F's lines in both copies and perf and
// the symbolizer name the copy after F's source; the dispatch has line 0
// so that a breakpoint on F stops after it, in F's body, not before the
// jump into the copy as well.
//
// Not split, traced in place as before: variadic functions, naked ones,
// `returns_twice` ones, those with a musttail call inside, whose blocks
// have their address taken (blockaddress), with a calling convention other
// than C, with an argument passed in memory in a way a tail call would
// have to copy (byval, inalloca, preallocated) or a Swift ABI attribute,
// and those another tool instruments at entry (-finstrument-functions,
// -pg, XRay, -fpatchable-function-entry).  Exception handling needs
// nothing: the copy has F's personality and landing pads, and the tail
// call is a plain call that unwinds into F's caller.
//
//===----------------------------------------------------------------------===//
#include "TraceInternal.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

using namespace llvm;
using namespace vigil::trace;

namespace vigil {

/// Why F is traced in place rather than split, or null when it can be split.
static const char *unsplittable(Function &F) {
  if (F.isVarArg())
    return "variadic";
  if (F.hasFnAttribute(Attribute::Naked))
    return "naked";
  if (F.hasFnAttribute(Attribute::ReturnsTwice))
    return "returns_twice";
  if (F.getCallingConv() != CallingConv::C)
    return "calling convention";
  // Entry instrumentation of other tools would run in both, twice per
  // call with the stream on: -finstrument-functions, -pg, XRay, patchable
  // entries.
  for (const char *K : {"instrument-function-entry", "instrument-function-entry-inlined",
                        "instrument-function-exit", "instrument-function-exit-inlined",
                        "fentry-call", "patchable-function-entry", "function-instrument",
                        "xray-instruction-threshold"})
    if (F.hasFnAttribute(K))
      return "entry instrumentation";
  const Attribute::AttrKind Memory[] = {
      Attribute::ByVal,     Attribute::InAlloca,   Attribute::Preallocated,
      Attribute::SwiftSelf, Attribute::SwiftError, Attribute::SwiftAsync};
  for (Argument &A : F.args())
    for (Attribute::AttrKind K : Memory)
      if (A.hasAttribute(K))
        return "argument in memory";
  for (BasicBlock &BB : F) {
    if (BB.hasAddressTaken())
      return "blockaddress";
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->isMustTailCall())
        return "musttail call";
  }
  return nullptr;
}

/// F's records go straight to the code after them (the stream-off edge of
/// each flag test emitRecord tagged); their recording blocks, now
/// unreachable, are deleted and each test's two halves joined again.
static void stripRecords(Function &F) {
  std::vector<BranchInst *> Tests;
  for (BasicBlock &BB : F)
    if (auto *Br = dyn_cast<BranchInst>(BB.getTerminator()))
      if (Br->getMetadata(RecordTag))
        Tests.push_back(Br);
  SmallPtrSet<BasicBlock *, 8> Off;
  for (BranchInst *Br : Tests) {
    BasicBlock *To = Br->getSuccessor(1);
    Value *Cond = Br->getCondition();
    BranchInst::Create(To, Br->getIterator());
    Br->eraseFromParent();
    RecursivelyDeleteTriviallyDeadInstructions(Cond);
    Off.insert(To);
  }
  // Deletes the recording blocks (and a record that was in dead code
  // altogether), so the joins are listed after it; nothing is created
  // in between.
  removeUnreachableBlocks(F);
  std::vector<BasicBlock *> Joins;
  for (BasicBlock &BB : F)
    if (Off.count(&BB))
      Joins.push_back(&BB);
  for (BasicBlock *BB : Joins)
    MergeBlockIntoPredecessor(BB);
}

/// `if (__vigil_stream_on) return musttail Traced(args...)` after F's
/// allocas (they stay static, in the entry block; nothing else is before).
void Tracer::Impl::dispatch(Function &F, Function &Traced) {
  BasicBlock &Entry = F.getEntryBlock();
  BasicBlock::iterator Pt = Entry.getFirstInsertionPt();
  while (isa<AllocaInst>(*Pt))
    ++Pt;
  // A static alloca further down the entry block would land in a block
  // that is not the entry, and become a dynamic one: it moves up too.
  std::vector<AllocaInst *> Late;
  for (Instruction &I : make_range(Pt, Entry.end()))
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
      Late.push_back(AI);
  for (AllocaInst *AI : Late)
    AI->moveBefore(&*Pt);
  BasicBlock *Body = Entry.splitBasicBlock(Pt, "vigil.untraced");
  BasicBlock *Jump = BasicBlock::Create(C, "vigil.traced", &F, Body);
  Entry.getTerminator()->eraseFromParent();
  IRBuilder<> B(&Entry);
  // Line 0: not a line of F's (a breakpoint on F lands after it, in F's
  // body); the call of a function with debug info needs a location.
  if (DISubprogram *SP = F.getSubprogram())
    B.SetCurrentDebugLocation(DILocation::get(C, 0, 0, SP));
  Value *On = B.CreateICmpNE(B.CreateLoad(B.getInt8Ty(), P.On), B.getInt8(0));
  B.CreateCondBr(On, Jump, Body, MDBuilder(C).createUnlikelyBranchWeights());
  B.SetInsertPoint(Jump);
  std::vector<Value *> Args;
  for (Argument &A : F.args())
    Args.push_back(&A);
  CallInst *Call = B.CreateCall(&Traced, Args);
  Call->setTailCallKind(CallInst::TCK_MustTail);
  Call->setCallingConv(F.getCallingConv());
  // musttail: the ABI attributes of the call, the caller and the callee
  // must match; the copy has F's.
  AttributeList A = F.getAttributes();
  Call->setAttributes(AttributeList::get(C, AttributeSet(), A.getRetAttrs(),
                                         [&] {
                                           std::vector<AttributeSet> P;
                                           for (unsigned I = 0; I < F.arg_size(); ++I)
                                             P.push_back(A.getParamAttrs(I));
                                           return P;
                                         }()));
  if (F.getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
}

/// Splits T's function (see above); false when it is traced in place.
bool Tracer::Impl::split(Traced &T) {
  Function &F = *T.F;
  if (unsplittable(F))
    return false;
  ValueToValueMapTy VM;
  Function *G = CloneFunction(&F, VM);
  G->setName(F.getName() + ".vigil.traced");
  G->setLinkage(GlobalValue::InternalLinkage);
  G->setVisibility(GlobalValue::DefaultVisibility);
  G->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  G->setComdat(nullptr);
  // Inlined back into F, the copy would bring its registers with it.
  G->removeFnAttr(Attribute::AlwaysInline);
  G->addFnAttr(Attribute::NoInline);
  stripRecords(F);
  dispatch(F, *G);
  return true;
}

} // namespace vigil
