//===- Patterns.cpp - sequences, OR, repetition, free variables, subs -----===//
#include "Builder.h"

#include "llvm/ADT/APSInt.h"

#include <climits>

using namespace clang;

namespace vigil {

bool isAutomatonFunction(const FunctionDecl *FD) {
  if (!FD)
    return false;
  QualType T = FD->getReturnType().getCanonicalType();
  if (!T->isPointerType())
    return false;
  const RecordDecl *RD = T->getPointeeType()->getAsRecordDecl();
  return RD && RD->getIdentifier() &&
         RD->getName() == "__vigil_automaton_description";
}

bool AssertionBuilder::symbol(const Event &E, SourceLocation L,
                              std::vector<Node> &Out) {
  for (unsigned B : {SymStart, SymEnd})
    if (A.Kind == AK_INLINE && B < A.Symbols.size() &&
        E.sameAs(A.Symbols[B])) {
      D.error(L, "event '" + E.Text + "' is the same event as the bound '" +
                     A.Symbols[B].Text + "'");
      D.note(B == SymStart ? StartLoc : EndLoc, "the bound is here");
      return false;
    }
  int S = A.addSymbol(E);
  if (S < 0)
    return D.error(L, "more than " + Twine(MaxSymbols) +
                          " distinct events in one assertion (bounds and "
                          "site included)");
  Out.push_back(Node::sym(unsigned(S), E.Text));
  return true;
}

bool AssertionBuilder::elements(CallExpr *C, unsigned First, Where W,
                                std::vector<Node> &Out) {
  for (unsigned I = First; I < C->getNumArgs(); ++I)
    if (!element(C->getArg(I), W, Out))
      return false;
  return true;
}

bool AssertionBuilder::siteElement(Expr *E, Where W, std::vector<Node> &Out) {
  if (InDefinition)
    return D.error(E, "TESLA_ASSERTION_SITE cannot appear in an automaton "
                      "definition");
  if (W.InOr)
    return D.error(E, "TESLA_ASSERTION_SITE cannot be part of an OR block");
  if (W.InRepeat)
    return D.error(E, "TESLA_ASSERTION_SITE cannot be optional or repeated");
  if (W.Nested)
    return D.error(E, "TESLA_ASSERTION_SITE must be in the top-level "
                      "sequence, not in a nested sequence");
  SiteLocs.push_back(E->getBeginLoc());
  Out.push_back(Node::site());
  return true;
}

static void collectOr(Expr *E, std::vector<Expr *> &Leaves) {
  E = E->IgnoreParenImpCasts();
  if (auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->getOpcode() == BO_LOr) {
      collectOr(BO->getLHS(), Leaves);
      collectOr(BO->getRHS(), Leaves);
      return;
    }
  Leaves.push_back(E);
}

bool AssertionBuilder::orBlock(Expr *E, Where W, std::vector<Node> &Out) {
  std::vector<Expr *> Leaves;
  collectOr(E, Leaves);
  Node Or;
  Or.K = InDefinition ? Node::Xor : Node::Or;
  Or.Text = D.text(E);
  Where In = W;
  In.InOr = true;
  for (Expr *L : Leaves) {
    std::vector<Node> Kids;
    if (!element(L, In, Kids))
      return false;
    Or.Kids.push_back(Kids.size() == 1 ? Kids[0] : Node::seq(Kids));
  }
  Out.push_back(std::move(Or));
  return true;
}

bool AssertionBuilder::count(Expr *E, unsigned &Out) {
  E = E->IgnoreParenImpCasts();
  std::optional<llvm::APSInt> V = E->getIntegerConstantExpr(Ctx);
  if (!V)
    return D.error(E, "repetition count '" + D.text(E) +
                          "' is not an integer constant expression");
  if (V->isNegative())
    return D.error(E, "repetition count '" + D.text(E) + "' is negative");
  Out = V->getActiveBits() > 31 || V->getZExtValue() >= uint64_t(INT_MAX)
            ? Unbounded
            : unsigned(V->getZExtValue());
  return true;
}

bool AssertionBuilder::repetition(CallExpr *C, StringRef M, Where W,
                                  std::vector<Node> &Out) {
  std::string Text = D.text(C);
  unsigned Min = 0, Max = 1, First = 1;
  if (M == "repeat") {
    First = 3;
    if (C->getNumArgs() < 3 || !count(C->getArg(1), Min) ||
        !count(C->getArg(2), Max))
      return C->getNumArgs() < 3 ? D.error(C, "'" + Text + "' needs counts")
                                 : false;
    if (Min == Unbounded)
      return D.error(C->getArg(1), "the minimum count of '" + Text +
                                       "' cannot be ANY_REP");
    if (Max != Unbounded && Min > Max)
      return D.error(C, "repetition '" + Text + "': the minimum (" +
                            Twine(Min) + ") is larger than the maximum (" +
                            Twine(Max) + ")");
    if (Max == 0)
      return D.error(C, "repetition '" + Text +
                            "' has a maximum of 0: it matches nothing");
  }
  if (C->getNumArgs() <= First)
    return D.error(C, "'" + Text + "' needs at least one event");
  Where In = W;
  In.InRepeat = true;
  std::vector<Node> Body;
  if (!elements(C, First, In, Body))
    return false;
  Node R = Node::repeat(Min, Max, std::move(Body));
  R.Text = Text;
  Out.push_back(std::move(R));
  return true;
}

bool AssertionBuilder::freeBlock(StmtExpr *SE, Where W, std::vector<Node> &Out) {
  Where In = W;
  In.Nested = true;
  std::vector<Node> Kids;
  for (Stmt *S : SE->getSubStmt()->body()) {
    if (isa<NullStmt>(S))
      continue;
    if (auto *E = dyn_cast<Expr>(S)) {
      if (!element(E, In, Kids))
        return false;
      continue;
    }
    auto *DS = dyn_cast<DeclStmt>(S);
    if (!DS)
      return D.error(S->getBeginLoc(),
                     "a statement expression in an assertion declares free "
                     "variables and lists events; this statement is neither");
    for (Decl *Dl : DS->decls()) {
      auto *VD = dyn_cast<VarDecl>(Dl);
      if (!VD)
        return D.error(Dl->getLocation(), "only free variables can be "
                                          "declared in an assertion");
      if (VD->hasInit())
        return D.error(VD->getLocation(),
                       "free variable '" + VD->getName() +
                           "' cannot have an initialiser");
      QualType T = VD->getType().getCanonicalType();
      if (!(T->isIntegralOrEnumerationType() || T->isPointerType()) ||
          Ctx.getTypeSize(T) > 64)
        return D.error(VD->getLocation(),
                       "free variable '" + VD->getName() + "' has type '" +
                           T.getAsString() + "'; only integer, pointer, enum "
                           "and bool variables of at most 64 bits can be free");
      if (A.Free.size() >= MaxFree)
        return D.error(VD->getLocation(), "more than " + Twine(MaxFree) +
                                              " free variables in one "
                                              "assertion");
      FreeVars[VD] = unsigned(A.Free.size());
      A.Free.push_back(VD->getName().str());
    }
  }
  if (Kids.empty())
    return D.error(SE, "this statement expression lists no event");
  Node N = Node::seq(std::move(Kids));
  N.Text = D.text(SE);
  Out.push_back(std::move(N));
  return true;
}

bool AssertionBuilder::subAutomaton(CallExpr *C, std::vector<Node> &Out) {
  const FunctionDecl *FD = C->getDirectCallee();
  Node N;
  N.K = Node::Sub;
  N.Name = FD->getNameAsString();
  N.Text = D.text(C);
  Slot S;
  S.FD = FD;
  for (unsigned I = 0; I < C->getNumArgs() && I < FD->getNumParams(); ++I) {
    Value V;
    S.Index = I;
    if (!value(C->getArg(I), FD->getParamDecl(I)->getType(), S, V))
      return false;
    N.Args.push_back(V);
  }
  Out.push_back(std::move(N));
  return true;
}

bool AssertionBuilder::element(Expr *E, Where W, std::vector<Node> &Out) {
  if (E->containsErrors())
    return false; // Sema already complained
  E = E->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  auto *C = dyn_cast<CallExpr>(E);
  if (M == "site")
    return siteElement(E, W, Out);
  if (M == "sequence") {
    Where In = W;
    In.Nested = true;
    std::vector<Node> Kids;
    if (!elements(C, 1, In, Kids))
      return false;
    Node N = Node::seq(std::move(Kids));
    N.Text = D.text(E);
    Out.push_back(std::move(N));
    return true;
  }
  if (isSequenceMarker(M))
    return D.error(E, userName(M) +
                          "(...) cannot be nested inside another sequence");
  if (isModeMarker(M))
    return D.error(E, M + "(...) must enclose the whole assertion");
  if (M == "optional" || M == "repeat")
    return repetition(C, M, W, Out);
  if (M == "caller" || M == "callee") {
    if (C->getNumArgs() < 2)
      return D.error(E, M + "(...) needs an event");
    Where In = W;
    In.F = M == "caller" ? ForceCaller : ForceCallee;
    return elements(C, 1, In, Out);
  }
  if (auto *SE = dyn_cast<StmtExpr>(E))
    return freeBlock(SE, W, Out);
  if (auto *BO = dyn_cast<BinaryOperator>(E); BO && BO->getOpcode() == BO_LOr)
    return orBlock(E, W, Out);
  if (C && M.empty() && isAutomatonFunction(C->getDirectCallee()))
    return subAutomaton(C, Out);
  Event Ev;
  if (!event(E, W.F, false, Ev))
    return false;
  return symbol(Ev, E->getBeginLoc(), Out);
}

} // namespace vigil
