//===- Assertion.h - vigil's assertion model ------------------------------===//
//
// The in-memory form of one assertion, shared by the Clang plugin (which
// builds it from the AST), the link-time pass (which reads it back from the
// descriptor string carried by each __vigil_site() call) and vigil explain.
// Three kinds travel the same way:
//
//   inline      TESLA_WITHIN / TESLA_PERTHREAD / TESLA_GLOBAL
//   definition  automaton(name, params) { ... } — a named pattern other
//               patterns refer to; never checked on its own
//   struct      TESLA_STRUCT_AUTOMATON(subject, name, locality, start, end):
//               one instance of the named automaton per object, from start
//               to end, strict
//
// Symbols 0, 1 and 2 are the two bounds and the site.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_ASSERTION_H
#define VIGIL_MODEL_ASSERTION_H

#include "Automaton.h"
#include "Event.h"
#include "Pattern.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace vigil {

enum AssertionKind : uint8_t { AK_INLINE = 0, AK_DEFINITION = 1, AK_STRUCT = 2 };
enum Locality : uint8_t { PERTHREAD = 0, GLOBAL = 1 };

enum AlternativeFlags : uint8_t {
  AF_FORWARD = 1u << 0, // no event before the site needs the site's values
  AF_TAGS = 1u << 1,    // the tags store can decide its site
  AF_FREE = 1u << 2,    // binds free variables
  AF_FAST = 1u << 3     // plain steps are table steps (inline when per-thread)
};

/// One alternative (top-level `||` operand).
struct Automaton {
  std::string Text;
  Node Pattern; // flattened top-level sequence holding the site
  uint64_t Alphabet = 0, PreSyms = 0, PostSyms = 0;
  uint8_t Flags = 0;
  Dfa D;
};

struct Assertion {
  uint8_t Kind = AK_INLINE;
  std::string Location; // "file.c:12:5"
  std::string Text;     // the whole invocation
  uint8_t Locality = PERTHREAD;
  uint8_t Mode = MODE_GUIDELINE;
  std::vector<Event> Symbols;
  std::vector<Automaton> Alternatives;
  std::vector<std::string> Captures; // capture source texts
  std::vector<std::string> Free;     // free variable names
  std::string Name;                  // definition / struct: the automaton
  std::vector<std::string> Params;   // definition: parameters; struct: subject

  /// Adds E to the symbols unless an equal one is there; returns its index,
  /// or -1 past MaxSymbols.
  int addSymbol(const Event &E);
};

/// Named automaton definitions, by name.
using Definitions = std::map<std::string, Assertion>;

/// Replaces every Sub by the definition it names (parameters substituted,
/// symbols and free variables merged).  Err names the missing or recursive
/// automaton.
bool resolve(Assertion &A, const Definitions &Defs, std::string &Err);

/// Compiles every alternative (DFA and flags).  Subs must be resolved.
bool compile(Assertion &A, std::string &Err);

/// Builds the checked form of a struct automaton usage: the definition's
/// body after the site, strict, keyed by the subject.
bool instantiateStruct(const Assertion &Usage, const Definitions &Defs,
                       Assertion &Out, std::string &Err);

// Names used in the descriptor and by explain.
const char *kindName(uint8_t K);
const char *localityName(uint8_t L);
const char *modeName(uint8_t M);

/// The descriptor: a JSON object (stable keys; see Descriptor.cpp).
llvm::json::Value toJSON(const Assertion &A);
std::string serialise(const Assertion &A);
/// Parses a descriptor.  Returns false and sets Err on malformed input.
bool parse(llvm::StringRef Descriptor, Assertion &A, std::string &Err);

} // namespace vigil

#endif
