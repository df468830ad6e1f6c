// The checks of a pool call's arguments (env ids, seeds, actions) and their
// messages, each written once: the binding (cpp/binding/), the XLA handlers
// and, through the binding, src/envpool/xla.py and src/envpool/ray.py use these.
// No pybind: what Python raises as a TypeError is a message constant here
// that the binding throws as py::type_error; the value checks throw
// std::invalid_argument (ValueError, errors.h).
#ifndef ENVPOOL_CORE_CHECKS_H_
#define ENVPOOL_CORE_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "cpp/core/keys.h"
#include "cpp/core/spec.h"

namespace envpool::checks {

// -- env ids ------------------------------------------------------------------
inline constexpr const char* kEnvIdType = "env_id must be an int or a 1-D sequence of ints";
inline std::string EnvIdDtype(const std::string& dtype) { return "env_id must hold integers, got dtype " + dtype; }

inline std::string EnvIdOutOfRange(int64_t id, int num_envs) {
  return "env_id " + std::to_string(id) + " is out of range [0, " + std::to_string(num_envs) + ")";
}

// An env id as given (any integer), checked against [0, num_envs).
inline int CheckEnvId(int64_t id, int num_envs) {
  if (id < 0 || id >= num_envs) throw std::invalid_argument(EnvIdOutOfRange(id, num_envs));
  return static_cast<int>(id);
}
// An unsigned id beyond int64 must not wrap to a valid one.
inline int CheckEnvId(uint64_t id, int num_envs) {
  if (id > static_cast<uint64_t>(INT64_MAX))
    throw std::invalid_argument("env_id " + std::to_string(id) + " is out of range");
  return CheckEnvId(static_cast<int64_t>(id), num_envs);
}

inline std::string EnvIdRepeated(int id) { return "env_id " + std::to_string(id) + " is repeated"; }
inline std::string EnvInFlight(int id) {
  return "env " + std::to_string(id) + " is still in flight: recv() its result before sending to it again";
}

// autoreset_mode "disabled": a step of an env that is done (or was never
// reset, or failed) until a reset names it.
inline std::string EnvNeedsReset(int id) {
  return "env " + std::to_string(id) +
         " is done (or not yet reset) and autoreset_mode is 'disabled': reset it first, with reset(env_id=[" +
         std::to_string(id) + "]) or reset(options={'reset_mask': mask})";
}

// Repeats among ids already in range (a call names each env at most once).
inline void CheckNoRepeats(const std::vector<int>& ids, int num_envs) {
  std::vector<bool> seen(static_cast<std::size_t>(num_envs), false);
  for (int id : ids) {
    if (seen[id]) throw std::invalid_argument(EnvIdRepeated(id));
    seen[id] = true;
  }
}

// -- seeds --------------------------------------------------------------------
// An int seed s gives env i of the call the seed s + i; a list gives one per env.
inline constexpr const char* kSeedType = "seed must be an int, a list of ints (one per env) or None";
inline constexpr const char* kSeedItemType = "seed must be an int or a list of ints";
inline constexpr const char* kSeedRange = "seed must be in [0, 2**63 - 1]";
inline constexpr const char* kSeedBaseRange = "seed must be in [0, 2**63 - 1 - num_envs]";

inline void CheckSeedBase(int64_t seed, int num_envs) {
  if (seed < 0 || seed > INT64_MAX - num_envs) throw std::invalid_argument(kSeedBaseRange);
}
inline std::string SeedCount(std::size_t seeds, std::size_t envs) {
  return "seed list has " + std::to_string(seeds) + " entries for " + std::to_string(envs) + " envs";
}

// -- waiting --------------------------------------------------------------------
// Async mode with one calling thread: a recv() that too few envs in flight
// could never complete.
inline std::string WouldWaitForever(int available, int batch_size) {
  return "recv() would wait forever: " + std::to_string(available) +
         " env(s) in flight for the next batch, fewer than batch_size=" + std::to_string(batch_size);
}

// -- actions ------------------------------------------------------------------
// A scalar non-float action with finite bounds (integer or bool) is a
// discrete choice in [low, high]: its values are range-checked, and its
// space is Discrete.
inline bool IsDiscrete(const ArraySpec& a) {
  return a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64 && a.shape.empty() && std::isfinite(a.low[0]) &&
         std::isfinite(a.high[0]);
}

inline std::string KeyList(const std::vector<ArraySpec>& specs) {
  std::string s;
  for (const ArraySpec& a : specs) s += (s.empty() ? "'" : ", '") + ParseKeyName(a.name).key + "'";
  return "{" + s + "}";
}
// Whether the action is one array (key "action") rather than a dict.
inline bool ArrayAction(const std::vector<ArraySpec>& specs) {
  return specs.size() == 1 && ParseKeyName(specs[0].name).key.empty();
}
inline constexpr const char* kArrayActionNotDict = "this env takes an array action, not a dict";
inline std::string DictActionExpected(const std::vector<ArraySpec>& specs) {
  return "this env takes a dict action with keys " + KeyList(specs);
}
inline std::string DictActionKeys(const std::vector<ArraySpec>& specs) {
  return "action dict must have exactly the keys " + KeyList(specs);
}
inline std::string DictActionMissing(const std::string& key) { return "action dict is missing key '" + key + "'"; }

// Whether values of NumPy dtype kind `kind` ('i', 'u', 'f', 'b', ...) may be
// cast to the key's dtype: bools (as 0 and 1, which EnvPool 1.2.5 takes
// too, and a MultiBinary action's own dtype) and integers to any, floats
// to floats only.
inline bool Castable(char kind, DType to) {
  const bool to_float = to == DType::kFloat32 || to == DType::kFloat64;
  return kind == 'b' || kind == 'i' || kind == 'u' || (to_float && kind == 'f');
}
inline std::string CannotCast(const ArraySpec& spec, const std::string& dtype) {
  return ActionLabel(spec.name) + " has dtype " + dtype + ", which cannot be cast to " + DTypeName(spec.dtype);
}

// Python's spelling of a shape: "(3,)", "(3, 2)".
template <class T>
std::string ShapeText(const std::vector<T>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}
inline std::string ExpectedShape(const ArraySpec& spec, int n) {
  std::vector<int64_t> shape{n};
  for (int d : spec.shape) shape.push_back(d);
  return ShapeText(shape);
}

// The shape of n envs' values of one action key (ndim sizes): n rows of
// the key's shape.
template <class T>
void CheckActionShape(const ArraySpec& spec, const T* shape, std::size_t ndim, int n) {
  auto text = [&] { return ShapeText(std::vector<int64_t>(shape, shape + ndim)); };
  if (ndim != spec.shape.size() + 1 || shape[0] != n)
    throw std::invalid_argument(ActionLabel(spec.name) + " has shape " + text() + ", expected " +
                                ExpectedShape(spec, n) + " (one row per env)");
  for (std::size_t d = 0; d < spec.shape.size(); ++d)
    if (shape[d + 1] != spec.shape[d])
      throw std::invalid_argument(ActionLabel(spec.name) + " has the wrong shape, expected " + ExpectedShape(spec, n));
}

// A discrete action's values, as given (before any cast: 2**32 + 1 must not
// pass as 1), in any integer type; the message names the first bad row.
template <class S>
void CheckActionRange(const ArraySpec& spec, const S* p, std::size_t count) {
  const auto lo = static_cast<int64_t>(spec.low[0]), hi = static_cast<int64_t>(spec.high[0]);
  // A branch-free pass in the values' own type first (it vectorises); the
  // loop below finds the offending row.
  if constexpr (std::is_signed_v<S>) {
    if (lo >= std::numeric_limits<S>::min() && hi <= std::numeric_limits<S>::max()) {
      const S l = static_cast<S>(lo), h = static_cast<S>(hi);
      bool any = false;
      for (std::size_t i = 0; i < count; ++i) any |= (p[i] < l) | (p[i] > h);
      if (!any) return;
    }
  }
  for (std::size_t i = 0; i < count; ++i) {
    bool out;
    if constexpr (std::is_unsigned_v<S>) {
      const auto v = static_cast<uint64_t>(p[i]);
      out = (hi < 0 || v > static_cast<uint64_t>(hi)) || (lo > 0 && v < static_cast<uint64_t>(lo));
    } else {
      const auto v = static_cast<int64_t>(p[i]);
      out = v < lo || v > hi;
    }
    if (out)
      throw std::invalid_argument(ActionLabel(spec.name) + " " + std::to_string(p[i]) + " (row " + std::to_string(i) +
                                  ") is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

}  // namespace envpool::checks

#endif  // ENVPOOL_CORE_CHECKS_H_
