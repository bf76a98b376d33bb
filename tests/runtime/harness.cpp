//===- harness.cpp - building assertions and driving libvigil on traces ---===//
#include "harness.h"

#include "vigil/runtime.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

extern "C" void __vigil_test_configure(int algorithm, size_t store_limit,
                                       int on_failure, int shortcuts);
extern "C" uint64_t __vigil_test_dropped(vigil_assertion *a);

static uint64_t LastDropped;
uint64_t FastInline, FastSlow; // the fast path model: events kept inline, runtime calls
uint64_t LogInline, LogSlow, LogSiteInline;   // the inline log model: events appended, runtime calls
uint64_t EagerOrEnds[3];       // eager OR instances' exits: RUNTIME, QUIET, PASS
uint64_t lastDropped() { return LastDropped; }
static uint64_t LastPasses;
uint64_t lastPasses() { return LastPasses; }

using namespace vigil;

// ---- reports ----------------------------------------------------------------
static std::mutex ReportLock;
static std::vector<std::string> Reasons, Lines;

static void handler(const vigil_violation *V, void *) {
  std::lock_guard<std::mutex> G(ReportLock);
  Reasons.push_back(V->reason);
  Lines.push_back(std::string(V->reason) + " event=" + V->event + " values=" +
                  V->values + " allowed=" + V->expected);
}

void harnessInit() {
  vigil_set_handler(handler, nullptr);
  __vigil_test_configure(0, size_t(1) << 20, 1 /* log */, 1);
}

std::vector<std::string> takeReports() {
  std::lock_guard<std::mutex> G(ReportLock);
  std::vector<std::string> R;
  R.swap(Reasons);
  return R;
}

static std::string LastLines;
std::string lastReports() { return LastLines; }

// ---- patterns -----------------------------------------------------------------
namespace {

struct PatternParser {
  const std::string &S;
  size_t P = 0;
  Assertion &A;
  Variant V;
  std::vector<bool> &AutoK;

  PatternParser(const std::string &S, Assertion &A, Variant V, std::vector<bool> &AutoK)
      : S(S), A(A), V(V), AutoK(AutoK) {}

  void ws() {
    while (P < S.size() && S[P] == ' ')
      ++P;
  }
  bool peek(char C) {
    ws();
    return P < S.size() && S[P] == C;
  }
  void expect(char C) {
    if (!peek(C))
      throw std::runtime_error(std::string("expected ") + C + " in " + S);
    ++P;
  }
  unsigned number() {
    ws();
    size_t Q = P;
    while (P < S.size() && isdigit((unsigned char)S[P]))
      ++P;
    if (Q == P)
      throw std::runtime_error("expected a number in " + S);
    return unsigned(std::stoul(S.substr(Q, P - Q)));
  }

  unsigned index(std::vector<std::string> &Names, const std::string &N) {
    for (size_t I = 0; I < Names.size(); ++I)
      if (Names[I] == N)
        return unsigned(I);
    Names.push_back(N);
    return unsigned(Names.size() - 1);
  }

  Value arg(const std::string &T, unsigned I) {
    Value V;
    V.Text = T;
    V.ArgIndex = uint8_t(I);
    if (T == "_") {
      V.Kind = VAL_ANY;
    } else if (T == "@") {
      V.Kind = VAL_KEY;
    } else if (T[0] == '$') {
      V.Kind = VAL_FREE;
      V.Index = uint8_t(index(A.Free, T.substr(1)));
      V.Text = T.substr(1);
    } else if (isdigit((unsigned char)T[0])) {
      V.Kind = VAL_CONST;
      V.Constant = std::stoull(T);
    } else {
      V.Kind = VAL_CAPTURE;
      V.Index = uint8_t(index(A.Captures, T));
    }
    return V;
  }

  Node symbol() {
    size_t Q = P;
    while (P < S.size() && isalnum((unsigned char)S[P]))
      ++P;
    std::string Name = S.substr(Q, P - Q);
    if (Name == "S")
      return Node::site();
    Event E;
    E.Kind = EV_CALL;
    E.Function = Name;
    E.Text = Name;
    if (P < S.size() && S[P] == '(') {
      size_t End = S.find(')', P);
      std::string Args = S.substr(P + 1, End - P - 1);
      E.Text = Name + "(" + Args + ")";
      P = End + 1;
      unsigned I = 0;
      size_t From = 0;
      while (From <= Args.size()) {
        size_t Comma = Args.find(',', From);
        std::string T = Args.substr(From, Comma == std::string::npos ? std::string::npos
                                                                      : Comma - From);
        while (!T.empty() && T[0] == ' ')
          T.erase(0, 1);
        E.Values.push_back(arg(T, I++));
        if (Comma == std::string::npos)
          break;
        From = Comma + 1;
      }
    }
    int Sym = A.addSymbol(E);
    if (Sym < 0)
      throw std::runtime_error("too many symbols");
    return Node::sym(unsigned(Sym), E.Text);
  }

  Node atom() {
    ws();
    if (peek('(') || peek('<')) {
      char Close = S[P] == '(' ? ')' : '>';
      Node N;
      N.K = S[P] == '(' ? Node::Or : Node::Xor;
      ++P;
      N.Kids.push_back(seq());
      while (peek('|')) {
        ++P;
        N.Kids.push_back(seq());
      }
      expect(Close);
      if (N.Kids.size() == 1)
        return N.Kids[0];
      return N;
    }
    if (peek('[')) {
      ++P;
      Node N = seq();
      expect(']');
      return N;
    }
    if (P < S.size() && isupper((unsigned char)S[P]))
      return symbol();
    throw std::runtime_error("unexpected '" + S.substr(P) + "' in " + S);
  }

  Node item() {
    Node N = atom();
    for (;;) {
      if (P < S.size() && S[P] == '?') {
        ++P;
        N = Node::repeat(0, 1, {N});
      } else if (P < S.size() && S[P] == '*') {
        ++P;
        N = Node::repeat(0, Unbounded, {N});
      } else if (P < S.size() && S[P] == '+') {
        ++P;
        N = Node::repeat(1, Unbounded, {N});
      } else if (P < S.size() && S[P] == '{') {
        ++P;
        unsigned Min = number(), Max = Min;
        if (peek(',')) {
          ++P;
          Max = peek('}') ? Unbounded : number();
        }
        expect('}');
        N = Node::repeat(Min, Max, {N});
      } else {
        return N;
      }
    }
  }

  Node seq() {
    std::vector<Node> Items;
    for (;;) {
      ws();
      if (P >= S.size() || strchr(")|]>#", S[P]))
        break;
      Items.push_back(item());
    }
    return Node::seq(Items);
  }
};

void addBounds(Assertion &A, bool Struct) {
  Event B0, B1, Site;
  B0.Kind = EV_START;
  B1.Kind = EV_END;
  B0.Function = Struct ? "<" : "[";
  B1.Function = Struct ? ">" : "]";
  B0.Text = Struct ? "init(@)" : "start";
  B1.Text = Struct ? "destroy(@)" : "end";
  if (Struct) {
    Value K;
    K.Kind = VAL_KEY;
    K.Text = "o";
    B0.Values.push_back(K);
    B1.Values.push_back(K);
  }
  Site.Kind = EV_SITE;
  Site.Text = "TESLA_ASSERTION_SITE";
  A.Symbols = {B0, B1, Site};
}

/// The variant: a value slot in front of the chosen symbols' arguments.
void applyVariant(Assertion &A, Variant V, Built &B) {
  B.AutoK.assign(A.Symbols.size(), false);
  if (V == V_PLAIN)
    return;
  uint64_t Pre = 0, Post = 0;
  for (Automaton &Au : A.Alternatives) {
    Node PreN, PostN;
    splitAtSite(flatten(Au.Pattern), PreN, PostN);
    Pre |= symbolsOf(PreN);
    Post |= symbolsOf(PostN);
  }
  uint64_t Chosen = V == V_MIXED ? Post & ~Pre : Pre;
  Chosen &= ~uint64_t(7);
  unsigned K = 0;
  if (V != V_FREE && Chosen) {
    K = unsigned(A.Captures.size());
    A.Captures.push_back("k");
    B.SiteK = true;
  } else if (V == V_FREE && Chosen) {
    K = unsigned(A.Free.size());
    A.Free.push_back("x");
  }
  for (unsigned S = 3; S < A.Symbols.size(); ++S) {
    if (!((Chosen >> S) & 1))
      continue;
    Event &E = A.Symbols[S];
    for (Value &X : E.Values)
      X.ArgIndex++;
    Value X;
    X.Kind = V == V_FREE ? VAL_FREE : VAL_CAPTURE;
    X.Index = uint8_t(K);
    X.Text = V == V_FREE ? "x" : "k";
    E.Values.insert(E.Values.begin(), X);
    E.Text = E.Function + "(" + X.Text + (E.Text.find('(') != std::string::npos
                                               ? ", " + E.Text.substr(E.Text.find('(') + 1)
                                               : ")");
    B.AutoK[S] = true;
  }
}

} // namespace

Built buildAssertion(const std::string &Pattern, unsigned Mode, Variant V,
                     bool Global, bool Inline, uint32_t Id) {
  Built B;
  Assertion A;
  A.Kind = AK_INLINE;
  A.Location = "test.c:" + std::to_string(Id + 1) + ":3";
  A.Text = Pattern;
  A.Mode = uint8_t(Mode);
  A.Locality = Global ? GLOBAL : PERTHREAD;
  addBounds(A, false);
  try {
    PatternParser PP(Pattern, A, V, B.AutoK);
    for (;;) {
      Automaton Au;
      size_t From = PP.P;
      Au.Pattern = PP.seq();
      Au.Text = Pattern.substr(From, PP.P - From);
      while (!Au.Text.empty() && Au.Text.back() == ' ')
        Au.Text.pop_back();
      while (!Au.Text.empty() && Au.Text[0] == ' ')
        Au.Text.erase(0, 1);
      A.Alternatives.push_back(Au);
      if (!PP.peek('#'))
        break;
      ++PP.P;
    }
  } catch (std::exception &E) {
    B.Err = E.what();
    return B;
  }
  applyVariant(A, V, B);
  if (!compile(A, B.Err))
    return B;
  B.T = std::make_unique<Tables>();
  buildTables(A, Id, Inline, *B.T);
  return B;
}

Built buildStruct(const std::string &Body, bool Global, uint32_t Id) {
  Built B;
  Assertion A;
  A.Kind = AK_STRUCT;
  A.Location = "test.c:" + std::to_string(Id + 1) + ":1";
  A.Text = "TESLA_STRUCT_AUTOMATON(o, " + Body + ")";
  A.Mode = MODE_STRICT;
  A.Locality = Global ? GLOBAL : PERTHREAD;
  addBounds(A, true);
  try {
    PatternParser PP(Body, A, V_PLAIN, B.AutoK);
    Automaton Au;
    Au.Text = Body;
    Au.Pattern = Node::seq({Node::site(), PP.seq()});
    A.Alternatives.push_back(Au);
  } catch (std::exception &E) {
    B.Err = E.what();
    return B;
  }
  B.AutoK.assign(A.Symbols.size(), false);
  if (!compile(A, B.Err))
    return B;
  B.T = std::make_unique<Tables>();
  buildTables(A, Id, false, *B.T);
  return B;
}

std::vector<Tok> parseTrace(const std::string &Trace) {
  std::vector<Tok> R;
  size_t P = 0;
  while (P < Trace.size()) {
    if (Trace[P] == ' ') {
      ++P;
      continue;
    }
    Tok T;
    if (Trace[P] == '[' || Trace[P] == ']') {
      T.Kind = Trace[P] == '[' ? Tok::Enter : Tok::Exit;
      ++P;
      R.push_back(T);
      continue;
    }
    size_t Q = P;
    while (P < Trace.size() && (isalnum((unsigned char)Trace[P]) || Trace[P] == '<' ||
                                Trace[P] == '>'))
      ++P;
    T.Name = Trace.substr(Q, P - Q);
    if (T.Name.empty())
      throw std::runtime_error("bad trace " + Trace);
    T.Kind = T.Name == "S" ? Tok::Site : Tok::Event;
    if (P < Trace.size() && Trace[P] == '(') {
      size_t End = Trace.find(')', P);
      std::string Args = Trace.substr(P + 1, End - P - 1);
      P = End + 1;
      size_t From = 0;
      while (From < Args.size()) {
        size_t Comma = Args.find(',', From);
        T.Args.push_back(std::stoull(Args.substr(From, Comma - From)));
        if (Comma == std::string::npos)
          break;
        From = Comma + 1;
      }
    }
    if (P < Trace.size() && Trace[P] == '~') {
      T.Noise = true;
      ++P;
    }
    R.push_back(T);
  }
  return R;
}

// ---- the driver -------------------------------------------------------------
namespace {

struct Instance {
  void *Mem;
  explicit Instance(void *M) : Mem(M) {}
  uint8_t *bytes() { return static_cast<uint8_t *>(Mem); }
  uint64_t &gen() { return *reinterpret_cast<uint64_t *>(bytes() + VIGIL_HDR_GEN); }
  uint8_t *fast() { return bytes() + VIGIL_HDR_FAST; }
  uint64_t *ever() { return reinterpret_cast<uint64_t *>(bytes() + VIGIL_HDR_EVER); }
  uint64_t *captures(const vigil_assertion &A) {
    return reinterpret_cast<uint64_t *>(bytes() + VIGIL_CAPTURES_OFFSET(A.nalternatives));
  }
};

/// The inline fast path, as the pass emits it: per-thread (Hooks.cpp), or
/// global (HooksGlobal.cpp): the same steps inside the bound's lock, with
/// the runtime's locked entry points, and the bound's entry and exit
/// inline too.
struct FastPath {
  Tables &T;
  vigil_bound &B;
  Instance &I;
  bool Global = false;

  /// HooksGlobal.cpp's lock, tagged with this thread: false when another
  /// thread holds it (the caller then calls the runtime's locking entry
  /// point; this thread never holds it here).
  bool lock() {
    uint64_t Old = 0;
    if (__atomic_compare_exchange_n(&B.lock, &Old, vigil_lock_tag(), false,
                                    __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
      return true;
    if (Old == vigil_lock_tag())
      throw std::logic_error("a global lock already held by this thread");
    return false;
  }
  void unlock() { __atomic_store_n(&B.lock, 0, __ATOMIC_RELEASE); }
  void runtimeEvent(unsigned S, const uint64_t *V) {
    (Global ? __vigil_event_locked : __vigil_event)(&T.A, &B, I.Mem, S, V);
  }
  void runtimeSite(const uint64_t *Caps) {
    (Global ? __vigil_site_locked : __vigil_site_reached)(&T.A, &B, I.Mem, Caps);
  }

  /// A global group's entry and exit, as HooksGlobal.cpp emits them.
  void enter() {
    if (!lock()) {
      __vigil_bound_enter(&B, 1, nullptr);
      return;
    }
    uint32_t D = B.depth;
    __atomic_store_n(&B.depth, D + 1, __ATOMIC_RELAXED);
    if (D == 0) {
      __atomic_store_n(&B.gen, B.gen + 1, __ATOMIC_RELAXED);
      B.touched = nullptr;
    }
    unlock();
  }
  void exit() {
    if (!lock()) {
      __vigil_bound_exit(&B, 1);
      return;
    }
    uint32_t D = B.depth;
    if (D == 1) {
      if (B.pending)
        __vigil_bound_settle(&B);
      B.pending = 0;
      __atomic_store_n(&B.gen, B.gen + 1, __ATOMIC_RELAXED);
    }
    if (D > 0)
      __atomic_store_n(&B.depth, D - 1, __ATOMIC_RELAXED);
    unlock();
  }
  bool Eager = false; // vigil/abi.h "Eager instances"

  /// Touching (vigil/abi.h); false: the runtime must be called.  An eager
  /// instance is ready.
  bool touch() {
    if (Eager)
      return true;
    if (I.gen() == B.gen)
      return true;
    if (I.gen() == 0)
      return false; // never on this thread: the runtime registers it
    I.gen() = B.gen;
    *reinterpret_cast<void **>(I.bytes() + VIGIL_HDR_NEXT) = B.touched;
    B.touched = I.Mem;
    for (unsigned A = 0; A < 8; ++A) {
      I.fast()[A] = T.FastInit[A];
      I.ever()[A] = 0;
    }
    memset(I.bytes() + VIGIL_HDR_FLAGS, 0, 4);
    ++*reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_BOUNDS);
    ++B.pending;
    if (LogSite) // HooksLogSite.cpp: an earlier bound's entries go
      *logHead() = ((*logHead() >> 32) + 1) << 32;
    return true;
  }
  bool LogSite = false; // vigil/fastpath.h vigil_fast_log_site
  uint64_t *logHead() {
    return reinterpret_cast<uint64_t *>(
        I.bytes() + VIGIL_LOG_OFFSET(T.A.nalternatives, T.A.ncaptures));
  }

  bool pastSite(unsigned Alt, unsigned F) {
    const vigil_automaton &Au = T.Alts[Alt];
    return F == vigil_fast_done(&T.Models[Alt]) ||
           (vigil_fast_or_lazy(&T.Models[Alt], T.A.nalternatives) &&
            vigil_fast_dead(&T.Models[Alt], F)) || // failed at a site
           (F >= 1 && F <= Au.nstates && (Au.states[F - 1].flags & VIGIL_SF_PAST_SITE));
  }

  void apply(const std::vector<unsigned> &R, unsigned S) {
    unsigned N = T.A.nalternatives;
    for (unsigned A = 0; A < N; ++A) {
      if (R[A] == VIGIL_FAST_IGNORE) {
        // Hooks.cpp emitEagerStep records it; never in a dead OR
        // alternative, whose ever[] words its failure
        if (Eager && S != VIGIL_SYM_SITE &&
            !(N > 1 && vigil_fast_or_lazy(&T.Models[A], N) &&
              vigil_fast_dead(&T.Models[A], I.fast()[A])))
          I.ever()[A] |= uint64_t(1) << S;
        continue;
      }
      I.ever()[A] |= uint64_t(1) << S;
      I.fast()[A] = uint8_t(R[A]);
      if (N == 1 && !Eager && R[A] == vigil_fast_done(&T.Models[A])) {
        I.bytes()[VIGIL_HDR_SETTLED] = 1;
        ++*reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES);
        --B.pending;
      } else if (N > 1 && !Eager && R[A] == vigil_fast_done(&T.Models[A]) &&
                 !I.bytes()[VIGIL_HDR_SETTLED] && !I.bytes()[VIGIL_HDR_SETTLED + 1]) {
        // top-level OR: the first alternative done settles (abi.h)
        I.bytes()[VIGIL_HDR_SETTLED] = 2;
        ++*reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES);
        --B.pending;
      }
    }
  }

  /// The outermost entry of an eager group: the instance's initial state
  /// (ever always: the pass clears it where a hook sets its bits, and the
  /// runtime reads no others), then the bound as the runtime opens it.
  void enterEager() {
    if (Eager && B.depth == 0)
      for (unsigned A = 0; A < T.A.nalternatives; ++A) {
        I.fast()[A] = 1;
        I.ever()[A] = 0;
      }
    __vigil_bound_enter(&B, 0, nullptr);
  }

  /// The outermost exit of an eager group (Hooks.cpp exitHook).
  void exitEager() {
    if (Eager && B.depth == 1) {
      unsigned N = T.A.nalternatives, End;
      if (N == 1) {
        End = vigil_fast_end(&T.Models[0], I.fast()[0]);
      } else { // Hooks.cpp emitEagerEndOr
        unsigned Classes = 0;
        bool Hot = I.fast()[0] == vigil_fast_done(&T.Models[0]);
        for (unsigned A = 0; A < N; ++A)
          Classes |= vigil_fast_end_class(&T.Models[A], N, I.fast()[A]);
        End = vigil_fast_end_joint(Classes);
        ++EagerOrEnds[End];
        if (Hot && End != VIGIL_END_PASS) {
          fprintf(stderr, "fast path model: the exit's first case is no pass\n");
          abort();
        }
      }
      if (End == VIGIL_END_PASS)
        ++*reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES);
      if (End == VIGIL_END_RUNTIME || B.pending) {
        vigil_assertion *As[1] = {&T.A};
        void *Insts[1] = {I.Mem};
        __vigil_bound_settle_eager(&B, 1, As, Insts);
        B.pending = 0;
      }
      for (unsigned A = 0; A < N; ++A)
        I.fast()[A] = VIGIL_FAST_OUTSIDE;
    }
    __vigil_bound_exit(&B, 0);
  }

  /// An event hook: per-thread the body; global the body under the lock
  /// (HooksGlobal.cpp's wrapper), the runtime's locking entry when taken.
  template <class Body> void hook(unsigned S, const uint64_t *V, Body Run) {
    if (!Global) {
      Run(S, V);
      return;
    }
    if (!(__atomic_load_n(&B.gen, __ATOMIC_RELAXED) & 1))
      return;
    if (!lock()) {
      __vigil_event(&T.A, &B, I.Mem, S, V);
      return;
    }
    Run(S, V);
    unlock();
  }
  void event(unsigned S, const uint64_t *V) {
    hook(S, V, [this](unsigned S2, const uint64_t *V2) { eventBody(S2, V2); });
  }

  void eventBody(unsigned S, const uint64_t *V) {
    if (B.depth == 0 || (Eager && I.fast()[0] == VIGIL_FAST_OUTSIDE))
      return;
    if (!touch()) {
      runtimeEvent(S, V);
      return;
    }
    const vigil_event_desc &E = T.Events[S];
    std::vector<unsigned> R(T.A.nalternatives);
    bool Slow = false;
    for (unsigned A = 0; A < T.A.nalternatives; ++A) {
      unsigned F = I.fast()[A];
      R[A] = vigil_fast_next_or(&T.Models[A], T.A.nalternatives, F, S);
      if (R[A] != VIGIL_FAST_SLOW && R[A] != VIGIL_FAST_IGNORE && pastSite(A, F))
        for (unsigned K = 0; K < E.nvalues; ++K)
          if (E.values[K].kind == VIGIL_VAL_CAPTURE &&
              V[K] != I.captures(T.A)[E.values[K].index])
            R[A] = VIGIL_FAST_SLOW; // another tuple's event: the runtime decides
      Slow |= R[A] == VIGIL_FAST_SLOW;
    }
    if (Slow) {
      ++FastSlow;
      runtimeEvent(S, V);
    } else {
      ++FastInline;
      apply(R, S);
    }
  }

  /// An assertion that only records before its site (HooksStore.cpp):
  /// its events are appended to the inline log while the instance is
  /// touched, the runtime has not seen the site and an entry is free.
  static bool logs(const vigil_assertion &A) {
    if (A.kind != VIGIL_KIND_INLINE || A.mode == VIGIL_MODE_STRICT || A.nfree)
      return false;
    for (unsigned K = 0; K < A.nalternatives; ++K)
      if (A.alternatives[K].flags & (VIGIL_AF_FORWARD | VIGIL_AF_FREE | VIGIL_AF_FAST))
        return false;
    return true;
  }
  void logEvent(unsigned S, const uint64_t *V) {
    hook(S, V, [this](unsigned S2, const uint64_t *V2) { logBody(S2, V2); });
  }
  void logBody(unsigned S, const uint64_t *V) {
    if (B.depth == 0)
      return;
    if (!touch()) {
      ++LogSlow;
      runtimeEvent(S, V);
      return;
    }
    // A symbol after the site of a log-site assertion: logged in state 0
    // (nobody looked at the instance yet), else a table step.
    if (LogSite && !((T.Alts[0].pre >> S) & 1) && I.fast()[0] != 1) {
      eventBody(S, V);
      return;
    }
    uint64_t *Head = reinterpret_cast<uint64_t *>(
        I.bytes() + VIGIL_LOG_OFFSET(T.A.nalternatives, T.A.ncaptures));
    uint32_t N = uint32_t(*Head);
    if ((!LogSite && I.bytes()[VIGIL_HDR_FLAGS + 3]) || N >= T.A.log_slots) {
      ++LogSlow; // after the site, or the overflow: the runtime drains first
      runtimeEvent(S, V);
      return;
    }
    uint64_t *E = Head + 1 + size_t(N) * T.A.log_stride;
    E[0] = S;
    memcpy(E + 1, V, 8 * T.Events[S].nvalues);
    *Head += 1;
    ++LogInline;
  }

  void site(const uint64_t *Caps) {
    if (!Global) {
      siteBody(Caps);
      return;
    }
    if (!(__atomic_load_n(&B.gen, __ATOMIC_RELAXED) & 1))
      return;
    if (!lock()) {
      __vigil_site_reached(&T.A, &B, I.Mem, Caps);
      return;
    }
    siteBody(Caps);
    unlock();
  }

  /// HooksLogSite.cpp: the log's entries that carry the site's values,
  /// in order, through `next` from state 0, then the site; false when a
  /// step is missing (the runtime's call).
  bool logSite(const uint64_t *Caps) {
    const vigil_automaton &Au = T.Alts[0];
    unsigned NS = T.A.nsymbols, D = 0;
    uint64_t *Head = logHead();
    uint32_t N = uint32_t(*Head);
    for (uint32_t K = 0; K < N; ++K) {
      const uint64_t *E = Head + 1 + size_t(K) * T.A.log_stride;
      unsigned S = unsigned(E[0]);
      if (S <= VIGIL_SYM_SITE || S >= NS || !((Au.alphabet >> S) & 1))
        return false;
      bool Match = true;
      for (unsigned J = 0; J < T.Events[S].nvalues; ++J)
        if (T.Events[S].values[J].kind == VIGIL_VAL_CAPTURE &&
            E[1 + J] != Caps[T.Events[S].values[J].index])
          Match = false;
      if (!Match)
        continue;
      uint16_t To = Au.next[D * NS + S];
      if (To == VIGIL_NO_STATE)
        return false;
      D = To;
    }
    uint16_t To = Au.next[D * NS + VIGIL_SYM_SITE];
    if (To == VIGIL_NO_STATE || (Au.states[D].flags & VIGIL_SF_PAST_SITE))
      return false;
    unsigned Done = vigil_fast_done(&T.Models[0]);
    unsigned Next = (Au.states[To].flags & VIGIL_SF_FINAL) ? Done : To + 1u;
    ++LogSiteInline;
    if (T.A.ncaptures)
      memcpy(I.captures(T.A), Caps, 8 * T.A.ncaptures);
    I.fast()[1] = uint8_t(N + 1);
    I.fast()[0] = uint8_t(Next);
    if (Next == Done) {
      I.bytes()[VIGIL_HDR_SETTLED] = 1;
      ++*reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES);
      --B.pending;
    }
    return true;
  }

  void siteBody(const uint64_t *Caps) {
    if (B.depth == 0 || (Eager && I.fast()[0] == VIGIL_FAST_OUTSIDE))
      return;
    if (!touch()) {
      runtimeSite(Caps);
      return;
    }
    if (LogSite && I.fast()[0] == 1) {
      if (!logSite(Caps)) {
        ++FastSlow;
        runtimeSite(Caps);
      }
      return;
    }
    std::vector<unsigned> R(T.A.nalternatives);
    bool Slow = false;
    bool Same = !T.A.ncaptures ||
                !memcmp(Caps, I.captures(T.A), 8 * T.A.ncaptures);
    for (unsigned A = 0; A < T.A.nalternatives; ++A) {
      unsigned F = I.fast()[A];
      R[A] = vigil_fast_site_or(&T.Models[A], T.A.nalternatives, F);
      if (R[A] != VIGIL_FAST_SLOW && pastSite(A, F) && !Same)
        R[A] = VIGIL_FAST_SLOW;
      Slow |= R[A] == VIGIL_FAST_SLOW;
    }
    if (Slow) {
      ++FastSlow;
      runtimeSite(Caps); // the instance's captures stay
      return;
    }
    ++FastInline;
    if (T.A.ncaptures)
      memcpy(I.captures(T.A), Caps, 8 * T.A.ncaptures);
    apply(R, VIGIL_SYM_SITE);
  }
};

/// The symbols a trace event is: every symbol of that function whose
/// constant slots hold (the pass checks CONST inline).
void fire(Built &Bt, const Tok &Tk, std::vector<std::pair<unsigned, std::vector<uint64_t>>> &Out) {
  Tables &T = *Bt.T;
  for (unsigned S = 0; S < T.A.nsymbols; ++S) {
    const vigil_event_desc &E = T.Events[S];
    if (!E.function || Tk.Name != E.function)
      continue;
    std::vector<uint64_t> Args = Tk.Args;
    if (S < Bt.AutoK.size() && Bt.AutoK[S])
      Args.insert(Args.begin(), Tk.Noise ? 8 : 7);
    std::vector<uint64_t> V(E.nvalues);
    bool OK = true;
    for (unsigned K = 0; K < E.nvalues && OK; ++K) {
      const vigil_value_desc &D = E.values[K];
      uint64_t W = D.arg_index < Args.size() ? Args[D.arg_index] : 0;
      OK = D.kind != VIGIL_VAL_CONST || W == D.constant;
      V[K] = W;
    }
    if (OK)
      Out.push_back({S, V});
  }
}

/// The pass's log_slots / log_stride (HooksStore.cpp) when On; true when
/// the assertion's events go to the inline log model.
bool setLog(Tables &T, bool On) {
  bool Log = On && FastPath::logs(T.A);
  T.A.log_slots = Log ? VIGIL_LOG_SLOTS : 0;
  T.A.log_stride = 1;
  for (unsigned S = VIGIL_SYM_SITE + 1; S < T.A.nsymbols; ++S)
    T.A.log_stride = std::max<uint8_t>(T.A.log_stride, 1 + T.Events[S].nvalues);
  return Log;
}

} // namespace

std::vector<std::string> runTrace(Built &Bt, const std::vector<Tok> &Trace,
                                  const Config &C) {
  Tables &T = *Bt.T;
  __vigil_test_configure(C.Algorithm, C.Limit ? C.Limit : size_t(1) << 20, 1,
                         C.Shortcuts);
  takeReports();
  {
    std::lock_guard<std::mutex> G(ReportLock);
    Lines.clear();
  }
  T.A.fast = 0;
  for (unsigned A = 0; A < 8; ++A)
    T.FastInit[A] = 0;
  T.A.runtime = nullptr; // fast_init is computed on first use
  uint8_t Fast = 0;
  if (C.Fast && T.A.kind == VIGIL_KIND_INLINE)
    for (unsigned A = 0; A < T.A.nalternatives; ++A)
      Fast |= uint8_t(vigil_fast_eligible(&T.Models[A]));
  T.A.fast = Fast;
  for (unsigned A = 0; A < T.A.nalternatives; ++A)
    T.FastInit[A] = uint8_t(Fast && vigil_fast_eligible(&T.Models[A]));
  // the pass's eager candidates (Plan.cpp eagerCandidate)
  bool AllFast = T.A.nalternatives <= 8;
  for (unsigned A = 0; A < T.A.nalternatives; ++A)
    AllFast &= T.FastInit[A] != 0;
  T.A.eager = uint8_t(C.Eager && Fast && AllFast && T.A.mode == VIGIL_MODE_GUIDELINE &&
                      T.A.locality != VIGIL_GLOBAL);
  bool Log = setLog(T, C.Fast);
  bool LogSite = Log && vigil_fast_log_site(&T.Alts[0], T.A.nalternatives, T.A.mode,
                                            T.A.nfree);
  if (LogSite)
    T.FastInit[0] = 1; // the pass's fastInit: state 0 inline until the site
  if (!Bt.Inst) {
    size_t N = VIGIL_INSTANCE_BYTES(T.A.nalternatives, T.A.ncaptures) +
               VIGIL_LOG_BYTES(VIGIL_LOG_SLOTS, 1 + VIGIL_MAX_VALUES);
    void *M = aligned_alloc(64, N);
    memset(M, 0, N);
    // Never freed: the runtime's statistics keep a pointer to it (as they
    // do to a program's thread-local instances while the thread runs).
    Bt.Inst = std::shared_ptr<void>(M, [](void *) {});
    Bt.Bound = std::make_shared<vigil_bound>();
    memset(Bt.Bound.get(), 0, sizeof(vigil_bound));
  }
  vigil_bound &B = *Bt.Bound;
  Instance I(Bt.Inst.get());
  int Global = T.A.locality == VIGIL_GLOBAL;
  FastPath FP{T, B, I, Global != 0};
  FP.Eager = T.A.eager != 0;
  FP.LogSite = LogSite;
  // As the pass's thread-local initial values (a group of one eager
  // instance: VIGIL_BOUND_ENTRIES; gen goes on counting from where the
  // previous run left it, as it does in a thread).
  B.flags = FP.Eager ? VIGIL_BOUND_ENTRIES : 0;
  if (FP.Eager)
    for (unsigned A = 0; A < T.A.nalternatives; ++A)
      I.fast()[A] = VIGIL_FAST_OUTSIDE;
  uint64_t Passes0 = *reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES);
  for (const Tok &Tk : Trace) {
    switch (Tk.Kind) {
    case Tok::Enter:
      if (FP.Eager)
        FP.enterEager();
      else if ((Fast || LogSite) && Global)
        FP.enter();
      else
        __vigil_bound_enter(&B, Global, nullptr);
      break;
    case Tok::Exit:
      if (FP.Eager)
        FP.exitEager();
      else if ((Fast || LogSite) && Global)
        FP.exit();
      else
        __vigil_bound_exit(&B, Global);
      break;
    case Tok::Site: {
      std::vector<uint64_t> Caps(T.A.ncaptures, 0);
      for (size_t K = 0; K < Tk.Args.size() && K < Caps.size(); ++K)
        Caps[K] = Tk.Args[K];
      if (Bt.SiteK)
        Caps.back() = Tk.Noise ? 8 : 7; // "S~": another tuple
      if (Fast || LogSite)
        FP.site(Caps.data());
      else
        __vigil_site_reached(&T.A, &B, I.Mem, Caps.data());
      break;
    }
    case Tok::Event: {
      std::vector<std::pair<unsigned, std::vector<uint64_t>>> Fired;
      fire(Bt, Tk, Fired);
      for (auto &[S, V] : Fired) {
        if (Log)
          FP.logEvent(S, V.data());
        else if (Fast)
          FP.event(S, V.data());
        else
          __vigil_event(&T.A, &B, I.Mem, S, V.data());
      }
      break;
    }
    }
  }
  // The runtime keeps a pointer to its bookkeeping: make the next run of
  // this assertion (another configuration) start afresh.
  LastDropped = __vigil_test_dropped(&T.A);
  LastPasses = *reinterpret_cast<uint64_t *>(I.bytes() + VIGIL_HDR_PASSES) - Passes0;
  T.A.runtime = nullptr;
  {
    std::lock_guard<std::mutex> G(ReportLock);
    LastLines.clear();
    for (const std::string &L : Lines)
      LastLines += "      " + L + "\n";
  }
  return takeReports();
}

std::vector<std::string> runGlobalThreads(Built &Bt, const std::vector<Tok> &Trace,
                                          unsigned Threads, unsigned Rounds) {
  Tables &T = *Bt.T;
  __vigil_test_configure(0, size_t(1) << 20, 1, 1);
  takeReports();
  T.A.runtime = nullptr;
  T.A.fast = 0;
  for (unsigned A = 0; A < T.A.nalternatives; ++A)
    T.A.fast |= uint8_t(T.FastInit[A] = uint8_t(vigil_fast_eligible(&T.Models[A])));
  bool Log = setLog(T, true);
  bool LogSite = Log && vigil_fast_log_site(&T.Alts[0], T.A.nalternatives, T.A.mode,
                                            T.A.nfree);
  if (LogSite)
    T.FastInit[0] = 1;
  size_t N = VIGIL_INSTANCE_BYTES(T.A.nalternatives, T.A.ncaptures) +
             VIGIL_LOG_BYTES(VIGIL_LOG_SLOTS, 1 + VIGIL_MAX_VALUES);
  void *M = aligned_alloc(64, N); // never freed: the statistics keep it
  memset(M, 0, N);
  auto Bound = std::make_shared<vigil_bound>();
  memset(Bound.get(), 0, sizeof(vigil_bound));
  std::vector<std::thread> Ts;
  for (unsigned K = 0; K < Threads; ++K)
    Ts.emplace_back([&, M] {
      Instance I(M);
      FastPath FP{T, *Bound, I, true};
      FP.LogSite = LogSite;
      for (unsigned R = 0; R < Rounds; ++R)
        for (const Tok &Tk : Trace) {
          if (Tk.Kind == Tok::Enter) {
            FP.enter();
          } else if (Tk.Kind == Tok::Exit) {
            FP.exit();
          } else if (Tk.Kind == Tok::Site) {
            std::vector<uint64_t> Caps(T.A.ncaptures, 0);
            if (Bt.SiteK)
              Caps.back() = 7; // the value fire() gives the recorded events
            FP.site(Caps.data());
          } else {
            std::vector<std::pair<unsigned, std::vector<uint64_t>>> Fired;
            fire(Bt, Tk, Fired);
            for (auto &[S, V] : Fired) {
              if (Log)
                FP.logEvent(S, V.data());
              else
                FP.event(S, V.data());
            }
          }
        }
    });
  for (std::thread &Th : Ts)
    Th.join();
  T.A.runtime = nullptr;
  return takeReports();
}

std::vector<std::string> runObjects(Built &Bt, const std::vector<Tok> &Trace) {
  takeReports();
  {
    std::lock_guard<std::mutex> G(ReportLock);
    Lines.clear();
  }
  for (const Tok &Tk : Trace) {
    std::vector<std::pair<unsigned, std::vector<uint64_t>>> Fired;
    fire(Bt, Tk, Fired);
    for (auto &[S, V] : Fired)
      __vigil_object_event(&Bt.T->A, S, V.data());
  }
  {
    std::lock_guard<std::mutex> G(ReportLock);
    LastLines.clear();
    for (const std::string &L : Lines)
      LastLines += "      " + L + "\n";
  }
  return takeReports();
}
