//===- Descriptor.cpp - an assertion as JSON, and back --------------------===//
//
// The plugin serialises each assertion into the string argument of its
// __vigil_site() call; the link-time pass parses it back.  The DFA is not in
// it: the pass compiles the patterns again, with every definition of the
// program at hand (explain=json prints this object plus the compiled
// automata).
//
//   { "kind": "assertion"|"automaton"|"struct-automaton",
//     "location": "a.c:12:5", "text": "TESLA_WITHIN(...)",
//     "locality": "perthread"|"global",
//     "mode": "guideline"|"conditional"|"strict",
//     "captures": ["c", "f"], "free": ["x"],
//     "name": "", "params": [],
//     "symbols": [ { "kind": "start"|"end"|"call"|"return"|"site"|"field",
//                    "function": "mac_check", "text": "mac_check(c, f) == 0",
//                    "at": "call"|"return", "caller": false, "callee": false,
//                    "nparams": 2, "exact_params": true,
//                    "record": "", "field_offset": 0, "field_size": 0,
//                    "record_size": 0, "op": "=",
//                    "values": [ { "text": "c", "kind": "capture",
//                                  "role": "arg", "arg": 0, "index": 0,
//                                  "indirect": 0, "constant": "0x0" } ] } ],
//     "alternatives": [ { "text": "previously(...)", "pattern": NODE } ] }
//
//   NODE: { "k": "sym", "s": 3 } | { "k": "site" }
//       | { "k": "seq"|"or"|"xor", "kids": [NODE...] }
//       | { "k": "repeat", "min": 1, "max": -1 (unbounded), "kids": [...] }
//       | { "k": "sub", "name": "established", "args": [VALUE...] }
//     each with an optional "text".
//
//===----------------------------------------------------------------------===//
#include "Assertion.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace vigil {

namespace {

std::string hex(uint64_t V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(V, 0);
  return OS.str();
}

const char *nodeKindName(uint8_t K) {
  switch (K) {
  case Node::Sym: return "sym";
  case Node::Site: return "site";
  case Node::Seq: return "seq";
  case Node::Or: return "or";
  case Node::Xor: return "xor";
  case Node::Repeat: return "repeat";
  case Node::Sub: return "sub";
  }
  return "?";
}

json::Value valueJSON(const Value &V) {
  return json::Object{{"text", V.Text},
                      {"kind", valueKindName(V.Kind)},
                      {"role", valueRoleName(V.Role)},
                      {"arg", int64_t(V.ArgIndex)},
                      {"index", int64_t(V.Index)},
                      {"indirect", int64_t(V.Indirect)},
                      {"constant", hex(V.Constant)}};
}

json::Value eventJSON(const Event &E) {
  json::Array Vals;
  for (const Value &V : E.Values)
    Vals.push_back(valueJSON(V));
  return json::Object{{"kind", eventKindName(E.Kind)},
                      {"function", E.Function},
                      {"text", E.Text},
                      {"at", E.AtReturn ? "return" : "call"},
                      {"caller", E.ForceCaller},
                      {"callee", E.ForceCallee},
                      {"nparams", int64_t(E.NumParams)},
                      {"exact_params", E.ExactParams},
                      {"record", E.Record},
                      {"field_offset", int64_t(E.FieldOffset)},
                      {"field_size", int64_t(E.FieldSize)},
                      {"record_size", int64_t(E.RecordSize)},
                      {"op", fieldOpName(E.Op)},
                      {"values", std::move(Vals)}};
}

json::Value nodeJSON(const Node &N) {
  json::Object O{{"k", nodeKindName(N.K)}};
  if (!N.Text.empty())
    O["text"] = N.Text;
  if (N.K == Node::Sym)
    O["s"] = int64_t(N.Symbol);
  if (N.K == Node::Repeat) {
    O["min"] = int64_t(N.Min);
    O["max"] = N.Max == Unbounded ? int64_t(-1) : int64_t(N.Max);
  }
  if (N.K == Node::Sub) {
    O["name"] = N.Name;
    json::Array Args;
    for (const Value &V : N.Args)
      Args.push_back(valueJSON(V));
    O["args"] = std::move(Args);
  }
  if (!N.Kids.empty()) {
    json::Array Kids;
    for (const Node &K : N.Kids)
      Kids.push_back(nodeJSON(K));
    O["kids"] = std::move(Kids);
  }
  return O;
}

json::Array strings(const std::vector<std::string> &V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

} // namespace

json::Value toJSON(const Assertion &A) {
  json::Array Syms, Alts;
  for (const Event &E : A.Symbols)
    Syms.push_back(eventJSON(E));
  for (const Automaton &Au : A.Alternatives)
    Alts.push_back(
        json::Object{{"text", Au.Text}, {"pattern", nodeJSON(Au.Pattern)}});
  return json::Object{{"kind", kindName(A.Kind)},
                      {"location", A.Location},
                      {"text", A.Text},
                      {"locality", localityName(A.Locality)},
                      {"mode", modeName(A.Mode)},
                      {"captures", strings(A.Captures)},
                      {"free", strings(A.Free)},
                      {"name", A.Name},
                      {"params", strings(A.Params)},
                      {"symbols", std::move(Syms)},
                      {"alternatives", std::move(Alts)}};
}

std::string serialise(const Assertion &A) {
  std::string S;
  raw_string_ostream OS(S);
  OS << toJSON(A);
  return OS.str();
}

// ---- parsing ---------------------------------------------------------------

namespace {

class Reader {
public:
  explicit Reader(std::string &Err) : Err(Err) {}
  bool assertion(const json::Object &O, Assertion &A);

private:
  std::string &Err;
  unsigned Depth = 0;

  bool fail(const Twine &Msg) {
    if (Err.empty())
      Err = Msg.str();
    return false;
  }
  bool str(const json::Object &O, StringRef K, std::string &Out);
  bool num(const json::Object &O, StringRef K, uint64_t &Out, uint64_t Max);
  bool boolean(const json::Object &O, StringRef K, bool &Out);
  bool strings(const json::Object &O, StringRef K, std::vector<std::string> &Out);
  template <typename T>
  bool name(const json::Object &O, StringRef K, const char *(*Fn)(uint8_t),
            unsigned Count, T &Out);
  bool value(const json::Value &J, Value &V);
  bool event(const json::Value &J, Event &E);
  bool node(const json::Value &J, Node &N, unsigned NSymbols);
};

bool Reader::str(const json::Object &O, StringRef K, std::string &Out) {
  auto V = O.getString(K);
  if (!V)
    return fail("missing string '" + K + "'");
  Out = V->str();
  return true;
}

bool Reader::num(const json::Object &O, StringRef K, uint64_t &Out,
                 uint64_t Max) {
  auto V = O.getInteger(K);
  if (!V || *V < 0 || uint64_t(*V) > Max)
    return fail("missing or out-of-range integer '" + K + "'");
  Out = uint64_t(*V);
  return true;
}

bool Reader::boolean(const json::Object &O, StringRef K, bool &Out) {
  auto V = O.getBoolean(K);
  if (!V)
    return fail("missing boolean '" + K + "'");
  Out = *V;
  return true;
}

bool Reader::strings(const json::Object &O, StringRef K,
                     std::vector<std::string> &Out) {
  const json::Array *L = O.getArray(K);
  if (!L)
    return fail("missing list '" + K + "'");
  for (const json::Value &V : *L) {
    auto S = V.getAsString();
    if (!S)
      return fail("bad string in '" + K + "'");
    Out.push_back(S->str());
  }
  return true;
}

template <typename T>
bool Reader::name(const json::Object &O, StringRef K,
                  const char *(*Fn)(uint8_t), unsigned Count, T &Out) {
  std::string S;
  if (!str(O, K, S))
    return false;
  for (unsigned I = 0; I < Count; ++I)
    if (S == Fn(uint8_t(I))) {
      Out = T(I);
      return true;
    }
  return fail("bad value '" + S + "' for '" + K + "'");
}

bool Reader::value(const json::Value &J, Value &V) {
  const json::Object *O = J.getAsObject();
  uint64_t Arg, Index, Indirect;
  std::string Const;
  if (!O || !str(*O, "text", V.Text) ||
      !name(*O, "kind", valueKindName, 8, V.Kind) ||
      !name(*O, "role", valueRoleName, 4, V.Role) ||
      !num(*O, "arg", Arg, 255) || !num(*O, "index", Index, 255) ||
      !num(*O, "indirect", Indirect, 8) || !str(*O, "constant", Const))
    return fail("bad value");
  V.ArgIndex = uint8_t(Arg);
  V.Index = uint8_t(Index);
  V.Indirect = uint8_t(Indirect);
  if (StringRef(Const).getAsInteger(0, V.Constant))
    return fail("bad constant '" + Const + "'");
  return true;
}

bool Reader::event(const json::Value &J, Event &E) {
  const json::Object *O = J.getAsObject();
  std::string At, Op;
  uint64_t NParams, Off, Size, RSize;
  const json::Array *Vals = O ? O->getArray("values") : nullptr;
  if (!O || !Vals || !name(*O, "kind", eventKindName, 6, E.Kind) ||
      !str(*O, "function", E.Function) || !str(*O, "text", E.Text) ||
      !str(*O, "at", At) || !boolean(*O, "caller", E.ForceCaller) ||
      !boolean(*O, "callee", E.ForceCallee) ||
      !num(*O, "nparams", NParams, 255) ||
      !boolean(*O, "exact_params", E.ExactParams) ||
      !str(*O, "record", E.Record) ||
      !num(*O, "field_offset", Off, uint64_t(1) << 40) ||
      !num(*O, "field_size", Size, 8) ||
      !num(*O, "record_size", RSize, uint64_t(1) << 40) || !str(*O, "op", Op))
    return fail("bad event");
  E.AtReturn = At == "return";
  E.NumParams = unsigned(NParams);
  E.FieldOffset = Off;
  E.FieldSize = Size;
  E.RecordSize = RSize;
  E.Op = Op == "+=" ? OP_ADD : Op == "-=" ? OP_SUB : OP_ASSIGN;
  if (Vals->size() > MaxValues)
    return fail("too many values");
  for (const json::Value &VV : *Vals) {
    Value V;
    if (!value(VV, V))
      return false;
    E.Values.push_back(std::move(V));
  }
  return true;
}

bool Reader::node(const json::Value &J, Node &N, unsigned NSymbols) {
  const json::Object *O = J.getAsObject();
  if (!O || ++Depth > 200)
    return fail("bad pattern");
  std::string K;
  if (!str(*O, "k", K))
    return false;
  if (auto T = O->getString("text"))
    N.Text = T->str();
  uint64_t V;
  if (K == "sym") {
    N.K = Node::Sym;
    if (!num(*O, "s", V, NSymbols ? NSymbols - 1 : 0))
      return false;
    N.Symbol = unsigned(V);
  } else if (K == "site") {
    N.K = Node::Site;
    N.Symbol = SymSite;
  } else if (K == "seq" || K == "or" || K == "xor" || K == "repeat") {
    N.K = K == "seq" ? Node::Seq : K == "or" ? Node::Or
          : K == "xor" ? Node::Xor : Node::Repeat;
  } else if (K == "sub") {
    N.K = Node::Sub;
    if (!str(*O, "name", N.Name))
      return false;
    const json::Array *Args = O->getArray("args");
    if (!Args)
      return fail("bad automaton reference");
    for (const json::Value &A : *Args) {
      Value Arg;
      if (!value(A, Arg))
        return false;
      N.Args.push_back(Arg);
    }
  } else {
    return fail("bad pattern kind '" + K + "'");
  }
  if (N.K == Node::Repeat) {
    auto Min = O->getInteger("min"), Max = O->getInteger("max");
    if (!Min || !Max || *Min < 0 || *Min > 100000 || *Max < -1 ||
        *Max > 100000 || (*Max >= 0 && *Max < *Min))
      return fail("bad repetition");
    N.Min = unsigned(*Min);
    N.Max = *Max < 0 ? Unbounded : unsigned(*Max);
  }
  if (const json::Array *Kids = O->getArray("kids"))
    for (const json::Value &KJ : *Kids) {
      Node Kid;
      if (!node(KJ, Kid, NSymbols))
        return false;
      N.Kids.push_back(std::move(Kid));
    }
  --Depth;
  return true;
}

bool Reader::assertion(const json::Object &O, Assertion &A) {
  const json::Array *Syms = O.getArray("symbols");
  const json::Array *Alts = O.getArray("alternatives");
  if (!name(O, "kind", kindName, 3, A.Kind) || !str(O, "location", A.Location) ||
      !str(O, "text", A.Text) ||
      !name(O, "locality", localityName, 2, A.Locality) ||
      !name(O, "mode", modeName, 3, A.Mode) ||
      !strings(O, "captures", A.Captures) || !strings(O, "free", A.Free) ||
      !str(O, "name", A.Name) || !strings(O, "params", A.Params) || !Syms ||
      !Alts)
    return fail("bad descriptor");
  if (Syms->size() < 3 || Syms->size() > MaxSymbols ||
      Alts->size() > MaxAlternatives || A.Captures.size() > MaxCaptures ||
      A.Free.size() > MaxFree)
    return fail("bad symbol/alternative/capture count");
  for (const json::Value &SJ : *Syms) {
    Event E;
    if (!event(SJ, E))
      return false;
    A.Symbols.push_back(std::move(E));
  }
  for (const json::Value &AJ : *Alts) {
    const json::Object *AO = AJ.getAsObject();
    Automaton Au;
    const json::Value *P = AO ? AO->get("pattern") : nullptr;
    if (!AO || !P || !str(*AO, "text", Au.Text) ||
        !node(*P, Au.Pattern, unsigned(A.Symbols.size())))
      return fail("bad alternative");
    A.Alternatives.push_back(std::move(Au));
  }
  // Indices in values must stay inside the assertion's tables.
  for (const Event &E : A.Symbols)
    for (const Value &V : E.Values)
      if ((V.Kind == VAL_CAPTURE && V.Index >= A.Captures.size()) ||
          (V.Kind == VAL_FREE && V.Index >= A.Free.size()) ||
          (V.Kind == VAL_PARAM && V.Index >= std::max<size_t>(A.Params.size(), 1)))
        return fail("value index out of range");
  return true;
}

} // namespace

bool parse(StringRef Descriptor, Assertion &A, std::string &Err) {
  Err.clear();
  Expected<json::Value> J = json::parse(Descriptor);
  if (!J) {
    Err = toString(J.takeError());
    return false;
  }
  const json::Object *O = J->getAsObject();
  if (!O) {
    Err = "descriptor is not an object";
    return false;
  }
  Reader R(Err);
  return R.assertion(*O, A);
}

} // namespace vigil
