//===- AtomicPass.cpp - atomic regions: configuration and analysis --------===//
//
// Runs after every other instrumentation of the pass (VigilPass.cpp), on
// the whole program.  Each function is first simplified the way the LTO
// pipeline will simplify it anyway (SROA: locals out of memory; EarlyCSE:
// a variable loaded twice with nothing in between is loaded once), so the
// analysis sees the accesses the machine code will make, not the -O0 shape
// of the IR the compile step left.  The hooks are opaque calls, so the
// optimisations that follow cannot move a shared access across them.
// Functions built at -O0 (optnone) are analysed as they are.
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"
#include "Pass.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/SROA.h"

#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace vigil {
namespace pass {

AtomicRegions::AtomicRegions(Module &M, ModuleAnalysisManager &MAM)
    : M(M), MAM(MAM) {
  const char *E = std::getenv("VIGIL_ATOMIC_EXPLAIN");
  if (E && *E)
    Explain = std::strcmp(E, "json") == 0 ? Json : Text;
  const char *A = std::getenv("VIGIL_ATOMIC");
  if (A && *A && std::strcmp(A, "0") != 0)
    Mode = std::strcmp(A, "watchpoints") == 0 ? Watchpoints : Checks;
  else if (Explain != NoExplain)
    Mode = Checks;
  if (A && *A && std::strcmp(A, "0") && std::strcmp(A, "1") &&
      std::strcmp(A, "checks") && std::strcmp(A, "watchpoints"))
  {
    errs() << "vigil: error: --vigil-atomic: unknown detector `" << A
           << "`; expected checks or watchpoints\n";
    report_fatal_error("vigil: bad --vigil-atomic", /*gen_crash_diag=*/false);
  }
}

void AtomicRegions::simplify(Function &F) {
  if (F.hasOptNone())
    return;
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  FunctionPassManager FPM;
  FPM.addPass(SROAPass(SROAOptions::PreserveCFG));
  FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
  PreservedAnalyses PA = FPM.run(F, FAM);
  FAM.invalidate(F, PA);
}

static bool skipped(const Function &F) {
  StringRef N = F.getName();
  return F.isDeclaration() || F.hasAvailableExternallyLinkage() ||
         N.starts_with("__vigil") || N.starts_with("vigil_");
}

void AtomicRegions::analyse() {
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  const DataLayout &DL = M.getDataLayout();
  unsigned NextId = 0;
  for (Function &F : M) {
    if (skipped(F))
      continue;
    simplify(F);
  }
  // built after the simplification, which replaces the values it keeps
  Mem = std::make_unique<SharedMemory>(M);
  for (Function &F : M) {
    if (skipped(F))
      continue;
    AAResults &AA = FAM.getResult<AAManager>(F);
    FunctionRegions FR = findRegions(F, *Mem, AA, WL);
    if (FR.Regions.empty() && (Explain == NoExplain || !FR.Protected))
      continue;
    unsigned First = NextId;
    for (Region &R : FR.Regions) {
      R.Id = NextId++;
      R.FunctionFirst = First;
      SharedAccess &A = FR.Accesses[R.First];
      SharedVar V = Mem->describe(A, DL);
      auto [It, New] = VarIndex.try_emplace(V.Name, Vars.size());
      if (New)
        Vars.push_back(V);
      A.Var = It->second;
      for (unsigned E : R.Ends)
        FR.Accesses[E].Var = It->second;
      if (V.Global)
        GlobalVars.insert(V.Global);
      else
        NonGlobalVars = true;
    }
    Fns.push_back(std::move(FR));
  }
}

/// May this access touch the variable of some AR?  Globals are known by
/// name; a pointer the analysis cannot follow may point at any heap
/// variable with ARs and at any such global whose address is taken.
bool AtomicRegions::needsCheck(const Value *Ptr) const {
  const DataLayout &DL = M.getDataLayout();
  if (!Mem->isShared(Ptr, DL))
    return false;
  SmallVector<const Value *, 4> Objs;
  getUnderlyingObjects(Ptr, Objs, nullptr, 8);
  for (const Value *O : Objs) {
    if (auto *GV = dyn_cast<GlobalVariable>(O)) {
      if (GlobalVars.count(GV))
        return true;
      continue;
    }
    if (NonGlobalVars || AddressTakenVars)
      return true;
  }
  return false;
}

bool AtomicRegions::run() {
  if (!wanted() || M.getNamedMetadata("vigil.atomic"))
    return false;
  M.getOrInsertNamedMetadata("vigil.atomic");
  WL.load();
  analyse();
  for (const GlobalVariable *GV : GlobalVars)
    AddressTakenVars |= Mem->addressTaken(GV);
  if (Explain != NoExplain) {
    explain();
    return false;
  }
  emit();
  return true;
}

} // namespace pass
} // namespace vigil
