//===- TraceEmit.cpp - the inline producer at one traced point ------------===//
//
// vigil_stream_emit (include/vigil/stream.h) written in IR: test
// __vigil_stream_on, bound-check the thread's cursor, write the record (id
// | words << 32, the cycle counter, the argument words) and store the new
// position with release order; a thread's first event, a full chunk or a
// lost event go through __vigil_stream_reserve.  Only the first load and
// branch run when the stream is off: the words are widened after it.
//
//===----------------------------------------------------------------------===//
#include "TraceInternal.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace vigil {
namespace trace {

static Value *widen(IRBuilder<> &B, const Word &W) {
  Type *I64 = B.getInt64Ty();
  if (!W.V)
    return B.getInt64(0);
  Type *T = W.V->getType();
  if (T->isPointerTy())
    return B.CreatePtrToInt(W.V, I64);
  if (!T->isIntegerTy() || T->getIntegerBitWidth() > 64)
    return B.getInt64(0);
  return W.Signed ? B.CreateSExtOrTrunc(W.V, I64) : B.CreateZExtOrTrunc(W.V, I64);
}

/// A debug location for the record: the point's own, else the function's
/// opening line (a call of the runtime in a function with debug info needs
/// one).
static void locate(IRBuilder<> &B, Instruction *Before) {
  DISubprogram *SP = Before->getFunction()->getSubprogram();
  if (!SP)
    return;
  if (DebugLoc L = Before->getDebugLoc())
    B.SetCurrentDebugLocation(L);
  else
    B.SetCurrentDebugLocation(DILocation::get(B.getContext(), SP->getScopeLine(), 0, SP));
}

void emitRecord(const Producer &P, Instruction *Before, unsigned Id,
                ArrayRef<Word> Words) {
  LLVMContext &C = Before->getContext();
  Type *I8 = Type::getInt8Ty(C), *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  Function *F = Before->getFunction();
  BasicBlock *Head = Before->getParent();
  BasicBlock *Tail = Head->splitBasicBlock(Before, "vigil.trace.done");
  Head->getTerminator()->eraseFromParent();
  auto Block = [&](const char *N) { return BasicBlock::Create(C, N, F, Tail); };
  BasicBlock *Check = Block("vigil.trace"), *Bounds = Block("vigil.trace.bounds"),
             *Slow = Block("vigil.trace.slow"), *Write = Block("vigil.trace.write");
  MDBuilder MD(C);
  IRBuilder<> B(Head);
  locate(B, Before);
  Value *IsOn = B.CreateICmpNE(B.CreateLoad(I8, P.On), B.getInt8(0));
  B.CreateCondBr(IsOn, Check, Tail, MD.createUnlikelyBranchWeights())
      ->setMetadata(RecordTag, MDNode::get(C, {}));

  unsigned N = 2 + Words.size();
  B.SetInsertPoint(Check);
  Value *Cur = B.CreateLoad(Ptr, B.CreateThreadLocalAddress(P.Cursor));
  B.CreateCondBr(B.CreateIsNull(Cur), Slow, Bounds, MD.createUnlikelyBranchWeights());
  B.SetInsertPoint(Bounds);
  Value *Pos = B.CreateLoad(Ptr, Cur);
  Value *End = B.CreateLoad(Ptr, B.CreateConstGEP1_32(I8, Cur, 8));
  Value *Need = B.CreateConstGEP1_32(I64, Pos, N);
  Value *Full = B.CreateICmpUGT(B.CreatePtrToInt(Need, I64), B.CreatePtrToInt(End, I64));
  B.CreateCondBr(Full, Slow, Write, MD.createUnlikelyBranchWeights());

  B.SetInsertPoint(Slow);
  Value *Got = B.CreateCall(P.Reserve, {B.getInt32(N)});
  Value *Cur2 = B.CreateLoad(Ptr, B.CreateThreadLocalAddress(P.Cursor));
  B.CreateCondBr(B.CreateIsNull(Got), Tail, Write);

  B.SetInsertPoint(Write);
  PHINode *At = B.CreatePHI(Ptr, 2);
  At->addIncoming(Pos, Bounds);
  At->addIncoming(Got, Slow);
  PHINode *CurP = B.CreatePHI(Ptr, 2);
  CurP->addIncoming(Cur, Bounds);
  CurP->addIncoming(Cur2, Slow);
  Value *IdV = B.CreateLoad(I32, B.CreateConstGEP1_32(I32, P.Ids, Id));
  B.CreateStore(B.CreateOr(B.CreateZExt(IdV, I64), B.getInt64(uint64_t(Words.size()) << 32)),
                At);
  Value *Ticks = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
  B.CreateStore(Ticks, B.CreateConstGEP1_32(I64, At, 1));
  for (unsigned I = 0; I < Words.size(); ++I)
    B.CreateStore(widen(B, Words[I]), B.CreateConstGEP1_32(I64, At, 2 + I));
  StoreInst *S = B.CreateStore(B.CreateConstGEP1_32(I64, At, N), CurP);
  S->setAtomic(AtomicOrdering::Release);
  S->setAlignment(Align(8));
  B.CreateBr(Tail);
}

} // namespace trace
} // namespace vigil
