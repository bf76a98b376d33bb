//===- MonitorBindings.cpp - automaton monitors on C functions -----------===//
//
// The pass's side of include/vigil/monitor.h.  The generated unit of each
// monitor defines a constant array __vigil_monitor_bindings_<name> of
// struct vigil_monitor_binding { function, where, hook, abi, at_return,
// nargs, ret }.  For every rule:
//
//  * the function is defined in the merged module: its body is
//    instrumented, the hook called at entry (`call:`) or before every return
//    (`return:`, with the returned value);
//  * otherwise (libc, a shared library, a native object): every direct call
//    of it in the module is instrumented, the hook called before the call
//    (`call:`) or after it (`return:`, with the call's result).
//
// Values become i64 as C converts them to int64_t: pointers by address,
// integers sign-extended unless marked zeroext; anything else (floating
// point, aggregates, missing arguments) is 0.  Hooks and `__vigil_*`
// functions are never instrumented.  The pass warns about a rule whose
// function is neither defined nor directly called.
//
//===----------------------------------------------------------------------===//
#include "MonitorBindings.h"
#include "vigil/monitor.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <set>
#include <string>
#include <vector>

using namespace llvm;

namespace {

void warn(const Twine &Msg) { errs() << "vigil: warning: " << Msg << "\n"; }

struct Rule {
  std::string Function; // the bound C function
  std::string Where;    // "mutex.bind:7"
  llvm::Function *Hook = nullptr;
  bool AtReturn = false;
  unsigned NArgs = 0;
  bool Ret = false;
};

struct Points {
  std::vector<const Rule *> Entry, Return;
};

/// A C string constant behind a pointer initializer, or "".
std::string cString(Constant *C) {
  if (!C)
    return "";
  auto *GV = dyn_cast<GlobalVariable>(C->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return "";
  if (auto *CDS = dyn_cast<ConstantDataSequential>(GV->getInitializer()))
    if (CDS->isCString())
      return CDS->getAsCString().str();
  return "";
}

uint64_t intField(Constant *C) {
  if (auto *CI = dyn_cast_or_null<ConstantInt>(C))
    return CI->getZExtValue();
  return ~0ull;
}

class MonitorInstrumenter {
public:
  explicit MonitorInstrumenter(Module &M)
      : M(M), C(M.getContext()), I64(Type::getInt64Ty(C)) {}
  /// Reads every binding table (nothing once the module is instrumented).
  void read();
  std::vector<std::string> functions() const;
  /// Instruments what read() found.
  bool run();

private:
  Module &M;
  LLVMContext &C;
  Type *I64;
  std::vector<Rule> Rules;
  SmallPtrSet<llvm::Function *, 16> HookFns;
  StringMap<Points> Callee, Caller;
  std::set<std::string> Warned;

  void readTable(GlobalVariable &GV);
  bool defined(StringRef Name) const {
    llvm::Function *F = M.getFunction(Name);
    return F && !F->isDeclaration() && !F->hasAvailableExternallyLinkage();
  }
  Value *toI64(IRBuilder<> &B, Value *V, bool ZExt);
  void emit(Instruction *Before, const Rule &R, ArrayRef<Value *> Args,
            ArrayRef<uint8_t> ZExt, Value *Ret, bool RetZExt, StringRef Where);
  void instrument(llvm::Function &F);
  void warnOnce(const Twine &Key, const Twine &Msg) {
    if (Warned.insert(Key.str()).second)
      warn(Msg);
  }
};

void MonitorInstrumenter::readTable(GlobalVariable &GV) {
  StringRef Name = GV.getName();
  if (!GV.hasInitializer()) {
    warn("monitor binding table '" + Name + "' has no definition; ignored");
    return;
  }
  Constant *Init = GV.getInitializer();
  auto *ATy = dyn_cast<ArrayType>(Init->getType());
  if (!ATy) {
    warn("monitor binding table '" + Name + "' is not an array; ignored");
    return;
  }
  for (uint64_t I = 0; I < ATy->getNumElements(); ++I) {
    Constant *E = Init->getAggregateElement(I);
    auto Field = [&](unsigned K) -> Constant * {
      return E ? E->getAggregateElement(K) : nullptr;
    };
    Rule R;
    R.Function = cString(Field(0));
    R.Where = cString(Field(1));
    if (Constant *H = Field(2))
      R.Hook = dyn_cast<llvm::Function>(H->stripPointerCasts());
    uint64_t Abi = intField(Field(3));
    uint64_t AtReturn = intField(Field(4)), NArgs = intField(Field(5)),
             Ret = intField(Field(6));
    std::string Where = R.Where.empty() ? (Name + "[" + Twine(I) + "]").str() : R.Where;
    if (Abi != VIGIL_MONITOR_ABI) {
      warn(Where + ": monitor binding table '" + Name + "' was generated for " +
           "monitor ABI " + Twine(Abi) + ", this pass implements " +
           Twine(VIGIL_MONITOR_ABI) + " (regenerate it with this vigil); ignored");
      return;
    }
    if (R.Function.empty() || !R.Hook || AtReturn > 1 ||
        NArgs > VIGIL_MONITOR_MAX_ARGS || Ret > 1) {
      warn(Where + ": malformed entry " + Twine(I) + " in monitor binding table '" +
           Name + "'; ignored");
      continue;
    }
    R.AtReturn = AtReturn;
    R.NArgs = NArgs;
    R.Ret = Ret;
    FunctionType *FT = R.Hook->getFunctionType();
    bool TypeOK = FT->getReturnType()->isVoidTy() && !FT->isVarArg() &&
                  FT->getNumParams() == R.NArgs + R.Ret;
    for (Type *P : FT->params())
      TypeOK &= P == I64;
    if (!TypeOK) {
      warn(Where + ": the hook '" + R.Hook->getName() +
           "' does not have the type the binding table says; ignored");
      continue;
    }
    Rules.push_back(std::move(R));
  }
}

Value *MonitorInstrumenter::toI64(IRBuilder<> &B, Value *V, bool ZExt) {
  if (!V)
    return ConstantInt::get(I64, 0);
  Type *T = V->getType();
  if (T->isPointerTy())
    return B.CreatePtrToInt(V, I64);
  if (auto *IT = dyn_cast<IntegerType>(T)) {
    if (IT->getBitWidth() == 64)
      return V;
    if (IT->getBitWidth() > 64)
      return B.CreateTrunc(V, I64);
    if (ZExt || IT->getBitWidth() == 1)
      return B.CreateZExt(V, I64);
    return B.CreateSExt(V, I64);
  }
  return ConstantInt::get(I64, 0); // floating point, vectors, aggregates
}

void MonitorInstrumenter::emit(Instruction *Before, const Rule &R,
                               ArrayRef<Value *> Args, ArrayRef<uint8_t> ZExt,
                               Value *Ret, bool RetZExt, StringRef Where) {
  IRBuilder<> B(Before);
  llvm::Function *F = Before->getFunction();
  // A call of a hook that has debug info needs a location in a function
  // that has debug info (the verifier insists for inlinable calls).
  if (!B.getCurrentDebugLocation())
    if (DISubprogram *SP = F->getSubprogram())
      B.SetCurrentDebugLocation(DILocation::get(C, SP->getScopeLine(), 0, SP));
  std::vector<Value *> Ops;
  for (unsigned K = 0; K < R.NArgs; ++K) {
    if (K < Args.size()) {
      Ops.push_back(toI64(B, Args[K], ZExt[K]));
      continue;
    }
    warnOnce(R.Where + "|" + Where,
             R.Where + ": " + Where + " has " + Twine(Args.size()) +
                 " argument(s); the rule uses arg" + Twine(R.NArgs - 1) +
                 ", passed as 0");
    Ops.push_back(ConstantInt::get(I64, 0));
  }
  if (R.Ret)
    Ops.push_back(toI64(B, Ret, RetZExt));
  B.CreateCall(R.Hook->getFunctionType(), R.Hook, Ops);
}

/// The C-level arguments of a function or call: IR arguments except an sret
/// pointer; by-value aggregates as null (passed as 0).
template <typename GetArg, typename HasAttr>
void cArgs(unsigned N, GetArg Arg, HasAttr Has, std::vector<Value *> &Args,
           std::vector<uint8_t> &ZExt) {
  for (unsigned I = 0; I < N; ++I) {
    if (Has(I, Attribute::StructRet))
      continue;
    bool Aggregate = Has(I, Attribute::ByVal) || Has(I, Attribute::InAlloca) ||
                     Has(I, Attribute::Preallocated);
    Args.push_back(Aggregate ? nullptr : Arg(I));
    ZExt.push_back(Has(I, Attribute::ZExt));
  }
}

void MonitorInstrumenter::instrument(llvm::Function &F) {
  std::vector<CallBase *> Calls;
  std::vector<ReturnInst *> Rets;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        auto *Callee = dyn_cast<llvm::Function>(CB->getCalledOperand()->stripPointerCasts());
        if (Callee && !Callee->isIntrinsic() && Caller.count(Callee->getName()) &&
            (isa<CallInst>(CB) || isa<InvokeInst>(CB)))
          Calls.push_back(CB);
      } else if (auto *RI = dyn_cast<ReturnInst>(&I)) {
        Rets.push_back(RI);
      }
    }

  // Callee side.
  auto CP = Callee.find(F.getName());
  if (CP != Callee.end()) {
    std::vector<Value *> Args;
    std::vector<uint8_t> ZExt;
    cArgs(
        F.arg_size(), [&](unsigned I) -> Value * { return F.getArg(I); },
        [&](unsigned I, Attribute::AttrKind K) { return F.hasParamAttribute(I, K); },
        Args, ZExt);
    bool Sret = F.hasStructRetAttr();
    bool RetZExt = F.getAttributes().hasRetAttr(Attribute::ZExt);
    std::string Where = ("'" + F.getName() + "'").str();
    BasicBlock &Entry = F.getEntryBlock();
    Instruction *EntryPt = &*Entry.getFirstInsertionPt();
    while (isa<AllocaInst>(EntryPt))
      EntryPt = EntryPt->getNextNode();
    for (const Rule *R : CP->second.Entry)
      emit(EntryPt, *R, Args, ZExt, nullptr, false, Where);
    for (ReturnInst *RI : Rets) {
      Instruction *Prev = RI->getPrevNode();
      if (auto *CI = dyn_cast_or_null<CallInst>(Prev); CI && CI->isMustTailCall()) {
        for (const Rule *R : CP->second.Return)
          warnOnce(R->Where + "|musttail|" + F.getName(),
                   R->Where + ": a return of '" + F.getName() +
                       "' is a musttail call and cannot be instrumented");
        continue;
      }
      for (const Rule *R : CP->second.Return) {
        if (R->Ret && (Sret || !RI->getReturnValue()))
          warnOnce(R->Where + "|ret|" + F.getName(),
                   R->Where + ": '" + F.getName() +
                       "' returns no scalar value; ret is passed as 0");
        emit(RI, *R, Args, ZExt, Sret ? nullptr : RI->getReturnValue(), RetZExt, Where);
      }
    }
  }

  // Caller side.
  for (CallBase *CB : Calls) {
    auto *Fn = cast<llvm::Function>(CB->getCalledOperand()->stripPointerCasts());
    Points &P = Caller.find(Fn->getName())->second;
    std::vector<Value *> Args;
    std::vector<uint8_t> ZExt;
    cArgs(
        CB->arg_size(), [&](unsigned I) -> Value * { return CB->getArgOperand(I); },
        [&](unsigned I, Attribute::AttrKind K) { return CB->paramHasAttr(I, K); },
        Args, ZExt);
    bool Sret = CB->hasStructRetAttr();
    bool RetZExt = CB->hasRetAttr(Attribute::ZExt);
    Value *Ret = (Sret || CB->getType()->isVoidTy()) ? nullptr : CB;
    std::string Where = ("a call of '" + Fn->getName() + "'").str();
    for (const Rule *R : P.Entry)
      emit(CB, *R, Args, ZExt, nullptr, false, Where);
    if (P.Return.empty())
      continue;
    for (const Rule *R : P.Return)
      if (R->Ret && !Ret)
        warnOnce(R->Where + "|ret|" + Fn->getName(),
                 R->Where + ": '" + Fn->getName() +
                     "' returns no scalar value; ret is passed as 0");
    Instruction *After;
    if (auto *CI = dyn_cast<CallInst>(CB)) {
      if (CI->isMustTailCall()) {
        for (const Rule *R : P.Return)
          warnOnce(R->Where + "|musttail|" + F.getName(),
                   R->Where + ": a musttail call of '" + Fn->getName() + "' in '" +
                       F.getName() + "' cannot be instrumented at its return");
        continue;
      }
      After = CI->getNextNode();
    } else {
      auto *II = cast<InvokeInst>(CB);
      BasicBlock *Normal = SplitEdge(II->getParent(), II->getNormalDest());
      After = &*Normal->getFirstInsertionPt();
    }
    for (const Rule *R : P.Return)
      emit(After, *R, Args, ZExt, Ret, RetZExt, Where);
  }
}

void MonitorInstrumenter::read() {
  if (M.getNamedMetadata("vigil.monitors.instrumented"))
    return;
  for (GlobalVariable &GV : M.globals())
    if (GV.getName().starts_with(VIGIL_MONITOR_BINDINGS_PREFIX))
      readTable(GV);
}

std::vector<std::string> MonitorInstrumenter::functions() const {
  std::vector<std::string> Out;
  for (const Rule &R : Rules)
    Out.push_back(R.Function);
  return Out;
}

bool MonitorInstrumenter::run() {
  if (Rules.empty() || M.getNamedMetadata("vigil.monitors.instrumented"))
    return false;
  M.getOrInsertNamedMetadata("vigil.monitors.instrumented");

  for (const Rule &R : Rules) {
    HookFns.insert(R.Hook);
    Points &P = (defined(R.Function) ? Callee : Caller)[R.Function];
    (R.AtReturn ? P.Return : P.Entry).push_back(&R);
  }

  // A rule whose function never runs in this program is most likely a typo.
  std::set<std::string> Seen;
  for (const Rule &R : Rules) {
    if (!Seen.insert(R.Where + "|" + R.Function).second || defined(R.Function))
      continue;
    bool Called = false;
    if (llvm::Function *F = M.getFunction(R.Function))
      for (User *U : F->users())
        if (auto *CB = dyn_cast<CallBase>(U))
          if (CB->getCalledOperand()->stripPointerCasts() == F &&
              !HookFns.count(CB->getFunction()))
            Called = true;
    if (!Called)
      warn(R.Where + ": function '" + R.Function +
           "' is never called or defined in this program");
  }

  std::vector<llvm::Function *> Fns;
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage() &&
        !F.getName().starts_with("__vigil_") && !HookFns.count(&F))
      Fns.push_back(&F);
  for (llvm::Function *F : Fns)
    instrument(*F);
  return true;
}

} // namespace

namespace vigil {
struct MonitorBindings::Impl : MonitorInstrumenter {
  using MonitorInstrumenter::MonitorInstrumenter;
};
MonitorBindings::MonitorBindings(Module &M) : P(std::make_unique<Impl>(M)) {}
MonitorBindings::~MonitorBindings() = default;
void MonitorBindings::read() { P->read(); }
std::vector<std::string> MonitorBindings::functions() const { return P->functions(); }
bool MonitorBindings::instrument() { return P->run(); }
} // namespace vigil

bool vigil::instrumentMonitorBindings(Module &M) {
  MonitorBindings B(M);
  B.read();
  return B.instrument();
}
