//===- Assertion.cpp - resolving named automata and compiling alternatives ===//
#include "Assertion.h"

#include <algorithm>

namespace vigil {

int Assertion::addSymbol(const Event &E) {
  for (size_t I = 0; I < Symbols.size(); ++I)
    if (Symbols[I].Kind == E.Kind && Symbols[I].sameAs(E))
      return int(I);
  if (Symbols.size() >= MaxSymbols)
    return -1;
  Symbols.push_back(E);
  return int(Symbols.size()) - 1;
}

const char *kindName(uint8_t K) {
  switch (K) {
  case AK_DEFINITION: return "automaton";
  case AK_STRUCT: return "struct-automaton";
  default: return "assertion";
  }
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

namespace {

/// Rewrites a definition's value into the caller's terms.
Value substitute(const Value &V, const std::vector<Value> &Args,
                 unsigned FreeBase) {
  Value R = V;
  if (V.Kind == VAL_PARAM && V.Index < Args.size()) {
    const Value &A = Args[V.Index];
    R.Kind = A.Kind;
    R.Index = A.Index;
    R.Constant = A.Constant;
  } else if (V.Kind == VAL_FREE) {
    R.Index = uint8_t(V.Index + FreeBase);
  }
  return R;
}

class Resolver {
public:
  Resolver(Assertion &A, const Definitions &Defs, std::string &Err)
      : A(A), Defs(Defs), Err(Err) {}
  bool node(Node &N);

private:
  Assertion &A;
  const Definitions &Defs;
  std::string &Err;
  std::vector<std::string> Stack;

  bool inlineSub(Node &N);
};

bool Resolver::inlineSub(Node &N) {
  auto It = Defs.find(N.Name);
  if (It == Defs.end() || It->second.Alternatives.empty()) {
    Err = "automaton '" + N.Name + "' is not defined";
    return false;
  }
  if (std::find(Stack.begin(), Stack.end(), N.Name) != Stack.end()) {
    Err = "automaton '" + N.Name + "' refers to itself";
    return false;
  }
  const Assertion &Def = It->second;
  if (N.Args.size() != Def.Params.size()) {
    Err = "automaton '" + N.Name + "' takes " + std::to_string(Def.Params.size()) +
          " argument(s), " + std::to_string(N.Args.size()) + " given";
    return false;
  }
  unsigned FreeBase = unsigned(A.Free.size());
  for (const std::string &F : Def.Free)
    A.Free.push_back(N.Name + "." + F);
  if (A.Free.size() > MaxFree) {
    Err = "more than " + std::to_string(MaxFree) + " free variables";
    return false;
  }
  std::vector<unsigned> Map(Def.Symbols.size(), 0);
  for (size_t I = 0; I < Def.Symbols.size(); ++I) {
    Event E = Def.Symbols[I];
    if (E.Kind == EV_START || E.Kind == EV_END || E.Kind == EV_SITE) {
      Map[I] = unsigned(I);
      continue;
    }
    for (Value &V : E.Values)
      V = substitute(V, N.Args, FreeBase);
    int S = A.addSymbol(E);
    if (S < 0) {
      Err = "more than " + std::to_string(MaxSymbols) + " distinct events";
      return false;
    }
    Map[I] = unsigned(S);
  }
  Node Body = Def.Alternatives[0].Pattern;
  std::vector<Node *> Work{&Body};
  while (!Work.empty()) {
    Node *X = Work.back();
    Work.pop_back();
    if (X->K == Node::Sym && X->Symbol < Map.size())
      X->Symbol = Map[X->Symbol];
    if (X->K == Node::Sub)
      for (Value &V : X->Args)
        V = substitute(V, N.Args, FreeBase);
    for (Node &K : X->Kids)
      Work.push_back(&K);
  }
  Stack.push_back(N.Name);
  bool OK = node(Body);
  Stack.pop_back();
  if (OK)
    N = std::move(Body);
  return OK;
}

bool Resolver::node(Node &N) {
  if (N.K == Node::Sub)
    return inlineSub(N);
  for (Node &K : N.Kids)
    if (!node(K))
      return false;
  return true;
}

} // namespace

bool resolve(Assertion &A, const Definitions &Defs, std::string &Err) {
  Resolver R(A, Defs, Err);
  for (Automaton &Au : A.Alternatives)
    if (!R.node(Au.Pattern))
      return false;
  return true;
}

bool compile(Assertion &A, std::string &Err) {
  for (Automaton &Au : A.Alternatives) {
    Au.Pattern = flatten(Au.Pattern);
    if (containsSub(Au.Pattern)) {
      Err = "an automaton reference is not resolved";
      return false;
    }
    Node Pre, Post;
    if (!splitAtSite(Au.Pattern, Pre, Post)) {
      Err = "TESLA_ASSERTION_SITE must appear exactly once, in the top-level "
            "sequence";
      return false;
    }
    if (!compileDfa(Au.Pattern, unsigned(A.Symbols.size()), A.Mode, Au.D, Err))
      return false;
    Au.PreSyms = symbolsOf(Pre);
    Au.PostSyms = symbolsOf(Post);
    Au.Alphabet = Au.PreSyms | Au.PostSyms | (uint64_t(1) << SymSite);
    bool Forward = true, Free = false, Key = false, Tags = true;
    for (unsigned S = 0; S < A.Symbols.size() && S < 64; ++S) {
      if (!((Au.Alphabet >> S) & 1))
        continue;
      const Event &E = A.Symbols[S];
      Free |= E.hasKind(VAL_FREE);
      Key |= E.hasKind(VAL_KEY);
      if ((Au.PreSyms >> S) & 1) {
        if (!E.isStatic())
          Forward = false;
        if (multiplicity(Pre, S) > 1)
          Tags = false;
      }
    }
    Au.Flags = 0;
    if (Forward)
      Au.Flags |= AF_FORWARD;
    if (Free)
      Au.Flags |= AF_FREE;
    if (!Forward && !Free && Tags)
      Au.Flags |= AF_TAGS;
    // Per-thread: inlined by the pass; global: the same table step taken
    // in the runtime under the group's lock (runtime/shortcut.c).
    if (Forward && !Free && !Key && A.Kind == AK_INLINE &&
        Au.D.NStates <= FastMaxStates)
      Au.Flags |= AF_FAST;
  }
  return true;
}

bool instantiateStruct(const Assertion &Usage, const Definitions &Defs,
                       Assertion &Out, std::string &Err) {
  Out = Assertion();
  Out.Kind = AK_STRUCT;
  Out.Location = Usage.Location;
  Out.Text = Usage.Text;
  Out.Locality = Usage.Locality;
  Out.Mode = MODE_STRICT;
  Out.Name = Usage.Name;
  Out.Params = Usage.Params;
  Out.Symbols = Usage.Symbols;
  for (Event &E : Out.Symbols)
    for (Value &V : E.Values)
      if (V.Kind == VAL_PARAM)
        V.Kind = VAL_KEY;
  Node Use;
  Use.K = Node::Sub;
  Use.Name = Usage.Name;
  Value Key;
  Key.Kind = VAL_KEY;
  Key.Text = Usage.Params.empty() ? "" : Usage.Params[0];
  Use.Args.push_back(Key);
  Automaton Au;
  Au.Text = Usage.Name + "(" + Key.Text + ")";
  Au.Pattern = Node::seq({Node::site(), Use});
  Out.Alternatives.push_back(Au);
  return resolve(Out, Defs, Err) && compile(Out, Err);
}

} // namespace vigil
