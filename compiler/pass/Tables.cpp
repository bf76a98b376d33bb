//===- Tables.cpp - the constant data of include/vigil/abi.h --------------===//
//
// For every assertion: its vigil_assertion (writable: the runtime keeps a
// pointer in it), the alternatives' DFAs (next table, state descriptions),
// the symbols with their value slots, the capture and free-variable texts;
// and, for inline assertions, the instance storage (thread_local for
// per-thread assertions, 64-byte aligned) and the bound groups.
//
//===----------------------------------------------------------------------===//
#include "Pass.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

using namespace llvm;

namespace vigil {
namespace pass {

static_assert(sizeof(vigil_value_desc) == 24, "vigil_value_desc layout");
static_assert(sizeof(vigil_event_desc) == 32, "vigil_event_desc layout");
static_assert(sizeof(vigil_state_desc) == 24, "vigil_state_desc layout");
static_assert(sizeof(vigil_automaton) == 56, "vigil_automaton layout");
static_assert(sizeof(vigil_assertion) == 72, "vigil_assertion layout");
static_assert(sizeof(vigil_bound) == 64, "vigil_bound layout");
static_assert(VIGIL_MAX_SYMBOLS == MaxSymbols && VIGIL_MAX_VALUES == MaxValues &&
                  VIGIL_MAX_CAPTURES == MaxCaptures &&
                  VIGIL_MAX_FREE == MaxFree &&
                  VIGIL_MAX_ALTERNATIVES == MaxAlternatives,
              "model limits = abi.h limits");
static_assert(VIGIL_NO_STATE == NoState && VIGIL_NO_SYMBOL == NoSymbol,
              "model sentinels = abi.h sentinels");
static_assert(unsigned(VIGIL_EV_FIELD) == EV_FIELD &&
                  unsigned(VIGIL_VAL_KEY) == VAL_KEY &&
                  unsigned(VIGIL_ROLE_VALUE) == ROLE_VALUE &&
                  unsigned(VIGIL_SF_INITIAL) == SF_INITIAL &&
                  unsigned(VIGIL_AF_FAST) == AF_FAST &&
                  unsigned(VIGIL_KIND_STRUCT) == AK_STRUCT &&
                  unsigned(VIGIL_MODE_STRICT) == MODE_STRICT &&
                  unsigned(VIGIL_GLOBAL) == GLOBAL,
              "model enumerators = abi.h enumerators");

/// Forward "must" dataflow over the DFA: the symbols in `ever` in each
/// state whatever the path (a new pass clears `ever`, then takes its
/// symbol, as vg_cand_step does).  Unreachable states keep every symbol.
static std::vector<uint64_t> surelySeen(const vigil_automaton &Au, unsigned NSyms) {
  std::vector<uint64_t> Sure(Au.nstates, ~uint64_t(0));
  std::vector<bool> Reached(Au.nstates, false);
  if (Au.nstates == 0)
    return Sure;
  Sure[0] = 0;
  Reached[0] = true;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned D = 0; D < Au.nstates; ++D) {
      if (!Reached[D])
        continue;
      for (unsigned S = 0; S < NSyms; ++S) {
        unsigned T = Au.next[D * NSyms + S];
        if (T == VIGIL_NO_STATE)
          continue;
        uint64_t Bit = uint64_t(1) << S;
        uint64_t In = ((Au.states[D].newpass & Bit) ? 0 : Sure[D]) | Bit;
        if (!Reached[T] || (Sure[T] & In) != Sure[T]) {
          Sure[T] &= In;
          Reached[T] = true;
          Changed = true;
        }
      }
    }
  }
  return Sure;
}

/// Forward "may" dataflow: the symbols `ever` can hold in each state; a
/// failure reads bit `named` of a state before the site (engine.c, derive)
/// when no earlier event explains it, so only those bits matter.
static uint64_t everRead(const vigil_automaton &Au, unsigned NSyms) {
  std::vector<uint64_t> May(Au.nstates, 0);
  std::vector<bool> Reached(Au.nstates, false);
  if (Au.nstates == 0)
    return 0;
  Reached[0] = true;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned D = 0; D < Au.nstates; ++D) {
      if (!Reached[D])
        continue;
      for (unsigned S = 0; S < NSyms; ++S) {
        unsigned T = Au.next[D * NSyms + S];
        if (T == VIGIL_NO_STATE)
          continue;
        uint64_t Bit = uint64_t(1) << S;
        uint64_t In = ((Au.states[D].newpass & Bit) ? 0 : May[D]) | Bit;
        if (!Reached[T] || (May[T] | In) != May[T]) {
          May[T] |= In;
          Reached[T] = true;
          Changed = true;
        }
      }
    }
  }
  uint64_t Read = 0;
  for (unsigned D = 0; D < Au.nstates; ++D) {
    const vigil_state_desc &St = Au.states[D];
    if (!Reached[D] || (St.flags & VIGIL_SF_PAST_SITE) || St.named == VIGIL_NO_SYMBOL ||
        St.early != VIGIL_NO_SYMBOL)
      continue;
    Read |= May[D] & (uint64_t(1) << St.named);
  }
  return Read;
}

/// The symbol one shortest path from state 0 to a final state (BFS, the
/// bounds' symbols aside) takes in each state on it; 0xff elsewhere.
static std::vector<uint8_t> happyPath(const vigil_automaton &Au, unsigned NSyms) {
  std::vector<uint8_t> Hot(Au.nstates, 0xff);
  std::vector<int> Prev(Au.nstates, -1), Via(Au.nstates, -1);
  std::vector<unsigned> Queue{0};
  if (Au.nstates == 0)
    return Hot;
  Prev[0] = 0;
  for (size_t Q = 0; Q < Queue.size(); ++Q) {
    unsigned D = Queue[Q];
    if (Au.states[D].flags & VIGIL_SF_FINAL) {
      for (unsigned X = D; X != 0; X = unsigned(Prev[X]))
        Hot[unsigned(Prev[X])] = uint8_t(Via[X]);
      break;
    }
    for (unsigned S = VIGIL_SYM_SITE; S < NSyms; ++S) {
      unsigned T = Au.next[D * NSyms + S];
      if (T != VIGIL_NO_STATE && Prev[T] < 0) {
        Prev[T] = int(D);
        Via[T] = int(S);
        Queue.push_back(T);
      }
    }
  }
  return Hot;
}

/// Per state, the symbols that take some shortest path from that state to a
/// final state (the bounds' symbols aside): the next state is one step
/// nearer a final state.  Where the events come in another order than the
/// one shortest path from the start (happyPath), or an OR block's other
/// member comes first, a passing program still takes such a symbol in the
/// state it is in (Hooks.cpp likelyRank: the states a hook tests first).
/// Sideways (when given): per state, the symbols that move to another state
/// as far from a final state (an optional event, an OR block's other
/// member after the first).
static std::vector<uint64_t> likelySyms(const vigil_automaton &Au, unsigned NSyms,
                                        std::vector<uint64_t> &Sideways) {
  unsigned N = Au.nstates;
  std::vector<uint64_t> Likely(N, 0);
  Sideways.assign(N, 0);
  const unsigned Far = ~0u;
  std::vector<unsigned> Dist(N, Far);
  std::vector<unsigned> Queue;
  for (unsigned D = 0; D < N; ++D)
    if (Au.states[D].flags & VIGIL_SF_FINAL)
      Dist[D] = 0, Queue.push_back(D);
  // Backwards breadth first: relax every edge into the states found so far
  // (the automata are small: a few dozen states and symbols).
  for (size_t Q = 0; Q < Queue.size(); ++Q) {
    unsigned T = Queue[Q];
    for (unsigned D = 0; D < N; ++D) {
      if (Dist[D] != Far)
        continue;
      for (unsigned S = VIGIL_SYM_SITE; S < NSyms; ++S)
        if (Au.next[D * NSyms + S] == T) {
          Dist[D] = Dist[T] + 1;
          Queue.push_back(D);
          break;
        }
    }
  }
  for (unsigned D = 0; D < N; ++D) {
    if (Dist[D] == Far || Dist[D] == 0)
      continue;
    for (unsigned S = VIGIL_SYM_SITE; S < NSyms && S < 64; ++S) {
      unsigned T = Au.next[D * NSyms + S];
      if (T == VIGIL_NO_STATE || T >= N || T == D)
        continue;
      if (Dist[T] + 1 == Dist[D])
        Likely[D] |= uint64_t(1) << S;
      else if (Dist[T] == Dist[D])
        Sideways[D] |= uint64_t(1) << S;
    }
  }
  return Likely;
}

void Instrumenter::makeTypes() {
  auto Pad = [&](unsigned N) { return ArrayType::get(I8, N); };
  ValueDescTy = StructType::create(C, {Ptr, I64, I8, I8, I8, I8, I8, Pad(3)},
                                   "vigil.value_desc");
  EventDescTy = StructType::create(C, {Ptr, Ptr, Ptr, I8, I8, I8, Pad(5)},
                                   "vigil.event_desc");
  StateDescTy = StructType::create(C, {I64, I64, I8, I8, I8, I8, Pad(4)},
                                   "vigil.state_desc");
  AutomatonTy = StructType::create(
      C, {Ptr, Ptr, Ptr, I64, I64, I64, I16, I16, I8, Pad(3)},
      "vigil.automaton");
  AssertionTy = StructType::create(C,
                                   {Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, Ptr, I32, I8,
                                    I8, I8, I8, I8, I8, I8, I8, I8, I8, I8, Pad(1)},
                                   "vigil.assertion");
  // The globals must have the C layout on this target (LP64).
  std::pair<StructType *, uint64_t> Sizes[] = {
      {ValueDescTy, sizeof(vigil_value_desc)},
      {EventDescTy, sizeof(vigil_event_desc)},
      {StateDescTy, sizeof(vigil_state_desc)},
      {AutomatonTy, sizeof(vigil_automaton)},
      {AssertionTy, sizeof(vigil_assertion)}};
  for (auto &[T, N] : Sizes)
    if (DL.getTypeAllocSize(T) != N)
      fail(M.getName(), "the target's layout of " + T->getName() +
                            " differs from include/vigil/abi.h (an LP64 "
                            "target is required)");
}

/// The C view of every alternative, for vigil/fastpath.h.
void Instrumenter::buildHost() {
  Host.clear();
  Fast.assign(As.size(), false);
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    uint64_t Static = 0;
    for (unsigned S = 0; S < A.Symbols.size(); ++S)
      if (A.Symbols[S].flags() & EF_STATIC)
        Static |= uint64_t(1) << S;
    Host.emplace_back();
    bool Any = false;
    for (const Automaton &Au : A.Alternatives) {
      auto H = std::make_unique<HostAlt>();
      H->Next = Au.D.Next;
      for (const StateInfo &St : Au.D.States) {
        vigil_state_desc SD{};
        SD.need = St.Need;
        SD.newpass = St.NewPass;
        SD.flags = St.Flags;
        SD.named = St.Named;
        SD.early = St.Early;
        SD.dist = St.Dist;
        H->States.push_back(SD);
      }
      H->Au.next = H->Next.data();
      H->Au.states = H->States.data();
      H->Au.alphabet = Au.Alphabet;
      H->Au.pre = Au.PreSyms;
      H->Au.post = Au.PostSyms;
      H->Au.nstates = uint16_t(Au.D.NStates);
      H->Au.post_start = Au.D.PostStart;
      H->Au.flags = Au.Flags;
      H->M.automaton = &H->Au;
      H->M.static_symbols = Static;
      H->M.nsymbols = unsigned(A.Symbols.size());
      H->M.mode = A.Mode;
      H->Eligible = Au.D.NStates > 0 && vigil_fast_eligible(&H->M);
      H->Surely = surelySeen(H->Au, H->M.nsymbols);
      H->EverRead = everRead(H->Au, H->M.nsymbols);
      H->HotSym = happyPath(H->Au, H->M.nsymbols);
      H->Likely = likelySyms(H->Au, H->M.nsymbols, H->Sideways);
      Any |= H->Eligible;
      Host.back().push_back(std::move(H));
    }
    // Global assertions too: their hooks take the bound's lock
    // (HooksGlobal.cpp).
    Fast[AI] = FastPath && Any && A.Kind == AK_INLINE;
    // A recording alternative is no table step before its site, but one
    // whose site the log decides (HooksLogSite.cpp) takes them after it.
    if (A.Kind == AK_INLINE && logSite(AI))
      Fast[AI] = Host[AI][0]->Eligible = true;
  }
}

Constant *Instrumenter::str(StringRef S) {
  auto It = Strings.find(S);
  if (It != Strings.end())
    return It->second;
  Constant *Init = ConstantDataArray::getString(C, S, true);
  auto *GV = new GlobalVariable(M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, "vigil.str");
  GV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  GV->setAlignment(Align(1));
  Strings[S] = GV;
  return GV;
}

Constant *Instrumenter::table(Type *ElemTy, ArrayRef<Constant *> Elems,
                              const Twine &Name) {
  if (Elems.empty())
    return ConstantPointerNull::get(Ptr);
  auto *ATy = ArrayType::get(ElemTy, Elems.size());
  auto *GV = new GlobalVariable(M, ATy, true, GlobalValue::PrivateLinkage,
                                ConstantArray::get(ATy, Elems), Name);
  GV->setAlignment(Align(8));
  return GV;
}

static Constant *b8(Type *I8, uint64_t V) { return ConstantInt::get(I8, V); }

Constant *Instrumenter::symbolTable(unsigned AI, const std::string &P) {
  const Assertion &A = As[AI];
  auto Pad = [&](unsigned N) {
    return ConstantAggregateZero::get(ArrayType::get(I8, N));
  };
  std::vector<Constant *> Syms;
  for (unsigned S = 0; S < A.Symbols.size(); ++S) {
    const vigil::Event &E = A.Symbols[S];
    std::vector<Constant *> Vals;
    for (const vigil::Value &V : E.Values)
      Vals.push_back(ConstantStruct::get(
          ValueDescTy,
          {str(V.Text), ConstantInt::get(I64, V.Constant), b8(I8, V.Kind),
           b8(I8, V.Role), b8(I8, V.ArgIndex), b8(I8, V.Index),
           b8(I8, V.Indirect), Pad(3)}));
    Constant *ValsGV =
        table(ValueDescTy, Vals, P + ".sym" + Twine(S) + ".values");
    uint8_t Flags = E.flags();
    if (callerSide(E))
      Flags |= EF_CALLER;
    Constant *Fn = E.Kind == EV_SITE ? (Constant *)ConstantPointerNull::get(Ptr)
                                     : str(E.Function);
    Syms.push_back(ConstantStruct::get(
        EventDescTy, {Fn, str(E.Text), ValsGV, b8(I8, E.Kind), b8(I8, Flags),
                      b8(I8, E.Values.size()), Pad(5)}));
  }
  return table(EventDescTy, Syms, P + ".symbols");
}

Constant *Instrumenter::alternativeTable(unsigned AI, const std::string &P) {
  const Assertion &A = As[AI];
  auto Pad = [&](unsigned N) {
    return ConstantAggregateZero::get(ArrayType::get(I8, N));
  };
  std::vector<Constant *> Autos;
  for (unsigned Alt = 0; Alt < A.Alternatives.size(); ++Alt) {
    const Automaton &Au = A.Alternatives[Alt];
    std::string Q = P + ".alt" + std::to_string(Alt);
    std::vector<Constant *> States;
    for (const vigil_state_desc &SD : Host[AI][Alt]->States)
      States.push_back(ConstantStruct::get(
          StateDescTy,
          {ConstantInt::get(I64, SD.need), ConstantInt::get(I64, SD.newpass),
           b8(I8, SD.flags), b8(I8, SD.named), b8(I8, SD.early),
           b8(I8, SD.dist), Pad(4)}));
    Constant *Next = ConstantPointerNull::get(Ptr);
    if (!Au.D.Next.empty()) {
      Constant *Init = ConstantDataArray::get(C, ArrayRef<uint16_t>(Au.D.Next));
      auto *GV = new GlobalVariable(M, Init->getType(), true,
                                    GlobalValue::PrivateLinkage, Init,
                                    Q + ".next");
      GV->setAlignment(Align(8));
      Next = GV;
    }
    Autos.push_back(ConstantStruct::get(
        AutomatonTy,
        {Next, table(StateDescTy, States, Q + ".states"), str(Au.Text),
         ConstantInt::get(I64, Au.Alphabet), ConstantInt::get(I64, Au.PreSyms),
         ConstantInt::get(I64, Au.PostSyms),
         ConstantInt::get(I16, Au.D.NStates),
         ConstantInt::get(I16, Au.D.PostStart), b8(I8, Au.Flags), Pad(3)}));
  }
  return table(AutomatonTy, Autos, P + ".alternatives");
}

void Instrumenter::emitTables() {
  auto Pad = [&](unsigned N) {
    return ConstantAggregateZero::get(ArrayType::get(I8, N));
  };
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    std::string P = "vigil.a" + std::to_string(AI);
    std::vector<Constant *> Caps, Free;
    for (const std::string &T : A.Captures)
      Caps.push_back(str(T));
    for (const std::string &T : A.Free)
      Free.push_back(str(T));
    Constant *Autos = alternativeTable(AI, P);
    Constant *Syms = symbolTable(AI, P);
    auto *AGV = new GlobalVariable(
        M, AssertionTy, false, GlobalValue::InternalLinkage,
        ConstantStruct::get(
            AssertionTy,
            {str(A.Location), str(A.Text), Autos, Syms,
             table(Ptr, Caps, P + ".capture_texts"),
             table(Ptr, Free, P + ".free_texts"),
             ConstantPointerNull::get(Ptr), ConstantInt::get(I32, AI),
             b8(I8, A.Alternatives.size()), b8(I8, A.Symbols.size()),
             b8(I8, A.Locality), b8(I8, A.Mode), b8(I8, A.Captures.size()),
             b8(I8, A.Free.size()), b8(I8, Fast[AI]),
             b8(I8, A.Kind == AK_STRUCT ? VIGIL_KIND_STRUCT
                                        : VIGIL_KIND_INLINE),
             b8(I8, Eager[AI]), b8(I8, logSlots(AI)),
             b8(I8, logStride(AI)), Pad(1)}),
        P);
    AGV->setAlignment(Align(8));
    AssertionGVs.push_back(AGV);
  }
}

/// Instances (inline assertions) and bound groups, zero-initialised.
void Instrumenter::emitStorage() {
  auto Zero = [&](unsigned N) {
    return ConstantAggregateZero::get(ArrayType::get(I8, N));
  };
  auto TLS = [](bool Global) {
    return Global ? GlobalValue::NotThreadLocal
                  : GlobalValue::GeneralDynamicTLSModel;
  };
  for (unsigned AI = 0; AI < As.size(); ++AI) {
    const Assertion &A = As[AI];
    if (A.Kind == AK_STRUCT) {
      InstanceGVs.push_back(nullptr);
      continue;
    }
    unsigned N = VIGIL_INSTANCE_BYTES(A.Alternatives.size(), A.Captures.size());
    if (logSlots(AI)) // HooksStore.cpp: the inline log follows the captures
      N += VIGIL_LOG_BYTES(logSlots(AI), logStride(AI));
    // An eager instance starts outside its bound (vigil/abi.h).
    std::vector<uint8_t> Init(N, 0);
    if (Eager[AI])
      for (unsigned Alt = 0; Alt < A.Alternatives.size(); ++Alt)
        Init[VIGIL_HDR_FAST + Alt] = VIGIL_FAST_OUTSIDE;
    Constant *InitC = Eager[AI] ? ConstantDataArray::get(C, ArrayRef<uint8_t>(Init))
                                : (Constant *)Zero(N);
    auto *IGV = new GlobalVariable(
        M, ArrayType::get(I8, N), false, GlobalValue::InternalLinkage, InitC,
        "vigil.a" + Twine(AI) + ".instance", nullptr,
        TLS(A.Locality == GLOBAL));
    IGV->setAlignment(Align(64));
    InstanceGVs.push_back(IGV);
  }
  for (unsigned G = 0; G < Groups.size(); ++G) {
    // With eager members the bound starts with pending = 1: the first exit
    // on each thread calls the runtime, which registers them; with only
    // eager members gen counts entries from ~0 and the first entry does
    // (vigil/abi.h VIGIL_BOUND_ENTRIES).
    vigil_bound Init{};
    Init.pending = !Groups[G].Eager.empty() && !Groups[G].Entries ? 1 : 0;
    Init.gen = Groups[G].Entries ? ~uint64_t(0) : 0;
    Init.flags = Groups[G].Entries ? VIGIL_BOUND_ENTRIES : 0;
    Constant *InitC = ConstantDataArray::get(
        C, ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&Init), sizeof Init));
    Groups[G].GV = new GlobalVariable(
        M, ArrayType::get(I8, sizeof(vigil_bound)), false,
        GlobalValue::InternalLinkage,
        Groups[G].Eager.empty() ? (Constant *)Zero(sizeof(vigil_bound)) : InitC,
        "vigil.bound" + Twine(G), nullptr, TLS(Groups[G].Global));
    Groups[G].GV->setAlignment(Align(64));
    std::vector<Constant *> EagerAs;
    for (unsigned AI : Groups[G].Eager)
      EagerAs.push_back(AssertionGVs[AI]);
    if (!EagerAs.empty())
      Groups[G].EagerAs = cast<GlobalVariable>(
          table(Ptr, EagerAs, "vigil.bound" + Twine(G) + ".eager"));
  }
}

} // namespace pass
} // namespace vigil
