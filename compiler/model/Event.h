//===- Event.h - the events (symbols) of an assertion ---------------------===//
//
// An event is one thing the program can be seen doing: entering or leaving a
// function, storing to a struct field, reaching the assertion site, or one of
// the two bounds.  Each distinct event of an assertion is one *symbol* of its
// automata: an event written twice in the assertion is one symbol that
// appears at two places of the pattern.  Enumerator values are those of
// include/vigil/abi.h.
//
//===----------------------------------------------------------------------===//
#ifndef VIGIL_MODEL_EVENT_H
#define VIGIL_MODEL_EVENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace vigil {

// Limits, as in abi.h.
constexpr unsigned MaxSymbols = 64;     // events of one assertion, bounds and site included
constexpr unsigned MaxValues = 8;       // value slots per event
constexpr unsigned MaxCaptures = 16;    // values captured at the site
constexpr unsigned MaxFree = 8;         // free variables of one assertion
constexpr unsigned MaxAlternatives = 8; // top-level || alternatives

// Symbols 0..2 of every assertion.
constexpr unsigned SymStart = 0, SymEnd = 1, SymSite = 2;

enum EventKind : uint8_t {
  EV_START = 0,
  EV_END = 1,
  EV_CALL = 2,
  EV_RETURN = 3,
  EV_SITE = 4,
  EV_FIELD = 5 // a store to a struct field
};

enum EventFlags : uint8_t {
  EF_STATIC = 1u << 0, // no captured value and no free variable
  EF_CALLER = 1u << 1, // instrumented at call sites
  EF_FREE = 1u << 2,   // has a free-variable slot
  EF_KEY = 1u << 3     // has a key slot (struct automata)
};

enum ValueKind : uint8_t {
  VAL_ANY = 0,     // matches every value
  VAL_CONST = 1,   // equals Constant
  VAL_CAPTURE = 2, // equals capture Index, taken at the site
  VAL_FLAGS = 3,   // has every bit of Constant: (v & c) == c
  VAL_MASK = 4,    // has no bit outside Constant: (v & ~c) == 0
  VAL_FREE = 5,    // binds or equals free variable Index
  VAL_KEY = 6,     // the object of a struct automaton's instance
  VAL_PARAM = 7    // automaton definitions only: parameter Index
};

// Which observed word a slot reads.
enum ValueRole : uint8_t {
  ROLE_ARG = 0,    // argument ArgIndex (or the word it points to: Indirect)
  ROLE_RETURN = 1, // the return value
  ROLE_BASE = 2,   // field stores: the address of the struct
  ROLE_VALUE = 3   // field stores: the new value ('='), or the change (+=, -=)
};

enum FieldOp : uint8_t { OP_ASSIGN = 0, OP_ADD = 1, OP_SUB = 2 };

/// One argument, return value or field-store word named by an event.
struct Value {
  std::string Text;      // source text: "c", "0", "ANY(ptr)", "&o"
  uint64_t Constant = 0; // CONST, FLAGS, MASK: the bits, zero-extended
  uint8_t Kind = VAL_ANY;
  uint8_t Role = ROLE_ARG;
  uint8_t ArgIndex = 0;  // ROLE_ARG: zero-based C parameter index
  uint8_t Index = 0;     // CAPTURE: capture; FREE: free variable; PARAM
  uint8_t Indirect = 0;  // ROLE_ARG: bytes read through the pointer argument

  bool operator==(const Value &O) const;
};

/// One distinct event of an assertion.
struct Event {
  uint8_t Kind = EV_CALL;
  std::string Function; // EV_FIELD: the struct field, "object.refcount"
  std::string Text;
  std::vector<Value> Values;
  /// false = function entry (call events, bounds written call(f)),
  /// true = function return.
  bool AtReturn = false;
  bool ForceCaller = false; // caller(...)
  bool ForceCallee = false; // callee(...)
  /// Number of C parameters of Function (lets the pass check that IR
  /// parameter indices match C's); with a struct parameter, the number of
  /// leading parameters whose IR index is known.
  unsigned NumParams = 0;
  bool ExactParams = true; // NumParams is the whole parameter list
  // EV_FIELD: the LLVM struct type name ("struct.object"), the field's
  // byte offset and size, the struct's size, and the assignment operator.
  std::string Record;
  uint64_t FieldOffset = 0, FieldSize = 0, RecordSize = 0;
  uint8_t Op = OP_ASSIGN;

  bool isStatic() const; // no CAPTURE, FREE or KEY slot
  bool hasKind(uint8_t K) const;
  uint8_t flags() const;
  /// The same observation point and the same value patterns.
  bool sameAs(const Event &O) const;
};

const char *eventKindName(uint8_t Kind);
const char *valueKindName(uint8_t Kind);
const char *valueRoleName(uint8_t Role);
const char *fieldOpName(uint8_t Op);

} // namespace vigil

#endif
