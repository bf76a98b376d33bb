//===- Quiet.cpp - no "comparison result unused" in automaton bodies ------===//
#include "Quiet.h"

#include "clang/Basic/DiagnosticSema.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/MacroInfo.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"

using namespace clang;

namespace vigil {

namespace {

/// Whether the macro's replacement list begins with identifier First.
bool expandsTo(const MacroDefinition &MD, StringRef First) {
  const MacroInfo *MI = MD.getMacroInfo();
  if (!MI || MI->tokens_empty())
    return false;
  const Token &T = MI->tokens().front();
  return T.getIdentifierInfo() && T.getIdentifierInfo()->getName() == First;
}

class QuietBodies : public PPCallbacks {
public:
  QuietBodies(Preprocessor &PP) : PP(PP) {}

  void MacroExpands(const Token &Name, const MacroDefinition &MD,
                    SourceRange Range, const MacroArgs *) override {
    const IdentifierInfo *II = Name.getIdentifierInfo();
    if (!II || Range.getBegin().isMacroID())
      return;
    DiagnosticsEngine &DE = PP.getDiagnostics();
    if (II->getName() == "automaton" && expandsTo(MD, "__VIGIL_AUTOMATON")) {
      std::optional<Token> Next = Lexer::findNextToken(
          Range.getEnd(), PP.getSourceManager(), PP.getLangOpts());
      if (!Next || !Next->is(tok::l_brace) || Open)
        return;
      DE.pushMappings(Next->getLocation());
      DE.setSeverity(diag::warn_unused_comparison, diag::Severity::Ignored,
                     Next->getLocation());
      Open = true;
    } else if (II->getName() == "tesla_done" && Open &&
               expandsTo(MD, "__VIGIL_AUTOMATON_DONE")) {
      DE.popMappings(Range.getEnd());
      Open = false;
    }
  }

private:
  Preprocessor &PP;
  bool Open = false;
};

} // namespace

void quietAutomatonBodies(CompilerInstance &CI) {
  if (!CI.hasPreprocessor())
    return;
  Preprocessor &PP = CI.getPreprocessor();
  PP.addPPCallbacks(std::make_unique<QuietBodies>(PP));
}

} // namespace vigil
