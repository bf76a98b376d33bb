//===- Events.cpp - function events and field-assignment events -----------===//
#include "Builder.h"

#include "clang/AST/RecordLayout.h"

using namespace clang;

namespace vigil {

static bool abiUnsafe(QualType T) {
  T = T.getCanonicalType();
  return T->isRecordType() || T->isAnyComplexType();
}

void setParams(const FunctionDecl *FD, Event &E) {
  E.NumParams = FD->getNumParams();
  E.ExactParams = true;
  // A struct, union or complex parameter may take several IR parameters (or
  // none), and a struct return an sret parameter first: only the leading
  // parameters before them have known IR indices.
  if (abiUnsafe(FD->getReturnType())) {
    E.NumParams = 0;
    E.ExactParams = false;
    return;
  }
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (abiUnsafe(FD->getParamDecl(I)->getType())) {
      E.NumParams = I;
      E.ExactParams = false;
      return;
    }
}

bool AssertionBuilder::makeEvent(const FunctionDecl *FD, CallExpr *Call,
                                 Expr *Ret, bool AtReturn, Force F, bool Bound,
                                 Expr *Whole, Event &E) {
  if (FD->isImplicit())
    return false; // an undeclared function: Sema already complained
  E.Kind = AtReturn ? EV_RETURN : EV_CALL;
  E.AtReturn = AtReturn;
  E.Function = FD->getNameAsString();
  E.ForceCaller = F == ForceCaller;
  E.ForceCallee = F == ForceCallee;
  setParams(FD, E);
  std::string Got = Call ? std::to_string(Call->getNumArgs()) : "";
  if (Call && Call->getNumArgs() != FD->getNumParams()) {
    if (FD->isVariadic())
      return D.error(Call, "wrong number of arguments to '" + E.Function +
                               "': expected " + Twine(FD->getNumParams()) +
                               " (variadic arguments cannot be matched), got " +
                               Got);
    return D.error(Call, "wrong number of arguments to '" + E.Function +
                             "': expected " + Twine(FD->getNumParams()) +
                             ", got " + Got);
  }
  if ((Call && Call->getNumArgs() > 0) || Ret) {
    bool Unsafe = abiUnsafe(FD->getReturnType());
    for (const ParmVarDecl *P : FD->parameters())
      Unsafe |= abiUnsafe(P->getType());
    if (Unsafe)
      return D.error(Whole, "'" + E.Function +
                                "' has a struct, union or complex parameter "
                                "or return type; its arguments and return "
                                "value cannot be matched");
  }
  Slot S;
  S.AtReturn = AtReturn;
  S.Bound = Bound;
  S.FD = FD;
  for (unsigned I = 0; Call && I < Call->getNumArgs(); ++I) {
    Value V;
    S.Index = I;
    if (!value(Call->getArg(I), FD->getParamDecl(I)->getType(), S, V))
      return false;
    E.Values.push_back(std::move(V));
  }
  if (Ret) {
    Value V;
    S.Role = ROLE_RETURN;
    S.Index = 0;
    if (!value(Ret, FD->getReturnType(), S, V))
      return false;
    E.Values.push_back(std::move(V));
  }
  if (E.Values.size() > MaxValues)
    return D.error(Whole, "event '" + E.Text + "' has more than " +
                              Twine(MaxValues) + " values");
  return true;
}

/// Strips the `((void)(e), 0)` wrapper of call(e) / returnfrom(e).
static Expr *unwrapEventArg(Expr *Arg) {
  Expr *X = Arg->IgnoreParens();
  if (auto *Comma = dyn_cast<BinaryOperator>(X))
    if (Comma->getOpcode() == BO_Comma) {
      Expr *L = Comma->getLHS()->IgnoreParens();
      if (auto *Cast = dyn_cast<CStyleCastExpr>(L))
        if (Cast->getType()->isVoidType())
          return Cast->getSubExpr()->IgnoreParenImpCasts();
    }
  return X->IgnoreParenImpCasts();
}

static const char *expected(bool Bound) {
  return Bound ? "a bound must be call(f), returnfrom(f) or f(...) == v"
               : "expected an event: call(f), returnfrom(f), f(args), "
                 "f(args) == v or a field assignment o->f = v";
}

bool AssertionBuilder::eventMarker(CallExpr *C, bool IsCall, Force F,
                                   bool Bound, Event &Out) {
  if (C->getNumArgs() != 2)
    return D.error(C, expected(Bound));
  Expr *Inner = unwrapEventArg(C->getArg(1));
  if (auto *DRE = dyn_cast<DeclRefExpr>(Inner)) {
    if (auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
      return makeEvent(FD, nullptr, nullptr, !IsCall, F, Bound, C, Out);
    return D.error(Inner, "'" + D.text(Inner) + "' is not a function");
  }
  if (auto *BO = dyn_cast<BinaryOperator>(Inner))
    if (BO->getOpcode() == BO_EQ) {
      if (IsCall)
        return D.error(C, "call(...) cannot match a return value; write "
                          "f(args) == v for a return event");
      return returnEquals(BO, F, Bound, Out); // returnfrom(f(args) == v)
    }
  if (auto *IC = dyn_cast<CallExpr>(Inner)) {
    if (!markerOf(IC).empty())
      return D.error(IC, expected(Bound));
    const FunctionDecl *FD = IC->getDirectCallee();
    if (!FD)
      return D.error(IC->getCallee(),
                     "'" + D.text(IC->getCallee()) + "' is not a function");
    return makeEvent(FD, IC, nullptr, !IsCall, F, Bound, C, Out);
  }
  return D.error(Inner, "'" + D.text(Inner) + "' is not a function");
}

bool AssertionBuilder::returnEquals(BinaryOperator *BO, Force F, bool Bound,
                                    Event &Out) {
  Expr *L = BO->getLHS()->IgnoreParenImpCasts();
  if (markerOf(L) == "call")
    return D.error(BO, "call(...) cannot match a return value; write "
                       "f(args) == v for a return event");
  auto *IC = dyn_cast<CallExpr>(L);
  if (!IC || !markerOf(IC).empty())
    return D.error(BO, "expected an event: the left side of '==' must be a "
                       "function call f(args)");
  const FunctionDecl *FD = IC->getDirectCallee();
  if (!FD)
    return D.error(IC->getCallee(),
                   "'" + D.text(IC->getCallee()) + "' is not a function");
  return makeEvent(FD, IC, BO->getRHS(), true, F, Bound, BO, Out);
}

bool AssertionBuilder::event(Expr *E, Force F, bool Bound, Event &Out) {
  E = E->IgnoreParenImpCasts();
  Out.Text = D.text(E);
  StringRef M = markerOf(E);
  if (M == "call" || M == "returnfrom")
    return eventMarker(cast<CallExpr>(E), M == "call", F, Bound, Out);
  if (!M.empty())
    return D.error(E, expected(Bound));
  if (auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() == BO_EQ)
      return returnEquals(BO, F, Bound, Out);
    if (BO->isAssignmentOp() && !Bound)
      return fieldEvent(E, Bound, Out);
    return D.error(E, expected(Bound));
  }
  if (auto *UO = dyn_cast<UnaryOperator>(E))
    if (UO->isIncrementDecrementOp() && !Bound)
      return fieldEvent(E, Bound, Out);
  if (auto *IC = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = IC->getDirectCallee();
    if (!FD)
      return D.error(IC->getCallee(),
                     "'" + D.text(IC->getCallee()) + "' is not a function");
    return makeEvent(FD, IC, nullptr, true, F, Bound, E, Out);
  }
  return D.error(E, expected(Bound));
}

/// The LLVM name Clang gives the struct type of RD ("struct.obj"), or "".
static std::string llvmRecordName(const RecordDecl *RD, std::string &CName) {
  std::string Kind = RD->isUnion() ? "union" : "struct";
  if (RD->getIdentifier())
    CName = RD->getName().str();
  else if (const TypedefNameDecl *TD = RD->getTypedefNameForAnonDecl())
    CName = TD->getName().str();
  else
    return "";
  return Kind + "." + CName;
}

bool AssertionBuilder::fieldTarget(Expr *LHS, Event &Out, QualType &FieldT,
                                   Expr *&Base, bool &Arrow) {
  auto *ME = dyn_cast<MemberExpr>(LHS->IgnoreParens());
  auto *FD = ME ? dyn_cast<FieldDecl>(ME->getMemberDecl()) : nullptr;
  if (!FD)
    return D.error(LHS, "the left side of a field-assignment event must be a "
                        "struct field (o->f or o.f), not '" +
                        D.text(LHS) + "'");
  if (FD->isBitField())
    return D.error(ME->getMemberLoc(),
                   "field '" + FD->getName() + "' is a bit-field; stores to "
                   "bit-fields cannot be observed");
  const RecordDecl *RD = FD->getParent();
  std::string CName;
  Out.Record = llvmRecordName(RD, CName);
  if (Out.Record.empty())
    return D.error(ME->getMemberLoc(),
                   "field '" + FD->getName() + "' belongs to an anonymous "
                   "struct or union; name it (or typedef it) to observe "
                   "stores to its fields");
  const ASTRecordLayout &L = Ctx.getASTRecordLayout(RD);
  Out.FieldOffset = L.getFieldOffset(FD->getFieldIndex()) / 8;
  Out.FieldSize = Ctx.getTypeSizeInChars(FD->getType()).getQuantity();
  Out.RecordSize = L.getSize().getQuantity();
  Out.Function = CName + "." + FD->getName().str();
  FieldT = FD->getType().getCanonicalType().getUnqualifiedType();
  Base = ME->getBase();
  Arrow = ME->isArrow();
  return scalarType(ME, FieldT, D.text(ME));
}

bool AssertionBuilder::fieldEvent(Expr *E, bool Bound, Event &Out) {
  Expr *LHS, *RHS = nullptr;
  auto *BO = dyn_cast<BinaryOperator>(E);
  auto *UO = dyn_cast<UnaryOperator>(E);
  if (BO) {
    LHS = BO->getLHS();
    RHS = BO->getRHS();
    BinaryOperatorKind K = BO->getOpcode();
    if (K != BO_Assign && K != BO_AddAssign && K != BO_SubAssign)
      return D.error(BO->getOperatorLoc(),
                     "only '=', '+=', '-=', '++' and '--' field assignments "
                     "are events, not '" + BO->getOpcodeStr() + "'");
    Out.Op = K == BO_Assign ? OP_ASSIGN : K == BO_AddAssign ? OP_ADD : OP_SUB;
  } else {
    LHS = UO->getSubExpr();
    Out.Op = UO->isIncrementOp() ? OP_ADD : OP_SUB;
  }
  Out.Kind = EV_FIELD;
  Out.AtReturn = false;
  QualType FieldT;
  Expr *Base;
  bool Arrow;
  if (!fieldTarget(LHS, Out, FieldT, Base, Arrow))
    return false;
  if (Out.Op != OP_ASSIGN && !FieldT->isIntegralOrEnumerationType())
    return D.error(E, "'" + Out.Text + "': only integer fields can be "
                      "matched with '+=', '-=', '++' or '--'");
  Slot S;
  S.Bound = Bound;
  S.Role = ROLE_BASE;
  Value B;
  if (Arrow) {
    if (!value(Base, Base->getType(), S, B))
      return false;
  } else {
    Expr *W = Base->IgnoreParenImpCasts();
    B.Text = "&" + D.text(W);
    B.Role = ROLE_BASE;
    QualType PT = Ctx.getPointerType(W->getType().getUnqualifiedType());
    if (!capture(W, PT.getCanonicalType(), true, B))
      return false;
  }
  Out.Values.push_back(B);
  Value V;
  S.Role = ROLE_VALUE;
  if (RHS) {
    if (!value(RHS, FieldT, S, V))
      return false;
  } else {
    V.Text = "1";
    V.Role = ROLE_VALUE;
    V.Kind = VAL_CONST;
    V.Constant = 1;
  }
  Out.Values.push_back(V);
  return true;
}

} // namespace vigil
