//===- VigilPlugin.cpp - Clang plugin: assertions -> automata -------------===//
//
// For every assertion (see include/tesla.h) the plugin reads the dead branch
// `if (0) { (void)__vigil_m_within(0, ...); }`, builds the model
// (model/Assertion.h, via Builder.h), reports malformed assertions as errors
// at the exact location of the offending sub-expression, and rewrites the
// following `__vigil_site("", 0UL x 16)` call in place:
//
//   __vigil_site("<descriptor JSON>", (unsigned long)(U)(T)(capture0), ...)
//
// automaton() definitions (include/tesla-macros.h) become a function whose
// body is `return (__vigil_site("<descriptor>"), 0);`, and
// TESLA_STRUCT_AUTOMATON usages a function whose __vigil_site call carries
// the usage's descriptor.  At the end of the file every assertion whose
// automata are known here is resolved and compiled (model/Automaton.h) so
// that patterns over the model's limits are errors at their location.
//
// Plugin arguments: explain=text|dot|json prints the assertions of the file.
//
//===----------------------------------------------------------------------===//
#include "Builder.h"
#include "Explain.h"
#include "Quiet.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

#include "llvm/Support/raw_ostream.h"

using namespace clang;
using namespace vigil;

namespace {

struct FoundAssertion {
  Assertion A;
  SourceLocation Loc;
};

/// Puts descriptor Desc and the captures into a __vigil_site call.
void rewriteSite(ASTContext &Ctx, CallExpr *Site, const std::string &Desc,
                 const std::vector<Expr *> &Caps) {
  // Argument 0: replace the "" literal under its array-to-pointer decay.
  Expr *Arg0 = Site->getArg(0);
  StringLiteral *New = StringLiteral::Create(
      Ctx, Desc, StringLiteralKind::Ordinary, false,
      Ctx.getStringLiteralArrayType(Ctx.CharTy, Desc.size()),
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
}

/// Finds assertions and struct usages in a function body and rewrites
/// their site calls.
class SiteVisitor : public RecursiveASTVisitor<SiteVisitor> {
public:
  SiteVisitor(CompilerInstance &CI, ASTContext &Ctx, FunctionDecl *Fn,
              std::vector<FoundAssertion> &Found)
      : CI(CI), Ctx(Ctx), Fn(Fn), Found(Found) {}

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
  FunctionDecl *Fn;
  std::vector<FoundAssertion> &Found;

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
    if (M == "within" || M == "perthread" || M == "global" || M == "assert" ||
        M == "struct")
      return C;
    return nullptr;
  }

  void handle(CallExpr *Marker, CallExpr *Site) {
    AssertionBuilder B(CI, Ctx);
    Assertion A;
    std::vector<Expr *> Caps;
    bool OK = markerOf(Marker) == "struct"
                  ? B.buildStruct(Marker, Site, Fn, A)
                  : B.buildInline(Marker, Site, A, Caps);
    if (!OK || Site->getNumArgs() < 1 + Caps.size())
      return;
    rewriteSite(Ctx, Site, serialise(A), Caps);
    Found.push_back({std::move(A), Site->getBeginLoc()});
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
      if (isAutomatonFunction(FD)) {
        definition(FD);
        continue;
      }
      SiteVisitor V(CI, FD->getASTContext(), FD, Found);
      V.TraverseDecl(FD);
    }
    return true;
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    Diags D(Ctx);
    std::vector<Explained> Out;
    for (const FoundAssertion &F : Found)
      Out.push_back(check(F, D));
    if (Format == ExplainFormat::None)
      return;
    SourceManager &SM = Ctx.getSourceManager();
    std::string File;
    if (auto FE = SM.getFileEntryRefForID(SM.getMainFileID()))
      File = FE->getName().str();
    explain(llvm::outs(), Format, File, Out);
    llvm::outs().flush();
  }

private:
  CompilerInstance &CI;
  ExplainFormat Format;
  std::vector<FoundAssertion> Found;
  Definitions Defs;

  void definition(FunctionDecl *FD) {
    ASTContext &Ctx = FD->getASTContext();
    AssertionBuilder B(CI, Ctx);
    Assertion A;
    CallExpr *Site = nullptr;
    ReturnStmt *Done = nullptr;
    if (!B.buildDefinition(FD, Site, Done, A))
      return;
    rewriteSite(Ctx, Site, serialise(A), {});
    auto *Body = cast<CompoundStmt>(FD->getBody());
    FD->setBody(CompoundStmt::Create(Ctx, {Done}, FPOptionsOverride(),
                                     Body->getLBracLoc(), Body->getRBracLoc()));
    Defs[A.Name] = A;
    Found.push_back({std::move(A), FD->getLocation()});
  }

  /// Resolves and compiles F against the file's definitions; a pattern the
  /// model refuses is an error at the assertion.
  Explained check(const FoundAssertion &F, Diags &D) {
    Explained X;
    X.Source = F.A;
    if (F.A.Kind == AK_DEFINITION) {
      X.Why = "a definition is compiled where it is used";
      return X;
    }
    std::string Err;
    bool OK;
    if (F.A.Kind == AK_STRUCT) {
      if (!Defs.count(F.A.Name)) {
        X.Why = "automaton '" + F.A.Name + "' is not defined in this file";
        return X;
      }
      OK = instantiateStruct(F.A, Defs, X.Compiled, Err);
    } else {
      X.Compiled = F.A;
      OK = resolve(X.Compiled, Defs, Err);
      if (!OK && Err.find("is not defined") != std::string::npos) {
        X.Why = Err + " in this file";
        return X;
      }
      OK = OK && compile(X.Compiled, Err);
    }
    if (!OK) {
      D.error(F.Loc, "cannot build the automaton of this assertion: " + Err);
      X.Why = Err;
      return X;
    }
    X.IsCompiled = true;
    return X;
  }
};

class VigilAction : public PluginASTAction {
  ExplainFormat Format = ExplainFormat::None;

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    quietAutomatonBodies(CI);
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
