//===- VigilPass.cpp - link-time instrumentation --------------------------===//
//
// Runs once on the whole merged LTO module (FullLinkTimeOptimizationEarlyEP):
//
//  1. collects every __vigil_site(descriptor, captures...) call, parses the
//     descriptors (model/Assertion.h): definitions by name, inline
//     assertions resolved against them, struct usages instantiated; every
//     alternative compiled to its DFA (Collect.cpp);
//  2. plans bound groups and observation points (Plan.cpp);
//  3. emits the constant tables of include/vigil/abi.h, the instances and
//     the bound groups (Tables.cpp);
//  4. replaces each site call by the site hook, drops the calls carrying
//     definitions and struct usages;
//  5. instruments every observation point with one hook (Points.cpp,
//     Fields.cpp; inline fast path in Hooks.cpp);
//  6. then instruments the calls and returns bound to automaton monitors
//     (MonitorBindings.cpp, include/vigil/monitor.h);
//  7. around these, the event stream's trace records (--vigil-trace,
//     --vigil-trace-events; Trace.h says why in two phases), and last the
//     split of each function traced in its body into a traced copy and
//     itself without records (TraceClone.cpp).
//  8. last, with --vigil-atomic, the atomic regions (Atomic.h).
//
// VIGIL_FAST_PATH=0 at link time makes every hook a runtime call.  Errors in
// the assertions (an undefined automaton, a pattern over the limits) print
// "vigil: error: <location>: <message>" and fail the link.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"
#include "MonitorBindings.h"
#include "Trace.h"
#include "Pass.h"
#include "Static.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace vigil {
namespace pass {

Instrumenter::Instrumenter(Module &M)
    : M(M), C(M.getContext()), DL(M.getDataLayout()) {
  I8 = Type::getInt8Ty(C);
  I16 = Type::getInt16Ty(C);
  I32 = Type::getInt32Ty(C);
  I64 = Type::getInt64Ty(C);
  Void = Type::getVoidTy(C);
  Ptr = PointerType::getUnqual(C);
  const char *E = std::getenv("VIGIL_FAST_PATH");
  FastPath = !(E && std::strcmp(E, "0") == 0);
}

static bool isVigilName(StringRef N) { return N.starts_with("__vigil_"); }

/// Hooks read arguments, pass them to the runtime and call it: the memory
/// effects and parameter attributes the compile step may have inferred
/// (`memory(argmem: write)`, `writeonly`, `nocapture`, `nosync`, ...) no
/// longer hold for an instrumented function nor, transitively, for its
/// callers.  They are dropped on every function defined in the module and
/// every call of one; the LTO pipeline that follows infers them again.
static void relaxAttributes(Module &M) {
  const Attribute::AttrKind Fn[] = {Attribute::Memory, Attribute::NoSync,
                                    Attribute::NoFree, Attribute::Speculatable};
  const Attribute::AttrKind Param[] = {Attribute::ReadNone, Attribute::ReadOnly,
                                       Attribute::WriteOnly,
                                       Attribute::NoCapture};
  for (Function &F : M) {
    if (F.isDeclaration() || F.isIntrinsic() || isVigilName(F.getName()))
      continue;
    for (auto K : Fn)
      F.removeFnAttr(K);
    for (unsigned I = 0; I < F.arg_size(); ++I)
      for (auto K : Param)
        F.removeParamAttr(I, K);
    for (User *U : F.users()) {
      auto *CB = dyn_cast<CallBase>(U);
      if (!CB || CB->getCalledOperand()->stripPointerCasts() != &F)
        continue;
      for (auto K : Fn)
        CB->removeFnAttr(K);
      for (unsigned I = 0; I < CB->arg_size(); ++I)
        for (auto K : Param)
          CB->removeParamAttr(I, K);
    }
  }
}

bool Instrumenter::prepare() {
  if (Prepared >= 0)
    return Prepared;
  Prepared = !M.getNamedMetadata("vigil.instrumented");
  if (Prepared) {
    M.getOrInsertNamedMetadata("vigil.instrumented");
    collect();
    if (StaticMode Mode = staticModeFromEnv(); Mode != STATIC_OFF) {
      std::vector<StaticVerdict> V = checkStatically(M, As, Sites);
      unsigned Violated = reportStatic(As, V, Mode);
      writeStaticJson(As, V);
      if (Mode == STATIC_PRUNE && Violated)
        report_fatal_error("vigil: static: an assertion is violated", /*gen_crash_diag=*/false);
      if (Mode == STATIC_PRUNE)
        pruneProven(As, Sites, V);
    }
  }
  return Prepared;
}

bool Instrumenter::run() {
  if (!prepare())
    return false;
  Function *SiteFn = M.getFunction("__vigil_site");
  if (As.empty()) {
    for (auto &[CI, Id] : Sites)
      CI->eraseFromParent();
    if (SiteFn && SiteFn->use_empty())
      SiteFn->eraseFromParent();
    return !Sites.empty();
  }

  auto Fn = [&](const char *Name, ArrayRef<Type *> Params) {
    return M.getOrInsertFunction(Name, FunctionType::get(Void, Params, false));
  };
  BoundEnterFn = Fn("__vigil_bound_enter", {Ptr, I32, Ptr});
  BoundExitFn = Fn("__vigil_bound_exit", {Ptr, I32});
  BoundSettleFn = Fn("__vigil_bound_settle", {Ptr});
  SiteReachedFn = Fn("__vigil_site_reached", {Ptr, Ptr, Ptr, Ptr});
  EventFn = Fn("__vigil_event", {Ptr, Ptr, Ptr, I32, Ptr});
  ObjectEventFn = Fn("__vigil_object_event", {Ptr, I32, Ptr});
  SiteLockedFn = Fn("__vigil_site_locked", {Ptr, Ptr, Ptr, Ptr});
  EventLockedFn = Fn("__vigil_event_locked", {Ptr, Ptr, Ptr, I32, Ptr});
  BoundSettleEagerFn = Fn("__vigil_bound_settle_eager", {Ptr, I32, Ptr, Ptr});
  BoundEnterEagerFn = Fn("__vigil_bound_enter_eager", {Ptr, Ptr, I32, Ptr, Ptr});

  makeTypes();
  warnUnused();
  plan();
  buildHost();
  planEager();
  emitTables();
  emitStorage();

  for (auto &[CI, Id] : Sites) {
    if (Id >= 0)
      replaceSite(CI, unsigned(Id));
    else
      CI->eraseFromParent();
  }
  if (SiteFn && SiteFn->use_empty())
    SiteFn->eraseFromParent();

  std::vector<Function *> Fns;
  for (Function &F : M)
    if (!F.isDeclaration() && !F.hasAvailableExternallyLinkage() &&
        !isVigilName(F.getName()))
      Fns.push_back(&F);
  for (Function *F : Fns)
    instrumentFunction(*F);
  relaxAttributes(M);
  return true;
}

struct VigilInstrument : PassInfoMixin<VigilInstrument> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    Instrumenter Assertions(M);
    MonitorBindings Monitors(M); // MonitorBindings.cpp
    Tracer Trace(M);             // Trace*.cpp
    Assertions.prepare();
    Monitors.read();
    if (Trace.wanted()) {
      std::set<std::string> Named;
      if (Trace.wantsEvents()) {
        Named = Assertions.functions();
        for (const std::string &F : Monitors.functions())
          Named.insert(F);
      }
      Trace.plan(Named);
    }
    // The trace records go around the hooks (Trace.h): at every point the
    // record first, then the hooks, whose verdicts then follow the event
    // in the stream.  Neither instruments the other's code: the hooks and
    // the producer's calls are __vigil_* names, which neither observes.
    bool Changed = Trace.instrumentBeforeHooks();
    Changed |= Assertions.run();
    Changed |= Monitors.instrument();
    Changed |= Trace.instrumentAfterHooks();
    // Last: its simplification must not change what the others match, and
    // their hooks are __vigil_* calls it does not annotate (Atomic.h).
    AtomicRegions Atomic(M, MAM);
    if (Atomic.wanted())
      Changed |= Atomic.run();
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

} // namespace pass
} // namespace vigil

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  using vigil::pass::VigilInstrument;
  return {LLVM_PLUGIN_API_VERSION, "vigil", "0.3", [](PassBuilder &PB) {
            PB.registerFullLinkTimeOptimizationEarlyEPCallback(
                [&PB](ModulePassManager &MPM, OptimizationLevel L) {
                  MPM.addPass(VigilInstrument());
                  if (L != OptimizationLevel::O0)
                    MPM.addPass(PB.buildLTOPreLinkDefaultPipeline(L));
                  else // the hooks are always-inline, even at -O0
                    MPM.addPass(AlwaysInlinerPass());
                });
            PB.registerFullLinkTimeOptimizationLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel L) {
                  if (L != OptimizationLevel::O0)
                    MPM.addPass(createModuleToFunctionPassAdaptor(
                        vigil::pass::SlowTails()));
                });
            // For testing with opt: -passes=vigil-instrument, and
            // -passes=vigil-slow-tails
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "vigil-slow-tails") {
                    MPM.addPass(createModuleToFunctionPassAdaptor(
                        vigil::pass::SlowTails()));
                    return true;
                  }
                  if (Name != "vigil-instrument")
                    return false;
                  MPM.addPass(VigilInstrument());
                  return true;
                });
          }};
}
