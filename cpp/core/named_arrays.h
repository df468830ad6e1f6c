// An optional second interface of an env: named parameter arrays that a user
// reads and writes per env between its steps (the pools' get_model and
// set_model read a simulator's model fields through it). An env offers them
// by also deriving from NamedArrays; the engine finds it with dynamic_cast,
// so Env, Family and the SDK's v1 layout stay as they are and envs without
// it (or built before it) simply have no named arrays.
#ifndef ENVPOOL_CORE_NAMED_ARRAYS_H_
#define ENVPOOL_CORE_NAMED_ARRAYS_H_

#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"

namespace envpool {

class NamedArrays {
 public:
  virtual ~NamedArrays() = default;
  // The names an env has, for error messages.
  virtual std::vector<std::string> ArrayNames() const = 0;
  // Array `name`'s dtype and shape (spec->name is set to name); false when
  // the env has no such array.
  virtual bool FindArray(const std::string& name, ArraySpec* spec) const = 0;
  // Copies the array, C order, into dst (FindArray's dtype and shape).
  virtual void GetArray(const std::string& name, void* dst) const = 0;
  // Whether SetArray takes this array; false with why set for a read-only
  // one.
  virtual bool CanSetArray(const std::string& name, std::string* why) const = 0;
  // Copies src (FindArray's dtype and shape, C order) in; it takes effect
  // before the env's next step. Called only when CanSetArray said yes.
  virtual void SetArray(const std::string& name, const void* src) = 0;
};

inline NamedArrays* NamedArraysOf(Env* env) { return dynamic_cast<NamedArrays*>(env); }

}  // namespace envpool

#endif  // ENVPOOL_CORE_NAMED_ARRAYS_H_
