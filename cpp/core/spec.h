// Array specs and configs: the plain data an environment family declares.
//
// A family declares its config keys (with defaults), and from a config it
// derives the arrays it writes per env (observation and info keys) and the
// arrays it reads per env (action keys). Everything else - batching, Python
// types, spaces - is derived from these specs by the engine and the binding.
#ifndef ENVPOOL_CORE_SPEC_H_
#define ENVPOOL_CORE_SPEC_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace envpool {

enum class DType { kBool, kUInt8, kInt32, kInt64, kFloat32, kFloat64 };

inline std::size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kUInt8:
      return 1;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kFloat64:
      return 8;
  }
  return 0;
}

inline const char* DTypeName(DType t) {
  switch (t) {
    case DType::kBool:
      return "bool";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
  }
  return "?";
}

template <class T>
constexpr DType DTypeOf();
template <>
constexpr DType DTypeOf<bool>() {
  return DType::kBool;
}
template <>
constexpr DType DTypeOf<uint8_t>() {
  return DType::kUInt8;
}
template <>
constexpr DType DTypeOf<int32_t>() {
  return DType::kInt32;
}
template <>
constexpr DType DTypeOf<int64_t>() {
  return DType::kInt64;
}
template <>
constexpr DType DTypeOf<float>() {
  return DType::kFloat32;
}
template <>
constexpr DType DTypeOf<double>() {
  return DType::kFloat64;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// One named array per env. Names say where the array goes:
//   "obs"            the observation (or "obs:<key>" for a dict observation),
//   "info:<key>"     an info entry,
//   "action"         the action (or "action:<key>" for a dict action).
// low/high hold one bound for all elements, or one per element. A scalar
// integer action with finite bounds is a discrete action in [low, high].
struct ArraySpec {
  std::string name;
  DType dtype;
  std::vector<int> shape;
  std::vector<double> low{-kInf};
  std::vector<double> high{kInf};

  std::size_t NumElements() const {
    std::size_t n = 1;
    for (int d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
  std::size_t NumBytes() const { return NumElements() * DTypeSize(dtype); }
};

template <class T>
ArraySpec Spec(std::string name, std::vector<int> shape, std::vector<double> low = {-kInf},
               std::vector<double> high = {kInf}) {
  return ArraySpec{std::move(name), DTypeOf<T>(), std::move(shape), std::move(low), std::move(high)};
}

using ConfigValue = std::variant<bool, int64_t, double, std::string, std::vector<double>>;

// An ordered key -> value table. Families read it with Get<T>(key).
class Config {
 public:
  Config() = default;
  Config(std::initializer_list<std::pair<std::string, ConfigValue>> entries) : entries_(entries) {}

  void Set(const std::string& key, ConfigValue value) {
    for (auto& [k, v] : entries_) {
      if (k == key) {
        v = std::move(value);
        return;
      }
    }
    entries_.emplace_back(key, std::move(value));
  }

  bool Has(const std::string& key) const { return Find(key) != nullptr; }

  const ConfigValue& At(const std::string& key) const {
    const ConfigValue* v = Find(key);
    if (v == nullptr) throw std::out_of_range("config has no key '" + key + "'");
    return *v;
  }

  // Integers read as doubles where a double is asked for.
  template <class T>
  T Get(const std::string& key) const {
    const ConfigValue& v = At(key);
    if constexpr (std::is_same_v<T, double>) {
      if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
      return std::get<double>(v);
    } else if constexpr (std::is_same_v<T, int>) {
      // Refused rather than narrowed: 2**32 + 4 must not become 4.
      const int64_t i = std::get<int64_t>(v);
      if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
        throw std::invalid_argument("config '" + key + "' = " + std::to_string(i) + " is out of the int32 range");
      return static_cast<int>(i);
    } else {
      return std::get<T>(v);
    }
  }

  const std::vector<std::pair<std::string, ConfigValue>>& entries() const { return entries_; }

 private:
  const ConfigValue* Find(const std::string& key) const {
    for (const auto& [k, v] : entries_)
      if (k == key) return &v;
    return nullptr;
  }
  std::vector<std::pair<std::string, ConfigValue>> entries_;
};

// Typed handles to one of an env's state (output) or action (input)
// arrays: `out[key]` / `action[key]` give a T* into the env's row. They
// come from EnvSpec::AddState / AddAction, so a key's position and element
// type are decided in one place; debug builds check both on every access.
template <class T>
struct StateKey {
  int index = -1;
};
template <class T>
struct ActionKey {
  int index = -1;
};

// What one env writes (state) and reads (action), given its config.
//
// A family builds it with AddState/AddAction and keeps the handles, most
// simply as members of a struct derived from EnvSpec, initialised in
// declaration order:
//   struct Spec : EnvSpec {
//     StateKey<float> obs = AddState<float>("obs", {4});
//     ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {1});
//   };
struct EnvSpec {
  std::vector<ArraySpec> state;
  std::vector<ArraySpec> action;

  template <class T>
  StateKey<T> AddState(std::string name, std::vector<int> shape, std::vector<double> low = {-kInf},
                       std::vector<double> high = {kInf}) {
    state.push_back(Spec<T>(std::move(name), std::move(shape), std::move(low), std::move(high)));
    return StateKey<T>{static_cast<int>(state.size()) - 1};
  }
  template <class T>
  ActionKey<T> AddAction(std::string name, std::vector<int> shape, std::vector<double> low = {-kInf},
                         std::vector<double> high = {kInf}) {
    action.push_back(Spec<T>(std::move(name), std::move(shape), std::move(low), std::move(high)));
    return ActionKey<T>{static_cast<int>(action.size()) - 1};
  }
};

// Debug builds check every keyed access: a handle from another spec (or a
// stale one) names a key that is missing or has another element type.
struct KeyTypes {
  const DType* types = nullptr;
  int count = 0;
  void Check(int index, DType want, const char* what) const {
#ifndef NDEBUG
    if (types == nullptr) return;
    if (index < 0 || index >= count)
      throw std::logic_error(std::string(what) + " key " + std::to_string(index) + " does not exist (" +
                             std::to_string(count) + " keys)");
    if (types[index] != want)
      throw std::logic_error(std::string(what) + " key " + std::to_string(index) + " holds " + DTypeName(types[index]) +
                             ", accessed as " + DTypeName(want));
#else
    (void)index, (void)want, (void)what;
#endif
  }
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_SPEC_H_
