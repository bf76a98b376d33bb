//===- Explain.cpp - human/machine-readable dumps of assertions -----------===//
#include "Explain.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace vigil {

static std::string indexList(uint64_t M) {
  std::string S;
  for (unsigned I = 0; I < 64; ++I)
    if (M & (uint64_t(1) << I)) {
      if (!S.empty())
        S += ",";
      S += std::to_string(I);
    }
  return S.empty() ? "-" : S;
}

static std::string valueText(const Value &V) {
  std::string S = V.IsReturn ? "ret" : "arg" + std::to_string(V.ArgIndex);
  S += "=";
  switch (V.Kind) {
  case VAL_ANY:
    S += "any";
    break;
  case VAL_CONST:
    S += "const:" + std::to_string(V.Constant);
    break;
  case VAL_CAPTURE:
    S += "capture#" + std::to_string(V.Capture);
    break;
  }
  return S + "(" + V.Text + ")";
}

static void explainText(raw_ostream &OS, const std::vector<Assertion> &As) {
  bool First = true;
  for (const Assertion &A : As) {
    if (!First)
      OS << "\n";
    First = false;
    OS << "assertion " << A.Location << "\n";
    OS << "  text:     " << A.Text << "\n";
    OS << "  locality: " << localityName(A.Locality) << "\n";
    OS << "  mode:     " << modeName(A.Mode) << "\n";
    OS << "  captures:";
    if (A.Captures.empty())
      OS << " none";
    for (size_t I = 0; I < A.Captures.size(); ++I)
      OS << " #" << I << "=" << A.Captures[I];
    OS << "\n";
    for (size_t Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
      const Automaton &Au = A.Alternatives[Alt];
      OS << "  alternative " << Alt << ": " << Au.Text << "\n";
      OS << "    automaton: " << (Au.IsStatic ? "static" : "non-static")
         << ", " << Au.Events.size() << " events, site = event " << unsigned(Au.Site)
         << "\n";
      for (size_t I = 0; I < Au.Events.size(); ++I) {
        const Event &E = Au.Events[I];
        OS << "    [" << I << "] " << eventKindName(E.Kind);
        if (E.Kind == EV_START || E.Kind == EV_END)
          OS << " (at " << (E.AtReturn ? "return" : "call") << ")";
        if (!E.Function.empty())
          OS << " " << E.Function;
        OS << "  \"" << E.Text << "\"\n";
        if (!E.Values.empty()) {
          OS << "        values:";
          for (const Value &V : E.Values)
            OS << " " << valueText(V);
          OS << "\n";
        }
        std::vector<std::string> Flags = flagNames(E.Flags);
        if (E.ForceCallee)
          Flags.push_back("callee");
        OS << "        flags: " << (Flags.empty() ? "-" : join(Flags, ","))
           << "  successors: " << indexList(E.Successors);
        if (E.OrBlock)
          OS << "  or-block: " << indexList(E.OrBlock);
        OS << "\n";
      }
    }
  }
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

static void explainDot(raw_ostream &OS, StringRef File,
                       const std::vector<Assertion> &As) {
  OS << "digraph \"" << dotEscape(File) << "\" {\n";
  OS << "  node [shape=box, fontname=\"monospace\"];\n";
  for (size_t AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    for (size_t Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
      const Automaton &Au = A.Alternatives[Alt];
      std::string P = "a" + std::to_string(AI) + "_" + std::to_string(Alt) + "_";
      OS << "  subgraph cluster_" << AI << "_" << Alt << " {\n";
      OS << "    label=\"" << dotEscape(A.Location) << " alternative " << Alt
         << " (" << localityName(A.Locality) << ", " << modeName(A.Mode)
         << (Au.IsStatic ? ", static" : ", non-static") << ")\\n"
         << dotEscape(Au.Text) << "\";\n";
      for (size_t I = 0; I < Au.Events.size(); ++I) {
        const Event &E = Au.Events[I];
        std::vector<std::string> Flags = flagNames(E.Flags);
        OS << "    " << P << I << " [label=\"" << I << ": "
           << dotEscape(E.Text);
        if (!Flags.empty())
          OS << "\\n[" << join(Flags, ",") << "]";
        OS << "\"";
        if (E.Kind == EV_SITE)
          OS << ", style=filled, fillcolor=yellow, penwidth=2";
        else if (E.Kind == EV_START || E.Kind == EV_END)
          OS << ", shape=ellipse";
        else if (E.Flags & EF_OPTIONAL)
          OS << ", style=dashed";
        OS << "];\n";
      }
      for (size_t I = 0; I < Au.Events.size(); ++I)
        for (unsigned J = 0; J < 64; ++J)
          if (Au.Events[I].Successors & (uint64_t(1) << J)) {
            OS << "    " << P << I << " -> " << P << J;
            if (Au.Events[I].OrBlock & (uint64_t(1) << J))
              OS << " [style=dashed]";
            OS << ";\n";
          }
      OS << "  }\n";
    }
  }
  OS << "}\n";
}

static void explainJson(raw_ostream &OS, StringRef File,
                        const std::vector<Assertion> &As) {
  json::Array Arr;
  for (const Assertion &A : As)
    Arr.push_back(toJSON(A));
  json::Value V = json::Object{{"file", File}, {"assertions", std::move(Arr)}};
  OS << formatv("{0:2}", V) << "\n";
}

void explain(raw_ostream &OS, ExplainFormat F, StringRef File,
             const std::vector<Assertion> &As) {
  switch (F) {
  case ExplainFormat::None:
    return;
  case ExplainFormat::Text:
    if (As.empty())
      OS << File << ": no assertions\n";
    explainText(OS, As);
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
