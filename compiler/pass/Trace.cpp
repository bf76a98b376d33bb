//===- Trace.cpp - function tracing into the event stream ---------------===//
//
// Each traced point inlines vigil_stream_emit (include/vigil/stream.h):
// test __vigil_stream_on, bound-check the thread's cursor, write the
// record (id | words << 32, the cycle counter, the argument words) and
// store the new position with release order; a thread's first event, a
// full chunk or a lost event go through __vigil_stream_reserve.  Event ids
// are declared by a constructor (priority 102, after the runtime's stream
// set-up at 101) only when the stream is on.
//
//===----------------------------------------------------------------------===//
#include "Trace.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

namespace {

constexpr unsigned MaxArgs = 16; // VIGIL_STREAM_MAX_ARGS

struct Point {
  std::string Name, Kind;               // function, "entry" / "return"
  std::vector<std::string> Types;       // "i64" / "u64" / "ptr" per word
};

class Tracer {
public:
  explicit Tracer(Module &M) : M(M), C(M.getContext()) {
    I8 = Type::getInt8Ty(C);
    I32 = Type::getInt32Ty(C);
    I64 = Type::getInt64Ty(C);
    Ptr = PointerType::getUnqual(C);
  }
  bool run(StringRef Spec);

private:
  Module &M;
  LLVMContext &C;
  Type *I8, *I32, *I64;
  PointerType *Ptr;
  std::vector<Point> Points;
  GlobalVariable *Ids = nullptr, *On = nullptr, *Cursor = nullptr;
  FunctionCallee Reserve;

  static const char *typeOf(Type *T, bool Signed) {
    return T->isPointerTy() ? "ptr" : Signed ? "i64" : "u64";
  }
  void traceFunction(Function &F);
  void emit(Instruction *Before, unsigned Id, ArrayRef<Value *> Words);
  void declareIds();
};

Value *word(IRBuilder<> &B, Value *V, bool Signed) {
  Type *T = V->getType();
  if (T->isPointerTy())
    return B.CreatePtrToInt(V, B.getInt64Ty());
  return Signed ? B.CreateSExtOrTrunc(V, B.getInt64Ty())
                : B.CreateZExtOrTrunc(V, B.getInt64Ty());
}

bool recordable(Type *T) {
  return T->isPointerTy() || (T->isIntegerTy() && T->getIntegerBitWidth() <= 64);
}

/// The record, written where `Before` is: see the file comment.
void Tracer::emit(Instruction *Before, unsigned Id, ArrayRef<Value *> Words) {
  Function *F = Before->getFunction();
  BasicBlock *Head = Before->getParent();
  BasicBlock *Tail = Head->splitBasicBlock(Before, "vigil.trace.done");
  Head->getTerminator()->eraseFromParent();
  auto Block = [&](const char *N) { return BasicBlock::Create(C, N, F, Tail); };
  BasicBlock *Check = Block("vigil.trace"), *Slow = Block("vigil.trace.slow"),
             *Write = Block("vigil.trace.write");
  MDBuilder MD(C);
  IRBuilder<> B(Head);
  if (DISubprogram *SP = F->getSubprogram()) {
    if (DebugLoc L = Before->getDebugLoc())
      B.SetCurrentDebugLocation(L);
    else
      B.SetCurrentDebugLocation(DILocation::get(C, SP->getScopeLine(), 0, SP));
  }
  Value *IsOn = B.CreateICmpNE(B.CreateLoad(I8, On), B.getInt8(0));
  B.CreateCondBr(IsOn, Check, Tail, MD.createUnlikelyBranchWeights());

  unsigned N = 2 + Words.size();
  B.SetInsertPoint(Check);
  Value *Cur = B.CreateLoad(Ptr, B.CreateThreadLocalAddress(Cursor));
  BasicBlock *Bounds = Block("vigil.trace.bounds");
  B.CreateCondBr(B.CreateIsNull(Cur), Slow, Bounds, MD.createUnlikelyBranchWeights());
  B.SetInsertPoint(Bounds);
  Value *Pos = B.CreateLoad(Ptr, Cur);
  Value *End = B.CreateLoad(Ptr, B.CreateConstGEP1_32(I8, Cur, 8));
  Value *Need = B.CreateConstGEP1_32(I64, Pos, N);
  Value *Full = B.CreateICmpUGT(B.CreatePtrToInt(Need, I64), B.CreatePtrToInt(End, I64));
  B.CreateCondBr(Full, Slow, Write, MD.createUnlikelyBranchWeights());

  B.SetInsertPoint(Slow);
  Value *Got = B.CreateCall(Reserve, {B.getInt32(N)});
  Value *Cur2 = B.CreateLoad(Ptr, B.CreateThreadLocalAddress(Cursor));
  B.CreateCondBr(B.CreateIsNull(Got), Tail, Write);

  B.SetInsertPoint(Write);
  PHINode *P = B.CreatePHI(Ptr, 2);
  P->addIncoming(Pos, Bounds);
  P->addIncoming(Got, Slow);
  PHINode *CurP = B.CreatePHI(Ptr, 2);
  CurP->addIncoming(Cur, Bounds);
  CurP->addIncoming(Cur2, Slow);
  Value *IdV = B.CreateLoad(I32, B.CreateConstGEP1_32(I32, Ids, Id));
  Value *Head0 = B.CreateOr(B.CreateZExt(IdV, I64),
                            B.getInt64(uint64_t(Words.size()) << 32));
  B.CreateStore(Head0, P);
  Value *Ticks = B.CreateIntrinsic(Intrinsic::readcyclecounter, {}, {});
  B.CreateStore(Ticks, B.CreateConstGEP1_32(I64, P, 1));
  for (unsigned I = 0; I < Words.size(); ++I)
    B.CreateStore(Words[I], B.CreateConstGEP1_32(I64, P, 2 + I));
  StoreInst *S = B.CreateStore(B.CreateConstGEP1_32(I64, P, N), CurP);
  S->setAtomic(AtomicOrdering::Release);
  S->setAlignment(Align(8));
  B.CreateBr(Tail);
}

void Tracer::traceFunction(Function &F) {
  std::vector<Value *> Args;
  std::vector<bool> Signed;
  Point Entry{F.getName().str(), "entry", {}};
  for (Argument &A : F.args()) {
    if (!recordable(A.getType()) || A.hasStructRetAttr() || Args.size() == MaxArgs)
      continue;
    Args.push_back(&A);
    Signed.push_back(A.hasSExtAttr());
    Entry.Types.push_back(typeOf(A.getType(), A.hasSExtAttr()));
  }
  Type *RT = F.getReturnType();
  bool HasRet = recordable(RT);
  bool RetSigned = F.getAttributes().hasRetAttr(Attribute::SExt);
  Point Return{F.getName().str(), "return", {}};
  if (HasRet)
    Return.Types.push_back(typeOf(RT, RetSigned));
  unsigned EntryId = Points.size();
  Points.push_back(Entry);
  unsigned ReturnId = Points.size();
  Points.push_back(Return);

  std::vector<ReturnInst *> Rets;
  for (BasicBlock &BB : F)
    if (auto *RI = dyn_cast<ReturnInst>(BB.getTerminator()))
      Rets.push_back(RI);
  Instruction *Pt = &*F.getEntryBlock().getFirstInsertionPt();
  while (isa<AllocaInst>(Pt))
    Pt = Pt->getNextNode();
  IRBuilder<> B(Pt);
  std::vector<Value *> Words;
  for (unsigned I = 0; I < Args.size(); ++I)
    Words.push_back(word(B, Args[I], Signed[I]));
  emit(Pt, EntryId, Words);
  for (ReturnInst *RI : Rets) {
    auto *Tail = dyn_cast_or_null<CallInst>(RI->getPrevNode());
    if (Tail && Tail->isMustTailCall())
      continue; /* nothing may come between a musttail call and its return */
    IRBuilder<> R(RI);
    std::vector<Value *> W;
    if (HasRet)
      W.push_back(word(R, RI->getReturnValue(), RetSigned));
    emit(RI, ReturnId, W);
  }
}

/// A constructor that declares every point when the stream is on.
void Tracer::declareIds() {
  auto *Fn = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                              GlobalValue::InternalLinkage, "__vigil_trace_declare", M);
  FunctionCallee Declare = M.getOrInsertFunction(
      "vigil_stream_declare", FunctionType::get(I32, {Ptr, Ptr, I32, Ptr}, false));
  BasicBlock *Entry = BasicBlock::Create(C, "entry", Fn);
  BasicBlock *Work = BasicBlock::Create(C, "declare", Fn);
  BasicBlock *Done = BasicBlock::Create(C, "done", Fn);
  IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateICmpNE(B.CreateLoad(I8, On), B.getInt8(0)), Work, Done);
  B.SetInsertPoint(Work);
  for (unsigned I = 0; I < Points.size(); ++I) {
    const Point &P = Points[I];
    std::vector<Constant *> Types;
    for (const std::string &T : P.Types)
      Types.push_back(B.CreateGlobalStringPtr(T, "vigil.trace.type"));
    Value *TypesV = ConstantPointerNull::get(Ptr);
    if (!Types.empty()) {
      auto *AT = ArrayType::get(Ptr, Types.size());
      TypesV = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(AT, Types), "vigil.trace.types");
    }
    Value *Id = B.CreateCall(Declare, {B.CreateGlobalStringPtr(P.Name, "vigil.trace.name"),
                                       B.CreateGlobalStringPtr(P.Kind, "vigil.trace.kind"),
                                       B.getInt32(P.Types.size()), TypesV});
    B.CreateStore(Id, B.CreateConstGEP1_32(I32, Ids, I));
  }
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
  appendToGlobalCtors(M, Fn, 102);
}

bool Tracer::run(StringRef Spec) {
  std::vector<GlobPattern> Globs;
  SmallVector<StringRef, 8> Parts;
  Spec.split(Parts, ',', -1, false);
  for (StringRef P : Parts) {
    auto G = GlobPattern::create(P.trim());
    if (!G) {
      errs() << "vigil: error: --vigil-trace: bad pattern '" << P << "': "
             << toString(G.takeError()) << "\n";
      exit(1);
    }
    Globs.push_back(std::move(*G));
  }
  std::vector<Function *> Fns;
  for (Function &F : M) {
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage() ||
        F.getName().starts_with("__vigil") || F.getName().starts_with("vigil_"))
      continue;
    for (const GlobPattern &G : Globs)
      if (G.match(F.getName())) {
        Fns.push_back(&F);
        break;
      }
  }
  if (Fns.empty()) {
    errs() << "vigil: warning: --vigil-trace=" << Spec
           << ": no function of the program matches\n";
    return false;
  }
  On = cast<GlobalVariable>(M.getOrInsertGlobal("__vigil_stream_on", I8));
  Cursor = cast<GlobalVariable>(M.getOrInsertGlobal("__vigil_stream_cursor", Ptr));
  Cursor->setThreadLocalMode(GlobalValue::InitialExecTLSModel);
  Reserve = M.getOrInsertFunction("__vigil_stream_reserve",
                                  FunctionType::get(Ptr, {I32}, false));
  auto *IdsT = ArrayType::get(I32, 2 * Fns.size());
  Ids = new GlobalVariable(M, IdsT, false, GlobalValue::InternalLinkage,
                           ConstantAggregateZero::get(IdsT), "__vigil_trace_ids");
  for (Function *F : Fns)
    traceFunction(*F);
  declareIds();
  return true;
}

} // namespace

bool vigil::instrumentTrace(Module &M) {
  const char *Spec = std::getenv("VIGIL_TRACE");
  if (!Spec || !*Spec || M.getNamedMetadata("vigil.traced"))
    return false;
  M.getOrInsertNamedMetadata("vigil.traced");
  return Tracer(M).run(Spec);
}
