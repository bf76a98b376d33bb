//===- tables.cpp - the pass's ABI tables, built in memory ----------------===//
#include "tables.h"

static const char *keep(Tables &T, const std::string &S) {
  T.Strings.push_back(S);
  return T.Strings.back().c_str();
}

static vigil_state_desc state(const vigil::StateInfo &I) {
  vigil_state_desc D{};
  D.need = I.Need;
  D.newpass = I.NewPass;
  D.flags = I.Flags;
  D.named = I.Named;
  D.early = I.Early;
  D.dist = I.Dist;
  return D;
}

void buildTables(const vigil::Assertion &M, uint32_t Id, bool Inline, Tables &T) {
  T.M = M;
  const vigil::Assertion &A = T.M;
  for (const vigil::Event &E : A.Symbols) {
    std::vector<vigil_value_desc> Vs;
    for (const vigil::Value &V : E.Values) {
      vigil_value_desc D{};
      D.text = keep(T, V.Text);
      D.constant = V.Constant;
      D.kind = V.Kind;
      D.role = V.Role;
      D.arg_index = V.ArgIndex;
      D.index = V.Index;
      D.indirect = V.Indirect;
      Vs.push_back(D);
    }
    T.Values.push_back(Vs);
  }
  for (size_t S = 0; S < A.Symbols.size(); ++S) {
    const vigil::Event &E = A.Symbols[S];
    vigil_event_desc D{};
    D.function = E.Kind == vigil::EV_SITE ? nullptr : keep(T, E.Function);
    D.text = keep(T, E.Text);
    D.values = T.Values[S].data();
    D.kind = E.Kind;
    D.flags = E.flags();
    D.nvalues = uint8_t(E.Values.size());
    T.Events.push_back(D);
    if (D.flags & VIGIL_EF_STATIC)
      T.Statics |= uint64_t(1) << S;
  }
  for (const vigil::Automaton &Au : A.Alternatives) {
    T.Next.push_back(Au.D.Next);
    std::vector<vigil_state_desc> Ss;
    for (const vigil::StateInfo &I : Au.D.States)
      Ss.push_back(state(I));
    T.States.push_back(Ss);
  }
  bool AnyFast = false;
  for (size_t I = 0; I < A.Alternatives.size(); ++I) {
    const vigil::Automaton &Au = A.Alternatives[I];
    vigil_automaton D{};
    D.next = T.Next[I].data();
    D.states = T.States[I].data();
    D.text = keep(T, Au.Text);
    D.alphabet = Au.Alphabet;
    D.pre = Au.PreSyms;
    D.post = Au.PostSyms;
    D.nstates = uint16_t(Au.D.NStates);
    D.post_start = Au.D.PostStart;
    D.flags = Au.Flags;
    T.Alts.push_back(D);
  }
  for (size_t I = 0; I < T.Alts.size() && I < 8; ++I) {
    T.Models[I] = {&T.Alts[I], T.Statics, unsigned(A.Symbols.size()), A.Mode};
    AnyFast |= bool(vigil_fast_eligible(&T.Models[I]));
  }
  for (const std::string &C : A.Captures)
    T.CaptureTexts.push_back(keep(T, C));
  for (const std::string &F : A.Free)
    T.FreeTexts.push_back(keep(T, F));
  vigil_assertion &R = T.A;
  R.location = keep(T, A.Location.empty() ? "test.c:1:1" : A.Location);
  R.text = keep(T, A.Text);
  R.alternatives = T.Alts.data();
  R.symbols = T.Events.data();
  R.capture_texts = T.CaptureTexts.data();
  R.free_texts = T.FreeTexts.data();
  R.id = Id;
  R.nalternatives = uint8_t(A.Alternatives.size());
  R.nsymbols = uint8_t(A.Symbols.size());
  R.locality = A.Locality;
  R.mode = A.Mode;
  R.ncaptures = uint8_t(A.Captures.size());
  R.nfree = uint8_t(A.Free.size());
  R.kind = A.Kind;
  R.fast = Inline && AnyFast && A.Kind == vigil::AK_INLINE &&
           A.Locality == vigil::PERTHREAD;
  for (size_t I = 0; I < T.Alts.size() && I < 8; ++I)
    T.FastInit[I] = uint8_t(R.fast && vigil_fast_eligible(&T.Models[I]));
}
