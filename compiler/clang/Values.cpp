//===- Values.cpp - argument, return and field values ---------------------===//
//
// A value slot is ANY, a constant, flags(c) / bitmask(c), an out-parameter
// `&x`, a free variable, an automaton parameter, or an expression captured
// at the site: the site call then carries (unsigned long)(U)(T)(expr),
// where T is the slot's type and U the unsigned integer type of the same
// width, so that the word holds T's bits zero-extended, exactly as the
// link-time pass passes observed words to the runtime.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"

#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Sema/Sema.h"

#include "llvm/ADT/APSInt.h"

using namespace clang;

namespace vigil {

Expr *AssertionBuilder::castTo(QualType T, Expr *E) {
  SourceLocation L = E->getBeginLoc();
  ExprResult R = CI.getSema().BuildCStyleCastExpr(
      L, Ctx.getTrivialTypeSourceInfo(T, L), L, E);
  return R.isInvalid() ? nullptr : R.get();
}

bool AssertionBuilder::scalarType(Expr *W, QualType T, const std::string &What) {
  if (!(T->isIntegralOrEnumerationType() || T->isPointerType()))
    return D.error(W, "value '" + What + "' has type '" + T.getAsString() +
                          "'; only integer, pointer, enum and bool values can "
                          "be matched");
  if (Ctx.getTypeSize(T) > 64)
    return D.error(W, "value '" + What + "' has type '" + T.getAsString() +
                          "', which is wider than 64 bits");
  return true;
}

namespace {
/// Finds a use of a free variable or automaton parameter inside a larger
/// expression.
class ScopedUse : public RecursiveASTVisitor<ScopedUse> {
public:
  ScopedUse(const std::map<const VarDecl *, unsigned> &Free,
            const std::map<const ParmVarDecl *, unsigned> &Params)
      : Free(Free), Params(Params) {}
  const DeclRefExpr *Found = nullptr;
  bool IsFree = false;
  bool VisitDeclRefExpr(DeclRefExpr *E) {
    const ValueDecl *VD = E->getDecl();
    if (auto *V = dyn_cast<VarDecl>(VD); V && Free.count(V))
      IsFree = true;
    else if (auto *P = dyn_cast<ParmVarDecl>(VD); !P || !Params.count(P))
      return true;
    Found = E;
    return false;
  }

private:
  const std::map<const VarDecl *, unsigned> &Free;
  const std::map<const ParmVarDecl *, unsigned> &Params;
};
} // namespace

bool AssertionBuilder::checkNoScoped(Expr *W) {
  ScopedUse U(FreeVars, Params);
  U.TraverseStmt(W);
  if (!U.Found)
    return true;
  std::string N = U.Found->getDecl()->getNameAsString();
  if (U.IsFree)
    return D.error(U.Found, "free variable '" + N +
                                "' can only be used as a whole value of an "
                                "event (an argument, '&" + N +
                                "', a return value, a field's object or "
                                "value), not in '" + D.text(W) + "'");
  return D.error(U.Found, "automaton parameter '" + N +
                              "' can only be used as a whole value of an "
                              "event, not in '" + D.text(W) + "'");
}

bool AssertionBuilder::capture(Expr *W, QualType T, bool AddressOf, Value &V) {
  std::string Key = (AddressOf ? "&" : "") + D.text(W);
  if (!checkNoScoped(W))
    return false;
  if (InDefinition)
    return D.error(W, "'" + Key + "' would be captured, but automaton "
                      "definitions and struct automata have no site: use "
                      "their parameters, constants, ANY(...) or free "
                      "variables");
  if (W->HasSideEffects(Ctx))
    return D.error(W, "value '" + Key + "' has side effects");
  for (size_t I = 0; I < CapKeys.size(); ++I)
    if (CapKeys[I].first == Key && Ctx.hasSameType(CapKeys[I].second, T)) {
      V.Kind = VAL_CAPTURE;
      V.Index = uint8_t(I);
      return true;
    }
  if (CapKeys.size() >= MaxCaptures)
    return D.error(W, "more than " + llvm::Twine(MaxCaptures) +
                          " captured values in one assertion");
  Expr *X = W;
  if (AddressOf) {
    ExprResult R = CI.getSema().CreateBuiltinUnaryOp(W->getBeginLoc(),
                                                     UO_AddrOf, W);
    X = R.isInvalid() ? nullptr : R.get();
  }
  // (unsigned long)(U)(T)(W): T's bits, zero-extended.
  if (X)
    X = castTo(T, X);
  if (X && !T->isPointerType() && !T->isBooleanType())
    X = castTo(Ctx.getIntTypeForBitwidth(Ctx.getTypeSize(T), false), X);
  if (X)
    X = castTo(Ctx.UnsignedLongTy, X);
  if (!X)
    return D.error(W, "cannot convert '" + Key + "' to '" + T.getAsString() +
                          "'");
  V.Kind = VAL_CAPTURE;
  V.Index = uint8_t(CapKeys.size());
  CapKeys.push_back({Key, T});
  CapExprs.push_back(X);
  A.Captures.push_back(Key);
  return true;
}

bool AssertionBuilder::maskValue(CallExpr *C, QualType T, bool Flags,
                                 Value &V) {
  const char *Name = Flags ? "flags" : "bitmask";
  if (!T->isIntegralOrEnumerationType() || T->isBooleanType() ||
      Ctx.getTypeSize(T) > 64)
    return D.error(C, llvm::Twine(Name) + "(...) applies to integer values, "
                      "not to '" + T.getAsString() + "'");
  Expr *K = C->getNumArgs() == 1 ? C->getArg(0)->IgnoreParenImpCasts() : C;
  std::optional<llvm::APSInt> Val = K->getIntegerConstantExpr(Ctx);
  if (!Val)
    return D.error(K, llvm::Twine(Name) + "(...) needs an integer constant "
                      "expression; '" + D.text(K) + "' is not one");
  V.Kind = Flags ? VAL_FLAGS : VAL_MASK;
  V.Constant = Val->extOrTrunc(Ctx.getTypeSize(T)).getZExtValue();
  return true;
}

bool AssertionBuilder::outParameter(UnaryOperator *U, QualType T,
                                    const Slot &S, Value &V) {
  if (S.Role != ROLE_ARG || !S.AtReturn || S.Bound)
    return D.error(U, "'" + V.Text + "' (an out-parameter) can only be "
                      "matched in a return event (f(args) or f(args) == v): "
                      "the pointer argument is read when the function "
                      "returns");
  Expr *X = U->getSubExpr()->IgnoreParens();
  QualType PT = X->getType().getCanonicalType().getUnqualifiedType();
  uint64_t Size = (PT->isIntegralOrEnumerationType() || PT->isPointerType())
                      ? Ctx.getTypeSizeInChars(PT).getQuantity()
                      : 0;
  if (Size == 0 || Size > 8)
    return D.error(X, "out-parameter '" + V.Text + "': '" + D.text(X) +
                          "' has type '" + PT.getAsString() +
                          "'; only integer, pointer and enum values of at "
                          "most 8 bytes can be read through the pointer");
  V.Indirect = uint8_t(Size);
  auto *DRE = dyn_cast<DeclRefExpr>(X->IgnoreImpCasts());
  if (DRE) {
    if (auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && FreeVars.count(VD)) {
      V.Kind = VAL_FREE;
      V.Index = uint8_t(FreeVars[VD]);
      return true;
    }
    if (auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()); P && Params.count(P)) {
      V.Kind = VAL_PARAM;
      V.Index = uint8_t(Params[P]);
      return true;
    }
  }
  return capture(X, PT, false, V);
}

bool AssertionBuilder::special(Expr *W, QualType T, const Slot &S, Value &V,
                               bool &Done) {
  Done = true;
  if (namesVigilVar(W, "any_")) {
    V.Kind = VAL_ANY;
    return true;
  }
  StringRef M = markerOf(W);
  if (M == "flags" || M == "bitmask")
    return maskValue(cast<CallExpr>(W), T, M == "flags", V);
  if (auto *U = dyn_cast<UnaryOperator>(W); U && U->getOpcode() == UO_AddrOf &&
                                             S.Role == ROLE_ARG)
    return outParameter(U, T, S, V);
  if (auto *DRE = dyn_cast<DeclRefExpr>(W)) {
    if (auto *VD = dyn_cast<VarDecl>(DRE->getDecl()); VD && FreeVars.count(VD)) {
      V.Kind = VAL_FREE;
      V.Index = uint8_t(FreeVars[VD]);
      return scalarType(W, T, V.Text);
    }
    if (auto *P = dyn_cast<ParmVarDecl>(DRE->getDecl()); P && Params.count(P)) {
      V.Kind = VAL_PARAM;
      V.Index = uint8_t(Params[P]);
      return scalarType(W, T, V.Text);
    }
  }
  Done = false;
  return true;
}

bool AssertionBuilder::constant(Expr *W, QualType T, const Slot &S, Value &V,
                                bool &Done) {
  Done = true;
  bool IsReturn = S.Role == ROLE_RETURN;
  std::string Of = S.FD ? " of '" + S.FD->getNameAsString() + "'" : "";
  if (T->isPointerType()) {
    if (W->isNullPointerConstant(Ctx, Expr::NPC_ValueDependentIsNotNull)) {
      V.Kind = VAL_CONST;
      V.Constant = 0;
      return true;
    }
  } else if (std::optional<llvm::APSInt> C = W->getIntegerConstantExpr(Ctx)) {
    llvm::APSInt Val = *C;
    if (T->isBooleanType()) {
      if (IsReturn && !(Val == 0 || Val == 1))
        return D.error(W, "constant '" + V.Text +
                              "' is out of range of the return type '" +
                              T.getAsString() + "'" + Of);
      V.Constant = Val.getBoolValue() ? 1 : 0;
    } else {
      llvm::APInt Bits = Val.extOrTrunc(Ctx.getTypeSize(T));
      if (IsReturn) {
        llvm::APSInt Back(Bits, T->isUnsignedIntegerOrEnumerationType());
        if (!llvm::APSInt::isSameValue(Back, Val))
          return D.error(W, "constant '" + V.Text +
                                "' is out of range of the return type '" +
                                T.getAsString() + "'" + Of);
      }
      V.Constant = Bits.getZExtValue();
    }
    V.Kind = VAL_CONST;
    return true;
  }
  Done = false;
  return true;
}

bool AssertionBuilder::value(Expr *Arg, QualType T, const Slot &S, Value &V) {
  T = T.getCanonicalType().getUnqualifiedType();
  Expr *W = Arg->IgnoreParenImpCasts();
  if (S.Role == ROLE_BASE)
    W = Arg->IgnoreParenCasts(); // ((struct s *)ANY(ptr))->f
  V.Text = D.text(W);
  V.Role = S.Role;
  V.ArgIndex = S.Role == ROLE_ARG ? uint8_t(S.Index) : 0;
  bool Done = false;
  if (!special(W, T, S, V, Done))
    return false;
  if (Done)
    return true;
  if (!scalarType(W, T, V.Text))
    return false;
  if (!constant(W, T, S, V, Done))
    return false;
  if (Done)
    return true;
  if (S.Bound)
    return D.error(W, "a bound must be static: '" + V.Text +
                          "' would be captured at the site (use ANY or a "
                          "constant)");
  return capture(W, T, false, V);
}

} // namespace vigil
