//===- Automata.cpp - automaton() definitions and struct automata ---------===//
//
//   automaton(name, struct T *p) { e1; e2 || e3; name2(p); tesla_done; }
//
// is a function (include/tesla.h) whose statements are the steps of a
// sequence; `||` is exclusive choice; the parameters are VAL_PARAM values.
// tesla_done is `return (__vigil_site("", ...), 0)`: the plugin rewrites
// that call with the definition's descriptor and drops every other
// statement.  TESLA_STRUCT_AUTOMATON(subject, name, locality, start, end)
// defines a function whose parameter is the subject and whose body holds
// the usage in a dead branch, followed by a __vigil_site call.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

using namespace clang;

namespace vigil {

static Event placeholder(uint8_t Kind, const char *Text) {
  Event E;
  E.Kind = Kind;
  E.Text = Text;
  return E;
}

/// The __vigil_site call of `return (__vigil_site(...), 0)`, or null.
static CallExpr *doneSite(ReturnStmt *RS) {
  Expr *R = RS->getRetValue();
  if (!R)
    return nullptr;
  auto *Comma = dyn_cast<BinaryOperator>(R->IgnoreParenCasts());
  if (!Comma || Comma->getOpcode() != BO_Comma)
    return nullptr;
  auto *C = dyn_cast<CallExpr>(Comma->getLHS()->IgnoreParenImpCasts());
  const FunctionDecl *FD = C ? C->getDirectCallee() : nullptr;
  if (!FD || !FD->getIdentifier() || FD->getName() != "__vigil_site")
    return nullptr;
  return C;
}

bool AssertionBuilder::definitionStatement(Stmt *S, std::vector<Node> &Out) {
  if (isa<NullStmt>(S))
    return true;
  if (auto *E = dyn_cast<Expr>(S))
    return element(E, Where(), Out);
  return D.error(S->getBeginLoc(),
                 "an automaton body lists events, one statement each, and "
                 "ends with tesla_done");
}

bool AssertionBuilder::definitionBody(FunctionDecl *FD, CallExpr *&Site,
                                      ReturnStmt *&Done) {
  auto *Body = dyn_cast<CompoundStmt>(FD->getBody());
  if (!Body)
    return false;
  std::vector<Node> Steps;
  for (Stmt *S : Body->body()) {
    if (Done) {
      if (isa<NullStmt>(S))
        continue;
      return D.error(S->getBeginLoc(), "nothing may follow tesla_done in "
                                       "automaton '" + A.Name + "'");
    }
    if (auto *RS = dyn_cast<ReturnStmt>(S)) {
      Site = doneSite(RS);
      if (!Site)
        return D.error(RS->getBeginLoc(), "automaton '" + A.Name +
                                              "' must end with tesla_done");
      Done = RS;
      continue;
    }
    if (!definitionStatement(S, Steps))
      return false;
  }
  if (!Done)
    return D.error(Body->getRBracLoc(),
                   "automaton '" + A.Name + "' must end with tesla_done");
  if (Steps.empty())
    return D.error(FD->getLocation(),
                   "automaton '" + A.Name + "' has no events");
  Automaton Au;
  Au.Text = A.Name;
  Au.Pattern = Node::seq(std::move(Steps));
  A.Alternatives.push_back(std::move(Au));
  return true;
}

bool AssertionBuilder::buildDefinition(FunctionDecl *FD, CallExpr *&Site,
                                       ReturnStmt *&Done, Assertion &Out) {
  A.Kind = AK_DEFINITION;
  A.Mode = MODE_STRICT;
  A.Name = FD->getNameAsString();
  A.Location = D.where(FD->getLocation());
  InDefinition = true;
  std::string Sig;
  for (ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType().getCanonicalType();
    if (!P->getIdentifier())
      return D.error(P->getLocation(), "automaton '" + A.Name +
                                           "': every parameter needs a name");
    if (!(T->isIntegralOrEnumerationType() || T->isPointerType()) ||
        Ctx.getTypeSize(T) > 64)
      return D.error(P->getLocation(),
                     "automaton parameter '" + P->getName() + "' has type '" +
                         T.getAsString() + "'; only integer, pointer, enum "
                         "and bool parameters of at most 64 bits are allowed");
    Params[P] = unsigned(A.Params.size());
    A.Params.push_back(P->getName().str());
    std::string PT = D.text(P->getSourceRange());
    Sig += ", " + (PT.empty() ? P->getNameAsString() : PT);
  }
  A.Text = "automaton(" + A.Name + Sig + ")";
  A.Symbols = {placeholder(EV_START, ""), placeholder(EV_END, ""),
               placeholder(EV_SITE, "TESLA_ASSERTION_SITE")};
  A.Symbols[SymEnd].AtReturn = true;
  if (!definitionBody(FD, Site, Done))
    return false;
  Out = A;
  return true;
}

bool AssertionBuilder::locality(Expr *E) {
  Expr *Loc = E->IgnoreParenImpCasts();
  auto *U = dyn_cast<UnaryOperator>(Loc);
  StringRef L;
  if (!U || U->getOpcode() != UO_AddrOf ||
      !namesVigilVar(U->getSubExpr(), "locality_", &L))
    return D.error(Loc, "the locality must be __tesla_global or "
                        "__tesla_perthread");
  A.Locality = L == "global" ? GLOBAL : PERTHREAD;
  return true;
}

bool AssertionBuilder::structParts(CallExpr *Marker, const FunctionDecl *Fn) {
  Expr *Name = Marker->getArg(1)->IgnoreParenImpCasts();
  auto *DRE = dyn_cast<DeclRefExpr>(Name);
  auto *Def = DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
  if (!isAutomatonFunction(Def))
    return D.error(Name, "'" + D.text(Name) + "' is not an automaton: "
                         "declare it with automaton(name, ...)");
  A.Name = Def->getNameAsString();
  if (Def->getNumParams() != 1)
    return D.error(Name, "automaton '" + A.Name + "' takes " +
                             Twine(Def->getNumParams()) +
                             " parameters; a struct automaton's takes one, "
                             "the subject");
  if (!locality(Marker->getArg(2)))
    return false;
  Event Start, End;
  StartLoc = Marker->getArg(3)->getBeginLoc();
  EndLoc = Marker->getArg(4)->getBeginLoc();
  if (!event(Marker->getArg(3), NoForce, true, Start) ||
      !event(Marker->getArg(4), NoForce, true, End))
    return false;
  Start.Kind = EV_START;
  End.Kind = EV_END;
  if (Start.sameAs(End))
    return D.error(EndLoc, "the two bounds are the same event '" + End.Text +
                               "'");
  for (const Event *E : {&Start, &End})
    if (!E->hasKind(VAL_PARAM))
      return D.error(E == &Start ? StartLoc : EndLoc,
                     "the " + std::string(E == &Start ? "start" : "end") +
                         " event '" + E->Text + "' of a struct automaton "
                         "must name the subject '" + A.Params[0] +
                         "' as a value (e.g. call(init(" + A.Params[0] +
                         ")))");
  A.Symbols = {Start, End, placeholder(EV_SITE, "TESLA_ASSERTION_SITE")};
  return true;
}

bool AssertionBuilder::buildStruct(CallExpr *Marker, CallExpr *Site,
                                   const FunctionDecl *Fn, Assertion &Out) {
  if (Marker->containsErrors())
    return false;
  A.Kind = AK_STRUCT;
  A.Mode = MODE_STRICT;
  InDefinition = true;
  locate(Site->getBeginLoc());
  if (Marker->getNumArgs() != 5 || Fn->getNumParams() != 1)
    return D.error(Marker, "TESLA_STRUCT_AUTOMATON(subject, automaton, "
                           "locality, start, end) takes five arguments");
  const ParmVarDecl *P = Fn->getParamDecl(0);
  Params[P] = 0;
  A.Params.push_back(P->getNameAsString());
  if (!structParts(Marker, Fn))
    return false;
  Out = A;
  return true;
}

} // namespace vigil
