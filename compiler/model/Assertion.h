//===- Assertion.h - vigil's automaton model ------------------------------===//
//
// The in-memory form of one assertion, shared by the Clang plugin (which
// builds it from the AST) and the link-time pass (which reads it back from the
// descriptor string carried by each __vigil_site() call).  Enumerator values
// are those of include/vigil/abi.h.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_ASSERTION_H
#define VIGIL_MODEL_ASSERTION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

// Limits, as in abi.h.
constexpr unsigned MaxEvents = 64;
constexpr unsigned MaxValues = 8;
constexpr unsigned MaxCaptures = 16;
constexpr unsigned MaxAlternatives = 8;

enum EventKind : uint8_t {
  EV_START = 0,
  EV_END = 1,
  EV_CALL = 2,
  EV_RETURN = 3,
  EV_SITE = 4
};

enum EventFlags : uint8_t {
  EF_OPTIONAL = 1u << 0,
  EF_STATIC = 1u << 1,
  EF_POST_SITE = 1u << 2,
  EF_FINAL = 1u << 3,
  EF_OR = 1u << 4,
  EF_CALLER = 1u << 5
};

enum ValueKind : uint8_t { VAL_ANY = 0, VAL_CONST = 1, VAL_CAPTURE = 2 };

enum Locality : uint8_t { PERTHREAD = 0, GLOBAL = 1 };

enum Mode : uint8_t { MODE_GUIDELINE = 0, MODE_CONDITIONAL = 1, MODE_STRICT = 2 };

/// One argument or return value named by an event.
struct Value {
  std::string Text;      // source text: "c", "0", "ANY(ptr)"
  uint64_t Constant = 0; // VAL_CONST: the bits, zero-extended
  uint8_t Kind = VAL_ANY;
  bool IsReturn = false;
  uint8_t ArgIndex = 0; // zero-based C parameter index (arguments only)
  uint8_t Capture = 0;  // VAL_CAPTURE: index into the assertion's captures
};

/// One event of an automaton.
struct Event {
  uint8_t Kind = EV_CALL;
  std::string Function; // empty for the site
  std::string Text;
  std::vector<Value> Values; // arguments in order, then the return value
  uint64_t Successors = 0;
  uint64_t OrBlock = 0;
  uint8_t Flags = 0;
  /// Where the event is observed: false = function entry (call events and
  /// bounds written call(f)), true = function return.
  bool AtReturn = false;
  bool ForceCaller = false; // caller(...)
  bool ForceCallee = false; // callee(...)
  /// Number of C parameters of Function (lets the pass check that IR
  /// parameter indices match C's).
  unsigned NumParams = 0;

  bool isStatic() const;
  /// Same kind of observation point, same function, same non-ANY slots.
  bool sameAs(const Event &O) const;
};

/// One sequence element before flattening: a single event, an optional
/// event, an OR block, or the assertion site.
struct Element {
  std::vector<Event> Events;
  bool Optional = false;
  bool IsOr = false;
};

/// One alternative (top-level `||` operand): a linear sequence of events.
struct Automaton {
  std::string Text;
  std::vector<Event> Events; // [0] = START bound, [n-1] = END bound
  uint8_t Site = 0;
  bool IsStatic = true;
};

struct Assertion {
  std::string Location; // "file.c:12:5"
  std::string Text;     // the whole TESLA_*(...) invocation
  uint8_t Locality = PERTHREAD;
  uint8_t Mode = MODE_GUIDELINE;
  std::vector<Automaton> Alternatives;
  std::vector<std::string> Captures; // capture source texts
};

/// Flattens [Start, Elements..., End] into an automaton and computes the
/// successors, OR masks and flags (§3.1.3).  The elements must contain the
/// site exactly once and Start/End must be bounds (EV_START / EV_END).
Automaton buildAutomaton(std::string Text, const Event &Start,
                         const std::vector<Element> &Elements,
                         const Event &End);

// Names used in the descriptor and by explain.
const char *eventKindName(uint8_t Kind);
const char *valueKindName(uint8_t Kind);
const char *localityName(uint8_t L);
const char *modeName(uint8_t M);
std::vector<std::string> flagNames(uint8_t Flags);

/// The descriptor: a JSON object (stable keys; see Assertion.cpp).
llvm::json::Value toJSON(const Assertion &A);
std::string serialise(const Assertion &A);
/// Parses a descriptor.  Returns false and sets Err on malformed input.
bool parse(llvm::StringRef Descriptor, Assertion &A, std::string &Err);

} // namespace vigil

#endif
