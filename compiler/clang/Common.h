//===- Common.h - markers, source texts and diagnostics of the plugin -----===//
#ifndef VIGIL_CLANG_COMMON_H
#define VIGIL_CLANG_COMMON_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceManager.h"

#include "llvm/ADT/Twine.h"

#include <string>

namespace vigil {

/// The direct callee of E (parens and implicit casts ignored).
const clang::FunctionDecl *directCallee(const clang::Expr *E);
/// "within", "call", ... for a call of a __vigil_m_* marker, else "".
llvm::StringRef markerOf(const clang::Expr *E);
bool isSequenceMarker(llvm::StringRef M);
bool isModeMarker(llvm::StringRef M);
/// The user's name of a marker ("TSEQUENCE" for "sequence").
std::string userName(llvm::StringRef M);
/// One line of source text: runs of white space become one space.
std::string collapseSpace(llvm::StringRef S);
/// Whether E names the variable __vigil_<Prefix>*.
bool namesVigilVar(const clang::Expr *E, llvm::StringRef Prefix,
                   llvm::StringRef *Rest = nullptr);

/// Source locations, texts and vigil's error / note diagnostics.
class Diags {
public:
  explicit Diags(clang::ASTContext &Ctx);

  /// The location in the user's text (macro arguments followed to their
  /// spelling, macro bodies to their expansion).
  clang::SourceLocation userLoc(clang::SourceLocation L, bool End = false) const;
  /// The source text of E, on one line.
  std::string text(const clang::Expr *E) const;
  /// The source text of a range of the user's file, on one line.
  std::string text(clang::SourceRange R) const;
  /// "file.c:12:5" for L's expansion.
  std::string where(clang::SourceLocation L) const;

  bool error(clang::SourceLocation L, const llvm::Twine &Msg);
  bool error(const clang::Expr *E, const llvm::Twine &Msg) {
    return error(E->getBeginLoc(), Msg);
  }
  void note(clang::SourceLocation L, const llvm::Twine &Msg);

private:
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  clang::DiagnosticsEngine &DE;
  unsigned ErrID, NoteID;
};

} // namespace vigil

#endif
