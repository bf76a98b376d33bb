//===- AtomicNames.cpp - a shared variable's name from the debug info -----===//
//
// A report names the variable as the programmer wrote it: `counter`,
// `stats.hits`, `q->count`, `table[3]`.  The pointer is split into a base
// and a constant byte offset; the base is a global (its DIGlobalVariable)
// or a value a dbg.value / dbg.declare names (an argument, a loaded
// pointer); the offset is walked down the debug type's members and array
// elements.  Without debug info the IR names are used, and without those
// "<heap>".
//
//===----------------------------------------------------------------------===//
#include "Atomic.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace vigil {
namespace pass {

namespace {
const DIType *stripType(const DIType *T) {
  while (auto *D = dyn_cast_or_null<DIDerivedType>(T)) {
    unsigned Tag = D->getTag();
    if (Tag != dwarf::DW_TAG_typedef && Tag != dwarf::DW_TAG_const_type &&
        Tag != dwarf::DW_TAG_volatile_type && Tag != dwarf::DW_TAG_member &&
        Tag != dwarf::DW_TAG_atomic_type && Tag != dwarf::DW_TAG_restrict_type)
      break;
    T = D->getBaseType();
  }
  return T;
}

/// Appends ".member" / "[i]" for a byte offset inside a value of type T.
void appendPath(std::string &Name, const DIType *T, uint64_t Off) {
  for (int Depth = 0; Depth < 6 && (T = stripType(T)); ++Depth) {
    auto *CT = dyn_cast<DICompositeType>(T);
    if (!CT)
      break;
    uint64_t Bits = Off * 8;
    if (CT->getTag() == dwarf::DW_TAG_array_type) {
      const DIType *El = stripType(CT->getBaseType());
      uint64_t ElBytes = El ? El->getSizeInBits() / 8 : 0;
      if (!ElBytes)
        break;
      Name += "[" + std::to_string(Off / ElBytes) + "]";
      Off %= ElBytes;
      T = El;
      continue;
    }
    const DIDerivedType *Hit = nullptr;
    for (const DINode *N : CT->getElements()) {
      auto *Mem = dyn_cast<DIDerivedType>(N);
      if (!Mem || Mem->getTag() != dwarf::DW_TAG_member)
        continue;
      uint64_t B = Mem->getOffsetInBits(), S = Mem->getSizeInBits();
      if (Bits >= B && (Bits < B + S || S == 0))
        Hit = Mem;
    }
    if (!Hit)
      break;
    Name += (Name.empty() ? "" : ".") + Hit->getName().str();
    Off -= Hit->getOffsetInBits() / 8;
    T = Hit->getBaseType();
    if (Off == 0 && !isa_and_nonnull<DICompositeType>(stripType(T)))
      break;
  }
}

/// The debug variable that names Base (an argument, a loaded pointer).
const DILocalVariable *localVariable(const Value *Base) {
  SmallVector<DbgValueInst *, 2> Values;
  SmallVector<DbgVariableRecord *, 2> Records;
  findDbgValues(Values, const_cast<Value *>(Base), &Records);
  for (DbgVariableRecord *R : Records)
    return R->getVariable();
  for (DbgValueInst *V : Values)
    return V->getVariable();
  return nullptr;
}

SharedVar fromGlobal(const GlobalVariable *GV, uint64_t Off) {
  SharedVar V;
  V.Global = GV;
  SmallVector<DIGlobalVariableExpression *, 1> GVEs;
  GV->getDebugInfo(GVEs);
  if (GVEs.empty()) {
    V.Name = GV->getName().str();
    if (Off)
      V.Name += "+" + std::to_string(Off);
    return V;
  }
  const DIGlobalVariable *DV = GVEs[0]->getVariable();
  V.Name = DV->getName().str();
  V.File = DV->getFilename().str();
  V.Line = DV->getLine();
  appendPath(V.Name, DV->getType(), Off);
  return V;
}
} // namespace

/// A local whose address escaped: the variable itself (`box`, `box.n`).
const DILocalVariable *declaredVariable(const Value *Alloca) {
  Value *V = const_cast<Value *>(Alloca);
  for (DbgVariableRecord *R : findDVRDeclares(V))
    return R->getVariable();
  for (DbgDeclareInst *D : findDbgDeclares(V))
    return D->getVariable();
  return nullptr;
}

SharedVar SharedMemory::describe(const SharedAccess &A,
                                 const DataLayout &DL) const {
  int64_t Off = 0;
  const Value *Base = GetPointerBaseWithConstantOffset(A.Ptr, Off, DL);
  const Value *Obj = getUnderlyingObject(Base, 8);
  if (isa<AllocaInst>(Obj) && Obj == Base && Off >= 0)
    if (const DILocalVariable *LV = declaredVariable(Obj)) {
      SharedVar V;
      V.Name = LV->getName().str();
      V.File = LV->getFilename().str();
      V.Line = LV->getLine();
      appendPath(V.Name, LV->getType(), uint64_t(Off));
      return V;
    }
  if (auto *GV = dyn_cast<GlobalVariable>(Obj)) {
    if (Obj == Base && Off >= 0)
      return fromGlobal(GV, uint64_t(Off));
    SharedVar V = fromGlobal(GV, 0);
    V.Name += "[?]";
    return V;
  }
  SharedVar V;
  if (const DILocalVariable *LV = localVariable(Base)) {
    V.File = LV->getFilename().str();
    V.Line = LV->getLine();
    const DIType *T = stripType(LV->getType());
    auto *P = dyn_cast_or_null<DIDerivedType>(T);
    if (P && P->getTag() == dwarf::DW_TAG_pointer_type && Off >= 0) {
      std::string Path;
      appendPath(Path, P->getBaseType(), uint64_t(Off));
      if (Path.empty())
        V.Name = "*" + LV->getName().str();
      else if (Path[0] == '[')
        V.Name = LV->getName().str() + Path;
      else
        V.Name = LV->getName().str() + "->" + Path;
      return V;
    }
    V.Name = "*" + LV->getName().str();
    return V;
  }
  if (Base->hasName())
    V.Name = "*" + Base->getName().str();
  else
    V.Name = "<heap>";
  if (Off)
    V.Name += "+" + std::to_string(Off);
  return V;
}

} // namespace pass
} // namespace vigil
