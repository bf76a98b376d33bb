//===- VigilPass.cpp - link-time instrumentation --------------------------===//
//
// Runs once on the whole merged LTO module (FullLinkTimeOptimizationEarlyEP):
//
//  1. collects every __vigil_site(descriptor, captures...) call, parses the
//     descriptors (model/Assertion.h), dedupes assertions and numbers them;
//  2. emits the constant tables of include/vigil/abi.h and each assertion's
//     instance storage;
//  3. replaces each site call by the site hook;
//  4. instruments the bounds and events: in the function body (entry / every
//     return) when the function is defined in the module and not forced
//     caller(...), otherwise around every direct call of it;
//  5. warns about functions that are named by an assertion but never called;
//  6. then instruments the calls and returns bound to automaton monitors
//     (MonitorBindings.cpp, include/vigil/monitor.h).
//
// Assertions sharing both bounds and the locality share one bound group
// (struct vigil_bound): a bound's entry and exit cost the same whatever the
// number of assertions.  For per-thread assertions the hooks are small
// internal always-inline functions (the fast path, vigil/fastpath.h: one
// table lookup per event, the runtime called only for what is not plain);
// VIGIL_FAST_PATH=0 at link time makes every hook a runtime call instead.
//
//===----------------------------------------------------------------------===//
#include "../model/Assertion.h"
#include "MonitorBindings.h"
#include "vigil/fastpath.h"

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
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

using namespace llvm;

namespace {


bool isVigilName(StringRef N) { return N.starts_with("__vigil_"); }

void warn(const Twine &Msg) { errs() << "vigil: warning: " << Msg << "\n"; }

/// What to call at one instrumentation point.
struct Hook {
  enum Type { BoundStart = 0, Event = 1, BoundEnd = 2 } T;
  unsigned Assertion;      // Event only
  unsigned Group;          // bound group
  uint32_t EventId;        // Event only
  const vigil::Event *Ev;  // values, point, function
};

/// Assertions sharing both bounds and the locality.
struct Group {
  bool Global;
  GlobalVariable *GV = nullptr;
  Function *Enter = nullptr, *Exit = nullptr; // inline hooks (per-thread)
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
        C, {Ptr, Ptr, Ptr, Ptr, Ptr, I32, I8, I8, I8, I8, I8, ArrayType::get(I8, 7)},
        "vigil.assertion");
    const char *E = std::getenv("VIGIL_FAST_PATH");
    FastPath = !(E && std::strcmp(E, "0") == 0);
  }

  bool run();

private:
  Module &M;
  LLVMContext &C;
  Type *I8, *I32, *I64;
  PointerType *Ptr;
  StructType *ValueDescTy, *EventDescTy, *AutomatonTy, *AssertionTy;
  FunctionCallee BoundEnterFn, BoundExitFn, BoundSettleFn, SiteReachedFn, EventFn;
  bool FastPath = true;

  std::vector<vigil::Assertion> As;
  std::vector<GlobalVariable *> AssertionGVs, InstanceGVs;
  std::vector<unsigned> GroupOf;   // per assertion
  std::vector<Group> Groups;
  // Inline hooks already built: (assertion, event id) / assertion (site).
  std::map<std::pair<unsigned, uint32_t>, Function *> EventFns;
  std::map<unsigned, Function *> SiteFns;
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
  Value *groupPtr(IRBuilder<> &B, unsigned G);
  bool inlined(unsigned A) const;
  vigil_fast_model model(const vigil::Assertion &A, unsigned Alt,
                         std::vector<uint64_t> &Succ, std::vector<uint64_t> &Orb,
                         std::vector<uint8_t> &Flags) const;
  uint64_t fastInit(unsigned A) const;
  Function *newHook(const Twine &Name, ArrayRef<Type *> Params);
  void emitTouch(IRBuilder<> &B, unsigned A, Value *Bound, Value *Inst,
                 BasicBlock *Slow, BasicBlock *Ret, BasicBlock *&Cont);
  std::vector<unsigned> eventRow(unsigned A, uint32_t Id) const;
  std::vector<unsigned> siteRow(unsigned A, unsigned Alt) const;
  bool eventInline(unsigned A, uint32_t Id) const;
  bool siteInline(unsigned A) const;
  void emitDone(IRBuilder<> &B, unsigned A, Value *Bound, Value *Inst,
                Value *N, unsigned Alt, BasicBlock *Ret);
  Function *enterHook(unsigned G);
  Function *exitHook(unsigned G);
  Function *eventHook(unsigned A, uint32_t Id, const vigil::Event &E);
  Function *siteHook(unsigned A);
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
  std::map<std::string, unsigned> GroupIndex;
  GroupOf.assign(As.size(), 0);
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
    // Bounds: once per group (all alternatives, and every assertion with
    // the same bounds and locality, share them).
    const auto &Ev0 = A.Alternatives[0].Events;
    const vigil::Event &Start = Ev0.front(), &End = Ev0.back();
    std::string Key = std::to_string(A.Locality) + "|" + Start.Function + "|" +
                      Start.Text + "|" + std::to_string(Start.AtReturn) +
                      std::to_string(callerSide(Start)) + "|" + End.Function +
                      "|" + End.Text + "|" + std::to_string(End.AtReturn) +
                      std::to_string(callerSide(End));
    auto [It, New] = GroupIndex.emplace(Key, Groups.size());
    GroupOf[AI] = It->second;
    if (New) {
      Groups.push_back(Group{A.Locality == vigil::GLOBAL});
      Add(Hook{Hook::BoundStart, 0, It->second, 0, &Start});
      Add(Hook{Hook::BoundEnd, 0, It->second, 0, &End});
    }
    // Strict assertions must be checked at the second bound even when none
    // of their events happens: the first bound reports itself to them.
    if (A.Mode == vigil::MODE_STRICT)
      Add(Hook{Hook::Event, AI, It->second, 0, &Start});
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
        Add(Hook{Hook::Event, AI, GroupOf[AI], (Alt << 8) | I, &E});
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
             B8(A.Captures.size()), B8(inlined(AI)), Bytes(7)}),
        P);
    AGV->setAlignment(Align(8));
    AssertionGVs.push_back(AGV);

    unsigned NBytes = VIGIL_INSTANCE_BYTES(A.Alternatives.size(), A.Captures.size());
    auto *IGV = new GlobalVariable(
        M, ArrayType::get(I8, NBytes), false, GlobalValue::InternalLinkage,
        Bytes(NBytes), P + ".instance", nullptr,
        A.Locality == vigil::PERTHREAD ? GlobalValue::GeneralDynamicTLSModel
                                       : GlobalValue::NotThreadLocal);
    IGV->setAlignment(Align(64));
    InstanceGVs.push_back(IGV);
  }
  for (unsigned G = 0; G < Groups.size(); ++G) {
    Groups[G].GV = new GlobalVariable(
        M, ArrayType::get(I8, sizeof(vigil_bound)), false,
        GlobalValue::InternalLinkage, Bytes(sizeof(vigil_bound)),
        "vigil.bound" + Twine(G), nullptr,
        Groups[G].Global ? GlobalValue::NotThreadLocal
                         : GlobalValue::GeneralDynamicTLSModel);
    Groups[G].GV->setAlignment(Align(64));
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

Value *Instrumenter::groupPtr(IRBuilder<> &B, unsigned G) {
  GlobalVariable *GV = Groups[G].GV;
  if (GV->isThreadLocal())
    return B.CreateThreadLocalAddress(GV);
  return GV;
}

bool Instrumenter::inlined(unsigned A) const {
  return FastPath && As[A].Locality == vigil::PERTHREAD;
}

vigil_fast_model Instrumenter::model(const vigil::Assertion &A, unsigned Alt,
                                     std::vector<uint64_t> &Succ,
                                     std::vector<uint64_t> &Orb,
                                     std::vector<uint8_t> &Flags) const {
  const auto &Evs = A.Alternatives[Alt].Events;
  Succ.clear(), Orb.clear(), Flags.clear();
  for (const vigil::Event &E : Evs) {
    Succ.push_back(E.Successors);
    Orb.push_back(E.OrBlock);
    Flags.push_back(E.Flags);
  }
  vigil_fast_model M;
  M.successors = Succ.data();
  M.or_block = Orb.data();
  M.flags = Flags.data();
  M.nevents = Evs.size();
  M.site = A.Alternatives[Alt].Site;
  M.mode = A.Mode;
  return M;
}

/// header.fast[] as written on touch: 1 for each eligible alternative.
uint64_t Instrumenter::fastInit(unsigned A) const {
  uint64_t V = 0;
  std::vector<uint64_t> S, O;
  std::vector<uint8_t> Fl;
  for (unsigned Alt = 0; Alt < As[A].Alternatives.size() && Alt < 8; ++Alt) {
    vigil_fast_model M = model(As[A], Alt, S, O, Fl);
    if (vigil_fast_eligible(&M))
      V |= uint64_t(1) << (8 * Alt); // little-endian byte Alt
  }
  return V;
}

Function *Instrumenter::newHook(const Twine &Name, ArrayRef<Type *> Params) {
  auto *F = Function::Create(FunctionType::get(Type::getVoidTy(C), Params, false),
                             GlobalValue::InternalLinkage, Name, M);
  F->addFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoUnwind);
  return F;
}

static Value *at(IRBuilder<> &B, Value *Base, unsigned Off) {
  return B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Base, Off);
}

static void bump(IRBuilder<> &B, Type *Ty, Value *P, int Delta) {
  Value *V = B.CreateLoad(Ty, P);
  B.CreateStore(B.CreateAdd(V, ConstantInt::get(Ty, Delta, true)), P);
}

/// Touching, inline (vigil/abi.h).  Continues at a new block left in B;
/// an instance never touched on this thread goes to Slow (the runtime
/// registers it).
void Instrumenter::emitTouch(IRBuilder<> &B, unsigned A, Value *Bound,
                             Value *Inst, BasicBlock *Slow, BasicBlock *Ret,
                             BasicBlock *&Cont) {
  // bound.gen is odd inside the bound and even outside, so one comparison
  // says "inside the bound and already touched" (the common case).
  Function *F = B.GetInsertBlock()->getParent();
  Cont = BasicBlock::Create(C, "touched", F);
  BasicBlock *Inside = BasicBlock::Create(C, "inside", F);
  BasicBlock *Check = BasicBlock::Create(C, "untouched", F);
  BasicBlock *Touch = BasicBlock::Create(C, "touch", F);
  Value *G = B.CreateLoad(I64, Inst, "gen");
  Value *BG = B.CreateLoad(I64, Bound, "bound.gen");
  B.CreateCondBr(B.CreateICmpEQ(G, BG), Cont, Inside);
  B.SetInsertPoint(Inside);
  B.CreateCondBr(B.CreateTrunc(BG, B.getInt1Ty()), Check, Ret);
  B.SetInsertPoint(Check);
  B.CreateCondBr(B.CreateICmpEQ(G, ConstantInt::get(I64, 0)), Slow, Touch);
  B.SetInsertPoint(Touch);
  B.CreateStore(BG, Inst);
  Value *TouchedP = at(B, Bound, offsetof(vigil_bound, touched));
  B.CreateStore(B.CreateLoad(Ptr, TouchedP), at(B, Inst, VIGIL_HDR_NEXT));
  B.CreateStore(Inst, TouchedP);
  B.CreateStore(ConstantInt::get(I64, fastInit(A)), at(B, Inst, VIGIL_HDR_FAST));
  B.CreateStore(ConstantInt::get(I32, 0), at(B, Inst, VIGIL_HDR_FLAGS));
  bump(B, I64, at(B, Inst, VIGIL_HDR_BOUNDS), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), 1);
  B.CreateBr(Cont);
  B.SetInsertPoint(Cont);
}

/// The fast states from which a table row (vigil_fast_next / _site over
/// every state) lets the event through, and the state it leads to: plain
/// transitions always lead to the event itself (or "done"), whatever the
/// state they come from, so a row is a bit mask and one constant.
static bool rowAsMask(const std::vector<unsigned> &Row, uint64_t &Mask,
                      unsigned &Next) {
  Mask = 0;
  Next = 0;
  for (unsigned f = 0; f < Row.size(); ++f) {
    unsigned N = Row[f];
    if (N == VIGIL_FAST_SLOW || N == VIGIL_FAST_IGNORE)
      continue;
    if (f >= 64 || (Next && Next != N))
      return false;
    Next = N;
    Mask |= uint64_t(1) << f;
  }
  return true;
}

std::vector<unsigned> Instrumenter::eventRow(unsigned A, uint32_t Id) const {
  std::vector<uint64_t> S, O;
  std::vector<uint8_t> Fl;
  vigil_fast_model Mo = model(As[A], Id >> 8, S, O, Fl);
  std::vector<unsigned> Row;
  for (unsigned f = 0; f <= Mo.nevents + 1; ++f)
    Row.push_back(vigil_fast_next(&Mo, f, Id & 0xff));
  return Row;
}

std::vector<unsigned> Instrumenter::siteRow(unsigned A, unsigned Alt) const {
  std::vector<uint64_t> S, O;
  std::vector<uint8_t> Fl;
  vigil_fast_model Mo = model(As[A], Alt, S, O, Fl);
  std::vector<unsigned> Row;
  for (unsigned f = 0; f <= Mo.nevents + 1; ++f)
    Row.push_back(vigil_fast_site(&Mo, f));
  return Row;
}

/// Whether an event gets an inline hook: a per-thread assertion, an
/// eligible alternative, and at least one plain transition.  (Events that
/// are never plain, e.g. OR-block members, call the runtime directly.)
bool Instrumenter::eventInline(unsigned A, uint32_t Id) const {
  if (!inlined(A) || Id == 0)
    return false;
  std::vector<uint64_t> S, O;
  std::vector<uint8_t> Fl;
  vigil_fast_model Mo = model(As[A], Id >> 8, S, O, Fl);
  uint64_t Mask;
  unsigned Next;
  return vigil_fast_eligible(&Mo) && rowAsMask(eventRow(A, Id), Mask, Next) && Next;
}

bool Instrumenter::siteInline(unsigned A) const {
  if (!inlined(A))
    return false;
  for (unsigned Alt = 0; Alt < As[A].Alternatives.size(); ++Alt) {
    std::vector<uint64_t> S, O;
    std::vector<uint8_t> Fl;
    vigil_fast_model Mo = model(As[A], Alt, S, O, Fl);
    uint64_t Mask;
    unsigned Next;
    if (!vigil_fast_eligible(&Mo) || !rowAsMask(siteRow(A, Alt), Mask, Next) || !Next)
      return false;
  }
  return true;
}

/// Branches on fast state Fs for a row: to Take when the transition is
/// plain (the next state is the returned constant), to Ret when the state
/// is "done", otherwise to Slow.
static Value *emitStep(IRBuilder<> &B, LLVMContext &C, Function *F, Value *Fs,
                       const std::vector<unsigned> &Row, BasicBlock *Slow,
                       BasicBlock *Ret, BasicBlock *&Take) {
  uint64_t Mask;
  unsigned Next;
  rowAsMask(Row, Mask, Next);
  Type *I8 = B.getInt8Ty(), *I64 = B.getInt64Ty();
  unsigned Done = Row.size() - 1;
  Take = BasicBlock::Create(C, "take", F);
  BasicBlock *Other = BasicBlock::Create(C, "other", F);
  Value *Bit = B.CreateAnd(
      B.CreateLShr(ConstantInt::get(I64, Mask), B.CreateZExt(B.CreateAnd(Fs, ConstantInt::get(I8, 63)), I64)),
      ConstantInt::get(I64, 1));
  // states are <= nevents + 1 <= 64; state 64 is never in the mask
  Value *In = B.CreateAnd(B.CreateICmpULT(Fs, ConstantInt::get(I8, 64)),
                          B.CreateICmpNE(Bit, ConstantInt::get(I64, 0)));
  B.CreateCondBr(In, Take, Other);
  B.SetInsertPoint(Other);
  B.CreateCondBr(B.CreateICmpEQ(Fs, ConstantInt::get(I8, Done)), Ret, Slow);
  B.SetInsertPoint(Take);
  return ConstantInt::get(I8, Next);
}

/// After storing fast state N of a single-alternative assertion: "done"
/// settles the instance (the second bound skips it) and counts a pass.
void Instrumenter::emitDone(IRBuilder<> &B, unsigned A, Value *Bound,
                            Value *Inst, Value *N, unsigned Alt, BasicBlock *Ret) {
  if (As[A].Alternatives.size() != 1) {
    B.CreateBr(Ret);
    return;
  }
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Done = BasicBlock::Create(C, "done", F);
  unsigned DoneState = As[A].Alternatives[Alt].Events.size() + 1;
  B.CreateCondBr(B.CreateICmpEQ(N, ConstantInt::get(I8, DoneState)), Done, Ret);
  B.SetInsertPoint(Done);
  B.CreateStore(ConstantInt::get(I8, 1), at(B, Inst, VIGIL_HDR_SETTLED));
  bump(B, I64, at(B, Inst, VIGIL_HDR_PASSES), 1);
  bump(B, I32, at(B, Bound, offsetof(vigil_bound, pending)), -1);
  B.CreateBr(Ret);
}

Function *Instrumenter::enterHook(unsigned G) {
  if (Groups[G].Enter)
    return Groups[G].Enter;
  Function *F = newHook("__vigil_fast_enter." + Twine(G), {});
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *First = BasicBlock::Create(C, "outermost", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
  Value *D = B.CreateLoad(I32, DepthP);
  B.CreateStore(B.CreateAdd(D, B.getInt32(1)), DepthP);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), First, Ret);
  B.SetInsertPoint(First);
  bump(B, I64, Bound, 1); // gen: odd inside the bound
  B.CreateStore(ConstantPointerNull::get(Ptr), at(B, Bound, offsetof(vigil_bound, touched)));
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return Groups[G].Enter = F;
}

Function *Instrumenter::exitHook(unsigned G) {
  if (Groups[G].Exit)
    return Groups[G].Exit;
  Function *F = newHook("__vigil_fast_exit." + Twine(G), {});
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Check = BasicBlock::Create(C, "inside", F);
  BasicBlock *Outer = BasicBlock::Create(C, "outermost", F);
  BasicBlock *Settle = BasicBlock::Create(C, "settle", F);
  BasicBlock *Close = BasicBlock::Create(C, "close", F);
  BasicBlock *Dec = BasicBlock::Create(C, "leave", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, G);
  Value *DepthP = at(B, Bound, offsetof(vigil_bound, depth));
  Value *D = B.CreateLoad(I32, DepthP);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(0)), Ret, Check);
  B.SetInsertPoint(Check);
  B.CreateCondBr(B.CreateICmpEQ(D, B.getInt32(1)), Outer, Dec);
  B.SetInsertPoint(Outer);
  Value *P = B.CreateLoad(I32, at(B, Bound, offsetof(vigil_bound, pending)));
  B.CreateCondBr(B.CreateICmpNE(P, B.getInt32(0)), Settle, Close);
  B.SetInsertPoint(Settle);
  B.CreateCall(BoundSettleFn, {Bound});
  B.CreateBr(Close);
  B.SetInsertPoint(Close);
  bump(B, I64, Bound, 1); // gen: even outside the bound
  B.CreateBr(Dec);
  B.SetInsertPoint(Dec);
  B.CreateStore(B.CreateSub(D, B.getInt32(1)), DepthP);
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return Groups[G].Exit = F;
}

Function *Instrumenter::eventHook(unsigned A, uint32_t Id, const vigil::Event &E) {
  auto Key = std::make_pair(A, Id);
  if (Function *F = EventFns[Key])
    return F;
  unsigned Alt = Id >> 8, X = Id & 0xff;
  const vigil::Assertion &As_ = As[A];
  std::vector<Type *> Params(E.Values.size(), I64);
  Function *F = newHook("__vigil_fast_event." + Twine(A) + "." + Twine(Alt) +
                            "." + Twine(X),
                        Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Inside = BasicBlock::Create(C, "inside", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  B.CreateBr(Inside);
  B.SetInsertPoint(Inside);
  BasicBlock *Cont, *Take;
  emitTouch(B, A, Bound, Inst, Slow, Ret, Cont);
  Value *FastP = at(B, Inst, VIGIL_HDR_FAST + Alt);
  Value *Fs = B.CreateLoad(I8, FastP, "fast");
  Value *N = emitStep(B, C, F, Fs, eventRow(A, Id), Slow, Ret, Take);
  // Values named by captured expressions: another value is not our event
  // (the table only lets such events through after the site).
  unsigned CapOff = VIGIL_CAPTURES_OFFSET(As_.Alternatives.size());
  for (unsigned I = 0; I < E.Values.size(); ++I) {
    const vigil::Value &V = E.Values[I];
    if (V.Kind != vigil::VAL_CAPTURE)
      continue;
    Value *Cap = B.CreateLoad(I64, at(B, Inst, CapOff + 8 * V.Capture));
    BasicBlock *Match = BasicBlock::Create(C, "ours", F);
    B.CreateCondBr(B.CreateICmpEQ(F->getArg(I), Cap), Match, Ret);
    B.SetInsertPoint(Match);
  }
  B.CreateStore(N, FastP);
  emitDone(B, A, Bound, Inst, N, Alt, Ret);

  B.SetInsertPoint(Slow);
  Value *Vals = ConstantPointerNull::get(Ptr);
  if (!E.Values.empty()) {
    IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
    AllocaInst *Buf = EB.CreateAlloca(ArrayType::get(I64, E.Values.size()));
    for (unsigned I = 0; I < E.Values.size(); ++I)
      B.CreateStore(F->getArg(I), B.CreateConstInBoundsGEP2_32(
                                      Buf->getAllocatedType(), Buf, 0, I));
    Vals = Buf;
  }
  B.CreateCall(EventFn, {AssertionGVs[A], Bound, Inst, B.getInt32(Id), Vals});
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return EventFns[Key] = F;
}

Function *Instrumenter::siteHook(unsigned A) {
  if (Function *F = SiteFns[A])
    return F;
  const vigil::Assertion &As_ = As[A];
  unsigned NAlts = As_.Alternatives.size();
  std::vector<Type *> Params(As_.Captures.size(), I64);
  Function *F = newHook("__vigil_fast_site." + Twine(A), Params);
  BasicBlock *Entry = BasicBlock::Create(C, "entry", F);
  BasicBlock *Slow = BasicBlock::Create(C, "slow", F);
  BasicBlock *Ret = BasicBlock::Create(C, "ret", F);
  IRBuilder<> B(Entry);
  Value *Bound = groupPtr(B, GroupOf[A]);
  Value *Inst = instance(B, A);
  // The captures belong to the instance from now on (outside a bound they
  // are never read; the next site overwrites them first).
  unsigned CapOff = VIGIL_CAPTURES_OFFSET(NAlts);
  for (unsigned I = 0; I < As_.Captures.size(); ++I)
    B.CreateStore(F->getArg(I), at(B, Inst, CapOff + 8 * I));
  BasicBlock *Cont;
  emitTouch(B, A, Bound, Inst, Slow, Ret, Cont);
  if (NAlts == 1) {
    BasicBlock *Take;
    Value *FastP = at(B, Inst, VIGIL_HDR_FAST);
    Value *N = emitStep(B, C, F, B.CreateLoad(I8, FastP), siteRow(A, 0), Slow, Ret, Take);
    B.CreateStore(N, FastP);
    emitDone(B, A, Bound, Inst, N, 0, Ret);
  } else {
    // Top-level OR: inline only if every alternative is plain or done.
    Value *AllOK = B.getTrue();
    std::vector<Value *> Ins, Fss, Nexts;
    for (unsigned Alt = 0; Alt < NAlts; ++Alt) {
      std::vector<unsigned> Row = siteRow(A, Alt);
      uint64_t Mask;
      unsigned Next;
      rowAsMask(Row, Mask, Next);
      Value *Fs = B.CreateLoad(I8, at(B, Inst, VIGIL_HDR_FAST + Alt));
      Value *Bit = B.CreateAnd(
          B.CreateLShr(ConstantInt::get(I64, Mask),
                       B.CreateZExt(B.CreateAnd(Fs, ConstantInt::get(I8, 63)), I64)),
          ConstantInt::get(I64, 1));
      Value *In = B.CreateAnd(B.CreateICmpULT(Fs, ConstantInt::get(I8, 64)),
                              B.CreateICmpNE(Bit, ConstantInt::get(I64, 0)));
      Value *IsDone = B.CreateICmpEQ(Fs, ConstantInt::get(I8, Row.size() - 1));
      AllOK = B.CreateAnd(AllOK, B.CreateOr(In, IsDone));
      Ins.push_back(In);
      Fss.push_back(Fs);
      Nexts.push_back(ConstantInt::get(I8, Next));
    }
    BasicBlock *Apply = BasicBlock::Create(C, "apply", F);
    B.CreateCondBr(AllOK, Apply, Slow);
    B.SetInsertPoint(Apply);
    for (unsigned Alt = 0; Alt < NAlts; ++Alt)
      B.CreateStore(B.CreateSelect(Ins[Alt], Nexts[Alt], Fss[Alt]),
                    at(B, Inst, VIGIL_HDR_FAST + Alt));
    B.CreateBr(Ret);
  }
  B.SetInsertPoint(Slow);
  B.CreateCall(SiteReachedFn, {AssertionGVs[A], Bound, Inst, ConstantPointerNull::get(Ptr)});
  B.CreateBr(Ret);
  B.SetInsertPoint(Ret);
  B.CreateRetVoid();
  return SiteFns[A] = F;
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
  Group &G = Groups[H.Group];
  bool Inline = FastPath && !G.Global;
  switch (H.T) {
  case Hook::BoundStart:
    if (Inline)
      B.CreateCall(enterHook(H.Group));
    else
      B.CreateCall(BoundEnterFn, {groupPtr(B, H.Group), B.getInt32(G.Global)});
    break;
  case Hook::BoundEnd:
    if (Inline)
      B.CreateCall(exitHook(H.Group));
    else
      B.CreateCall(BoundExitFn, {groupPtr(B, H.Group), B.getInt32(G.Global)});
    break;
  case Hook::Event: {
    if (eventInline(H.Assertion, H.EventId)) {
      std::vector<Value *> Args;
      for (const vigil::Value &V : E.Values)
        Args.push_back(toWord(B, Slot(V)));
      B.CreateCall(eventHook(H.Assertion, H.EventId, E), Args);
      break;
    }
    Value *Vals = ConstantPointerNull::get(Ptr);
    if (!E.Values.empty() && H.EventId != 0) {
      AllocaInst *Buf = buffer(F, vigil::MaxValues, ValueBufs);
      for (unsigned I = 0; I < E.Values.size(); ++I)
        B.CreateStore(toWord(B, Slot(E.Values[I])),
                      B.CreateConstInBoundsGEP2_32(Buf->getAllocatedType(),
                                                   Buf, 0, I));
      Vals = Buf;
    }
    B.CreateCall(EventFn, {AssertionGVs[H.Assertion], groupPtr(B, H.Group),
                           instance(B, H.Assertion), ConstantInt::get(I32, H.EventId),
                           Vals});
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
  if (N != As[A].Captures.size())
    warn(As[A].Location + ": the site passes " + Twine(N) +
         " captured values, the assertion has " +
         Twine(As[A].Captures.size()));
  if (siteInline(A) && N == As[A].Captures.size()) {
    std::vector<Value *> Args;
    for (unsigned I = 0; I < N; ++I)
      Args.push_back(toWord(B, CI->getArgOperand(1 + I)));
    B.CreateCall(siteHook(A), Args);
    CI->eraseFromParent();
    return;
  }
  Value *Caps = ConstantPointerNull::get(Ptr);
  if (N) {
    AllocaInst *Buf = buffer(F, vigil::MaxCaptures, CaptureBufs);
    for (unsigned I = 0; I < N && I < vigil::MaxCaptures; ++I)
      B.CreateStore(toWord(B, CI->getArgOperand(1 + I)),
                    B.CreateConstInBoundsGEP2_32(Buf->getAllocatedType(), Buf,
                                                 0, I));
    Caps = Buf;
  }
  B.CreateCall(SiteReachedFn, {AssertionGVs[A], groupPtr(B, GroupOf[A]),
                               instance(B, A), Caps});
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

  Type *Void = Type::getVoidTy(C);
  BoundEnterFn = M.getOrInsertFunction("__vigil_bound_enter",
                                       FunctionType::get(Void, {Ptr, I32}, false));
  BoundExitFn = M.getOrInsertFunction("__vigil_bound_exit",
                                      FunctionType::get(Void, {Ptr, I32}, false));
  BoundSettleFn = M.getOrInsertFunction("__vigil_bound_settle",
                                        FunctionType::get(Void, {Ptr}, false));
  SiteReachedFn = M.getOrInsertFunction(
      "__vigil_site_reached", FunctionType::get(Void, {Ptr, Ptr, Ptr, Ptr}, false));
  EventFn = M.getOrInsertFunction(
      "__vigil_event", FunctionType::get(Void, {Ptr, Ptr, Ptr, I32, Ptr}, false));

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
    bool Changed = Instrumenter(M).run();
    Changed |= vigil::instrumentMonitorBindings(M); // MonitorBindings.cpp
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
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
