//===- Assertion.cpp - vigil's automaton model ----------------------------===//
//
// Successor computation and the descriptor format.
//
// Descriptor (compact JSON; explain=json prints the same object per
// assertion):
//   { "location": "a.c:12:5", "text": "TESLA_WITHIN(...)",
//     "locality": "perthread"|"global",
//     "mode": "guideline"|"conditional"|"strict",
//     "captures": ["c", "f"],
//     "alternatives": [
//       { "text": "previously(...)", "site": 2, "static": false,
//         "events": [
//           { "index": 0, "kind": "start"|"end"|"call"|"return"|"site",
//             "function": "syscall", "text": "call(syscall)",
//             "at": "call"|"return", "caller": false, "callee": false,
//             "nparams": 0,
//             "values": [ { "text": "c", "kind": "any"|"const"|"capture",
//                           "return": false, "arg": 0,
//                           "constant": "0x0", "capture": 0 } ],
//             "flags": 2, "flag_names": ["static"],
//             "successors": [1], "or_block": [] } ] } ] }
//
//===----------------------------------------------------------------------===//
#include "Assertion.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace vigil {

bool Event::isStatic() const {
  for (const Value &V : Values)
    if (V.Kind == VAL_CAPTURE)
      return false;
  return true;
}

bool Event::sameAs(const Event &O) const {
  if (Kind == EV_SITE || O.Kind == EV_SITE)
    return Kind == O.Kind;
  if (AtReturn != O.AtReturn || Function != O.Function)
    return false;
  // ANY slots match everything, so they do not distinguish events.
  auto Significant = [](const Event &E) {
    std::vector<const Value *> R;
    for (const Value &V : E.Values)
      if (V.Kind != VAL_ANY)
        R.push_back(&V);
    return R;
  };
  auto A = Significant(*this), B = Significant(O);
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I) {
    const Value &X = *A[I], &Y = *B[I];
    if (X.Kind != Y.Kind || X.IsReturn != Y.IsReturn ||
        (!X.IsReturn && X.ArgIndex != Y.ArgIndex))
      return false;
    if (X.Kind == VAL_CONST && X.Constant != Y.Constant)
      return false;
    if (X.Kind == VAL_CAPTURE && X.Capture != Y.Capture)
      return false;
  }
  return true;
}

Automaton buildAutomaton(std::string Text, const Event &Start,
                         const std::vector<Element> &Elements,
                         const Event &End) {
  // Groups: [START], elements..., [END].
  std::vector<Element> Groups;
  Groups.push_back(Element{{Start}, false, false});
  for (const Element &E : Elements)
    Groups.push_back(E);
  Groups.push_back(Element{{End}, false, false});

  Automaton A;
  A.Text = std::move(Text);
  std::vector<std::pair<size_t, size_t>> Span; // [first, last) per group
  for (const Element &G : Groups) {
    size_t First = A.Events.size();
    for (const Event &E : G.Events)
      A.Events.push_back(E);
    Span.push_back({First, A.Events.size()});
  }
  size_t N = A.Events.size();
  size_t EndIdx = N - 1;
  for (size_t I = 0; I < N; ++I)
    if (A.Events[I].Kind == EV_SITE)
      A.Site = static_cast<uint8_t>(I);

  auto Bit = [](size_t I) { return I < 64 ? (uint64_t(1) << I) : 0; };
  for (size_t G = 0; G < Groups.size(); ++G) {
    uint64_t Next = 0;
    for (size_t J = G + 1; J < Groups.size(); ++J) {
      for (size_t K = Span[J].first; K < Span[J].second; ++K)
        Next |= Bit(K);
      if (!Groups[J].Optional)
        break;
    }
    for (size_t I = Span[G].first; I < Span[G].second; ++I) {
      Event &E = A.Events[I];
      E.Successors = Next;
      E.OrBlock = 0;
      E.Flags = 0;
      if (Groups[G].IsOr) {
        E.Flags |= EF_OR;
        for (size_t K = Span[G].first; K < Span[G].second; ++K) {
          if (K == I)
            continue;
          E.OrBlock |= Bit(K);
          if (K > I)
            E.Successors |= Bit(K);
        }
      }
      if (Groups[G].Optional)
        E.Flags |= EF_OPTIONAL;
      if (E.isStatic())
        E.Flags |= EF_STATIC;
      if (I > A.Site && I != EndIdx)
        E.Flags |= EF_POST_SITE;
      if (E.Successors & Bit(EndIdx))
        E.Flags |= EF_FINAL;
      if (E.ForceCaller)
        E.Flags |= EF_CALLER;
      if (!E.isStatic())
        A.IsStatic = false;
    }
  }
  return A;
}

const char *eventKindName(uint8_t K) {
  switch (K) {
  case EV_START: return "start";
  case EV_END: return "end";
  case EV_CALL: return "call";
  case EV_RETURN: return "return";
  case EV_SITE: return "site";
  }
  return "?";
}

const char *valueKindName(uint8_t K) {
  switch (K) {
  case VAL_ANY: return "any";
  case VAL_CONST: return "const";
  case VAL_CAPTURE: return "capture";
  }
  return "?";
}

const char *localityName(uint8_t L) {
  return L == GLOBAL ? "global" : "perthread";
}

const char *modeName(uint8_t M) {
  switch (M) {
  case MODE_CONDITIONAL: return "conditional";
  case MODE_STRICT: return "strict";
  default: return "guideline";
  }
}

std::vector<std::string> flagNames(uint8_t F) {
  std::vector<std::string> R;
  if (F & EF_STATIC) R.push_back("static");
  if (F & EF_OPTIONAL) R.push_back("optional");
  if (F & EF_OR) R.push_back("or");
  if (F & EF_FINAL) R.push_back("final");
  if (F & EF_POST_SITE) R.push_back("post-site");
  if (F & EF_CALLER) R.push_back("caller");
  return R;
}

static json::Array maskToList(uint64_t M) {
  json::Array R;
  for (unsigned I = 0; I < 64; ++I)
    if (M & (uint64_t(1) << I))
      R.push_back(int64_t(I));
  return R;
}

static std::string hex(uint64_t V) {
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(V, 0);
  return OS.str();
}

json::Value toJSON(const Assertion &A) {
  json::Array Alts;
  for (const Automaton &Au : A.Alternatives) {
    json::Array Events;
    for (size_t I = 0; I < Au.Events.size(); ++I) {
      const Event &E = Au.Events[I];
      json::Array Vals;
      for (const Value &V : E.Values)
        Vals.push_back(json::Object{{"text", V.Text},
                                    {"kind", valueKindName(V.Kind)},
                                    {"return", V.IsReturn},
                                    {"arg", int64_t(V.ArgIndex)},
                                    {"constant", hex(V.Constant)},
                                    {"capture", int64_t(V.Capture)}});
      json::Array Names;
      for (auto &N : flagNames(E.Flags))
        Names.push_back(N);
      Events.push_back(json::Object{
          {"index", int64_t(I)},
          {"kind", eventKindName(E.Kind)},
          {"function", E.Function},
          {"text", E.Text},
          {"at", E.AtReturn ? "return" : "call"},
          {"caller", E.ForceCaller},
          {"callee", E.ForceCallee},
          {"nparams", int64_t(E.NumParams)},
          {"values", std::move(Vals)},
          {"flags", int64_t(E.Flags)},
          {"flag_names", std::move(Names)},
          {"successors", maskToList(E.Successors)},
          {"or_block", maskToList(E.OrBlock)}});
    }
    Alts.push_back(json::Object{{"text", Au.Text},
                                {"site", int64_t(Au.Site)},
                                {"static", Au.IsStatic},
                                {"events", std::move(Events)}});
  }
  json::Array Caps;
  for (auto &C : A.Captures)
    Caps.push_back(C);
  return json::Object{{"location", A.Location},
                      {"text", A.Text},
                      {"locality", localityName(A.Locality)},
                      {"mode", modeName(A.Mode)},
                      {"captures", std::move(Caps)},
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
struct Reader {
  std::string &Err;
  bool fail(const Twine &Msg) {
    if (Err.empty())
      Err = Msg.str();
    return false;
  }
  bool str(const json::Object &O, StringRef K, std::string &Out) {
    auto V = O.getString(K);
    if (!V)
      return fail("missing string '" + K + "'");
    Out = V->str();
    return true;
  }
  bool num(const json::Object &O, StringRef K, uint64_t &Out) {
    auto V = O.getInteger(K);
    if (!V || *V < 0)
      return fail("missing integer '" + K + "'");
    Out = uint64_t(*V);
    return true;
  }
  bool boolean(const json::Object &O, StringRef K, bool &Out) {
    auto V = O.getBoolean(K);
    if (!V)
      return fail("missing boolean '" + K + "'");
    Out = *V;
    return true;
  }
  bool mask(const json::Object &O, StringRef K, uint64_t &Out) {
    const json::Array *L = O.getArray(K);
    if (!L)
      return fail("missing list '" + K + "'");
    Out = 0;
    for (const json::Value &V : *L) {
      auto I = V.getAsInteger();
      if (!I || *I < 0 || *I >= 64)
        return fail("bad index in '" + K + "'");
      Out |= uint64_t(1) << *I;
    }
    return true;
  }
  template <typename T>
  bool name(const json::Object &O, StringRef K, const char *(*Fn)(uint8_t),
            unsigned Count, T &Out) {
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
};
} // namespace

bool parse(StringRef Descriptor, Assertion &A, std::string &Err) {
  Err.clear();
  Expected<json::Value> J = json::parse(Descriptor);
  if (!J) {
    Err = toString(J.takeError());
    return false;
  }
  Reader R{Err};
  const json::Object *O = J->getAsObject();
  if (!O)
    return R.fail("descriptor is not an object");
  if (!R.str(*O, "location", A.Location) || !R.str(*O, "text", A.Text) ||
      !R.name(*O, "locality", localityName, 2, A.Locality) ||
      !R.name(*O, "mode", modeName, 3, A.Mode))
    return false;
  const json::Array *Caps = O->getArray("captures");
  const json::Array *Alts = O->getArray("alternatives");
  if (!Caps || !Alts)
    return R.fail("missing captures/alternatives");
  for (const json::Value &C : *Caps) {
    auto S = C.getAsString();
    if (!S)
      return R.fail("bad capture text");
    A.Captures.push_back(S->str());
  }
  for (const json::Value &AV : *Alts) {
    const json::Object *AO = AV.getAsObject();
    if (!AO)
      return R.fail("bad alternative");
    Automaton Au;
    uint64_t Site;
    const json::Array *Evs = AO->getArray("events");
    if (!R.str(*AO, "text", Au.Text) || !R.num(*AO, "site", Site) ||
        !R.boolean(*AO, "static", Au.IsStatic) || !Evs)
      return R.fail("bad alternative");
    Au.Site = uint8_t(Site);
    for (const json::Value &EV : *Evs) {
      const json::Object *EO = EV.getAsObject();
      if (!EO)
        return R.fail("bad event");
      Event E;
      std::string At;
      uint64_t Flags, NParams;
      const json::Array *Vals = EO->getArray("values");
      if (!R.name(*EO, "kind", eventKindName, 5, E.Kind) ||
          !R.str(*EO, "function", E.Function) || !R.str(*EO, "text", E.Text) ||
          !R.str(*EO, "at", At) || !R.boolean(*EO, "caller", E.ForceCaller) ||
          !R.boolean(*EO, "callee", E.ForceCallee) ||
          !R.num(*EO, "nparams", NParams) || !R.num(*EO, "flags", Flags) ||
          !R.mask(*EO, "successors", E.Successors) ||
          !R.mask(*EO, "or_block", E.OrBlock) || !Vals)
        return R.fail("bad event");
      E.AtReturn = At == "return";
      E.Flags = uint8_t(Flags);
      E.NumParams = unsigned(NParams);
      for (const json::Value &VV : *Vals) {
        const json::Object *VO = VV.getAsObject();
        if (!VO)
          return R.fail("bad value");
        Value V;
        uint64_t Arg, Cap;
        std::string Const;
        if (!R.str(*VO, "text", V.Text) ||
            !R.name(*VO, "kind", valueKindName, 3, V.Kind) ||
            !R.boolean(*VO, "return", V.IsReturn) || !R.num(*VO, "arg", Arg) ||
            !R.str(*VO, "constant", Const) || !R.num(*VO, "capture", Cap))
          return R.fail("bad value");
        V.ArgIndex = uint8_t(Arg);
        V.Capture = uint8_t(Cap);
        if (StringRef(Const).getAsInteger(0, V.Constant))
          return R.fail("bad constant '" + Const + "'");
        E.Values.push_back(std::move(V));
      }
      Au.Events.push_back(std::move(E));
    }
    if (Au.Events.size() < 3 || Au.Events.size() > MaxEvents ||
        Au.Site >= Au.Events.size())
      return R.fail("bad event count");
    A.Alternatives.push_back(std::move(Au));
  }
  if (A.Alternatives.empty() || A.Alternatives.size() > MaxAlternatives ||
      A.Captures.size() > MaxCaptures)
    return R.fail("bad alternative/capture count");
  return true;
}

} // namespace vigil
