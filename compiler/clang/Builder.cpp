//===- Builder.cpp - inline assertions, definitions and struct usages -----===//
#include "Builder.h"

#include "clang/Lex/Lexer.h"

using namespace clang;

namespace vigil {

AssertionBuilder::AssertionBuilder(CompilerInstance &CI, ASTContext &Ctx)
    : CI(CI), Ctx(Ctx), D(Ctx) {}

static Event siteEvent() {
  Event E;
  E.Kind = EV_SITE;
  E.Text = "TESLA_ASSERTION_SITE";
  return E;
}

void AssertionBuilder::locate(SourceLocation L) {
  SourceManager &SM = Ctx.getSourceManager();
  A.Location = D.where(L);
  A.Text = collapseSpace(
      Lexer::getSourceText(SM.getExpansionRange(L), SM, Ctx.getLangOpts()));
}

bool AssertionBuilder::boundFunction(Expr *E, bool AtReturn, Event &Out) {
  Expr *X = E->IgnoreParenImpCasts();
  auto *DRE = dyn_cast<DeclRefExpr>(X);
  auto *FD = DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
  if (!FD)
    return D.error(X, "'" + D.text(X) + "' is not a function");
  Out.Kind = AtReturn ? EV_END : EV_START;
  Out.AtReturn = AtReturn;
  Out.Function = FD->getNameAsString();
  setParams(FD, Out);
  Out.Text = (AtReturn ? "returnfrom(" : "call(") + D.text(X) + ")";
  return true;
}

bool AssertionBuilder::bounds(CallExpr *Marker, StringRef Kind) {
  Event Start, End;
  unsigned First = Kind == "assert" ? 2 : 1; // TESLA_ASSERT(locality, ...)
  if (Kind == "assert" && !locality(Marker->getArg(1)))
    return false;
  StartLoc = Marker->getArg(First)->getBeginLoc();
  if (Kind == "within") {
    EndLoc = StartLoc;
    A.Locality = PERTHREAD;
    if (!boundFunction(Marker->getArg(1), false, Start) ||
        !boundFunction(Marker->getArg(1), true, End))
      return false;
  } else {
    EndLoc = Marker->getArg(First + 1)->getBeginLoc();
    if (Kind != "assert")
      A.Locality = Kind == "global" ? GLOBAL : PERTHREAD;
    if (!event(Marker->getArg(First), NoForce, true, Start) ||
        !event(Marker->getArg(First + 1), NoForce, true, End))
      return false;
    Start.Kind = EV_START;
    End.Kind = EV_END;
    if (Start.sameAs(End))
      return D.error(EndLoc, "the two bounds are the same event '" + End.Text +
                                 "'");
  }
  A.Symbols = {Start, End, siteEvent()};
  return true;
}

bool AssertionBuilder::alternative(Expr *E, Node &Out) {
  E = E->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  if (isModeMarker(M))
    return D.error(E, M + "(...) must enclose the whole assertion");
  if (!isSequenceMarker(M))
    return D.error(E, "an event must be inside TSEQUENCE(...), "
                      "previously(...) or eventually(...)");
  std::vector<Node> Els;
  SiteLocs.clear();
  if (!elements(cast<CallExpr>(E), 1, Where(), Els))
    return false;
  if (M != "sequence") {
    if (!SiteLocs.empty())
      return D.error(SiteLocs[0], "TESLA_ASSERTION_SITE cannot appear inside " +
                                      M + "(...), which implies it");
    if (M == "previously")
      Els.push_back(Node::site());
    else
      Els.insert(Els.begin(), Node::site());
  } else if (SiteLocs.empty()) {
    return D.error(E, "TSEQUENCE(...) must contain TESLA_ASSERTION_SITE");
  } else if (SiteLocs.size() > 1) {
    return D.error(SiteLocs[1], "TESLA_ASSERTION_SITE appears more than once "
                                "in TSEQUENCE(...)");
  }
  Out = Node::seq(std::move(Els));
  Out.Text = D.text(E);
  return true;
}

static void collectTopOr(Expr *E, std::vector<Expr *> &Leaves) {
  E = E->IgnoreParenImpCasts();
  if (auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->getOpcode() == BO_LOr) {
      collectTopOr(BO->getLHS(), Leaves);
      collectTopOr(BO->getRHS(), Leaves);
      return;
    }
  Leaves.push_back(E);
}

bool AssertionBuilder::alternatives(Expr *E) {
  E = E->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  if (isModeMarker(M)) {
    A.Mode = M == "strict"        ? MODE_STRICT
             : M == "conditional" ? MODE_CONDITIONAL
                                  : MODE_GUIDELINE;
    auto *C = cast<CallExpr>(E);
    if (C->getNumArgs() != 2)
      return D.error(C, M + "(...) takes a single expression");
    E = C->getArg(1);
  }
  std::vector<Expr *> Alts;
  collectTopOr(E, Alts);
  if (Alts.size() > MaxAlternatives)
    return D.error(Alts[MaxAlternatives],
                   "more than " + Twine(MaxAlternatives) +
                       " alternatives in one assertion");
  for (Expr *AltE : Alts) {
    Automaton Au;
    if (!alternative(AltE, Au.Pattern))
      return false;
    Au.Text = D.text(AltE);
    A.Alternatives.push_back(std::move(Au));
  }
  return true;
}

bool AssertionBuilder::buildInline(CallExpr *Marker, CallExpr *Site,
                                   Assertion &Out,
                                   std::vector<Expr *> &Captures) {
  if (Marker->containsErrors())
    return false; // Sema already complained
  A.Kind = AK_INLINE;
  locate(Site->getBeginLoc());
  StringRef Kind = markerOf(Marker);
  unsigned FirstExpr = Kind == "within" ? 2 : Kind == "assert" ? 4 : 3;
  if (Marker->getNumArgs() <= FirstExpr)
    return D.error(Marker, "an assertion needs bounds and an expression");
  if (!bounds(Marker, Kind))
    return false;
  if (Marker->getNumArgs() > FirstExpr + 1)
    return D.error(Marker->getArg(FirstExpr + 1),
                   "an assertion takes a single expression; separate events "
                   "with ',' inside TSEQUENCE(...)");
  if (!alternatives(Marker->getArg(FirstExpr)))
    return false;
  Out = A;
  Captures = CapExprs;
  return true;
}

} // namespace vigil
