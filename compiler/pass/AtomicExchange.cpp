//===- AtomicExchange.cpp - reads and writes the runtime makes atomically -===//
//
// The four places where the access itself changes form (include/vigil/atomic.h):
//
//   - an AR's second access, when it is a read, is made by the runtime too
//     (`v = __vigil_ar_end_read(end, p, size)`), which waits a little when
//     a remote write is between its exchange and its undo;
//   - an AR whose first access is a read gets `v = __vigil_ar_begin_read(ar,
//     p, size)`, the runtime reading the variable after the AR is published,
//     so that the AR's saved value is exactly what the program read;
//   - a checked read that finds an AR open is read again by the runtime
//     (`v = __vigil_access_read(p, site, size)`), which looks at the ARs
//     once more after its read;
//   - a checked write becomes an atomic exchange (seq_cst: a full fence) and
//     is looked at a second time: a begin in the window between the first
//     check and the store is either seen then or sees the new value.
//
// Both need a scalar the runtime can read, exchange and compare-and-swap in
// one instruction: 1, 2, 4 or 8 bytes, naturally aligned, of integer,
// pointer or floating-point type.  Anything else keeps the plain form.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"

#include "vigil/atomic.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace vigil {
namespace pass {

unsigned exchangeableSize(Type *Ty, Align A, const DataLayout &DL) {
  if (!Ty->isIntegerTy() && !Ty->isPointerTy() && !Ty->isFloatingPointTy())
    return 0;
  uint64_t Bits = DL.getTypeSizeInBits(Ty);
  uint64_t Bytes = DL.getTypeStoreSize(Ty);
  if (Bits != Bytes * 8 || (Bytes != 1 && Bytes != 2 && Bytes != 4 && Bytes != 8))
    return 0;
  if (Ty->isFloatingPointTy() && !Ty->isFloatTy() && !Ty->isDoubleTy())
    return 0; // half/bfloat: no atomicrmw xchg guarantee worth the risk
  return A.value() >= Bytes ? unsigned(Bytes) : 0;
}

Value *toI64(IRBuilderBase &B, Value *V, const DataLayout &DL) {
  Type *Ty = V->getType();
  if (Ty->isPointerTy())
    return B.CreatePtrToInt(V, B.getInt64Ty());
  if (!Ty->isIntegerTy())
    V = B.CreateBitCast(V, B.getIntNTy(DL.getTypeSizeInBits(Ty)));
  return B.CreateZExt(V, B.getInt64Ty());
}

Value *fromI64(IRBuilderBase &B, Value *V, Type *Ty, const DataLayout &DL) {
  if (Ty->isPointerTy())
    return B.CreateIntToPtr(V, Ty);
  Value *N = B.CreateTrunc(V, B.getIntNTy(DL.getTypeSizeInBits(Ty)));
  return Ty->isIntegerTy() ? N : B.CreateBitCast(N, Ty);
}

namespace {
/// `v = Hook(Id, p, size)` in place of LI (its uses take v): the runtime
/// makes the read.  Returns LI, dead (the caller erases it once nothing
/// refers to it), or null when LI keeps the plain form.
LoadInst *readByRuntime(Module &M, LoadInst *LI, StringRef Hook, unsigned Id,
                        const DataLayout &DL) {
  unsigned Size = exchangeableSize(LI->getType(), LI->getAlign(), DL);
  if (!Size || !LI->isSimple())
    return nullptr;
  IRBuilder<> B(LI);
  B.SetCurrentDebugLocation(LI->getDebugLoc());
  FunctionCallee Read = M.getOrInsertFunction(
      Hook,
      FunctionType::get(B.getInt64Ty(), {B.getInt32Ty(), B.getPtrTy(), B.getInt32Ty()}, false));
  Value *V = B.CreateCall(Read, {B.getInt32(Id), LI->getPointerOperand(), B.getInt32(Size)});
  LI->replaceAllUsesWith(fromI64(B, V, LI->getType(), DL));
  return LI;
}
} // namespace

LoadInst *beginRead(Module &M, LoadInst *LI, unsigned ArId, const DataLayout &DL) {
  return readByRuntime(M, LI, "__vigil_ar_begin_read", ArId, DL);
}

LoadInst *endRead(Module &M, LoadInst *LI, unsigned EndId, const DataLayout &DL) {
  return readByRuntime(M, LI, "__vigil_ar_end_read", EndId, DL);
}

AtomicRMWInst *exchangeWrite(StoreInst *SI, const DataLayout &DL) {
  Value *V = SI->getValueOperand();
  if (!SI->isSimple() || !exchangeableSize(V->getType(), SI->getAlign(), DL))
    return nullptr;
  IRBuilder<> B(SI);
  auto *X = B.CreateAtomicRMW(AtomicRMWInst::Xchg, SI->getPointerOperand(), V, SI->getAlign(),
                              AtomicOrdering::SequentiallyConsistent);
  X->setDebugLoc(SI->getDebugLoc());
  SI->eraseFromParent();
  return X;
}

Instruction *readAgain(Module &M, LoadInst *LI, unsigned SiteId, const DataLayout &DL,
                       IRBuilderBase &B) {
  unsigned Size = exchangeableSize(LI->getType(), LI->getAlign(), DL);
  if (!Size || !LI->isSimple())
    return nullptr;
  FunctionCallee Read = M.getOrInsertFunction(
      "__vigil_access_read",
      FunctionType::get(B.getInt64Ty(), {B.getPtrTy(), B.getInt32Ty(), B.getInt32Ty()}, false));
  Value *V = B.CreateCall(Read, {LI->getPointerOperand(), B.getInt32(SiteId), B.getInt32(Size)});
  cast<Instruction>(V)->setDebugLoc(LI->getDebugLoc());
  return cast<Instruction>(fromI64(B, V, LI->getType(), DL)); // V is a call: no folding
}

ArrayType *filterType(LLVMContext &C) {
  return ArrayType::get(Type::getInt32Ty(C), VIGIL_ATOMIC_FILTER_SIZE);
}

Value *filterWord(IRBuilderBase &B, Value *Filter, Value *Idx) {
  return B.CreateInBoundsGEP(filterType(B.getContext()), Filter, {B.getInt64(0), Idx});
}

LoadInst *loadFilterCount(IRBuilderBase &B, Value *Filter, Value *Idx, AtomicOrdering O,
                          const DataLayout &DL) {
  Value *Word = filterWord(B, Filter, Idx);
  // the count is the word's low byte: its first byte in memory on a little-endian target
  Value *Byte = DL.isLittleEndian() ? Word : B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Word, 3);
  LoadInst *Count = B.CreateLoad(B.getInt8Ty(), Byte);
  Count->setAtomic(O);
  Count->setAlignment(Align(1));
  return Count;
}

void secondCheck(Module &M, AtomicRMWInst *X, Value *Filter, Value *Idx, unsigned SiteId,
                 const DataLayout &DL) {
  IRBuilder<> B(X->getNextNode());
  B.SetCurrentDebugLocation(X->getDebugLoc());
  FunctionCallee Written = M.getOrInsertFunction(
      "__vigil_access_written",
      FunctionType::get(B.getVoidTy(),
                        {B.getPtrTy(), B.getInt32Ty(), B.getInt64Ty(), B.getInt64Ty()}, false));
  // seq_cst: after the exchange on every architecture (x86: a plain mov)
  LoadInst *Byte = loadFilterCount(B, Filter, Idx, AtomicOrdering::SequentiallyConsistent, DL);
  Instruction *Then = SplitBlockAndInsertIfThen(
      B.CreateICmpNE(Byte, B.getInt8(0)), &*B.GetInsertPoint(), false,
      MDBuilder(M.getContext()).createUnlikelyBranchWeights());
  IRBuilder<> S(Then);
  S.SetCurrentDebugLocation(X->getDebugLoc());
  S.CreateCall(Written, {X->getPointerOperand(), S.getInt32(SiteId), toI64(S, X, DL),
                         toI64(S, X->getValOperand(), DL)});
}

} // namespace pass
} // namespace vigil
