//===- Builder.h - from the AST of an assertion to the model --------------===//
//
// One AssertionBuilder reads one assertion (inline TESLA_* statement,
// automaton() definition or TESLA_STRUCT_AUTOMATON usage) and fills a
// vigil::Assertion, reporting malformed input as errors at the exact
// location of the offending sub-expression.  Its methods are split by
// concern:
//
//   Builder.cpp    the three kinds (bounds, alternatives, definitions, usages)
//   Patterns.cpp   sequences, OR, repetition, free variables, sub-automata
//   Events.cpp     function events and field-assignment events
//   Values.cpp     argument / return / field values and captures
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_CLANG_BUILDER_H
#define VIGIL_CLANG_BUILDER_H

#include "../model/Assertion.h"
#include "Common.h"

#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Frontend/CompilerInstance.h"

#include <map>
#include <string>
#include <vector>

namespace vigil {

enum Force { NoForce, ForceCaller, ForceCallee };

/// Where an element is parsed: what it may contain.
struct Where {
  Force F = NoForce;
  bool InOr = false;     // inside an OR block
  bool InRepeat = false; // inside optional / REPEAT
  bool Nested = false;   // inside a nested TSEQUENCE or statement expression
};

/// Which slot of an event a value fills.
struct Slot {
  uint8_t Role = ROLE_ARG;
  unsigned Index = 0;        // ROLE_ARG: the parameter index
  bool AtReturn = false;     // the event is observed at the return
  bool Bound = false;        // a bound: no captures
  const clang::FunctionDecl *FD = nullptr; // function events
};

class AssertionBuilder {
public:
  AssertionBuilder(clang::CompilerInstance &CI, clang::ASTContext &Ctx);

  /// TESLA_WITHIN / TESLA_PERTHREAD / TESLA_GLOBAL.
  bool buildInline(clang::CallExpr *Marker, clang::CallExpr *Site,
                   Assertion &Out, std::vector<clang::Expr *> &Captures);
  /// TESLA_STRUCT_AUTOMATON: Marker is in the body of Fn.
  bool buildStruct(clang::CallExpr *Marker, clang::CallExpr *Site,
                   const clang::FunctionDecl *Fn, Assertion &Out);
  /// automaton(name, ...) { ... }.  Site is the __vigil_site call of its
  /// tesla_done; Done the return statement holding it.
  bool buildDefinition(clang::FunctionDecl *FD, clang::CallExpr *&Site,
                       clang::ReturnStmt *&Done, Assertion &Out);

private:
  clang::CompilerInstance &CI;
  clang::ASTContext &Ctx;
  Diags D;

  Assertion A;
  bool InDefinition = false; // parameters are VAL_PARAM, no captures
  std::vector<std::pair<std::string, clang::QualType>> CapKeys;
  std::vector<clang::Expr *> CapExprs;
  std::map<const clang::VarDecl *, unsigned> FreeVars;
  std::map<const clang::ParmVarDecl *, unsigned> Params;
  clang::SourceLocation StartLoc, EndLoc;
  std::vector<clang::SourceLocation> SiteLocs; // top-level sites

  // Builder.cpp
  void locate(clang::SourceLocation L);
  bool boundFunction(clang::Expr *E, bool AtReturn, Event &Out);
  bool bounds(clang::CallExpr *Marker, llvm::StringRef Kind);
  bool locality(clang::Expr *E);
  bool structParts(clang::CallExpr *Marker, const clang::FunctionDecl *Fn);
  bool definitionBody(clang::FunctionDecl *FD, clang::CallExpr *&Site,
                      clang::ReturnStmt *&Done);
  bool alternatives(clang::Expr *E);
  bool alternative(clang::Expr *E, Node &Out);
  bool definitionStatement(clang::Stmt *S, std::vector<Node> &Out);

  // Patterns.cpp
  bool element(clang::Expr *E, Where W, std::vector<Node> &Out);
  bool elements(clang::CallExpr *C, unsigned First, Where W,
                std::vector<Node> &Out);
  bool siteElement(clang::Expr *E, Where W, std::vector<Node> &Out);
  bool orBlock(clang::Expr *E, Where W, std::vector<Node> &Out);
  bool repetition(clang::CallExpr *C, llvm::StringRef M, Where W,
                  std::vector<Node> &Out);
  bool count(clang::Expr *E, unsigned &Out);
  bool freeBlock(clang::StmtExpr *SE, Where W, std::vector<Node> &Out);
  bool subAutomaton(clang::CallExpr *C, std::vector<Node> &Out);
  bool symbol(const Event &E, clang::SourceLocation L, std::vector<Node> &Out);

  // Events.cpp
  bool event(clang::Expr *E, Force F, bool Bound, Event &Out);
  bool eventMarker(clang::CallExpr *C, bool IsCall, Force F, bool Bound,
                   Event &Out);
  bool returnEquals(clang::BinaryOperator *BO, Force F, bool Bound,
                    Event &Out);
  bool makeEvent(const clang::FunctionDecl *FD, clang::CallExpr *Call,
                 clang::Expr *Ret, bool AtReturn, Force F, bool Bound,
                 clang::Expr *Whole, Event &Out);
  bool fieldEvent(clang::Expr *E, bool Bound, Event &Out);
  bool fieldTarget(clang::Expr *LHS, Event &Out, clang::QualType &FieldT,
                   clang::Expr *&Base, bool &Arrow);

  // Values.cpp
  bool value(clang::Expr *Arg, clang::QualType T, const Slot &S, Value &V);
  bool special(clang::Expr *W, clang::QualType T, const Slot &S, Value &V,
               bool &Done);
  bool constant(clang::Expr *W, clang::QualType T, const Slot &S, Value &V,
                bool &Done);
  bool maskValue(clang::CallExpr *C, clang::QualType T, bool Flags, Value &V);
  bool outParameter(clang::UnaryOperator *U, clang::QualType T,
                    const Slot &S, Value &V);
  bool capture(clang::Expr *W, clang::QualType T, bool AddressOf, Value &V);
  bool scalarType(clang::Expr *W, clang::QualType T, const std::string &What);
  bool checkNoScoped(clang::Expr *W);
  clang::Expr *castTo(clang::QualType T, clang::Expr *E);
};

/// Sets E.NumParams / E.ExactParams from FD's parameter list.
void setParams(const clang::FunctionDecl *FD, Event &E);

/// Whether FD is an automaton() function (returns struct
/// __vigil_automaton_description *).
bool isAutomatonFunction(const clang::FunctionDecl *FD);

} // namespace vigil

#endif
