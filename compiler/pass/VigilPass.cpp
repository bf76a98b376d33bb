//===- VigilPass.cpp - link-time instrumentation --------------------------===//
//
// Runs once on the whole merged LTO module (FullLinkTimeOptimizationEarlyEP):
//
//  1. collects every __vigil_site(descriptor, captures...) call, parses the
//     descriptors (model/Assertion.h), dedupes assertions and numbers them;
//  2. emits the constant tables of include/vigil/abi.h and each assertion's
//     instance storage;
//  3. replaces each site call by __vigil_site_reached(a, inst, captures);
//  4. instruments the bounds and events: in the function body (entry / every
//     return) when the function is defined in the module and not forced
//     caller(...), otherwise around every direct call of it;
//  5. warns about functions that are named by an assertion but never called.
//
//===----------------------------------------------------------------------===//
#include "../model/Assertion.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace {

constexpr unsigned InstanceHeaderBytes = 64; // abi.h
constexpr unsigned AltStateBytes = 64;

bool isVigilName(StringRef N) { return N.starts_with("__vigil_"); }

void warn(const Twine &Msg) { errs() << "vigil: warning: " << Msg << "\n"; }

/// What to call at one instrumentation point.
struct Hook {
  enum Type { BoundStart = 0, Event = 1, BoundEnd = 2 } T;
  unsigned Assertion;
  uint32_t EventId;        // Event only
  const vigil::Event *Ev;  // values, point, function
};

class Instrumenter {
public:
  explicit Instrumenter(Module &M) : M(M), C(M.getContext()) {
    I8 = Type::getInt8Ty(C);
    I32 = Type::getInt32Ty(C);
    I64 = Type::getInt64Ty(C);
    Ptr = PointerType::getUnqual(C);
    ValueDescTy = StructType::create(
        C, {Ptr, I64, I8, I8, I8, I8, ArrayType::get(I8, 4)},
        "vigil.value_desc");
    EventDescTy = StructType::create(
        C, {Ptr, Ptr, Ptr, I64, I64, I8, I8, I8, ArrayType::get(I8, 5)},
        "vigil.event_desc");
    AutomatonTy = StructType::create(
        C, {Ptr, Ptr, I8, I8, I8, ArrayType::get(I8, 5)}, "vigil.automaton");
    AssertionTy = StructType::create(
        C, {Ptr, Ptr, Ptr, Ptr, Ptr, I32, I8, I8, I8, I8}, "vigil.assertion");
  }

  bool run();

private:
  Module &M;
  LLVMContext &C;
  Type *I8, *I32, *I64;
  PointerType *Ptr;
  StructType *ValueDescTy, *EventDescTy, *AutomatonTy, *AssertionTy;
  FunctionCallee BoundStartFn, BoundEndFn, SiteReachedFn, EventFn;

  std::vector<vigil::Assertion> As;
  std::vector<GlobalVariable *> AssertionGVs, InstanceGVs;
  StringMap<Constant *> Strings;

  // Per function: hooks observed at entry (false) / return (true),
  // split by side.
  struct Hooks {
    std::vector<Hook> Entry, Return;
  };
  StringMap<Hooks> Callee, Caller;

  // Per instrumented function: scratch buffers (allocas in the entry block).
  DenseMap<Function *, AllocaInst *> ValueBufs, CaptureBufs;

  Constant *str(StringRef S);
  bool defined(StringRef Name) const;
  bool callerSide(const vigil::Event &E) const;
  void planHooks();
  void emitTables();
  AllocaInst *buffer(Function *F, unsigned N, DenseMap<Function *, AllocaInst *> &Cache);
  Value *instance(IRBuilder<> &B, unsigned A);
  Value *toWord(IRBuilder<> &B, Value *V);
  void emitHook(Instruction *Before, Function *F, const Hook &H,
                function_ref<Value *(const vigil::Value &)> Slot);
  bool slotsUsable(const vigil::Event &E, size_t NArgs, Type *RetTy,
                   StringRef Where);
  void instrumentFunction(Function &F);
  void replaceSite(CallInst *CI, unsigned A);
  void warnUnused();
};

Constant *Instrumenter::str(StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  Constant *Init = ConstantDataArray::getString(C, S, true);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, "vigil.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Strings[S] = GV;
  return GV;
}

bool Instrumenter::defined(StringRef Name) const {
  Function *F = M.getFunction(Name);
  return F && !F->isDeclaration() && !F->hasAvailableExternallyLinkage();
}

bool Instrumenter::callerSide(const vigil::Event &E) const {
  return E.ForceCaller || !defined(E.Function);
}

void Instrumenter::planHooks() {
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    vigil::Assertion &A = As[AI];
    auto Add = [&](Hook H) {
      const vigil::Event &E = *H.Ev;
      if (E.ForceCallee && !defined(E.Function))
        warn(A.Location + ": callee(...): '" + E.Function +
             "' is not defined in this program; instrumenting its call "
             "sites instead");
      Hooks &Hs = (callerSide(E) ? Caller : Callee)[E.Function];
      (E.AtReturn ? Hs.Return : Hs.Entry).push_back(H);
    };
    // Bounds: once per assertion (all alternatives share them).
    const auto &Ev0 = A.Alternatives[0].Events;
    Add(Hook{Hook::BoundStart, AI, 0, &Ev0.front()});
    Add(Hook{Hook::BoundEnd, AI, 0, &Ev0.back()});
    for (unsigned Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
      auto &Evs = A.Alternatives[Alt].Events;
      for (unsigned I = 0; I < Evs.size(); ++I) {
        vigil::Event &E = Evs[I];
        if (E.Kind == vigil::EV_START || E.Kind == vigil::EV_END) {
          if (callerSide(E))
            E.Flags |= vigil::EF_CALLER;
          continue;
        }
        if (E.Kind != vigil::EV_CALL && E.Kind != vigil::EV_RETURN)
          continue;
        if (callerSide(E))
          E.Flags |= vigil::EF_CALLER;
        Add(Hook{Hook::Event, AI, (Alt << 8) | I, &E});
      }
    }
  }
  // Order at one point: bound starts, then events, then bound ends.
  auto Sort = [](std::vector<Hook> &V) {
    std::vector<Hook> R;
    for (Hook::Type T : {Hook::BoundStart, Hook::Event, Hook::BoundEnd})
      for (const Hook &H : V)
        if (H.T == T)
          R.push_back(H);
    V = std::move(R);
  };
  for (auto *Map : {&Callee, &Caller})
    for (auto &KV : *Map) {
      Sort(KV.second.Entry);
      Sort(KV.second.Return);
    }
}

void Instrumenter::emitTables() {
  auto Bytes = [&](unsigned N) {
    return ConstantAggregateZero::get(ArrayType::get(I8, N));
  };
  auto B8 = [&](uint64_t V) { return ConstantInt::get(I8, V); };
  auto Table = [&](Type *ElemTy, ArrayRef<Constant *> Elems,
                   const Twine &Name) -> Constant * {
    if (Elems.empty())
      return ConstantPointerNull::get(Ptr);
    auto *ATy = ArrayType::get(ElemTy, Elems.size());
    auto *GV = new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(ATy, Elems), Name);
    GV->setAlignment(Align(8));
    return GV;
  };

  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const vigil::Assertion &A = As[AI];
    std::string P = "vigil.a" + std::to_string(AI);
    std::vector<Constant *> Autos;
    for (unsigned Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
      const vigil::Automaton &Au = A.Alternatives[Alt];
      std::vector<Constant *> Events;
      for (unsigned I = 0; I < Au.Events.size(); ++I) {
        const vigil::Event &E = Au.Events[I];
        std::vector<Constant *> Vals;
        for (const vigil::Value &V : E.Values)
          Vals.push_back(ConstantStruct::get(
              ValueDescTy,
              {str(V.Text), ConstantInt::get(I64, V.Constant), B8(V.Kind),
               B8(V.IsReturn), B8(V.ArgIndex), B8(V.Capture), Bytes(4)}));
        Constant *ValsGV =
            Table(ValueDescTy, Vals,
                  P + ".alt" + Twine(Alt) + ".ev" + Twine(I) + ".values");
        Events.push_back(ConstantStruct::get(
            EventDescTy,
            {E.Function.empty() ? (Constant *)ConstantPointerNull::get(Ptr)
                                : str(E.Function),
             str(E.Text), ValsGV, ConstantInt::get(I64, E.Successors),
             ConstantInt::get(I64, E.OrBlock), B8(E.Kind), B8(E.Flags),
             B8(E.Values.size()), Bytes(5)}));
      }
      Constant *EventsGV =
          Table(EventDescTy, Events, P + ".alt" + Twine(Alt) + ".events");
      Autos.push_back(ConstantStruct::get(
          AutomatonTy, {EventsGV, str(Au.Text), B8(Au.Events.size()),
                        B8(Au.Site), B8(Au.IsStatic), Bytes(5)}));
    }
    Constant *AutosGV = Table(AutomatonTy, Autos, P + ".alternatives");
    std::vector<Constant *> Caps;
    for (const std::string &T : A.Captures)
      Caps.push_back(str(T));
    Constant *CapsGV = Table(Ptr, Caps, P + ".capture_texts");

    auto *AGV = new GlobalVariable(
        M, AssertionTy, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(
            AssertionTy,
            {str(A.Location), str(A.Text), AutosGV, CapsGV,
             ConstantPointerNull::get(Ptr), ConstantInt::get(I32, AI),
             B8(A.Alternatives.size()), B8(A.Locality), B8(A.Mode),
             B8(A.Captures.size())}),
        P);
    AGV->setAlignment(Align(8));
    AssertionGVs.push_back(AGV);

    unsigned NBytes = InstanceHeaderBytes + AltStateBytes * A.Alternatives.size();
    auto *IGV = new GlobalVariable(
        M, ArrayType::get(I8, NBytes), false, GlobalValue::InternalLinkage,
        Bytes(NBytes), P + ".instance", nullptr,
        A.Locality == vigil::PERTHREAD ? GlobalValue::GeneralDynamicTLSModel
                                       : GlobalValue::NotThreadLocal);
    IGV->setAlignment(Align(64));
    InstanceGVs.push_back(IGV);
  }
}

AllocaInst *Instrumenter::buffer(Function *F, unsigned N,
                                 DenseMap<Function *, AllocaInst *> &Cache) {
  AllocaInst *&A = Cache[F];
  if (!A) {
    BasicBlock &Entry = F->getEntryBlock();
    IRBuilder<> B(&Entry, Entry.begin());
    A = B.CreateAlloca(ArrayType::get(I64, N), nullptr, "vigil.buf");
    A->setAlignment(Align(8));
  }
  return A;
}

Value *Instrumenter::instance(IRBuilder<> &B, unsigned A) {
  GlobalVariable *GV = InstanceGVs[A];
  if (GV->isThreadLocal())
    return B.CreateThreadLocalAddress(GV);
  return GV;
}

Value *Instrumenter::toWord(IRBuilder<> &B, Value *V) {
  Type *T = V->getType();
  if (T->isPointerTy())
    return B.CreatePtrToInt(V, I64);
  if (T->isFloatingPointTy() && T->getPrimitiveSizeInBits() <= 64)
    V = B.CreateBitCast(V, IntegerType::get(C, T->getPrimitiveSizeInBits())),
    T = V->getType();
  if (T->isIntegerTy())
    return B.CreateZExtOrTrunc(V, I64);
  return ConstantInt::get(I64, 0);
}

void Instrumenter::emitHook(Instruction *Before, Function *F, const Hook &H,
                            function_ref<Value *(const vigil::Value &)> Slot) {
  IRBuilder<> B(Before);
  const vigil::Event &E = *H.Ev;
  // Constant slots are matched inline; the runtime is called only on a match.
  Value *Cond = nullptr;
  for (const vigil::Value &V : E.Values)
    if (V.Kind == vigil::VAL_CONST) {
      Value *Eq = B.CreateICmpEQ(toWord(B, Slot(V)),
                                 ConstantInt::get(I64, V.Constant), "vigil.eq");
      Cond = Cond ? B.CreateAnd(Cond, Eq) : Eq;
    }
  if (Cond)
    B.SetInsertPoint(SplitBlockAndInsertIfThen(Cond, Before, false));
  GlobalVariable *AGV = AssertionGVs[H.Assertion];
  Value *Inst = instance(B, H.Assertion);
  switch (H.T) {
  case Hook::BoundStart:
    B.CreateCall(BoundStartFn, {AGV, Inst});
    break;
  case Hook::BoundEnd:
    B.CreateCall(BoundEndFn, {AGV, Inst});
    break;
  case Hook::Event: {
    Value *Vals = ConstantPointerNull::get(Ptr);
    if (!E.Values.empty()) {
      AllocaInst *Buf = buffer(F, vigil::MaxValues, ValueBufs);
      for (unsigned I = 0; I < E.Values.size(); ++I)
        B.CreateStore(toWord(B, Slot(E.Values[I])),
                      B.CreateConstInBoundsGEP2_32(Buf->getAllocatedType(),
                                                   Buf, 0, I));
      Vals = Buf;
    }
    B.CreateCall(EventFn, {AGV, Inst, ConstantInt::get(I32, H.EventId), Vals});
    break;
  }
  }
}

/// Checks that the IR parameter list matches C's for an event with slots.
bool Instrumenter::slotsUsable(const vigil::Event &E, size_t NArgs,
                               Type *RetTy, StringRef Where) {
  if (E.Values.empty())
    return true;
  bool OK = NArgs == E.NumParams;
  for (const vigil::Value &V : E.Values)
    if (V.IsReturn ? RetTy->isVoidTy() : V.ArgIndex >= NArgs)
      OK = false;
  if (!OK)
    warn("event '" + E.Text + "': the IR signature of '" + E.Function +
         "' in " + Where + " does not match its C prototype; not instrumented");
  return OK;
}

void Instrumenter::instrumentFunction(Function &F) {
  // Collect the points first: instrumentation adds calls and blocks.
  std::vector<CallInst *> Calls;
  std::vector<ReturnInst *> Rets;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *CI = dyn_cast<CallInst>(&I)) {
        Function *Callee =
            dyn_cast<Function>(CI->getCalledOperand()->stripPointerCasts());
        if (Callee && !Callee->isIntrinsic() && Caller.count(Callee->getName()))
          Calls.push_back(CI);
      } else if (auto *RI = dyn_cast<ReturnInst>(&I)) {
        Rets.push_back(RI);
      }
    }

  // Callee side.
  auto CH = Callee.find(F.getName());
  if (CH != Callee.end()) {
    Hooks &Hs = CH->second;
    BasicBlock &Entry = F.getEntryBlock();
    Instruction *EntryPt = &*Entry.getFirstInsertionPt();
    while (isa<AllocaInst>(EntryPt))
      EntryPt = EntryPt->getNextNode();
    for (const Hook &H : Hs.Entry)
      if (slotsUsable(*H.Ev, F.arg_size(), F.getReturnType(), "its body"))
        emitHook(EntryPt, &F, H, [&](const vigil::Value &V) -> Value * {
          return F.getArg(V.ArgIndex);
        });
    for (ReturnInst *RI : Rets)
      for (const Hook &H : Hs.Return)
        if (slotsUsable(*H.Ev, F.arg_size(), F.getReturnType(), "its body"))
          emitHook(RI, &F, H, [&](const vigil::Value &V) -> Value * {
            return V.IsReturn ? RI->getReturnValue() : F.getArg(V.ArgIndex);
          });
  }

  // Caller side.
  for (CallInst *CI : Calls) {
    Function *Callee =
        cast<Function>(CI->getCalledOperand()->stripPointerCasts());
    Hooks &Hs = Caller.find(Callee->getName())->second;
    std::string Where = ("a call in '" + F.getName() + "'").str();
    auto Slot = [&](const vigil::Value &V) -> Value * {
      return V.IsReturn ? CI : CI->getArgOperand(V.ArgIndex);
    };
    for (const Hook &H : Hs.Entry)
      if (slotsUsable(*H.Ev, CI->arg_size(), CI->getType(), Where))
        emitHook(CI, &F, H, Slot);
    if (Hs.Return.empty())
      continue;
    if (CI->isMustTailCall()) {
      warn("a musttail call of '" + Callee->getName() + "' in '" +
           F.getName() + "' cannot be instrumented at its return");
      continue;
    }
    Instruction *After = CI->getNextNode();
    for (const Hook &H : Hs.Return)
      if (slotsUsable(*H.Ev, CI->arg_size(), CI->getType(), Where))
        emitHook(After, &F, H, Slot);
  }
}

void Instrumenter::replaceSite(CallInst *CI, unsigned A) {
  Function *F = CI->getFunction();
  IRBuilder<> B(CI);
  unsigned N = CI->arg_size() - 1;
  Value *Caps = ConstantPointerNull::get(Ptr);
  if (N != As[A].Captures.size())
    warn(As[A].Location + ": the site passes " + Twine(N) +
         " captured values, the assertion has " +
         Twine(As[A].Captures.size()));
  if (N) {
    AllocaInst *Buf = buffer(F, vigil::MaxCaptures, CaptureBufs);
    for (unsigned I = 0; I < N && I < vigil::MaxCaptures; ++I)
      B.CreateStore(toWord(B, CI->getArgOperand(1 + I)),
                    B.CreateConstInBoundsGEP2_32(Buf->getAllocatedType(), Buf,
                                                 0, I));
    Caps = Buf;
  }
  B.CreateCall(SiteReachedFn, {AssertionGVs[A], instance(B, A), Caps});
  CI->eraseFromParent();
}

void Instrumenter::warnUnused() {
  for (const vigil::Assertion &A : As) {
    std::set<std::string> Seen;
    for (const vigil::Automaton &Au : A.Alternatives)
      for (const vigil::Event &E : Au.Events) {
        if (E.Function.empty() || !Seen.insert(E.Function).second)
          continue;
        Function *F = M.getFunction(E.Function);
        bool Called = false;
        if (F && !F->isDeclaration())
          Called = true;
        else if (F)
          for (User *U : F->users())
            if (auto *CB = dyn_cast<CallBase>(U))
              if (CB->getCalledOperand()->stripPointerCasts() == F)
                Called = true;
        if (!Called)
          warn(A.Location + ": function '" + E.Function +
               "' is never called in this program");
      }
  }
}

bool Instrumenter::run() {
  if (M.getNamedMetadata("vigil.instrumented"))
    return false;
  M.getOrInsertNamedMetadata("vigil.instrumented");

  Function *SiteFn = M.getFunction("__vigil_site");
  std::vector<std::pair<CallInst *, std::string>> Sites;
  if (SiteFn)
    for (User *U : SiteFn->users())
      if (auto *CI = dyn_cast<CallInst>(U))
        if (CI->getCalledOperand()->stripPointerCasts() == SiteFn &&
            CI->arg_size() >= 1) {
          StringRef D;
          if (auto *GV = dyn_cast<GlobalVariable>(
                  CI->getArgOperand(0)->stripPointerCasts()))
            if (GV->hasInitializer())
              if (auto *CDA =
                      dyn_cast<ConstantDataSequential>(GV->getInitializer()))
                if (CDA->isCString())
                  D = CDA->getAsCString();
          Sites.push_back({CI, D.str()});
        }

  // Parse and dedupe; ids follow (location, descriptor) order.
  std::map<std::pair<std::string, std::string>, vigil::Assertion> Unique;
  std::vector<CallInst *> Orphans;
  for (auto &[CI, D] : Sites) {
    vigil::Assertion A;
    std::string Err;
    if (D.empty() || !vigil::parse(D, A, Err)) {
      warn("an assertion site in '" + CI->getFunction()->getName() +
           "' has " +
           (D.empty() ? std::string("no descriptor (compiled without the "
                                    "vigil Clang plugin?)")
                      : "a malformed descriptor: " + Err) +
           "; ignored");
      Orphans.push_back(CI);
      continue;
    }
    Unique.emplace(std::make_pair(A.Location, D), std::move(A));
  }
  for (CallInst *CI : Orphans)
    CI->eraseFromParent();
  std::map<std::string, unsigned> Index;
  for (auto &[Key, A] : Unique) {
    Index[Key.second] = As.size();
    As.push_back(std::move(A));
  }
  if (As.empty()) {
    if (SiteFn && SiteFn->use_empty())
      SiteFn->eraseFromParent();
    return !Orphans.empty();
  }

  BoundStartFn = M.getOrInsertFunction(
      "__vigil_bound_start", FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr}, false));
  BoundEndFn = M.getOrInsertFunction(
      "__vigil_bound_end", FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr}, false));
  SiteReachedFn = M.getOrInsertFunction(
      "__vigil_site_reached",
      FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr, Ptr}, false));
  EventFn = M.getOrInsertFunction(
      "__vigil_event",
      FunctionType::get(Type::getVoidTy(C), {Ptr, Ptr, I32, Ptr}, false));

  warnUnused();
  planHooks(); // before emitTables: sets EF_CALLER
  emitTables();

  for (auto &[CI, D] : Sites)
    if (!D.empty() && Index.count(D))
      replaceSite(CI, Index[D]);
  if (SiteFn && SiteFn->use_empty())
    SiteFn->eraseFromParent();

  std::vector<Function *> Fns;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage() &&
        !isVigilName(F.getName()))
      Fns.push_back(&F);
  for (Function *F : Fns)
    instrumentFunction(*F);
  return true;
}

struct VigilInstrument : PassInfoMixin<VigilInstrument> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return Instrumenter(M).run() ? PreservedAnalyses::none()
                                 : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "vigil", "0.1", [](PassBuilder &PB) {
            PB.registerFullLinkTimeOptimizationEarlyEPCallback(
                [&PB](ModulePassManager &MPM, OptimizationLevel L) {
                  MPM.addPass(VigilInstrument());
                  if (L != OptimizationLevel::O0)
                    MPM.addPass(PB.buildLTOPreLinkDefaultPipeline(L));
                });
            // For testing with opt: -passes=vigil-instrument
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "vigil-instrument")
                    return false;
                  MPM.addPass(VigilInstrument());
                  return true;
                });
          }};
}
