//===- oracle.cpp - the semantics of docs/engine.md, by brute force -------===//
#include "oracle.h"

#include <algorithm>
#include <random>

using namespace vigil;

namespace {

using Word = std::vector<int>;

bool match(const Node &N, const Word &W, size_t I, size_t J);
bool prefix(const Node &N, const Word &W, size_t I, size_t J);

bool matchSeq(const std::vector<Node> &K, size_t At, const Word &W, size_t I, size_t J) {
  if (At == K.size())
    return I == J;
  for (size_t M = I; M <= J; ++M)
    if (match(K[At], W, I, M) && matchSeq(K, At + 1, W, M, J))
      return true;
  return false;
}

bool nullableSeq(const std::vector<Node> &K) {
  Word E;
  return matchSeq(K, 0, E, 0, 0);
}

bool matchRepeat(const Node &N, const Word &W, size_t I, size_t J, unsigned Count) {
  if (I == J)
    return Count >= N.Min || nullableSeq(N.Kids);
  if (N.Max != Unbounded && Count >= N.Max)
    return false;
  for (size_t M = I + 1; M <= J; ++M)
    if (matchSeq(N.Kids, 0, W, I, M) && matchRepeat(N, W, M, J, Count + 1))
      return true;
  return false;
}

/// Inclusive OR: every position goes to one member; each used member's
/// positions form a word of it (Prefix: a prefix of one); with no position
/// used, some member must be empty-able (Prefix: always).
bool assignOr(const Node &N, const Word &W, size_t I, size_t J, bool Prefix,
              std::vector<Word> &Parts, size_t At) {
  if (At == J) {
    bool Used = false, Empty = false;
    for (size_t K = 0; K < N.Kids.size(); ++K) {
      if (Parts[K].empty()) {
        Word E;
        Empty |= match(N.Kids[K], E, 0, 0);
        continue;
      }
      Used = true;
      bool OK = Prefix ? prefix(N.Kids[K], Parts[K], 0, Parts[K].size())
                       : match(N.Kids[K], Parts[K], 0, Parts[K].size());
      if (!OK)
        return false;
    }
    return Prefix || Used || Empty;
  }
  for (size_t K = 0; K < N.Kids.size(); ++K) {
    Parts[K].push_back(W[At]);
    bool OK = (!Prefix || prefix(N.Kids[K], Parts[K], 0, Parts[K].size())) &&
              assignOr(N, W, I, J, Prefix, Parts, At + 1);
    Parts[K].pop_back();
    if (OK)
      return true;
  }
  return false;
}

bool match(const Node &N, const Word &W, size_t I, size_t J) {
  switch (N.K) {
  case Node::Sym:
    return J == I + 1 && W[I] == int(N.Symbol);
  case Node::Xor:
    for (const Node &K : N.Kids)
      if (match(K, W, I, J))
        return true;
    return false;
  case Node::Repeat:
    return matchRepeat(N, W, I, J, 0);
  case Node::Or: {
    std::vector<Word> Parts(N.Kids.size());
    return assignOr(N, W, I, J, false, Parts, I);
  }
  default:
    return matchSeq(N.Kids, 0, W, I, J);
  }
}

bool prefixSeq(const std::vector<Node> &K, size_t At, const Word &W, size_t I, size_t J) {
  if (I == J)
    return true;
  if (At == K.size())
    return false;
  if (prefix(K[At], W, I, J))
    return true;
  for (size_t M = I; M < J; ++M)
    if (match(K[At], W, I, M) && prefixSeq(K, At + 1, W, M, J))
      return true;
  return false;
}

bool prefixRepeat(const Node &N, const Word &W, size_t I, size_t J, unsigned Count) {
  if (I == J)
    return true;
  if (N.Max != Unbounded && Count >= N.Max)
    return false;
  if (prefixSeq(N.Kids, 0, W, I, J))
    return true;
  for (size_t M = I + 1; M < J; ++M)
    if (matchSeq(N.Kids, 0, W, I, M) && prefixRepeat(N, W, M, J, Count + 1))
      return true;
  return false;
}

bool prefix(const Node &N, const Word &W, size_t I, size_t J) {
  if (I == J)
    return true;
  switch (N.K) {
  case Node::Sym:
    return J == I + 1 && W[I] == int(N.Symbol);
  case Node::Xor:
    for (const Node &K : N.Kids)
      if (prefix(K, W, I, J))
        return true;
    return false;
  case Node::Repeat:
    return prefixRepeat(N, W, I, J, 0);
  case Node::Or: {
    std::vector<Word> Parts(N.Kids.size());
    return assignOr(N, W, I, J, true, Parts, I);
  }
  default:
    return prefixSeq(N.Kids, 0, W, I, J);
  }
}

bool in(const Node &N, const Word &W) { return match(N, W, 0, W.size()); }
bool viable(const Node &N, const Word &W) { return prefix(N, W, 0, W.size()); }
bool has(uint64_t M, int S) { return S >= 0 && (M >> S) & 1; }

struct Alt {
  Node Pre, Post;
  uint64_t PreS = 0, PostS = 0, PostOnly = 0, Alphabet = 0;
  bool PreNullable = false;
};

Alt split(const Automaton &Au) {
  Alt A;
  splitAtSite(flatten(Au.Pattern), A.Pre, A.Post);
  A.PreS = symbolsOf(A.Pre);
  A.PostS = symbolsOf(A.Post);
  A.PostOnly = A.PostS & ~A.PreS;
  A.Alphabet = A.PreS | A.PostS | (uint64_t(1) << SymSite);
  A.PreNullable = in(A.Pre, Word());
  return A;
}

/// Phase 1 at the site W[P], the window having begun at WS: an attempt
/// begins at any Pre event (or, Pre being nullable, is the empty one after
/// the last Pre event); every Pre event after its start must continue it,
/// a Post-only one taints it.  "" pass, "early", "before".
std::string site(const Alt &A, const Word &W, size_t WS, size_t P) {
  bool Clean = false, Tainted = false;
  for (size_t K = WS; K < P; ++K) {
    if (!has(A.PreS, W[K]))
      continue;
    Word Sub;
    bool Taint = false;
    for (size_t M = K; M < P; ++M) {
      if (has(A.PreS, W[M]))
        Sub.push_back(W[M]);
      else if (has(A.PostOnly, W[M]))
        Taint = true;
    }
    if (in(A.Pre, Sub))
      (Taint ? Tainted : Clean) = true;
  }
  if (A.PreNullable) {
    size_t K0 = WS;
    for (size_t K = WS; K < P; ++K)
      if (has(A.PreS, W[K]))
        K0 = K + 1;
    bool Taint = false;
    for (size_t M = K0; M < P; ++M)
      Taint |= has(A.PostOnly, W[M]);
    (Taint ? Tainted : Clean) = true;
  }
  return Clean ? "" : Tainted ? "early" : "before";
}

std::string guideline(const Alt &A, const Word &W, bool Conditional) {
  int Phase = 1;
  size_t WS = 0;
  Word P;
  bool Done = false;
  for (size_t I = 0; I < W.size() && !Done; ++I) {
    int E = W[I];
    if (Phase == 1) {
      if (E != int(SymSite))
        continue;
      std::string R = site(A, W, WS, I);
      if (R == "early")
        return "event-before-site";
      if (!R.empty())
        return R;
      Phase = 2;
      P.clear();
      Done = !Conditional && in(A.Post, P);
      continue;
    }
    bool Final = in(A.Post, P);
    if (E == int(SymSite)) {
      if (Conditional && Final && !A.PreNullable)
        return "before"; // a new pass: its window is empty
      if (Conditional && Final)
        P.clear();
      continue; // reached again: what is pending stays pending
    }
    Word Q = P;
    Q.push_back(E);
    if (has(A.PostS, E) && viable(A.Post, Q)) {
      P = Q;
      Done = !Conditional && in(A.Post, P);
      continue;
    }
    if (Conditional && Final && has(A.PreS, E)) {
      Phase = 1; // a new pass: the window begins with this event
      WS = I;
      continue;
    }
    if (has(A.PostS, E))
      return "wrong-order";
    // a Pre-only event after the site: ignored
  }
  if (Phase == 2 && !Done && !in(A.Post, P))
    return "missing-after-site";
  return "";
}

std::string strict(const Alt &A, const Word &W) {
  int Phase = 1;
  Word Sub, P;
  for (int E : W) {
    if (Phase == 1) {
      if (E == int(SymSite)) {
        if (!in(A.Pre, Sub))
          return "before";
        Phase = 2;
        continue;
      }
      Word Q = Sub;
      Q.push_back(E);
      if (!has(A.PreS, E) || !viable(A.Pre, Q))
        return "unexpected-event";
      Sub = Q;
      continue;
    }
    Word Q = P;
    Q.push_back(E);
    if (E == int(SymSite) || !has(A.PostS, E) || !viable(A.Post, Q))
      return "unexpected-event";
    P = Q;
  }
  if (Phase == 2 && !in(A.Post, P))
    return "missing-after-site";
  if (Phase == 1 && !Sub.empty())
    return "site-not-reached";
  return "";
}

} // namespace

Oracle::Oracle(const Assertion &M, Variant V) : M(M), V(V) {
  // the variant's slot is the first value of the symbols it marked
  for (size_t S = 3; S < M.Symbols.size(); ++S)
    for (const Value &X : M.Symbols[S].Values)
      if ((X.Kind == VAL_CAPTURE && X.Text == "k") || (X.Kind == VAL_FREE && X.Text == "x"))
        Marked |= uint64_t(1) << S;
}

std::string Oracle::alternative(unsigned I, const Word &W0) const {
  Alt A = split(M.Alternatives[I]);
  Word W;
  for (int E : W0)
    if (has(A.Alphabet, E))
      W.push_back(E);
  if (M.Mode == MODE_STRICT)
    return strict(A, W);
  return guideline(A, W, M.Mode == MODE_CONDITIONAL);
}

/// The site captures 7: events carrying 8 are other values' events.  In
/// strict mode a bound without the site has no tuple: the verdict is that
/// of the first value carried (by an event of the alternative) that fails.
std::string Oracle::tupled(unsigned I, const std::vector<std::pair<int, int>> &Events) const {
  uint64_t Alphabet = M.Alternatives[I].Alphabet;
  bool Site = false;
  std::vector<int> Values;
  for (auto [S, Val] : Events) {
    if (!has(Alphabet, S))
      continue;
    Site |= S == int(SymSite);
    if (Val >= 0 && std::find(Values.begin(), Values.end(), Val) == Values.end())
      Values.push_back(Val);
  }
  if (M.Mode != MODE_STRICT || Site || Values.empty())
    Values = {7};
  for (int V : Values) {
    Word W;
    for (auto [S, Val] : Events)
      if (Val < 0 || Val == V)
        W.push_back(S);
    std::string R = alternative(I, W);
    if (!R.empty())
      return R;
  }
  return "";
}

/// Events: (symbol, value of the variant's slot or -1).
std::string Oracle::bound(const std::vector<std::pair<int, int>> &Events) const {
  unsigned Failed = 0;
  std::string First;
  for (unsigned I = 0; I < M.Alternatives.size(); ++I) {
    std::string R;
    if (V == V_FREE) {
      // existential: some value of x (or none seen) passes
      R = "fail";
      for (int Bind : {7, 8, -2}) {
        Word W;
        for (auto [S, Val] : Events)
          if (Val < 0 || Val == Bind)
            W.push_back(S);
        if (alternative(I, W).empty())
          R = "";
      }
    } else {
      R = tupled(I, Events);
    }
    if (!R.empty()) {
      ++Failed;
      if (First.empty())
        First = R;
    }
  }
  if (Failed < M.Alternatives.size())
    return "";
  return M.Alternatives.size() > 1 ? "no-alternative-held" : First;
}

std::vector<std::string> Oracle::run(const std::vector<Tok> &Trace) const {
  std::vector<std::string> Out;
  std::vector<std::pair<int, int>> Events;
  unsigned Depth = 0;
  for (const Tok &T : Trace) {
    if (T.Kind == Tok::Enter) {
      if (Depth++ == 0)
        Events.clear();
      continue;
    }
    if (T.Kind == Tok::Exit) {
      if (Depth > 0 && --Depth == 0) {
        std::string R = bound(Events);
        if (!R.empty())
          Out.push_back(R);
      }
      continue;
    }
    if (Depth == 0)
      continue;
    if (T.Kind == Tok::Site) {
      Events.push_back({int(SymSite), -1});
      continue;
    }
    for (size_t S = 3; S < M.Symbols.size(); ++S)
      if (M.Symbols[S].Function == T.Name)
        Events.push_back({int(S), has(Marked, int(S)) ? (T.Noise ? 8 : 7) : -1});
  }
  return Out;
}

bool Oracle::agrees(const std::vector<std::string> &Got,
                    const std::vector<std::string> &Want) const {
  if (Got.size() != Want.size())
    return false;
  for (size_t I = 0; I < Got.size(); ++I) {
    if (Want[I] == "fail")
      continue;
    if (Want[I] == "before" ? Got[I] != "missing-before-site" && Got[I] != "wrong-order"
                            : Got[I] != Want[I])
      return false;
  }
  return true;
}

/// One tuple's check over a bound's events (symbol, slot value or -1, and
/// for sites the tuple).  Before the tuple's first site its check is the
/// replay of what was recorded: Pre events always, Post-only ones only
/// before the bound's first site (of any tuple); from there on it follows
/// every event of its own values.
static std::string keyedTuple(const Alt &A, const std::vector<std::pair<int, int>> &Ev,
                              int V) {
  size_t First = Ev.size(), Mine = Ev.size();
  for (size_t I = 0; I < Ev.size(); ++I)
    if (Ev[I].first == int(SymSite)) {
      First = std::min(First, I);
      if (Ev[I].second == V && Mine == Ev.size())
        Mine = I;
    }
  Word W;
  for (size_t I = 0; I < Ev.size(); ++I) {
    auto [S, Val] = Ev[I];
    if (!has(A.Alphabet, S) || (Val >= 0 && Val != V))
      continue;
    if (I < Mine && S != int(SymSite) && !has(A.PreS, S) && I > First)
      continue; // a Post-only event after the first site: not recorded
    W.push_back(S);
  }
  return guideline(A, W, false);
}

std::vector<std::string> Oracle::keyed(const std::vector<Tok> &Trace) const {
  std::vector<std::string> Out;
  std::vector<std::pair<int, int>> Ev;
  Alt A = split(M.Alternatives[0]);
  unsigned Depth = 0;
  for (const Tok &T : Trace) {
    if (T.Kind == Tok::Enter) {
      if (Depth++ == 0)
        Ev.clear();
      continue;
    }
    if (T.Kind == Tok::Exit) {
      if (Depth > 0 && --Depth == 0) {
        std::vector<int> Tuples;
        for (auto [S, Val] : Ev)
          if (S == int(SymSite) && std::find(Tuples.begin(), Tuples.end(), Val) == Tuples.end())
            Tuples.push_back(Val);
        for (int V : Tuples) {
          std::string R = keyedTuple(A, Ev, V);
          if (R == "early")
            R = "event-before-site";
          if (!R.empty())
            Out.push_back(R);
        }
      }
      continue;
    }
    if (Depth == 0)
      continue;
    if (T.Kind == Tok::Site) {
      Ev.push_back({int(SymSite), T.Noise && !M.Captures.empty() ? 8 : 7});
      continue;
    }
    for (size_t S = 3; S < M.Symbols.size(); ++S)
      if (M.Symbols[S].Function == T.Name)
        Ev.push_back({int(S), has(Marked, int(S)) ? (T.Noise ? 8 : 7) : -1});
  }
  return Out;
}

bool Oracle::agreesAsSets(std::vector<std::string> Got, std::vector<std::string> Want) const {
  if (Got.size() != Want.size())
    return false;
  // exact reasons first, then "before" takes either of its two
  std::partition(Want.begin(), Want.end(), [](auto &W) { return W != "before"; });
  for (const std::string &W : Want) {
    auto It = std::find_if(Got.begin(), Got.end(), [&](const std::string &G) {
      return W == "before" ? G == "missing-before-site" || G == "wrong-order" : G == W;
    });
    if (It == Got.end())
      return false;
    Got.erase(It);
  }
  return true;
}

// ---- random cases -------------------------------------------------------------
namespace {

struct Gen {
  std::mt19937_64 R;
  explicit Gen(uint64_t Seed) : R(Seed) {}
  unsigned below(unsigned N) { return unsigned(R() % N); }
  bool chance(unsigned Percent) { return below(100) < Percent; }

  std::string sym(unsigned N) { return std::string(1, char('A' + below(N))); }

  std::string item(unsigned N) {
    unsigned K = below(100);
    if (K < 45)
      return sym(N);
    if (K < 57)
      return sym(N) + "?";
    if (K < 64)
      return sym(N) + (chance(50) ? "*" : "+");
    if (K < 70)
      return sym(N) + "{" + std::to_string(1 + below(2)) + "," + std::to_string(2 + below(2)) +
             "}";
    if (K < 80)
      return "(" + sym(N) + "|" + sym(N) + ")";
    if (K < 90)
      return "<" + sym(N) + "|" + sym(N) + " " + sym(N) + ">";
    std::string G = "[" + sym(N) + " " + sym(N) + "]";
    return G + (chance(50) ? "?" : "{1,2}");
  }

  std::string alternative(unsigned N) {
    unsigned Items = 1 + below(3);
    unsigned At = below(Items + 1);
    std::string P;
    for (unsigned I = 0; I <= Items; ++I) {
      if (I == At)
        P += (P.empty() ? "" : " ") + std::string("S");
      if (I < Items)
        P += (P.empty() ? "" : " ") + item(N);
    }
    return P;
  }

  bool Keyed = false;
  std::string trace(unsigned N) {
    std::string T;
    unsigned Bounds = 1 + (chance(20) ? 1 : 0);
    for (unsigned B = 0; B < Bounds; ++B) {
      T += "[";
      unsigned Len = below(8);
      for (unsigned I = 0; I < Len; ++I) {
        unsigned K = below(100);
        if (K < 22)
          T += Keyed && chance(50) ? " S~" : " S";
        else if (K < 27)
          T += " E"; // not a symbol of the pattern
        else
          T += " " + sym(N) + (chance(15) ? "~" : "");
      }
      T += " ]";
    }
    return T;
  }
};

} // namespace

PropertyStats runProperty(unsigned N, uint64_t Seed,
                          const std::function<void(const PropertyCase &)> &F, bool Keyed) {
  Gen G(Seed);
  G.Keyed = Keyed;
  PropertyStats S;
  for (unsigned I = 0; I < N; ++I) {
    PropertyCase C;
    unsigned Syms = 2 + G.below(3);
    C.Pattern = G.alternative(Syms);
    if (!Keyed && G.chance(15))
      C.Pattern += " # " + G.alternative(Syms);
    unsigned M = G.below(100);
    C.Mode = Keyed ? MODE_GUIDELINE
                   : M < 45 ? MODE_GUIDELINE : M < 75 ? MODE_CONDITIONAL : MODE_STRICT;
    C.Trace = G.trace(Syms);
    F(C);
  }
  return S;
}
