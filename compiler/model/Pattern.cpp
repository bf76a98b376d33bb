//===- Pattern.cpp - the regular expression an assertion describes --------===//
#include "Pattern.h"

#include <algorithm>

namespace vigil {

Node Node::sym(unsigned S, std::string Text) {
  Node N;
  N.K = Sym;
  N.Symbol = S;
  N.Text = std::move(Text);
  return N;
}

Node Node::site() {
  Node N;
  N.K = Site;
  N.Symbol = SymSite;
  N.Text = "TESLA_ASSERTION_SITE";
  return N;
}

Node Node::seq(std::vector<Node> Kids) {
  Node N;
  N.K = Seq;
  N.Kids = std::move(Kids);
  return N;
}

Node Node::repeat(unsigned Min, unsigned Max, std::vector<Node> Body) {
  Node N;
  N.K = Repeat;
  N.Min = Min;
  N.Max = Max;
  N.Kids = std::move(Body);
  return N;
}

Node flatten(const Node &N) {
  Node R = N;
  R.Kids.clear();
  for (const Node &K : N.Kids) {
    Node F = flatten(K);
    if (N.K == Node::Seq && F.K == Node::Seq)
      R.Kids.insert(R.Kids.end(), F.Kids.begin(), F.Kids.end());
    else if (N.K == Node::Repeat && F.K == Node::Seq)
      R.Kids.insert(R.Kids.end(), F.Kids.begin(), F.Kids.end());
    else
      R.Kids.push_back(std::move(F));
  }
  if ((R.K == Node::Or || R.K == Node::Xor) && R.Kids.size() == 1)
    return R.Kids[0];
  if (R.K == Node::Repeat && R.Min == 1 && R.Max == 1)
    return flatten(Node::seq(R.Kids));
  return R;
}

bool containsSite(const Node &N) {
  if (N.K == Node::Site)
    return true;
  for (const Node &K : N.Kids)
    if (containsSite(K))
      return true;
  return false;
}

bool containsSub(const Node &N) {
  if (N.K == Node::Sub)
    return true;
  for (const Node &K : N.Kids)
    if (containsSub(K))
      return true;
  return false;
}

bool splitAtSite(const Node &Top, Node &Pre, Node &Post) {
  Node F = flatten(Top);
  std::vector<Node> Elements =
      F.K == Node::Seq ? F.Kids : std::vector<Node>{F};
  for (size_t I = 0; I < Elements.size(); ++I) {
    if (Elements[I].K != Node::Site)
      continue;
    Pre = Node::seq({Elements.begin(), Elements.begin() + I});
    Post = Node::seq({Elements.begin() + I + 1, Elements.end()});
    return !containsSite(Pre) && !containsSite(Post);
  }
  return false;
}

uint64_t symbolsOf(const Node &N) {
  uint64_t M = 0;
  if (N.K == Node::Sym || N.K == Node::Site)
    M |= uint64_t(1) << (N.Symbol & 63);
  for (const Node &K : N.Kids)
    M |= symbolsOf(K);
  return M;
}

static unsigned satAdd(unsigned A, unsigned B) {
  return (A == Unbounded || B == Unbounded || A + B < A) ? Unbounded : A + B;
}

static unsigned satMul(unsigned A, unsigned B) {
  if (A == 0 || B == 0)
    return 0;
  if (A == Unbounded || B == Unbounded || A > Unbounded / B)
    return Unbounded;
  return A * B;
}

unsigned multiplicity(const Node &N, unsigned S) {
  switch (N.K) {
  case Node::Sym:
  case Node::Site:
    return N.Symbol == S ? 1 : 0;
  case Node::Xor: {
    unsigned M = 0;
    for (const Node &K : N.Kids)
      M = std::max(M, multiplicity(K, S));
    return M;
  }
  case Node::Repeat: {
    unsigned Body = 0;
    for (const Node &K : N.Kids)
      Body = satAdd(Body, multiplicity(K, S));
    return satMul(Body, N.Max);
  }
  default: { // Seq, Or (every member may be used), Sub (resolved before)
    unsigned M = 0;
    for (const Node &K : N.Kids)
      M = satAdd(M, multiplicity(K, S));
    return M;
  }
  }
}

bool nullable(const Node &N) {
  switch (N.K) {
  case Node::Sym:
  case Node::Site:
  case Node::Sub:
    return false;
  case Node::Or:
  case Node::Xor:
    for (const Node &K : N.Kids)
      if (nullable(K))
        return true;
    return false;
  case Node::Repeat:
    if (N.Min == 0)
      return true;
    [[fallthrough]];
  default:
    for (const Node &K : N.Kids)
      if (!nullable(K))
        return false;
    return true;
  }
}

static std::string renderKids(const Node &N, const std::vector<Event> &Symbols,
                              const char *Sep) {
  std::string S;
  for (size_t I = 0; I < N.Kids.size(); ++I) {
    if (I)
      S += Sep;
    const Node &K = N.Kids[I];
    bool Paren = (K.K == Node::Seq && K.Kids.size() > 1) ||
                 ((K.K == Node::Or || K.K == Node::Xor) && N.K != Node::Seq);
    std::string R = render(K, Symbols);
    S += Paren ? "(" + R + ")" : R;
  }
  return S;
}

std::string render(const Node &N, const std::vector<Event> &Symbols) {
  switch (N.K) {
  case Node::Sym:
    return N.Symbol < Symbols.size() ? Symbols[N.Symbol].Text
                                     : "#" + std::to_string(N.Symbol);
  case Node::Site:
    return "SITE";
  case Node::Seq:
    return N.Kids.empty() ? "()" : renderKids(N, Symbols, ", ");
  case Node::Or:
    return "(" + renderKids(N, Symbols, " || ") + ")";
  case Node::Xor:
    return "(" + renderKids(N, Symbols, " | ") + ")";
  case Node::Repeat: {
    std::string Body = renderKids(N, Symbols, ", ");
    if (N.Kids.size() != 1 || N.Kids[0].K != Node::Sym)
      Body = "(" + Body + ")";
    if (N.Min == 0 && N.Max == 1)
      return Body + "?";
    if (N.Max == Unbounded)
      return Body + "{" + std::to_string(N.Min) + ",}";
    return Body + "{" + std::to_string(N.Min) + "," + std::to_string(N.Max) + "}";
  }
  case Node::Sub:
    return N.Name + "(...)";
  }
  return "?";
}

} // namespace vigil
