//===- Nfa.cpp - Thompson construction of a pattern -----------------------===//
#include "Nfa.h"
#include "Automaton.h"

#include <algorithm>
#include <map>

namespace vigil {

int Nfa::add() {
  if (Out.size() >= Limit)
    Overflow = true;
  Out.emplace_back();
  return int(Out.size()) - 1;
}

std::vector<int> Nfa::closure(const std::vector<int> &States) const {
  std::vector<char> Seen(Out.size(), 0);
  std::vector<int> Stack(States), R;
  while (!Stack.empty()) {
    int Q = Stack.back();
    Stack.pop_back();
    if (Seen[Q])
      continue;
    Seen[Q] = 1;
    R.push_back(Q);
    for (auto [Sym, T] : Out[Q])
      if (Sym == Eps && !Seen[T])
        Stack.push_back(T);
  }
  std::sort(R.begin(), R.end());
  return R;
}

namespace {

/// A small DFA of one OR member: per state, symbol -> state.
struct MemberDfa {
  std::vector<std::map<int, int>> Next;
  std::vector<bool> Accepting;
};

bool determinise(const Nfa &A, const Fragment &F, MemberDfa &D,
                 std::string &Err) {
  std::map<std::vector<int>, int> Ids;
  std::vector<std::vector<int>> Sets;
  auto Id = [&](std::vector<int> S) {
    auto [It, New] = Ids.emplace(S, int(Sets.size()));
    if (New) {
      Sets.push_back(S);
      D.Next.emplace_back();
      D.Accepting.push_back(std::binary_search(S.begin(), S.end(), F.Accept));
    }
    return It->second;
  };
  Id(A.closure({F.Start}));
  for (size_t I = 0; I < Sets.size(); ++I) {
    if (Sets.size() > MaxNfaStates) {
      Err = "a member of an OR block has too many states";
      return false;
    }
    std::map<int, std::vector<int>> Moves;
    for (int Q : Sets[I])
      for (auto [Sym, T] : A.Out[Q])
        if (Sym != Eps)
          Moves[Sym].push_back(T);
    for (auto &[Sym, Ts] : Moves)
      D.Next[I][Sym] = Id(A.closure(Ts));
  }
  return true;
}

class Builder {
public:
  Builder(Nfa &A, std::string &Err) : A(A), Err(Err) {}
  bool build(const Node &N, Fragment &F);

private:
  Nfa &A;
  std::string &Err;

  bool sequence(const std::vector<Node> &Kids, Fragment &F);
  bool repeat(const Node &N, Fragment &F);
  bool choice(const Node &N, Fragment &F);
  bool inclusiveOr(const Node &N, Fragment &F);
};

bool Builder::sequence(const std::vector<Node> &Kids, Fragment &F) {
  F.Start = A.add();
  int Cur = F.Start;
  for (const Node &K : Kids) {
    Fragment KF;
    if (!build(K, KF))
      return false;
    A.edge(Cur, Eps, KF.Start);
    Cur = KF.Accept;
  }
  F.Accept = Cur;
  return true;
}

bool Builder::repeat(const Node &N, Fragment &F) {
  F.Start = A.add();
  int End = A.add();
  int Cur = F.Start;
  for (unsigned I = 0; I < N.Min; ++I) {
    Fragment KF;
    if (!sequence(N.Kids, KF))
      return false;
    A.edge(Cur, Eps, KF.Start);
    Cur = KF.Accept;
  }
  if (N.Max == Unbounded) {
    int Loop = A.add();
    Fragment KF;
    if (!sequence(N.Kids, KF))
      return false;
    A.edge(Cur, Eps, Loop);
    A.edge(Loop, Eps, KF.Start);
    A.edge(KF.Accept, Eps, Loop);
    Cur = Loop;
  } else {
    for (unsigned I = N.Min; I < N.Max; ++I) {
      Fragment KF;
      if (!sequence(N.Kids, KF))
        return false;
      A.edge(Cur, Eps, KF.Start);
      A.edge(Cur, Eps, End);
      Cur = KF.Accept;
    }
  }
  A.edge(Cur, Eps, End);
  F.Accept = End;
  return true;
}

bool Builder::choice(const Node &N, Fragment &F) {
  F.Start = A.add();
  F.Accept = A.add();
  for (const Node &K : N.Kids) {
    Fragment KF;
    if (!build(K, KF))
      return false;
    A.edge(F.Start, Eps, KF.Start);
    A.edge(KF.Accept, Eps, F.Accept);
  }
  return true;
}

bool Builder::inclusiveOr(const Node &N, Fragment &F) {
  std::vector<MemberDfa> Members(N.Kids.size());
  for (size_t I = 0; I < N.Kids.size(); ++I) {
    Nfa Sub(A.Limit);
    Fragment SF;
    if (!buildNfa(N.Kids[I], Sub, SF, Err) ||
        !determinise(Sub, SF, Members[I], Err))
      return false;
  }
  // Product state: per member -1 (not started) or its DFA state.
  std::map<std::vector<int>, int> Ids;
  std::vector<std::vector<int>> Tuples;
  F.Accept = A.add();
  auto Id = [&](const std::vector<int> &T) {
    auto [It, New] = Ids.emplace(T, 0);
    if (New) {
      It->second = A.add();
      Tuples.push_back(T);
    }
    return It->second;
  };
  F.Start = Id(std::vector<int>(Members.size(), -1));
  for (size_t I = 0; I < Tuples.size(); ++I) {
    if (Tuples.size() > MaxStates) {
      Err = "an OR block has too many combinations of its members";
      return false;
    }
    std::vector<int> T = Tuples[I];
    int From = Ids[T];
    bool Used = false, Complete = true, Empty = false;
    for (size_t M = 0; M < Members.size(); ++M) {
      int Cur = T[M] < 0 ? 0 : T[M];
      if (T[M] >= 0) {
        Used = true;
        Complete &= bool(Members[M].Accepting[Cur]);
      } else if (Members[M].Accepting[0]) {
        Empty = true;
      }
      for (auto [Sym, To] : Members[M].Next[Cur]) {
        std::vector<int> U = T;
        U[M] = To;
        int Target = Id(U);
        A.edge(From, Sym, Target);
      }
    }
    if (Complete && (Used || Empty))
      A.edge(From, Eps, F.Accept);
  }
  return true;
}

bool Builder::build(const Node &N, Fragment &F) {
  if (A.Overflow) {
    Err = "the pattern has more than " + std::to_string(MaxNfaStates) +
          " states once its repetitions are unrolled";
    return false;
  }
  switch (N.K) {
  case Node::Sym:
  case Node::Site:
    F.Start = A.add();
    F.Accept = A.add();
    A.edge(F.Start, int(N.Symbol), F.Accept);
    return true;
  case Node::Seq:
    return sequence(N.Kids, F);
  case Node::Repeat:
    return repeat(N, F);
  case Node::Xor:
    return choice(N, F);
  case Node::Or:
    return inclusiveOr(N, F);
  case Node::Sub:
    Err = "automaton '" + N.Name + "' is not defined";
    return false;
  }
  return false;
}

} // namespace

bool buildNfa(const Node &N, Nfa &A, Fragment &Out, std::string &Err) {
  Builder B(A, Err);
  if (!B.build(N, Out))
    return false;
  if (A.Overflow) {
    Err = "the pattern has more than " + std::to_string(MaxNfaStates) +
          " states once its repetitions are unrolled";
    return false;
  }
  return true;
}

} // namespace vigil
