//===- Trace.cpp - function tracing into the event stream ---------------===//
//
// Which functions are traced and where (Trace.h), the two phases, and the
// constructor that declares the events: priority 102, after the runtime's
// stream set-up at 101, and only when the stream is on, so that a program
// run without VIGIL_STREAM declares nothing.  The event of a traced
// function is its name with kind "entry" or "return", whichever side it is
// traced on; its arguments are named from the debug info when it has them
// (TraceArgs.cpp), the return value is "ret".
//
//===----------------------------------------------------------------------===//
#include "TraceInternal.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace llvm;
using namespace vigil::trace;

namespace vigil {

namespace {

/// The runtime, the instrumentation and the generated hooks are never
/// traced, nor are the calls made inside them.
bool excluded(StringRef Name) {
  return Name.starts_with("__vigil") || Name.starts_with("vigil_") ||
         Name.starts_with("llvm.");
}

bool defined(const Function &F) {
  return !F.isDeclaration() && !F.hasAvailableExternallyLinkage();
}

void warn(const Twine &Msg) { errs() << "vigil: warning: " << Msg << "\n"; }

} // namespace

Tracer::Impl::Impl(Module &M) : M(M), C(M.getContext()) {
  if (const char *S = std::getenv("VIGIL_TRACE"))
    Spec = S;
  const char *E = std::getenv("VIGIL_TRACE_EVENTS");
  Events = E && *E && std::strcmp(E, "0") != 0;
  Wanted = (!Spec.empty() || Events) && !M.getNamedMetadata("vigil.traced");
}

void Tracer::Impl::parseGlobs() {
  SmallVector<StringRef, 8> Parts;
  StringRef(Spec).split(Parts, ',', -1, false);
  for (StringRef Part : Parts) {
    auto G = GlobPattern::create(Part.trim());
    if (!G) {
      errs() << "vigil: error: --vigil-trace: bad pattern '" << Part << "': "
             << toString(G.takeError()) << "\n";
      exit(1);
    }
    Globs.push_back(std::move(*G));
  }
}

bool Tracer::Impl::matches(StringRef Name) const {
  for (const GlobPattern &G : Globs)
    if (G.match(Name))
      return true;
  return false;
}

/// The calls (and invokes) of F in the program's own functions.
std::vector<CallBase *> Tracer::Impl::directCalls(Function &F) const {
  std::vector<CallBase *> Out;
  for (User *U : F.users()) {
    auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledOperand()->stripPointerCasts() != &F ||
        !(isa<CallInst>(CB) || isa<InvokeInst>(CB)))
      continue;
    Function *In = CB->getFunction();
    if (defined(*In) && !excluded(In->getName()))
      Out.push_back(CB);
  }
  return Out;
}

void Tracer::Impl::add(Function &F, bool CallerSide, std::vector<CallBase *> Calls) {
  Traced T;
  T.F = &F;
  T.CallerSide = CallerSide;
  T.Sig = signatureOf(F);
  T.Calls = std::move(Calls);
  Event Entry{F.getName().str(), "entry", {}, {}};
  for (const ArgWord &A : T.Sig.Args) {
    Entry.Types.push_back(A.Type);
    if (T.Sig.named())
      Entry.Names.push_back(A.Name);
  }
  Event Return{F.getName().str(), "return", {}, {}};
  if (T.Sig.HasRet) {
    Return.Types.push_back(T.Sig.RetType);
    Return.Names.push_back("ret");
  }
  T.Entry = Table.size();
  Table.push_back(std::move(Entry));
  T.Return = Table.size();
  Table.push_back(std::move(Return));
  Fns.push_back(std::move(T));
}

void Tracer::Impl::makeProducer() {
  Type *I8 = Type::getInt8Ty(C), *I32 = Type::getInt32Ty(C);
  PointerType *Ptr = PointerType::getUnqual(C);
  P.On = cast<GlobalVariable>(M.getOrInsertGlobal("__vigil_stream_on", I8));
  P.Cursor = cast<GlobalVariable>(M.getOrInsertGlobal("__vigil_stream_cursor", Ptr));
  P.Cursor->setThreadLocalMode(GlobalValue::InitialExecTLSModel);
  P.Reserve = M.getOrInsertFunction("__vigil_stream_reserve",
                                    FunctionType::get(Ptr, {I32}, false));
  auto *IdsT = ArrayType::get(I32, Table.size());
  P.Ids = new GlobalVariable(M, IdsT, false, GlobalValue::InternalLinkage,
                             ConstantAggregateZero::get(IdsT), "__vigil_trace_ids");
}

Tracer::Tracer(Module &M) : P(std::make_unique<Impl>(M)) {}
Tracer::~Tracer() = default;
bool Tracer::wanted() const { return P->Wanted; }
bool Tracer::wantsEvents() const { return P->Events; }

void Tracer::plan(const std::set<std::string> &Named) {
  Impl &I = *P;
  if (!I.Wanted)
    return;
  I.M.getOrInsertNamedMetadata("vigil.traced");
  I.parseGlobs();
  bool Matched = false;
  std::vector<Function *> All;
  for (Function &F : I.M)
    All.push_back(&F);
  for (Function *F : All) {
    StringRef Name = F->getName();
    if (F->isIntrinsic() || excluded(Name))
      continue;
    bool Glob = I.matches(Name);
    if (!Glob && !(I.Events && Named.count(Name.str())))
      continue;
    if (defined(*F)) {
      I.add(*F, false, {});
      Matched |= Glob;
      continue;
    }
    std::vector<CallBase *> Calls = I.directCalls(*F);
    if (Calls.empty())
      continue; // declared, never called directly: nothing to record
    I.add(*F, true, std::move(Calls));
    Matched |= Glob;
  }
  if (!I.Spec.empty() && !Matched)
    warn("--vigil-trace=" + I.Spec +
         ": no function of the program matches (defined, or called directly)");
  if (I.Events && Named.empty())
    warn("--vigil-trace-events: no assertion or monitor binding of the program "
         "names a function");
  if (!I.Fns.empty())
    I.makeProducer();
}

} // namespace vigil
