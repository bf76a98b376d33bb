//===- VigilPlugin.cpp - Clang plugin: assertions -> automata -------------===//
//
// For every assertion (see include/tesla.h) the plugin reads the dead branch
// `if (0) { (void)__vigil_m_within(0, ...); }`, builds the automaton model
// (model/Assertion.h), reports malformed assertions as errors at the exact
// location of the offending sub-expression, and rewrites the following
// `__vigil_site("", 0UL x 16)` call in place:
//
//   __vigil_site("<descriptor JSON>", (unsigned long)(U)(T)(capture0), ...)
//
// where T is the type of the parameter (or return value) the capture is
// compared with and U the unsigned integer type of the same width, so that the
// word carries T's bits zero-extended, exactly as the link-time pass passes
// arguments and return values to the runtime.
//
// Plugin arguments: explain=text|dot|json prints the assertions of the file.
//
//===----------------------------------------------------------------------===//
#include "../model/Assertion.h"
#include "Explain.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Lex/Lexer.h"
#include "clang/Sema/Sema.h"

#include "llvm/ADT/APSInt.h"
#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace vigil;

namespace {

const FunctionDecl *directCallee(const Expr *E) {
  if (auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts()))
    return C->getDirectCallee();
  return nullptr;
}

/// "within", "call", ... for a call of a __vigil_m_* marker, else "".
StringRef markerOf(const Expr *E) {
  const FunctionDecl *FD = directCallee(E);
  if (!FD || !FD->getIdentifier())
    return "";
  StringRef N = FD->getName();
  if (!N.consume_front("__vigil_m_"))
    return "";
  return N;
}

bool isSequenceMarker(StringRef M) {
  return M == "sequence" || M == "previously" || M == "eventually";
}
bool isModeMarker(StringRef M) {
  return M == "strict" || M == "conditional" || M == "guideline";
}
std::string userName(StringRef M) {
  return M == "sequence" ? "TSEQUENCE" : M.str();
}

std::string collapseSpace(StringRef S) {
  std::string R;
  bool Space = false;
  for (char C : S) {
    if (C == '\\' ) { // line continuations inside macro invocations
      R += C;
      Space = false;
      continue;
    }
    if (isspace(static_cast<unsigned char>(C))) {
      Space = true;
      continue;
    }
    // Keep one space between tokens, but none just inside brackets or
    // before a comma (multi-line invocations read as one line).
    if (Space && !R.empty() && R.back() != '(' && R.back() != '[' &&
        C != ')' && C != ']' && C != ',')
      R += ' ';
    Space = false;
    R += C;
  }
  return R;
}

/// An event with the location of its source text (for diagnostics).
struct LocEvent {
  Event E;
  SourceLocation Loc;
};
struct LocElement {
  std::vector<LocEvent> Events;
  bool Optional = false;
  bool IsOr = false;
};

enum Force { NoForce, ForceCaller, ForceCallee };

/// Builds one Assertion from a marker call; reports errors.
class AssertionBuilder {
public:
  AssertionBuilder(CompilerInstance &CI, ASTContext &Ctx)
      : CI(CI), Ctx(Ctx), SM(Ctx.getSourceManager()),
        Diags(Ctx.getDiagnostics()) {
    ErrID = Diags.getCustomDiagID(DiagnosticsEngine::Error, "vigil: %0");
    NoteID = Diags.getCustomDiagID(DiagnosticsEngine::Note, "vigil: %0");
  }

  /// Returns true and fills A / Captures when the assertion is well formed.
  bool build(CallExpr *Marker, CallExpr *Site, Assertion &Out,
             std::vector<Expr *> &CaptureExprs);

private:
  CompilerInstance &CI;
  ASTContext &Ctx;
  SourceManager &SM;
  DiagnosticsEngine &Diags;
  unsigned ErrID, NoteID;

  Assertion A;
  std::vector<std::pair<std::string, QualType>> CapKeys;
  std::vector<Expr *> CapExprs;

  // ---- locations and texts ----
  SourceLocation userLoc(SourceLocation L, bool End = false) const {
    while (L.isMacroID()) {
      if (SM.isMacroArgExpansion(L))
        L = SM.getImmediateSpellingLoc(L);
      else {
        CharSourceRange R = SM.getImmediateExpansionRange(L);
        L = End ? R.getEnd() : R.getBegin();
      }
    }
    return L;
  }

  std::string text(const Expr *E) const {
    SourceLocation B = userLoc(E->getBeginLoc());
    SourceLocation En = userLoc(E->getEndLoc(), true);
    if (B.isValid() && En.isValid() && SM.getFileID(B) == SM.getFileID(En) &&
        !SM.isBeforeInTranslationUnit(En, B)) {
      bool Invalid = false;
      StringRef S = Lexer::getSourceText(CharSourceRange::getTokenRange(B, En),
                                         SM, Ctx.getLangOpts(), &Invalid);
      if (!Invalid && !S.empty())
        return collapseSpace(S);
    }
    std::string S;
    llvm::raw_string_ostream OS(S);
    E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
    return OS.str();
  }

  bool error(SourceLocation L, const Twine &Msg) {
    Diags.Report(userLoc(L), ErrID) << Msg.str();
    return false;
  }
  bool error(const Expr *E, const Twine &Msg) {
    return error(E->getBeginLoc(), Msg);
  }
  void note(SourceLocation L, const Twine &Msg) {
    Diags.Report(L, NoteID) << Msg.str();
  }

  // ---- parsing ----
  bool prescan(const Stmt *S);
  bool boundFunction(Expr *E, bool AtReturn, LocEvent &Out);
  bool parseAlternative(Expr *E, std::vector<LocElement> &Els);
  bool parseElement(Expr *E, Force F, bool InOr, bool InOptional,
                    std::vector<LocElement> &Out);
  bool parseEvent(Expr *E, Force F, bool Bound, LocEvent &Out);
  bool makeEvent(const FunctionDecl *FD, CallExpr *Call, Expr *Ret,
                 bool AtReturn, Force F, bool Bound, Expr *Whole,
                 LocEvent &Out);
  bool parseValue(Expr *Arg, QualType T, bool IsReturn, unsigned Index,
                  bool Bound, const FunctionDecl *FD, Value &V);
  Expr *castTo(QualType T, Expr *E);
  bool checkDuplicates(const LocEvent &Start, const LocEvent &End,
                       const std::vector<LocElement> &Els);
};

bool AssertionBuilder::prescan(const Stmt *S) {
  if (!S)
    return true;
  if (auto *E = dyn_cast<Expr>(S)) {
    if (markerOf(E) == "unsupported") {
      auto *C = cast<CallExpr>(E->IgnoreParenImpCasts());
      std::string What = "this construct";
      if (C->getNumArgs() > 0)
        if (auto *SL =
                dyn_cast<StringLiteral>(C->getArg(0)->IgnoreParenImpCasts()))
          What = SL->getString().str();
      return error(C, What + " is not supported yet");
    }
  }
  if (auto *BO = dyn_cast<BinaryOperator>(S))
    if (BO->isAssignmentOp())
      return error(BO, "field-assignment events are not supported yet");
  if (auto *UO = dyn_cast<UnaryOperator>(S))
    if (UO->isIncrementDecrementOp())
      return error(UO, "field-assignment events are not supported yet");
  for (const Stmt *Child : S->children())
    if (!prescan(Child))
      return false;
  return true;
}

Expr *AssertionBuilder::castTo(QualType T, Expr *E) {
  SourceLocation L = E->getBeginLoc();
  ExprResult R = CI.getSema().BuildCStyleCastExpr(
      L, Ctx.getTrivialTypeSourceInfo(T, L), L, E);
  return R.isInvalid() ? nullptr : R.get();
}

bool AssertionBuilder::parseValue(Expr *Arg, QualType T, bool IsReturn,
                                  unsigned Index, bool Bound,
                                  const FunctionDecl *FD, Value &V) {
  T = T.getCanonicalType().getUnqualifiedType();
  Expr *W = Arg->IgnoreParenImpCasts();
  V.Text = text(W);
  V.IsReturn = IsReturn;
  V.ArgIndex = IsReturn ? 0 : uint8_t(Index);

  if (auto *DRE = dyn_cast<DeclRefExpr>(W))
    if (auto *VD = dyn_cast<VarDecl>(DRE->getDecl()))
      if (VD->getIdentifier() && VD->getName().starts_with("__vigil_any_")) {
        V.Kind = VAL_ANY;
        return true;
      }

  if (!(T->isIntegralOrEnumerationType() || T->isPointerType()))
    return error(W, "value '" + V.Text + "' has type '" + T.getAsString() +
                        "'; only integer, pointer, enum and bool values can "
                        "be matched");
  if (Ctx.getTypeSize(T) > 64)
    return error(W, "value '" + V.Text + "' has type '" + T.getAsString() +
                        "', which is wider than 64 bits");

  // Constants.
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
        return error(W, "constant '" + V.Text +
                            "' is out of range of the return type '" +
                            T.getAsString() + "' of '" + FD->getName() + "'");
      V.Constant = Val.getBoolValue() ? 1 : 0;
    } else {
      unsigned Width = Ctx.getTypeSize(T);
      llvm::APInt Bits = Val.extOrTrunc(Width);
      if (IsReturn) {
        llvm::APSInt Back(Bits, T->isUnsignedIntegerOrEnumerationType());
        if (!llvm::APSInt::isSameValue(Back, Val))
          return error(W, "constant '" + V.Text +
                              "' is out of range of the return type '" +
                              T.getAsString() + "' of '" + FD->getName() +
                              "'");
      }
      V.Constant = Bits.getZExtValue();
    }
    V.Kind = VAL_CONST;
    return true;
  }

  // Captures.
  if (Bound)
    return error(W, "a bound must be static: '" + V.Text +
                        "' would be captured at the site (use ANY or a "
                        "constant)");
  if (W->HasSideEffects(Ctx))
    return error(W, "value '" + V.Text + "' has side effects");

  for (size_t I = 0; I < CapKeys.size(); ++I)
    if (CapKeys[I].first == V.Text && Ctx.hasSameType(CapKeys[I].second, T)) {
      V.Kind = VAL_CAPTURE;
      V.Capture = uint8_t(I);
      return true;
    }
  if (CapKeys.size() >= MaxCaptures)
    return error(W, "more than " + Twine(MaxCaptures) +
                        " captured values in one assertion");

  // (unsigned long)(U)(T)(W): T's bits, zero-extended.
  Expr *X = castTo(T, W);
  if (X && !T->isPointerType() && !T->isBooleanType())
    X = castTo(Ctx.getIntTypeForBitwidth(Ctx.getTypeSize(T), false), X);
  if (X)
    X = castTo(Ctx.UnsignedLongTy, X);
  if (!X)
    return error(W, "cannot convert '" + V.Text + "' to '" + T.getAsString() +
                        "'");
  V.Kind = VAL_CAPTURE;
  V.Capture = uint8_t(CapKeys.size());
  CapKeys.push_back({V.Text, T});
  CapExprs.push_back(X);
  A.Captures.push_back(V.Text);
  return true;
}

static bool abiUnsafe(QualType T) {
  T = T.getCanonicalType();
  return T->isRecordType() || T->isAnyComplexType();
}

bool AssertionBuilder::makeEvent(const FunctionDecl *FD, CallExpr *Call,
                                 Expr *Ret, bool AtReturn, Force F, bool Bound,
                                 Expr *Whole, LocEvent &Out) {
  Event &E = Out.E;
  E.Kind = AtReturn ? EV_RETURN : EV_CALL;
  E.AtReturn = AtReturn;
  E.Function = FD->getNameAsString();
  E.ForceCaller = F == ForceCaller;
  E.ForceCallee = F == ForceCallee;
  E.NumParams = FD->getNumParams();

  bool HasSlots = (Call && Call->getNumArgs() > 0) || Ret;
  if (Call && Call->getNumArgs() != FD->getNumParams()) {
    if (FD->isVariadic())
      return error(Call, "wrong number of arguments to '" + E.Function +
                             "': expected " + Twine(FD->getNumParams()) +
                             " (variadic arguments cannot be matched), got " +
                             Twine(Call->getNumArgs()));
    return error(Call, "wrong number of arguments to '" + E.Function +
                           "': expected " + Twine(FD->getNumParams()) +
                           ", got " + Twine(Call->getNumArgs()));
  }
  if (HasSlots) {
    bool Unsafe = abiUnsafe(FD->getReturnType());
    for (const ParmVarDecl *P : FD->parameters())
      Unsafe |= abiUnsafe(P->getType());
    if (Unsafe)
      return error(Whole, "'" + E.Function +
                              "' has a struct, union or complex parameter or "
                              "return type; its arguments and return value "
                              "cannot be matched");
  }
  if (Call)
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      Value V;
      if (!parseValue(Call->getArg(I), FD->getParamDecl(I)->getType(), false,
                      I, Bound, FD, V))
        return false;
      E.Values.push_back(std::move(V));
    }
  if (Ret) {
    Value V;
    if (!parseValue(Ret, FD->getReturnType(), true, 0, Bound, FD, V))
      return false;
    E.Values.push_back(std::move(V));
  }
  if (E.Values.size() > MaxValues)
    return error(Whole, "event '" + E.Text + "' has more than " +
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

bool AssertionBuilder::parseEvent(Expr *E, Force F, bool Bound,
                                  LocEvent &Out) {
  E = E->IgnoreParenImpCasts();
  Out.Loc = userLoc(E->getBeginLoc());
  Out.E.Text = text(E);
  StringRef M = markerOf(E);
  const char *Expected =
      Bound ? "a bound must be call(f), returnfrom(f) or f(...) == v"
            : "expected an event: call(f), returnfrom(f), f(args) or "
              "f(args) == v";

  if (M == "call" || M == "returnfrom") {
    bool IsCall = M == "call";
    auto *C = cast<CallExpr>(E);
    if (C->getNumArgs() != 2)
      return error(E, Expected);
    Expr *Inner = unwrapEventArg(C->getArg(1));
    if (auto *DRE = dyn_cast<DeclRefExpr>(Inner)) {
      if (auto *FD = dyn_cast<FunctionDecl>(DRE->getDecl()))
        return makeEvent(FD, nullptr, nullptr, !IsCall, F, Bound, E, Out);
      return error(Inner, "'" + text(Inner) + "' is not a function");
    }
    if (auto *BO = dyn_cast<BinaryOperator>(Inner))
      if (BO->getOpcode() == BO_EQ) {
        if (IsCall)
          return error(E, "call(...) cannot match a return value; write "
                          "f(args) == v for a return event");
        E = BO; // returnfrom(f(args) == v) is f(args) == v
        goto ReturnEq;
      }
    if (auto *IC = dyn_cast<CallExpr>(Inner)) {
      if (!markerOf(IC).empty())
        return error(IC, Expected);
      const FunctionDecl *FD = IC->getDirectCallee();
      if (!FD)
        return error(IC->getCallee(), "'" + text(IC->getCallee()) +
                                          "' is not a function");
      return makeEvent(FD, IC, nullptr, !IsCall, F, Bound, E, Out);
    }
    return error(Inner, "'" + text(Inner) + "' is not a function");
  }
  if (!M.empty())
    return error(E, Expected);

ReturnEq:
  if (auto *BO = dyn_cast<BinaryOperator>(E)) {
    if (BO->getOpcode() != BO_EQ)
      return error(E, Expected);
    Expr *L = BO->getLHS()->IgnoreParenImpCasts();
    if (markerOf(L) == "call")
      return error(E, "call(...) cannot match a return value; write "
                      "f(args) == v for a return event");
    auto *IC = dyn_cast<CallExpr>(L);
    if (!IC || !markerOf(IC).empty())
      return error(E, "expected an event: the left side of '==' must be a "
                      "function call f(args)");
    const FunctionDecl *FD = IC->getDirectCallee();
    if (!FD)
      return error(IC->getCallee(),
                   "'" + text(IC->getCallee()) + "' is not a function");
    return makeEvent(FD, IC, BO->getRHS(), true, F, Bound, E, Out);
  }
  if (auto *IC = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *FD = IC->getDirectCallee();
    if (!FD)
      return error(IC->getCallee(),
                   "'" + text(IC->getCallee()) + "' is not a function");
    return makeEvent(FD, IC, nullptr, true, F, Bound, E, Out);
  }
  return error(E, Expected);
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

bool AssertionBuilder::parseElement(Expr *E, Force F, bool InOr,
                                    bool InOptional,
                                    std::vector<LocElement> &Out) {
  E = E->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  if (M == "site") {
    if (InOr)
      return error(E, "TESLA_ASSERTION_SITE cannot be part of an OR block");
    if (InOptional)
      return error(E, "TESLA_ASSERTION_SITE cannot be optional");
    LocElement El;
    LocEvent Ev;
    Ev.E.Kind = EV_SITE;
    Ev.E.Text = "TESLA_ASSERTION_SITE";
    Ev.Loc = userLoc(E->getBeginLoc());
    El.Events.push_back(Ev);
    Out.push_back(El);
    return true;
  }
  if (isSequenceMarker(M))
    return error(E, userName(M) +
                        "(...) cannot be nested inside another sequence");
  if (isModeMarker(M))
    return error(E, M + "(...) must enclose the whole assertion");
  if (M == "optional") {
    if (InOr)
      return error(E, "optional(...) cannot appear inside an OR block");
    if (InOptional)
      return error(E, "optional(...) cannot be nested");
    auto *C = cast<CallExpr>(E);
    if (C->getNumArgs() != 2)
      return error(E, "optional(...) takes exactly one event");
    Expr *Inner = C->getArg(1)->IgnoreParenImpCasts();
    if (auto *BO = dyn_cast<BinaryOperator>(Inner))
      if (BO->getOpcode() == BO_LOr)
        return error(E, "optional(...) cannot contain an OR block");
    std::vector<LocElement> Tmp;
    if (!parseElement(Inner, F, false, true, Tmp))
      return false;
    for (LocElement &El : Tmp) {
      if (El.IsOr)
        return error(E, "optional(...) cannot contain an OR block");
      El.Optional = true;
      Out.push_back(El);
    }
    return true;
  }
  if (M == "caller" || M == "callee") {
    auto *C = cast<CallExpr>(E);
    Force NF = M == "caller" ? ForceCaller : ForceCallee;
    if (C->getNumArgs() < 2)
      return error(E, M + "(...) needs an event");
    for (unsigned I = 1; I < C->getNumArgs(); ++I)
      if (!parseElement(C->getArg(I), NF, InOr, InOptional, Out))
        return false;
    return true;
  }
  if (auto *BO = dyn_cast<BinaryOperator>(E))
    if (BO->getOpcode() == BO_LOr) {
      if (InOptional)
        return error(E, "optional(...) cannot contain an OR block");
      std::vector<Expr *> Leaves;
      collectOr(BO, Leaves);
      std::vector<LocElement> Tmp;
      for (Expr *L : Leaves)
        if (!parseElement(L, F, true, false, Tmp))
          return false;
      if (InOr) { // caller(a || b) inside an OR block: same block
        Out.insert(Out.end(), Tmp.begin(), Tmp.end());
        return true;
      }
      LocElement Or;
      Or.IsOr = true;
      for (LocElement &T : Tmp)
        Or.Events.insert(Or.Events.end(), T.Events.begin(), T.Events.end());
      Out.push_back(Or);
      return true;
    }
  LocElement El;
  LocEvent Ev;
  if (!parseEvent(E, F, false, Ev))
    return false;
  El.Events.push_back(Ev);
  Out.push_back(El);
  return true;
}

bool AssertionBuilder::parseAlternative(Expr *E,
                                        std::vector<LocElement> &Els) {
  E = E->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  if (isModeMarker(M))
    return error(E, M + "(...) must enclose the whole assertion");
  if (!isSequenceMarker(M))
    return error(E, "an event must be inside TSEQUENCE(...), previously(...) "
                    "or eventually(...)");
  auto *C = cast<CallExpr>(E);
  for (unsigned I = 1; I < C->getNumArgs(); ++I)
    if (!parseElement(C->getArg(I), NoForce, false, false, Els))
      return false;

  std::vector<SourceLocation> Sites;
  for (const LocElement &El : Els)
    for (const LocEvent &Ev : El.Events)
      if (Ev.E.Kind == EV_SITE)
        Sites.push_back(Ev.Loc);
  if (M != "sequence") {
    if (!Sites.empty())
      return error(Sites[0], "TESLA_ASSERTION_SITE cannot appear inside " + M +
                                 "(...), which implies it");
    LocElement Site;
    LocEvent Ev;
    Ev.E.Kind = EV_SITE;
    Ev.E.Text = "TESLA_ASSERTION_SITE";
    Ev.Loc = userLoc(E->getBeginLoc());
    Site.Events.push_back(Ev);
    if (M == "previously")
      Els.push_back(Site);
    else
      Els.insert(Els.begin(), Site);
  } else if (Sites.empty()) {
    return error(E, "TSEQUENCE(...) must contain TESLA_ASSERTION_SITE");
  } else if (Sites.size() > 1) {
    return error(Sites[1], "TESLA_ASSERTION_SITE appears more than once in "
                           "TSEQUENCE(...)");
  }
  size_t N = 2;
  for (const LocElement &El : Els)
    N += El.Events.size();
  if (N > MaxEvents)
    return error(E, "more than " + Twine(MaxEvents) +
                        " events in one alternative (bounds and site "
                        "included)");
  return true;
}

bool AssertionBuilder::boundFunction(Expr *E, bool AtReturn, LocEvent &Out) {
  Expr *X = E->IgnoreParenImpCasts();
  auto *DRE = dyn_cast<DeclRefExpr>(X);
  auto *FD = DRE ? dyn_cast<FunctionDecl>(DRE->getDecl()) : nullptr;
  if (!FD)
    return error(X, "'" + text(X) + "' is not a function");
  Out.Loc = userLoc(X->getBeginLoc());
  Out.E.Kind = AtReturn ? EV_END : EV_START;
  Out.E.AtReturn = AtReturn;
  Out.E.Function = FD->getNameAsString();
  Out.E.NumParams = FD->getNumParams();
  Out.E.Text = (AtReturn ? "returnfrom(" : "call(") + text(X) + ")";
  return true;
}

bool AssertionBuilder::checkDuplicates(const LocEvent &Start,
                                       const LocEvent &End,
                                       const std::vector<LocElement> &Els) {
  std::vector<const LocEvent *> All;
  for (const LocElement &El : Els)
    for (const LocEvent &Ev : El.Events)
      All.push_back(&Ev);
  for (size_t J = 0; J < All.size(); ++J) {
    for (const LocEvent *B : {&Start, &End})
      if (All[J]->E.sameAs(B->E)) {
        error(All[J]->Loc, "event '" + All[J]->E.Text +
                               "' is the same event as the bound '" +
                               B->E.Text + "'");
        note(B->Loc, "the bound is here");
        return false;
      }
    for (size_t I = 0; I < J; ++I)
      if (All[J]->E.sameAs(All[I]->E)) {
        error(All[J]->Loc, "event '" + All[J]->E.Text +
                               "' appears more than once in this assertion");
        note(All[I]->Loc, "previous occurrence is here");
        return false;
      }
  }
  return true;
}

bool AssertionBuilder::build(CallExpr *Marker, CallExpr *Site, Assertion &Out,
                             std::vector<Expr *> &CaptureExprs) {
  if (Marker->containsErrors())
    return false; // Sema already complained
  if (!prescan(Marker))
    return false;

  SourceLocation MacroLoc = SM.getExpansionLoc(Site->getBeginLoc());
  PresumedLoc P = SM.getPresumedLoc(MacroLoc);
  if (P.isValid())
    A.Location = (Twine(P.getFilename()) + ":" + Twine(P.getLine()) + ":" +
                  Twine(P.getColumn()))
                     .str();
  A.Text = collapseSpace(Lexer::getSourceText(
      SM.getExpansionRange(Site->getBeginLoc()), SM, Ctx.getLangOpts()));

  StringRef Kind = markerOf(Marker);
  unsigned FirstExpr = Kind == "within" ? 2 : 3;
  if (Marker->getNumArgs() <= FirstExpr)
    return error(Marker, "an assertion needs bounds and an expression");
  LocEvent Start, End;
  if (Kind == "within") {
    A.Locality = PERTHREAD;
    if (!boundFunction(Marker->getArg(1), false, Start) ||
        !boundFunction(Marker->getArg(1), true, End))
      return false;
  } else {
    A.Locality = Kind == "global" ? GLOBAL : PERTHREAD;
    if (!parseEvent(Marker->getArg(1), NoForce, true, Start) ||
        !parseEvent(Marker->getArg(2), NoForce, true, End))
      return false;
    Start.E.Kind = EV_START;
    End.E.Kind = EV_END;
    if (Start.E.sameAs(End.E)) {
      error(End.Loc, "the two bounds are the same event '" + End.E.Text + "'");
      return false;
    }
  }
  if (Marker->getNumArgs() > FirstExpr + 1)
    return error(Marker->getArg(FirstExpr + 1),
                 "an assertion takes a single expression; separate events "
                 "with ',' inside TSEQUENCE(...)");

  Expr *E = Marker->getArg(FirstExpr)->IgnoreParenImpCasts();
  StringRef M = markerOf(E);
  if (isModeMarker(M)) {
    A.Mode = M == "strict"        ? MODE_STRICT
             : M == "conditional" ? MODE_CONDITIONAL
                                  : MODE_GUIDELINE;
    auto *C = cast<CallExpr>(E);
    if (C->getNumArgs() != 2)
      return error(C, M + "(...) takes a single expression");
    E = C->getArg(1);
  }
  std::vector<Expr *> Alts;
  collectOr(E, Alts);
  if (Alts.size() > MaxAlternatives)
    return error(Alts[MaxAlternatives], "more than " + Twine(MaxAlternatives) +
                                            " alternatives in one assertion");
  for (Expr *AltE : Alts) {
    std::vector<LocElement> Els;
    if (!parseAlternative(AltE, Els) || !checkDuplicates(Start, End, Els))
      return false;
    std::vector<Element> Model;
    for (const LocElement &El : Els) {
      Element M;
      M.Optional = El.Optional;
      M.IsOr = El.IsOr;
      for (const LocEvent &Ev : El.Events)
        M.Events.push_back(Ev.E);
      Model.push_back(M);
    }
    A.Alternatives.push_back(
        buildAutomaton(text(AltE), Start.E, Model, End.E));
  }
  Out = A;
  CaptureExprs = CapExprs;
  return true;
}

/// Finds assertions in function bodies and rewrites their site calls.
class SiteVisitor : public RecursiveASTVisitor<SiteVisitor> {
public:
  SiteVisitor(CompilerInstance &CI, ASTContext &Ctx,
              std::vector<Assertion> &Found)
      : CI(CI), Ctx(Ctx), Found(Found) {}

  bool VisitCompoundStmt(CompoundStmt *CS) {
    Stmt *Prev = nullptr;
    for (Stmt *S : CS->body()) {
      if (auto *Site = dyn_cast<CallExpr>(S))
        if (const FunctionDecl *FD = Site->getDirectCallee())
          if (FD->getIdentifier() && FD->getName() == "__vigil_site")
            if (CallExpr *Marker = markerFor(Prev))
              handle(Marker, Site);
      Prev = S;
    }
    return true;
  }

private:
  CompilerInstance &CI;
  ASTContext &Ctx;
  std::vector<Assertion> &Found;

  static CallExpr *markerFor(Stmt *S) {
    auto *If = dyn_cast_or_null<IfStmt>(S);
    if (!If)
      return nullptr;
    auto *Then = dyn_cast_or_null<CompoundStmt>(If->getThen());
    if (!Then || Then->size() != 1)
      return nullptr;
    auto *Cast = dyn_cast<CStyleCastExpr>(Then->body_front());
    if (!Cast)
      return nullptr;
    auto *C = dyn_cast<CallExpr>(Cast->getSubExpr()->IgnoreParenImpCasts());
    if (!C)
      return nullptr;
    StringRef M = markerOf(C);
    if (M == "within" || M == "perthread" || M == "global")
      return C;
    return nullptr;
  }

  void handle(CallExpr *Marker, CallExpr *Site) {
    AssertionBuilder B(CI, Ctx);
    Assertion A;
    std::vector<Expr *> Caps;
    if (!B.build(Marker, Site, A, Caps))
      return;
    if (Site->getNumArgs() < 1 + Caps.size())
      return;
    std::string D = serialise(A);
    // Argument 0: replace the "" literal under its array-to-pointer decay.
    Expr *Arg0 = Site->getArg(0);
    StringLiteral *New = StringLiteral::Create(
        Ctx, D, StringLiteralKind::Ordinary, false,
        Ctx.getStringLiteralArrayType(Ctx.CharTy, D.size()),
        Arg0->getBeginLoc());
    for (Expr *X = Arg0; auto *ICE = dyn_cast<ImplicitCastExpr>(X);
         X = ICE->getSubExpr())
      if (isa<StringLiteral>(ICE->getSubExpr()->IgnoreParens())) {
        ICE->setSubExpr(New);
        break;
      }
    for (size_t I = 0; I < Caps.size(); ++I)
      Site->setArg(1 + I, Caps[I]);
    Site->shrinkNumArgs(1 + Caps.size());
    Found.push_back(std::move(A));
  }
};

class VigilConsumer : public ASTConsumer {
public:
  VigilConsumer(CompilerInstance &CI, ExplainFormat F) : CI(CI), Format(F) {}

  bool HandleTopLevelDecl(DeclGroupRef DG) override {
    for (Decl *D : DG) {
      auto *FD = dyn_cast<FunctionDecl>(D);
      if (!FD || !FD->doesThisDeclarationHaveABody())
        continue;
      SiteVisitor V(CI, FD->getASTContext(), Assertions);
      V.TraverseDecl(FD);
    }
    return true;
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    if (Format == ExplainFormat::None)
      return;
    SourceManager &SM = Ctx.getSourceManager();
    std::string File;
    if (auto FE = SM.getFileEntryRefForID(SM.getMainFileID()))
      File = FE->getName().str();
    explain(llvm::outs(), Format, File, Assertions);
    llvm::outs().flush();
  }

private:
  CompilerInstance &CI;
  ExplainFormat Format;
  std::vector<Assertion> Assertions;
};

class VigilAction : public PluginASTAction {
  ExplainFormat Format = ExplainFormat::None;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    return std::make_unique<VigilConsumer>(CI, Format);
  }

  bool ParseArgs(const CompilerInstance &CI,
                 const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    for (const std::string &Arg : Args) {
      StringRef A(Arg);
      if (A == "explain" || A == "explain=text")
        Format = ExplainFormat::Text;
      else if (A == "explain=dot")
        Format = ExplainFormat::Dot;
      else if (A == "explain=json")
        Format = ExplainFormat::Json;
      else {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error,
                                   "vigil: unknown plugin argument '%0' "
                                   "(expected explain=text|dot|json)"))
            << Arg;
        return false;
      }
    }
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static FrontendPluginRegistry::Add<VigilAction>
    X("vigil", "vigil: TESLA-style temporal assertions");
