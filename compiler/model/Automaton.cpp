//===- Automaton.cpp - subset construction with the assertion semantics ---===//
//
// A DFA state is a set of *attempts* (threads): NFA states of Pre (phase 1)
// or Post (phase 2).  In phase 1 each attempt also remembers the first Post
// event that tainted it, and the window's own start thread (from which a
// new attempt may begin at every Pre event) is kept apart, with its taint.
// Automaton.h states the rules; the comments below say where each one is.
//
//===----------------------------------------------------------------------===//
#include "Automaton.h"
#include "Nfa.h"

#include <algorithm>
#include <climits>
#include <deque>
#include <map>
#include <tuple>

namespace vigil {

bool StateInfo::operator<(const StateInfo &O) const {
  return std::tie(Need, NewPass, Flags, Named, Early, Dist) <
         std::tie(O.Need, O.NewPass, O.Flags, O.Named, O.Early, O.Dist);
}

bool StateInfo::operator==(const StateInfo &O) const {
  return !(*this < O) && !(O < *this);
}

namespace {

struct Threads {
  uint8_t Phase = 1;
  bool HasStart = false; // phase 1, not strict: the window's start thread
  int StartTaint = -1;   // -1: clean, else the tainting symbol
  std::vector<std::pair<int, int>> T; // (NFA state, taint or -1), sorted

  bool operator<(const Threads &O) const {
    return std::tie(Phase, HasStart, StartTaint, T) <
           std::tie(O.Phase, O.HasStart, O.StartTaint, O.T);
  }
  bool operator==(const Threads &O) const {
    return !(*this < O) && !(O < *this);
  }
};

bool has(uint64_t Mask, int S) { return S >= 0 && S < 64 && (Mask >> S) & 1; }

class Compiler {
public:
  Compiler(unsigned NSym, uint8_t Mode) : NSym(NSym), Mode(Mode) {}
  bool run(const Node &Pattern, Dfa &Out, std::string &Err);

private:
  const unsigned NSym;
  const uint8_t Mode;
  Nfa A{MaxNfaStates};
  Fragment Pre, Post;
  uint64_t PreSyms = 0, PostSyms = 0, PostOnly = 0, Alphabet = 0;
  bool PreNullable = false;
  std::vector<std::vector<int>> Clo;
  std::vector<unsigned> Dist;
  std::vector<int> First;
  std::vector<int> StartClo;

  std::map<Threads, int> Ids;
  std::vector<Threads> States;
  std::vector<std::vector<uint16_t>> Next;

  bool strict() const { return Mode == MODE_STRICT; }
  Threads initial() const;
  Threads phase2Start() const;
  void normalise(Threads &X) const;
  void advance(int From, int Sym, int Taint, Threads &Y) const;
  Threads stepPre(const Threads &X, int S) const;
  bool siteOk(const Threads &X) const;
  bool stepPost(const Threads &X, int S, Threads &Y, bool &Dead) const;
  bool step(const Threads &X, int S, Threads &Y, bool &Dead) const;
  int id(const Threads &X);
  void distances(int Accept);
  StateInfo annotate(const Threads &X) const;
  uint64_t movable(const std::vector<int> &Qs) const;
  void best(const std::vector<int> &Qs, StateInfo &I) const;
};

Threads Compiler::initial() const {
  Threads X;
  if (strict()) {
    for (int Q : StartClo)
      X.T.push_back({Q, -1});
  } else {
    X.HasStart = true;
  }
  return X;
}

Threads Compiler::phase2Start() const {
  Threads X;
  X.Phase = 2;
  for (int Q : Clo[Post.Start])
    X.T.push_back({Q, -1});
  return X;
}

/// Sorted; of two attempts at one NFA state the cleaner survives.
void Compiler::normalise(Threads &X) const {
  std::sort(X.T.begin(), X.T.end());
  X.T.erase(std::unique(X.T.begin(), X.T.end(),
                        [](auto &L, auto &R) { return L.first == R.first; }),
            X.T.end());
}

void Compiler::advance(int From, int Sym, int Taint, Threads &Y) const {
  for (auto [S, T] : A.Out[From])
    if (S == Sym)
      for (int U : Clo[T])
        Y.T.push_back({U, Taint});
}

Threads Compiler::stepPre(const Threads &X, int S) const {
  Threads Y;
  Y.HasStart = X.HasStart;
  Y.StartTaint = X.StartTaint;
  for (auto [Q, Taint] : X.T) {
    size_t Before = Y.T.size();
    advance(Q, S, Taint, Y);
    // A Post event that does not continue an attempt taints it; any other
    // pattern event ends it.
    if (Y.T.size() == Before && !strict() && has(PostOnly, S))
      Y.T.push_back({Q, Taint < 0 ? S : Taint});
  }
  if (X.HasStart) {
    // A new attempt may begin here; it is clean whatever came before.
    for (int Q : StartClo)
      advance(Q, S, -1, Y);
    if (has(PreSyms, S))
      Y.StartTaint = -1;
    else if (has(PostOnly, S) && PreNullable && Y.StartTaint < 0)
      Y.StartTaint = S; // the empty attempt is the window itself
  }
  normalise(Y);
  return Y;
}

bool Compiler::siteOk(const Threads &X) const {
  if (X.HasStart && X.StartTaint < 0 && PreNullable)
    return true;
  for (auto [Q, Taint] : X.T)
    if (Q == Pre.Accept && Taint < 0)
      return true;
  return false;
}

bool Compiler::stepPost(const Threads &X, int S, Threads &Y, bool &Dead) const {
  bool Final = false;
  for (auto [Q, Taint] : X.T)
    Final |= Q == Post.Accept;
  bool NewPass = Final && Mode == MODE_CONDITIONAL;
  if (S == int(SymSite)) {
    if (strict())
      return Dead = true, true;
    if (NewPass) {
      if (!siteOk(initial()))
        return Dead = true, true;
      Y = phase2Start();
      return true;
    }
    Y = X; // reached again: what is pending stays pending
    return true;
  }
  Y = Threads();
  Y.Phase = 2;
  for (auto [Q, Taint] : X.T)
    advance(Q, S, -1, Y);
  normalise(Y);
  if (!Y.T.empty())
    return true;
  if (strict())
    return Dead = true, true;
  if (NewPass && has(PreSyms, S)) {
    Y = stepPre(initial(), S);
    return true;
  }
  if (has(PostSyms, S))
    return Dead = true, true; // wrong order
  Y = X;                      // a Pre event after the site: ignored
  return true;
}

bool Compiler::step(const Threads &X, int S, Threads &Y, bool &Dead) const {
  Dead = false;
  if (!has(Alphabet, S) || S == int(SymStart) || S == int(SymEnd)) {
    Y = X;
    return true;
  }
  if (X.Phase == 2)
    return stepPost(X, S, Y, Dead);
  if (S == int(SymSite)) {
    if (!siteOk(X))
      return Dead = true, true;
    Y = phase2Start();
    return true;
  }
  Y = stepPre(X, S);
  if (strict() && Y.T.empty())
    Dead = true;
  return true;
}

int Compiler::id(const Threads &X) {
  auto [It, New] = Ids.emplace(X, int(States.size()));
  if (New)
    States.push_back(X);
  return It->second;
}

/// Fewest symbols from each NFA state to Accept (0-1 BFS on the reversed
/// graph), and the first symbol on such a path (the smallest on ties).
void Compiler::distances(int Accept) {
  std::vector<std::vector<std::pair<int, int>>> Rev(A.Out.size());
  for (size_t Q = 0; Q < A.Out.size(); ++Q)
    for (auto [S, T] : A.Out[Q])
      Rev[T].push_back({S, int(Q)});
  std::deque<int> Work{Accept};
  Dist[Accept] = 0;
  std::vector<int> Order;
  std::vector<char> Done(A.Out.size(), 0);
  while (!Work.empty()) {
    int T = Work.front();
    Work.pop_front();
    if (Done[T])
      continue;
    Done[T] = 1;
    Order.push_back(T);
    for (auto [S, Q] : Rev[T]) {
      unsigned D = Dist[T] + (S == Eps ? 0 : 1);
      if (D < Dist[Q]) {
        Dist[Q] = D;
        S == Eps ? Work.push_front(Q) : Work.push_back(Q);
      }
    }
  }
  // First symbols, level by level (epsilon edges inside a level settle by
  // iteration: levels are small).
  for (size_t I = 0; I < Order.size();) {
    size_t J = I;
    while (J < Order.size() && Dist[Order[J]] == Dist[Order[I]])
      ++J;
    for (size_t K = I; K < J; ++K) {
      int Q = Order[K];
      for (auto [S, T] : A.Out[Q])
        if (S != Eps && Dist[T] + 1 == Dist[Q])
          First[Q] = First[Q] < 0 ? S : std::min(First[Q], S);
    }
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (size_t K = I; K < J; ++K) {
        int Q = Order[K];
        for (auto [S, T] : A.Out[Q])
          if (S == Eps && Dist[T] == Dist[Q] && First[T] >= 0 &&
              (First[Q] < 0 || First[T] < First[Q])) {
            First[Q] = First[T];
            Changed = true;
          }
      }
    }
    I = J;
  }
}

uint64_t Compiler::movable(const std::vector<int> &Qs) const {
  uint64_t M = 0;
  for (int Q : Qs)
    for (auto [S, T] : A.Out[Q])
      if (S >= 0 && S < 64)
        M |= uint64_t(1) << S;
  return M;
}

/// Dist and Named from the attempt closest to the end of its phase.
void Compiler::best(const std::vector<int> &Qs, StateInfo &I) const {
  unsigned D = UINT_MAX;
  int Named = -1;
  for (int Q : Qs)
    if (Dist[Q] < D || (Dist[Q] == D && First[Q] >= 0 &&
                        (Named < 0 || First[Q] < Named))) {
      D = Dist[Q];
      Named = First[Q];
    }
  I.Dist = uint8_t(std::min(D, 254u));
  I.Named = Named >= 0 ? uint8_t(Named) : NoSymbol;
}

StateInfo Compiler::annotate(const Threads &X) const {
  StateInfo I;
  std::vector<int> Clean;
  for (auto [Q, Taint] : X.T)
    if (Taint < 0)
      Clean.push_back(Q);
  if (X.Phase == 2) {
    I.Flags = SF_PAST_SITE;
    for (int Q : Clean)
      if (Q == Post.Accept)
        I.Flags |= SF_FINAL;
    I.Need = movable(Clean);
    best(Clean, I);
    if ((I.Flags & SF_FINAL) && Mode == MODE_CONDITIONAL)
      I.NewPass = (PreSyms & ~I.Need) | (uint64_t(1) << SymSite);
    return I;
  }
  if (X == initial())
    I.Flags |= SF_INITIAL;
  if (siteOk(X))
    I.Flags |= SF_SITE_OK;
  // The attempts under way, or else the window's start.
  const std::vector<int> &Ref = Clean.empty() && X.HasStart ? StartClo : Clean;
  I.Need = movable(Ref);
  if (I.Flags & SF_SITE_OK) {
    I.Need |= uint64_t(1) << SymSite;
  } else {
    if (X.HasStart && X.StartTaint >= 0 && PreNullable)
      I.Early = uint8_t(X.StartTaint);
    for (auto [Q, Taint] : X.T)
      if (Q == Pre.Accept && Taint >= 0 &&
          (I.Early == NoSymbol || Taint < I.Early))
        I.Early = uint8_t(Taint);
  }
  best(Ref, I);
  return I;
}

/// Moore's refinement: states are equivalent when their annotations are
/// equal and their transitions go to equivalent states.
std::vector<int> minimise(const std::vector<StateInfo> &Info,
                          const std::vector<std::vector<uint16_t>> &Next,
                          unsigned NSym, unsigned &Classes) {
  size_t N = Info.size();
  std::vector<int> Class(N);
  {
    std::map<StateInfo, int> M;
    for (size_t D = 0; D < N; ++D)
      Class[D] = M.emplace(Info[D], int(M.size())).first->second;
    Classes = unsigned(M.size());
  }
  for (;;) {
    std::map<std::vector<int>, int> M;
    std::vector<int> NewClass(N);
    for (size_t D = 0; D < N; ++D) {
      std::vector<int> Sig{Class[D]};
      for (unsigned S = 0; S < NSym; ++S)
        Sig.push_back(Next[D][S] == NoState ? -1 : Class[Next[D][S]]);
      NewClass[D] = M.emplace(Sig, int(M.size())).first->second;
    }
    unsigned NewCount = unsigned(M.size());
    Class.swap(NewClass);
    if (NewCount == Classes)
      return Class;
    Classes = NewCount;
  }
}

bool Compiler::run(const Node &Pattern, Dfa &Out, std::string &Err) {
  Node PreN, PostN;
  if (!splitAtSite(Pattern, PreN, PostN)) {
    Err = "TESLA_ASSERTION_SITE must appear exactly once, in the top-level "
          "sequence";
    return false;
  }
  if (!buildNfa(PreN, A, Pre, Err) || !buildNfa(PostN, A, Post, Err))
    return false;
  PreSyms = symbolsOf(PreN);
  PostSyms = symbolsOf(PostN);
  PostOnly = PostSyms & ~PreSyms;
  Alphabet = PreSyms | PostSyms | (uint64_t(1) << SymSite);
  Clo.resize(A.Out.size());
  for (size_t Q = 0; Q < A.Out.size(); ++Q)
    Clo[Q] = A.closure({int(Q)});
  StartClo = Clo[Pre.Start];
  PreNullable = std::binary_search(StartClo.begin(), StartClo.end(), Pre.Accept);
  Dist.assign(A.Out.size(), UINT_MAX);
  First.assign(A.Out.size(), -1);
  distances(Pre.Accept);
  distances(Post.Accept);

  id(initial());
  for (size_t D = 0; D < States.size(); ++D) {
    if (States.size() > MaxStates) {
      Err = "the automaton needs more than " + std::to_string(MaxStates) +
            " states";
      return false;
    }
    std::vector<uint16_t> Row(NSym, NoState);
    for (unsigned S = 0; S < NSym; ++S) {
      Threads X = States[D], Y;
      bool Dead;
      step(X, int(S), Y, Dead);
      if (!Dead)
        Row[S] = uint16_t(id(Y));
    }
    Next.push_back(Row);
  }
  std::vector<StateInfo> Info;
  for (const Threads &X : States)
    Info.push_back(annotate(X));

  unsigned NClasses;
  std::vector<int> Class = minimise(Info, Next, NSym, NClasses);
  // Number the classes in breadth-first order from the initial state.
  std::vector<int> Order(NClasses, -1);
  std::vector<int> Rep(NClasses, -1);
  for (size_t D = 0; D < States.size(); ++D)
    if (Rep[Class[D]] < 0)
      Rep[Class[D]] = int(D);
  std::deque<int> Work{Class[0]};
  int Count = 0;
  Order[Class[0]] = Count++;
  while (!Work.empty()) {
    int C = Work.front();
    Work.pop_front();
    for (unsigned S = 0; S < NSym; ++S) {
      uint16_t T = Next[Rep[C]][S];
      if (T != NoState && Order[Class[T]] < 0) {
        Order[Class[T]] = Count++;
        Work.push_back(Class[T]);
      }
    }
  }
  Out.NStates = unsigned(Count);
  auto P2 = Ids.find(phase2Start());
  Out.PostStart = P2 == Ids.end() || Order[Class[P2->second]] < 0
                      ? NoState
                      : uint16_t(Order[Class[P2->second]]);
  Out.NSymbols = NSym;
  Out.Next.assign(size_t(Count) * NSym, NoState);
  Out.States.assign(Count, StateInfo());
  for (unsigned C = 0; C < NClasses; ++C) {
    if (Order[C] < 0)
      continue;
    int D = Rep[C];
    Out.States[Order[C]] = Info[D];
    for (unsigned S = 0; S < NSym; ++S) {
      uint16_t T = Next[D][S];
      Out.Next[size_t(Order[C]) * NSym + S] =
          T == NoState ? NoState : uint16_t(Order[Class[T]]);
    }
  }
  return true;
}

} // namespace

bool compileDfa(const Node &Pattern, unsigned NSymbols, uint8_t Mode, Dfa &Out,
                std::string &Err) {
  if (NSymbols > MaxSymbols) {
    Err = "more than " + std::to_string(MaxSymbols) + " distinct events";
    return false;
  }
  Compiler C(NSymbols, Mode);
  return C.run(Pattern, Out, Err);
}

} // namespace vigil
