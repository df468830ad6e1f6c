// Python <-> Config and specs (see config.h).
#include "cpp/binding/config.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace envpool::binding {

const Family& GetFamily(const std::string& name) {
  const Family* f = FindFamily(name);
  if (f == nullptr) throw py::value_error("unknown env family '" + name + "'");
  return *f;
}

// The engine's config keys, shared by every family.
Config EngineDefaults() {
  return Config{{"num_envs", int64_t{1}},
                {"batch_size", int64_t{0}},
                {"num_threads", int64_t{0}},
                {"thread_affinity_offset", int64_t{-1}},
                {"seed", int64_t{42}},
                {"max_episode_steps", int64_t{0}},
                {"autoreset_mode", std::string("next_step")}};
}

Config AllDefaults(const Family& family) {
  Config c = EngineDefaults();
  for (const auto& [k, v] : family.defaults.entries()) c.Set(k, v);
  return c;
}

namespace {

py::object ToPython(const ConfigValue& v) {
  return std::visit([](const auto& x) -> py::object { return py::cast(x); }, v);
}

// NumPy's scalar base types, looked up once (send() checks env ids with
// them). Leaked on purpose: no Python calls at interpreter teardown.
struct NumpyScalars {
  py::object bool_, integer, floating;
};
const NumpyScalars& Numpy() {
  static const NumpyScalars* types = [] {
    py::module_ np = py::module_::import("numpy");
    return new NumpyScalars{np.attr("bool_"), np.attr("integer"), np.attr("floating")};
  }();
  return *types;
}

}  // namespace

bool IsPyBool(const py::handle& o) { return py::isinstance<py::bool_>(o) || py::isinstance(o, Numpy().bool_); }

bool IsPyInt(const py::handle& o) {
  if (IsPyBool(o)) return false;
  return py::isinstance<py::int_>(o) || py::isinstance(o, Numpy().integer);
}

namespace {

bool IsPyNumber(const py::handle& o) {
  return IsPyInt(o) || py::isinstance<py::float_>(o) || py::isinstance(o, Numpy().floating);
}

// Converts a user value to the type of the key's default, or TypeError.
ConfigValue FromPython(const std::string& key, const ConfigValue& like, const py::handle& o) {
  auto bad = [&](const char* want) {
    return py::type_error("config '" + key + "' must be " + want + ", got " +
                          std::string(py::str(py::type::of(o).attr("__name__"))) + " " + std::string(py::repr(o)));
  };
  if (std::holds_alternative<bool>(like)) {
    if (!IsPyBool(o)) throw bad("a bool");
    return o.cast<bool>();
  }
  if (std::holds_alternative<int64_t>(like)) {
    if (!IsPyInt(o)) throw bad("an int");
    py::int_ i(py::reinterpret_borrow<py::object>(o));
    try {
      return i.cast<int64_t>();
    } catch (const py::cast_error&) {
      throw py::value_error("config '" + key + "' is out of the int64 range: " + std::string(py::repr(o)));
    }
  }
  if (std::holds_alternative<double>(like)) {
    if (!IsPyNumber(o)) throw bad("a number");
    return py::float_(py::reinterpret_borrow<py::object>(o)).cast<double>();
  }
  if (std::holds_alternative<std::string>(like)) {
    if (!py::isinstance<py::str>(o)) throw bad("a str");
    return o.cast<std::string>();
  }
  if (!py::isinstance<py::sequence>(o) || py::isinstance<py::str>(o)) throw bad("a sequence of numbers");
  // Items are owned while read: a NumPy array makes a new scalar object per
  // item, which a borrowed handle would outlive.
  py::list items(py::reinterpret_borrow<py::object>(o));
  std::vector<double> out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    py::object x = items[i];
    if (!IsPyNumber(x)) throw bad("a sequence of numbers");
    out.push_back(py::float_(x).cast<double>());
  }
  return out;
}

}  // namespace

Config BuildConfig(const Family& family, const py::dict& user) {
  Config c = AllDefaults(family);
  for (auto [k, v] : user) {
    std::string key = py::str(k);
    if (!c.Has(key)) {
      std::string known;
      for (const auto& e : c.entries()) known += (known.empty() ? "" : ", ") + e.first;
      throw py::type_error("unknown config key '" + key + "' for " + family.name + " (known: " + known + ")");
    }
    const auto& names = family.id_or_name_keys;
    if (py::isinstance<py::str>(v) && std::find(names.begin(), names.end(), key) != names.end())
      c.Set(key, v.cast<std::string>());
    else
      c.Set(key, FromPython(key, c.At(key), v));
  }
  return c;
}

void CheckEngineOptions(const py::dict& user) {
  Config c = EngineDefaults();
  for (auto [k, v] : user) {
    std::string key = py::str(k);
    if (c.Has(key)) c.Set(key, FromPython(key, c.At(key), v));
  }
  ParseOptions(c);
}

PoolOptions ParseOptions(const Config& c) {
  PoolOptions o;
  int64_t num_envs = c.Get<int64_t>("num_envs");
  int64_t batch = c.Get<int64_t>("batch_size");
  int64_t threads = c.Get<int64_t>("num_threads");
  int64_t seed = c.Get<int64_t>("seed");
  int64_t max_steps = c.Get<int64_t>("max_episode_steps");
  std::string mode = c.Get<std::string>("autoreset_mode");
  if (num_envs < 1 || num_envs > (1 << 20))
    throw py::value_error("num_envs must be in [1, 1048576], got " + std::to_string(num_envs));
  if (batch < 0 || batch > num_envs)
    throw py::value_error("batch_size must be in [0, num_envs=" + std::to_string(num_envs) + "] (0 = num_envs), got " +
                          std::to_string(batch));
  if (threads < 0 || threads > 1024)
    throw py::value_error("num_threads must be in [0, 1024] (0 = automatic), got " + std::to_string(threads));
  if (seed < 0 || seed > INT64_MAX - num_envs)
    throw py::value_error("seed must be in [0, 2**63 - 1 - num_envs], got " + std::to_string(seed));
  if (max_steps < 0) throw py::value_error("max_episode_steps must be >= 0 (0 = no limit)");
  const int64_t affinity = c.Get<int64_t>("thread_affinity_offset");
  if (affinity < -1 || affinity > 65535)
    throw py::value_error("thread_affinity_offset must be in [-1, 65535] (-1 = no pinning), got " +
                          std::to_string(affinity));
  if (mode != "next_step" && mode != "same_step" && mode != "disabled")
    throw py::value_error("autoreset_mode must be 'next_step', 'same_step' or 'disabled', got '" + mode + "'");
  o.num_envs = static_cast<int>(num_envs);
  o.batch_size = static_cast<int>(batch);
  o.num_threads = static_cast<int>(threads);
  o.thread_affinity_offset = static_cast<int>(affinity);
  o.seed = static_cast<uint64_t>(seed);
  o.max_episode_steps = max_steps;
  o.autoreset = mode == "same_step"  ? AutoresetMode::kSameStep
                : mode == "disabled" ? AutoresetMode::kDisabled
                                     : AutoresetMode::kNextStep;
  return o;
}

py::dtype ToNumpy(DType t) {
  switch (t) {
    case DType::kBool:
      return py::dtype::of<bool>();
    case DType::kUInt8:
      return py::dtype::of<uint8_t>();
    case DType::kInt32:
      return py::dtype::of<int32_t>();
    case DType::kInt64:
      return py::dtype::of<int64_t>();
    case DType::kFloat32:
      return py::dtype::of<float>();
    case DType::kFloat64:
      return py::dtype::of<double>();
  }
  return py::dtype::of<double>();
}

py::tuple SpecTuple(const ArraySpec& a) {
  return py::make_tuple(a.name, DTypeName(a.dtype), py::tuple(py::cast(a.shape)), a.low, a.high);
}

py::list SpecList(const std::vector<ArraySpec>& specs) {
  py::list l;
  for (const ArraySpec& a : specs) l.append(SpecTuple(a));
  return l;
}

py::dict ConfigDict(const Config& c) {
  py::dict d;
  for (const auto& [k, v] : c.entries()) d[py::str(k)] = ToPython(v);
  return d;
}

ArraySpec SpecFromPython(const py::handle& spec) {
  py::tuple t = py::reinterpret_borrow<py::object>(spec);
  if (t.size() != 5) throw py::type_error("an array spec is (name, dtype, shape, low, high)");
  ArraySpec a;
  a.name = t[0].cast<std::string>();
  const std::string dtype = py::str(t[1]);
  bool known = false;
  for (DType d : {DType::kBool, DType::kUInt8, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64})
    if (dtype == DTypeName(d)) {
      a.dtype = d;
      known = true;
    }
  if (!known) throw py::value_error("unknown array spec dtype '" + dtype + "'");
  a.shape = t[2].cast<std::vector<int>>();
  a.low = t[3].cast<std::vector<double>>();
  a.high = t[4].cast<std::vector<double>>();
  if (a.low.empty() || a.high.empty()) throw py::value_error("an array spec needs low and high bounds");
  return a;
}

}  // namespace envpool::binding
