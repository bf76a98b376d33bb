//===- Explain.cpp - human/machine-readable dumps of assertions -----------===//
//
// text: the symbols, each alternative's pattern, engine and DFA (states
// with flags, need, named event, distance, transitions; the bounds never
// change the state and are not listed).  dot: the DFAs as graphs.  json:
// the descriptor of each assertion plus its compiled automata.
//
//===----------------------------------------------------------------------===//
#include "Explain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace vigil {

std::string symbolList(uint64_t M) {
  std::string S;
  for (unsigned I = 0; I < 64; ++I)
    if (M & (uint64_t(1) << I))
      S += (S.empty() ? "" : ",") + std::to_string(I);
  return S.empty() ? "-" : S;
}

std::string stateFlagNames(uint8_t F) {
  std::vector<std::string> N;
  if (F & SF_INITIAL)
    N.push_back("initial");
  if (F & SF_SITE_OK)
    N.push_back("site-ok");
  if (F & SF_PAST_SITE)
    N.push_back("past-site");
  if (F & SF_FINAL)
    N.push_back("final");
  return N.empty() ? "-" : join(N, ",");
}

std::string engineName(const Assertion &A, const Automaton &Au) {
  if (A.Kind == AK_STRUCT)
    return "struct automaton (one instance per object, strict)";
  if (Au.Flags & AF_FREE)
    return "free variables (runtime, candidate bindings)";
  if (Au.Flags & AF_FORWARD)
    return !(Au.Flags & AF_FAST) ? "forward, runtime"
           : A.Locality == PERTHREAD ? "forward, inline fast path"
                                     : "forward, table steps in the runtime";
  return Au.Flags & AF_TAGS ? "recording (tags store, or history)"
                            : "recording (history store)";
}

static std::string valueText(const Value &V) {
  std::string S;
  switch (V.Role) {
  case ROLE_ARG: S = "arg" + std::to_string(V.ArgIndex); break;
  case ROLE_RETURN: S = "ret"; break;
  case ROLE_BASE: S = "base"; break;
  default: S = "value"; break;
  }
  if (V.Indirect)
    S += "*" + std::to_string(V.Indirect);
  S += "=";
  std::string Hex = "0x" + utohexstr(V.Constant, true);
  switch (V.Kind) {
  case VAL_CONST: S += "const:" + Hex; break;
  case VAL_FLAGS: S += "flags:" + Hex; break;
  case VAL_MASK: S += "bitmask:" + Hex; break;
  case VAL_CAPTURE: S += "capture#" + std::to_string(V.Index); break;
  case VAL_FREE: S += "free#" + std::to_string(V.Index); break;
  case VAL_PARAM: S += "param#" + std::to_string(V.Index); break;
  default: S += valueKindName(V.Kind); break;
  }
  return S + "(" + V.Text + ")";
}

static std::string eventFlags(const Event &E) {
  std::vector<std::string> N;
  uint8_t F = E.flags();
  if (F & EF_STATIC)
    N.push_back("static");
  if (F & EF_CALLER)
    N.push_back("caller");
  if (E.ForceCallee)
    N.push_back("callee");
  if (F & EF_FREE)
    N.push_back("free");
  if (F & EF_KEY)
    N.push_back("key");
  return N.empty() ? "-" : join(N, ",");
}

static void textSymbols(raw_ostream &OS, const Assertion &A) {
  OS << "  symbols:\n";
  for (size_t I = 0; I < A.Symbols.size(); ++I) {
    const Event &E = A.Symbols[I];
    OS << "    [" << I << "] " << eventKindName(E.Kind);
    if (E.Kind == EV_START || E.Kind == EV_END)
      OS << " (at " << (E.AtReturn ? "return" : "call") << ")";
    if (!E.Function.empty())
      OS << " " << E.Function;
    if (E.Kind == EV_FIELD)
      OS << " " << E.Record << "+" << E.FieldOffset << ":" << E.FieldSize
         << " of " << E.RecordSize << " " << fieldOpName(E.Op);
    OS << "  \"" << E.Text << "\"";
    if (E.Kind != EV_SITE)
      OS << "  " << eventFlags(E);
    OS << "\n";
    if (!E.Values.empty()) {
      OS << "        values:";
      for (const Value &V : E.Values)
        OS << " " << valueText(V);
      OS << "\n";
    }
  }
}

static void textDfa(raw_ostream &OS, const Assertion &A, const Dfa &D) {
  OS << "    dfa:     " << D.NStates << " states, post-site start "
     << (D.PostStart == NoState ? std::string("-")
                                : "s" + std::to_string(D.PostStart))
     << "\n";
  for (unsigned S = 0; S < D.NStates; ++S) {
    const StateInfo &I = D.States[S];
    OS << "      s" << S << " [" << stateFlagNames(I.Flags)
       << "] need=" << symbolList(I.Need);
    if (I.NewPass)
      OS << " newpass=" << symbolList(I.NewPass);
    if (I.Named != NoSymbol)
      OS << " named=" << unsigned(I.Named);
    if (I.Early != NoSymbol)
      OS << " early=" << unsigned(I.Early);
    OS << " dist=" << unsigned(I.Dist) << ":";
    for (unsigned Sym = SymSite; Sym < D.NSymbols; ++Sym)
      if (D.next(S, Sym) != NoState)
        OS << " " << Sym << "->s" << D.next(S, Sym);
    OS << "\n";
  }
}

static void textOne(raw_ostream &OS, const Explained &X) {
  const Assertion &A = X.IsCompiled ? X.Compiled : X.Source;
  OS << kindName(A.Kind) << " " << A.Location << "\n";
  OS << "  text:     " << A.Text << "\n";
  if (A.Kind != AK_INLINE)
    OS << "  name:     " << A.Name << "(" << join(A.Params, ", ") << ")\n";
  if (A.Kind != AK_DEFINITION) {
    OS << "  locality: " << localityName(A.Locality) << "\n";
    OS << "  mode:     " << modeName(A.Mode) << "\n";
  }
  OS << "  captures:";
  if (A.Captures.empty())
    OS << " none";
  for (size_t I = 0; I < A.Captures.size(); ++I)
    OS << " #" << I << "=" << A.Captures[I];
  OS << "\n  free:    ";
  if (A.Free.empty())
    OS << " none";
  for (size_t I = 0; I < A.Free.size(); ++I)
    OS << " #" << I << "=" << A.Free[I];
  OS << "\n";
  textSymbols(OS, A);
  for (size_t Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
    const Automaton &Au = A.Alternatives[Alt];
    OS << "  alternative " << Alt << ": " << Au.Text << "\n";
    OS << "    pattern: " << render(Au.Pattern, A.Symbols) << "\n";
    if (!X.IsCompiled)
      continue;
    OS << "    engine:  " << engineName(A, Au) << "\n";
    textDfa(OS, A, Au.D);
  }
  if (!X.IsCompiled)
    OS << "  not compiled here: " << X.Why << "\n";
}

static std::string dotEscape(StringRef S) {
  std::string R;
  for (char C : S) {
    if (C == '"' || C == '\\')
      R += '\\';
    R += C;
  }
  return R;
}

static void dotAutomaton(raw_ostream &OS, const Assertion &A,
                         const Automaton &Au, const std::string &P) {
  const Dfa &D = Au.D;
  for (unsigned S = 0; S < D.NStates; ++S) {
    const StateInfo &I = D.States[S];
    OS << "    " << P << S << " [label=\"s" << S << "\\n["
       << stateFlagNames(I.Flags) << "]\"";
    if (I.Flags & SF_FINAL)
      OS << ", peripheries=2";
    if (I.Flags & SF_INITIAL)
      OS << ", style=bold";
    OS << "];\n";
  }
  for (unsigned S = 0; S < D.NStates; ++S)
    for (unsigned Sym = SymSite; Sym < D.NSymbols; ++Sym) {
      uint16_t T = D.next(S, Sym);
      if (T == NoState)
        continue;
      OS << "    " << P << S << " -> " << P << T << " [label=\"" << Sym
         << ": " << dotEscape(A.Symbols[Sym].Text) << "\"";
      if (Sym == SymSite)
        OS << ", color=orange, penwidth=2";
      OS << "];\n";
    }
}

static void explainDot(raw_ostream &OS, StringRef File,
                       const std::vector<Explained> &As) {
  OS << "digraph \"" << dotEscape(File) << "\" {\n";
  OS << "  node [shape=circle, fontname=\"monospace\"];\n";
  for (size_t AI = 0; AI < As.size(); ++AI) {
    if (!As[AI].IsCompiled)
      continue;
    const Assertion &A = As[AI].Compiled;
    for (size_t Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
      const Automaton &Au = A.Alternatives[Alt];
      std::string P = "a" + std::to_string(AI) + "_" + std::to_string(Alt) + "_";
      OS << "  subgraph cluster_" << AI << "_" << Alt << " {\n";
      OS << "    label=\"" << dotEscape(A.Location) << " alternative " << Alt
         << " (" << localityName(A.Locality) << ", " << modeName(A.Mode)
         << ", " << dotEscape(engineName(A, Au)) << ")\\n"
         << dotEscape(render(Au.Pattern, A.Symbols)) << "\";\n";
      dotAutomaton(OS, A, Au, P);
      OS << "  }\n";
    }
  }
  OS << "}\n";
}

static json::Value dfaJSON(const Assertion &A, const Automaton &Au) {
  json::Array States;
  for (unsigned S = 0; S < Au.D.NStates; ++S) {
    const StateInfo &I = Au.D.States[S];
    json::Object Next;
    for (unsigned Sym = SymSite; Sym < Au.D.NSymbols; ++Sym)
      if (Au.D.next(S, Sym) != NoState)
        Next[std::to_string(Sym)] = int64_t(Au.D.next(S, Sym));
    States.push_back(json::Object{
        {"flags", stateFlagNames(I.Flags)}, {"need", symbolList(I.Need)},
        {"newpass", symbolList(I.NewPass)},
        {"named", I.Named == NoSymbol ? -1 : int64_t(I.Named)},
        {"early", I.Early == NoSymbol ? -1 : int64_t(I.Early)},
        {"dist", int64_t(I.Dist)}, {"next", std::move(Next)}});
  }
  return json::Object{
      {"pattern", render(Au.Pattern, A.Symbols)},
      {"engine", engineName(A, Au)},
      {"post_start",
       Au.D.PostStart == NoState ? -1 : int64_t(Au.D.PostStart)},
      {"states", std::move(States)}};
}

static void explainJson(raw_ostream &OS, StringRef File,
                        const std::vector<Explained> &As) {
  json::Array Arr;
  for (const Explained &X : As) {
    json::Value V = toJSON(X.Source);
    json::Object &O = *V.getAsObject();
    O["compiled"] = X.IsCompiled;
    if (!X.IsCompiled)
      O["why"] = X.Why;
    json::Array Autos;
    for (const Automaton &Au : X.Compiled.Alternatives)
      if (X.IsCompiled)
        Autos.push_back(dfaJSON(X.Compiled, Au));
    O["automata"] = std::move(Autos);
    Arr.push_back(std::move(V));
  }
  json::Value V = json::Object{{"file", File}, {"assertions", std::move(Arr)}};
  OS << formatv("{0:2}", V) << "\n";
}

void explain(raw_ostream &OS, ExplainFormat F, StringRef File,
             const std::vector<Explained> &As) {
  switch (F) {
  case ExplainFormat::None:
    return;
  case ExplainFormat::Text:
    if (As.empty())
      OS << File << ": no assertions\n";
    for (size_t I = 0; I < As.size(); ++I) {
      if (I)
        OS << "\n";
      textOne(OS, As[I]);
    }
    return;
  case ExplainFormat::Dot:
    explainDot(OS, File, As);
    return;
  case ExplainFormat::Json:
    explainJson(OS, File, As);
    return;
  }
}

} // namespace vigil
