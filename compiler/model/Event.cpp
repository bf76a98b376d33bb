//===- Event.cpp - the events (symbols) of an assertion -------------------===//
#include "Event.h"

namespace vigil {

bool Value::operator==(const Value &O) const {
  if (Kind != O.Kind || Role != O.Role || Indirect != O.Indirect)
    return false;
  if (Role == ROLE_ARG && ArgIndex != O.ArgIndex)
    return false;
  switch (Kind) {
  case VAL_CONST:
  case VAL_FLAGS:
  case VAL_MASK:
    return Constant == O.Constant;
  case VAL_CAPTURE:
  case VAL_FREE:
  case VAL_PARAM:
    return Index == O.Index;
  default:
    return true;
  }
}

bool Event::hasKind(uint8_t K) const {
  for (const Value &V : Values)
    if (V.Kind == K)
      return true;
  return false;
}

bool Event::isStatic() const {
  return !hasKind(VAL_CAPTURE) && !hasKind(VAL_FREE) && !hasKind(VAL_KEY);
}

uint8_t Event::flags() const {
  uint8_t F = 0;
  if (isStatic())
    F |= EF_STATIC;
  if (ForceCaller)
    F |= EF_CALLER;
  if (hasKind(VAL_FREE))
    F |= EF_FREE;
  if (hasKind(VAL_KEY))
    F |= EF_KEY;
  return F;
}

bool Event::sameAs(const Event &O) const {
  if (Kind == EV_SITE || O.Kind == EV_SITE)
    return Kind == O.Kind;
  if ((Kind == EV_FIELD) != (O.Kind == EV_FIELD))
    return false;
  if (Kind == EV_FIELD) {
    if (Record != O.Record || FieldOffset != O.FieldOffset || Op != O.Op)
      return false;
  } else if (AtReturn != O.AtReturn || Function != O.Function ||
             ForceCaller != O.ForceCaller) {
    return false;
  }
  // ANY slots match everything, so they do not distinguish events.
  auto Significant = [](const Event &E) {
    std::vector<const Value *> R;
    for (const Value &V : E.Values)
      if (V.Kind != VAL_ANY)
        R.push_back(&V);
    return R;
  };
  auto A = Significant(*this), B = Significant(O);
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!(*A[I] == *B[I]))
      return false;
  return true;
}

const char *eventKindName(uint8_t K) {
  switch (K) {
  case EV_START: return "start";
  case EV_END: return "end";
  case EV_CALL: return "call";
  case EV_RETURN: return "return";
  case EV_SITE: return "site";
  case EV_FIELD: return "field";
  }
  return "?";
}

const char *valueKindName(uint8_t K) {
  switch (K) {
  case VAL_ANY: return "any";
  case VAL_CONST: return "const";
  case VAL_CAPTURE: return "capture";
  case VAL_FLAGS: return "flags";
  case VAL_MASK: return "bitmask";
  case VAL_FREE: return "free";
  case VAL_KEY: return "key";
  case VAL_PARAM: return "param";
  }
  return "?";
}

const char *valueRoleName(uint8_t R) {
  switch (R) {
  case ROLE_ARG: return "arg";
  case ROLE_RETURN: return "return";
  case ROLE_BASE: return "base";
  case ROLE_VALUE: return "value";
  }
  return "?";
}

const char *fieldOpName(uint8_t Op) {
  switch (Op) {
  case OP_ADD: return "+=";
  case OP_SUB: return "-=";
  default: return "=";
  }
}

} // namespace vigil
