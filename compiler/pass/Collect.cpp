//===- Collect.cpp - descriptors -> compiled assertions -------------------===//
//
// Every __vigil_site(descriptor, captures...) call of the merged module
// carries one assertion, definition or struct usage (model/Descriptor.cpp).
// Definitions are gathered by name first; inline assertions are resolved
// against them and compiled, struct usages instantiated.  Identical
// descriptors at the same location (a header included twice) are one
// assertion; ids follow (location, descriptor) order.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace vigil {
namespace pass {

void warn(const Twine &Msg) { errs() << "vigil: warning: " << Msg << "\n"; }

void fail(const Twine &Where, const Twine &Msg) {
  errs() << "vigil: error: " << Where << ": " << Msg << "\n";
  errs().flush();
  report_fatal_error("vigil: the program's assertions cannot be compiled",
                     /*gen_crash_diag=*/false);
}

bool Instrumenter::descriptorOf(CallInst *CI, std::string &D) {
  D.clear();
  if (CI->arg_size() < 1)
    return false;
  auto *GV = dyn_cast<GlobalVariable>(CI->getArgOperand(0)->stripPointerCasts());
  if (!GV || !GV->hasInitializer())
    return false;
  auto *CDA = dyn_cast<ConstantDataSequential>(GV->getInitializer());
  if (!CDA || !CDA->isCString())
    return false;
  D = CDA->getAsCString().str();
  return !D.empty();
}

void Instrumenter::collect() {
  Function *SiteFn = M.getFunction("__vigil_site");
  if (!SiteFn)
    return;
  struct Found {
    CallInst *CI;
    std::string D;
    Assertion A;
  };
  std::vector<Found> All;
  for (User *U : SiteFn->users()) {
    auto *CI = dyn_cast<CallInst>(U);
    if (!CI || CI->getCalledOperand()->stripPointerCasts() != SiteFn)
      continue;
    Found F{CI, "", Assertion()};
    std::string Err;
    bool Have = descriptorOf(CI, F.D);
    if (!Have || !parse(F.D, F.A, Err)) {
      warn("an assertion site in '" + CI->getFunction()->getName() + "' has " +
           (Have ? "a malformed descriptor: " + Err
                 : std::string("no descriptor (compiled without the vigil "
                               "Clang plugin?)")) +
           "; ignored");
      Sites.push_back({CI, -1});
      continue;
    }
    All.push_back(std::move(F));
  }

  // Definitions first: every use may refer to any of them.
  std::map<std::string, std::string> DefText;
  for (Found &F : All) {
    if (F.A.Kind != AK_DEFINITION)
      continue;
    auto [It, New] = DefText.emplace(F.A.Name, F.D);
    if (!New && It->second != F.D)
      fail(F.A.Location, "automaton '" + F.A.Name +
                             "' is defined twice, differently (see also " +
                             Defs[F.A.Name].Location + ")");
    if (New)
      Defs[F.A.Name] = F.A;
    Sites.push_back({F.CI, -1});
  }

  // Checked assertions, ordered by (location, descriptor).
  std::map<std::pair<std::string, std::string>, std::vector<CallInst *>> Keys;
  std::map<std::pair<std::string, std::string>, Assertion *> First;
  for (Found &F : All) {
    if (F.A.Kind == AK_DEFINITION)
      continue;
    auto K = std::make_pair(F.A.Location, F.D);
    Keys[K].push_back(F.CI);
    First.emplace(K, &F.A);
  }
  for (auto &[K, Calls] : Keys) {
    Assertion &Src = *First[K];
    Assertion Out;
    std::string Err;
    bool OK;
    if (Src.Kind == AK_STRUCT) {
      OK = instantiateStruct(Src, Defs, Out, Err);
    } else {
      Out = Src;
      OK = resolve(Out, Defs, Err) && compile(Out, Err);
    }
    if (!OK)
      fail(Src.Location, Err);
    if (Out.Alternatives.empty() || Out.Alternatives.size() > MaxAlternatives)
      fail(Src.Location, "an assertion has between 1 and " +
                             Twine(MaxAlternatives) + " alternatives");
    if (Out.Symbols.size() < 3 || Out.Symbols.size() > MaxSymbols)
      fail(Src.Location, "an assertion has between 3 and " +
                             Twine(MaxSymbols) + " symbols");
    if (Out.Captures.size() > MaxCaptures || Out.Free.size() > MaxFree)
      fail(Src.Location, "too many captured values or free variables");
    int Id = Src.Kind == AK_STRUCT ? -1 : int(As.size());
    for (CallInst *CI : Calls)
      Sites.push_back({CI, Id});
    As.push_back(std::move(Out));
  }
}

} // namespace pass
} // namespace vigil
