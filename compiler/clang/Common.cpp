//===- Common.cpp - markers, source texts and diagnostics of the plugin ---===//
#include "Common.h"

#include "clang/Lex/Lexer.h"

#include "llvm/Support/raw_ostream.h"

using namespace clang;

namespace vigil {

const FunctionDecl *directCallee(const Expr *E) {
  if (auto *C = dyn_cast<CallExpr>(E->IgnoreParenImpCasts()))
    return C->getDirectCallee();
  return nullptr;
}

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
    if (C == '\\') { // line continuations inside macro invocations
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

bool namesVigilVar(const Expr *E, StringRef Prefix, StringRef *Rest) {
  auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  auto *VD = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!VD || !VD->getIdentifier())
    return false;
  StringRef N = VD->getName();
  if (!N.consume_front("__vigil_") || !N.consume_front(Prefix))
    return false;
  if (Rest)
    *Rest = N;
  return true;
}

Diags::Diags(ASTContext &Ctx)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), DE(Ctx.getDiagnostics()) {
  ErrID = DE.getCustomDiagID(DiagnosticsEngine::Error, "vigil: %0");
  NoteID = DE.getCustomDiagID(DiagnosticsEngine::Note, "vigil: %0");
}

SourceLocation Diags::userLoc(SourceLocation L, bool End) const {
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

std::string Diags::text(SourceRange R) const {
  SourceLocation B = userLoc(R.getBegin());
  SourceLocation En = userLoc(R.getEnd(), true);
  if (B.isValid() && En.isValid() && SM.getFileID(B) == SM.getFileID(En) &&
      !SM.isBeforeInTranslationUnit(En, B)) {
    bool Invalid = false;
    StringRef S = Lexer::getSourceText(CharSourceRange::getTokenRange(B, En),
                                       SM, Ctx.getLangOpts(), &Invalid);
    if (!Invalid && !S.empty())
      return collapseSpace(S);
  }
  return "";
}

std::string Diags::text(const Expr *E) const {
  std::string S = text(E->getSourceRange());
  if (!S.empty())
    return S;
  llvm::raw_string_ostream OS(S);
  E->printPretty(OS, nullptr, Ctx.getPrintingPolicy());
  return OS.str();
}

std::string Diags::where(SourceLocation L) const {
  PresumedLoc P = SM.getPresumedLoc(SM.getExpansionLoc(L));
  if (!P.isValid())
    return "";
  return (llvm::Twine(P.getFilename()) + ":" + llvm::Twine(P.getLine()) + ":" +
          llvm::Twine(P.getColumn()))
      .str();
}

bool Diags::error(SourceLocation L, const llvm::Twine &Msg) {
  DE.Report(userLoc(L), ErrID) << Msg.str();
  return false;
}

void Diags::note(SourceLocation L, const llvm::Twine &Msg) {
  DE.Report(userLoc(L), NoteID) << Msg.str();
}

} // namespace vigil
