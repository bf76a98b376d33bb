//===- Plan.cpp - bound groups and observation points ---------------------===//
//
// An observation point is a function entry or return (in the callee when it
// is defined in the module and not forced caller(...), else around each
// direct call) or a store to a struct field.  Each point gets one hook that
// serves every observer: the bound groups starting or ending there and every
// (assertion, symbol) seen there.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Instructions.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace vigil {
namespace pass {

bool Instrumenter::defined(StringRef Name) const {
  Function *F = M.getFunction(Name);
  return F && !F->isDeclaration() && !F->hasAvailableExternallyLinkage();
}

bool Instrumenter::isField(const vigil::Event &E) {
  return E.Kind == EV_FIELD || !E.Record.empty();
}

std::set<std::string> Instrumenter::functions() const {
  std::set<std::string> Out;
  for (const Assertion &A : As)
    for (const vigil::Event &E : A.Symbols)
      if (!isField(E) && !E.Function.empty())
        Out.insert(E.Function);
  return Out;
}

bool Instrumenter::callerSide(const vigil::Event &E) const {
  return !isField(E) && (E.ForceCaller || !defined(E.Function));
}

/// The observation point and the value patterns of E.
std::string Instrumenter::eventKey(const vigil::Event &E) const {
  std::string K;
  if (isField(E))
    K = "R|" + E.Record + "|" + std::to_string(E.FieldOffset) + "|" +
        std::to_string(E.FieldSize) + "|" + std::to_string(E.Op);
  else
    K = "F|" + E.Function + "|" + std::to_string(E.AtReturn) +
        std::to_string(callerSide(E));
  for (const vigil::Value &V : E.Values)
    K += "|" + std::to_string(V.Kind) + "," + std::to_string(V.Role) + "," +
         std::to_string(V.ArgIndex) + "," + std::to_string(V.Index) + "," +
         std::to_string(V.Indirect) + "," + std::to_string(V.Constant);
  return K;
}

unsigned Instrumenter::pointOf(const vigil::Event &E) {
  Point P;
  std::string K;
  if (isField(E)) {
    P.Field = true;
    P.Record = E.Record;
    P.Offset = E.FieldOffset;
    P.Size = E.FieldSize;
    P.RecordSize = E.RecordSize;
    K = "R|" + E.Record + "|" + std::to_string(E.FieldOffset) + "|" +
        std::to_string(E.FieldSize);
  } else {
    P.Function = E.Function;
    P.AtReturn = E.AtReturn;
    P.CallerSide = callerSide(E);
    K = "F|" + E.Function + "|" + std::to_string(E.AtReturn) +
        std::to_string(P.CallerSide);
  }
  auto [It, New] = PointIndex.emplace(K, Points.size());
  if (!New)
    return It->second;
  unsigned I = Points.size();
  if (P.Field)
    FieldPoints.push_back(I);
  else
    (P.CallerSide ? (P.AtReturn ? CallerReturn : CallerEntry)
                  : (P.AtReturn ? CalleeReturn : CalleeEntry))[P.Function] = I;
  Points.push_back(std::move(P));
  return I;
}

/// Whether a bound's entry and exit run in one frame: the entry and the
/// return of the same function, observed on the same side, on a target
/// where that frame's return-address slot can be named.
bool Instrumenter::anchorable(const vigil::Event &S,
                              const vigil::Event &E) const {
  Triple T(M.getTargetTriple());
  bool Target = T.isX86() || T.isAArch64();
  return Target && !isField(S) && !isField(E) && !S.Function.empty() &&
         S.Function == E.Function && !S.AtReturn && E.AtReturn &&
         callerSide(S) == callerSide(E);
}

void Instrumenter::planGroups() {
  std::map<std::string, unsigned> Index;
  GroupOf.assign(As.size(), 0);
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    if (A.Kind == AK_STRUCT)
      continue;
    const vigil::Event &S = A.Symbols[SymStart], &E = A.Symbols[SymEnd];
    std::string Key = std::to_string(A.Locality) + "#" + eventKey(S) + "#" +
                      eventKey(E);
    auto [It, New] = Index.emplace(Key, Groups.size());
    GroupOf[AI] = It->second;
    if (!New)
      continue;
    Group G;
    G.Global = A.Locality == GLOBAL;
    G.Start = &S;
    G.End = &E;
    G.Anchored = !G.Global && anchorable(S, E);
    Groups.push_back(G);
    Points[pointOf(S)].Obs.push_back(
        Observer{Observer::BoundStart, AI, SymStart, It->second, &S});
    Points[pointOf(E)].Obs.push_back(
        Observer{Observer::BoundEnd, AI, SymEnd, It->second, &E});
  }
}

/// An instance the bound's entry may initialise: per-thread, inline, every
/// alternative taking its steps inline (vigil/abi.h "Eager instances"), in
/// guideline mode.  Several alternatives (top-level OR) are decided at the
/// exit from their joint fast states (vigil/fastpath.h
/// vigil_fast_end_joint).  Strict mode checks a bound in which an event happened
/// even if the site was not reached, and an eager instance cannot tell an
/// empty bound from one whose events left its state where it began (a
/// self-loop); conditional mode may hand a state before the site back after
/// a pass, so only the runtime could end it, at every exit.
bool Instrumenter::eagerCandidate(unsigned A) const {
  return Fast[A] && As[A].Kind == AK_INLINE && As[A].Locality == PERTHREAD &&
         As[A].Mode == vigil::MODE_GUIDELINE &&
         !As[A].Alternatives.empty() && As[A].Alternatives.size() <= 8 &&
         std::all_of(Host[A].begin(), Host[A].end(),
                     [](const std::unique_ptr<HostAlt> &H) { return H->Eligible; }) &&
         !logSite(A);
}

/// Which members of each per-thread group are eager.  An eager instance
/// costs every bound of its group a store at the entry and a test and a
/// store at the exit, whether its events happen or not; a late one costs
/// its events a generation check and a touch, but nothing in bounds where
/// they do not happen.  So a group's candidates are all eager while there
/// are few of them (MaxEager), and otherwise only those whose site is in
/// the bound's own function (it is reached in most bounds: benchmark A with
/// 1000 inactive assertions elsewhere keeps A eager).
void Instrumenter::planEager() {
  const unsigned MaxEager = 4;
  Eager.assign(As.size(), false);
  std::vector<std::string> SiteFn(As.size());
  for (auto &[CI, Id] : Sites)
    if (Id >= 0)
      SiteFn[Id] = CI->getFunction()->getName().str();
  for (unsigned G = 0; G < Groups.size(); ++G) {
    if (Groups[G].Global)
      continue;
    std::vector<unsigned> Cands, Own;
    for (unsigned AI = 0; AI < As.size(); ++AI) {
      if (As[AI].Kind == AK_STRUCT || GroupOf[AI] != G)
        continue;
      if (!eagerCandidate(AI)) {
        Groups[G].HasLazy = true;
        continue;
      }
      Cands.push_back(AI);
      if (SiteFn[AI] == Groups[G].Start->Function)
        Own.push_back(AI);
    }
    const std::vector<unsigned> &Pick = Cands.size() <= MaxEager ? Cands : Own;
    for (unsigned AI : Pick)
      if (Groups[G].Eager.size() < MaxEager) {
        Eager[AI] = true;
        Groups[G].Eager.push_back(AI);
      }
    Groups[G].HasLazy |= Groups[G].Eager.size() < Cands.size();
    Groups[G].Entries = !Groups[G].Eager.empty() && !Groups[G].HasLazy;
  }
}

void Instrumenter::plan() {
  for (const Assertion &A : As)
    for (const vigil::Event &E : A.Symbols)
      if (E.ForceCallee && !isField(E) && !E.Function.empty() &&
          !defined(E.Function))
        warn(A.Location + ": callee(...): '" + E.Function +
             "' is not defined in this program; instrumenting its call sites "
             "instead");
  planGroups();
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    bool Struct = A.Kind == AK_STRUCT;
    for (unsigned S = 0; S < A.Symbols.size(); ++S) {
      const vigil::Event &E = A.Symbols[S];
      if (S == SymSite || E.Kind == EV_SITE || (!Struct && S <= SymEnd))
        continue;
      if (!isField(E) && E.Function.empty())
        continue;
      Points[pointOf(E)].Obs.push_back(
          Observer{Observer::Event, AI, S, Struct ? 0u : GroupOf[AI], &E});
    }
  }
  // At one point: bound starts, then events, then bound ends.
  for (Point &P : Points) {
    std::vector<Observer> Sorted;
    for (Observer::Type T :
         {Observer::BoundStart, Observer::Event, Observer::BoundEnd})
      for (const Observer &O : P.Obs)
        if (O.T == T)
          Sorted.push_back(O);
    P.Obs = std::move(Sorted);
  }
}

void Instrumenter::warnUnused() {
  for (const Assertion &A : As) {
    std::set<std::string> Seen;
    for (const vigil::Event &E : A.Symbols) {
      if (isField(E) || E.Function.empty() || !Seen.insert(E.Function).second)
        continue;
      Function *F = M.getFunction(E.Function);
      bool Called = F && !F->isDeclaration();
      if (F && !Called)
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

} // namespace pass
} // namespace vigil
