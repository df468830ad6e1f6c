// A pool call's arguments from Python (see args.h).
#include "cpp/binding/args.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>

#include "cpp/binding/config.h"
#include "cpp/core/checks.h"

namespace envpool::binding {

namespace {

int64_t CheckedSeed(const py::handle& s) {
  if (!IsPyInt(s)) throw py::type_error(checks::kSeedItemType);
  py::int_ i(py::reinterpret_borrow<py::object>(s));
  if (i < py::int_(0) || i > py::int_(INT64_MAX)) throw std::invalid_argument(checks::kSeedRange);
  return i.cast<int64_t>();
}

int CheckedId(const py::handle& id, int num_envs) {
  try {
    return checks::CheckEnvId(py::int_(py::reinterpret_borrow<py::object>(id)).cast<int64_t>(), num_envs);
  } catch (const py::cast_error&) {
    throw std::invalid_argument("env_id " + std::string(py::repr(id)) + " is out of range");
  }
}

// `a` has an integer dtype of any width and signedness, as given.
void CheckRange(const ArraySpec& spec, py::array a) {
  // Native byte order: '=' or '|', or this machine's own explicit one.
  const char order = a.dtype().byteorder();
  const bool native = order == '=' || order == '|' || order == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? '>' : '<');
  if (!(a.flags() & py::array::c_style) || !native) {
    // Widened to 64 bits of the same signedness, which keeps every value.
    if (a.dtype().kind() == 'i')
      a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>(a);
    else
      a = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>(a);
  }
  const void* d = a.data();
  const auto count = static_cast<std::size_t>(a.size());
  const bool is_signed = a.dtype().kind() == 'i';
  switch (a.itemsize()) {
    case 1:
      return is_signed ? checks::CheckActionRange(spec, static_cast<const int8_t*>(d), count)
                       : checks::CheckActionRange(spec, static_cast<const uint8_t*>(d), count);
    case 2:
      return is_signed ? checks::CheckActionRange(spec, static_cast<const int16_t*>(d), count)
                       : checks::CheckActionRange(spec, static_cast<const uint16_t*>(d), count);
    case 4:
      return is_signed ? checks::CheckActionRange(spec, static_cast<const int32_t*>(d), count)
                       : checks::CheckActionRange(spec, static_cast<const uint32_t*>(d), count);
    case 8:
      return is_signed ? checks::CheckActionRange(spec, static_cast<const int64_t*>(d), count)
                       : checks::CheckActionRange(spec, static_cast<const uint64_t*>(d), count);
    default:
      throw py::type_error(ActionLabel(spec.name) + " has an unsupported integer dtype " +
                           std::string(py::str(a.dtype())));
  }
}

// The dtype kind and shape of one key's values (what JAX knows while tracing).
void CheckArray(const ArraySpec& spec, const py::dtype& dtype, const py::ssize_t* shape, std::size_t ndim, int n) {
  if (!checks::Castable(dtype.kind(), spec.dtype))
    throw py::type_error(checks::CannotCast(spec, std::string(py::str(dtype))));
  checks::CheckActionShape(spec, shape, ndim, n);
}

py::array ConvertAction(const ActionKeys& keys, std::size_t k, const py::object& obj, int n) {
  const ArraySpec& spec = keys.specs[k];
  // NumPy's own conversion, so an exception raised by the object's
  // __array__ (e.g. a refused re-entrant call) reaches the caller as is.
  const auto& api = py::detail::npy_api::get();
  PyObject* raw = api.PyArray_FromAny_(obj.ptr(), nullptr, 0, 0, py::detail::npy_api::NPY_ARRAY_ENSUREARRAY_, nullptr);
  if (raw == nullptr) throw py::error_already_set();
  auto arr = py::reinterpret_steal<py::array>(raw);
  CheckArray(spec, arr.dtype(), arr.shape(), static_cast<std::size_t>(arr.ndim()), n);
  if (keys.discrete[k]) CheckRange(spec, arr);
  if (arr.dtype().is(keys.dtypes[k]) && (arr.flags() & py::array::c_style)) return arr;
  // astype's cast (unsafe: the checks above chose what may be cast), but
  // through the C API: calling arr.astype from here made a FrozenLake step
  // of 8 envs take 3.7 us instead of 2.3 when the actions came as int64
  // (CleanRL's torch samples, np.random.randint); this way, 2.8.
  raw =
      api.PyArray_FromAny_(arr.ptr(), keys.dtypes[k].inc_ref().ptr(), 0, 0,
                           py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_ |
                               py::detail::npy_api::NPY_ARRAY_FORCECAST_ | py::detail::npy_api::NPY_ARRAY_ENSUREARRAY_,
                           nullptr);
  if (raw == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::array>(raw);
}

// The structure of an action: an array, or a dict with exactly the keys.
// With `members` false the caller checks each key as it reads it.
void CheckKeys(const ActionKeys& keys, const py::object& action, bool members = true) {
  if (keys.array) {
    if (py::isinstance<py::dict>(action)) throw py::type_error(checks::kArrayActionNotDict);
    return;
  }
  if (!py::isinstance<py::dict>(action)) throw py::type_error(checks::DictActionExpected(keys.specs));
  py::dict d = py::reinterpret_borrow<py::dict>(action);
  if (d.size() != keys.specs.size()) throw std::invalid_argument(checks::DictActionKeys(keys.specs));
  if (members)
    for (const std::string& name : keys.names)
      if (!d.contains(py::str(name))) throw std::invalid_argument(checks::DictActionMissing(name));
}

std::vector<ArraySpec> SpecsFromPython(const py::handle& specs) {
  std::vector<ArraySpec> out;
  for (py::handle s : specs) out.push_back(SpecFromPython(s));
  return out;
}

}  // namespace

void ToIds(const py::object& env_id, int num_envs, std::vector<int>& ids) {
  ids.clear();
  if (IsPyInt(env_id)) {
    ids.push_back(CheckedId(env_id, num_envs));
    return;
  }
  py::array arr = py::array::ensure(env_id);
  if (!arr || arr.ndim() != 1) throw py::type_error(checks::kEnvIdType);
  if (arr.size() == 0) return;  // no envs: an empty batch
  char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') throw py::type_error(checks::EnvIdDtype(std::string(py::str(arr.dtype()))));
  if (arr.dtype().is(py::dtype::of<int32_t>()) && (arr.flags() & py::array::c_style)) {
    // info["env_id"] as recv() returned it: read in place.
    const int32_t* p = static_cast<const int32_t*>(arr.data());
    for (py::ssize_t i = 0; i < arr.size(); ++i) ids.push_back(checks::CheckEnvId(int64_t{p[i]}, num_envs));
    return;
  }
  if (kind == 'u' && arr.itemsize() == 8) {
    // uint64 ids above INT64_MAX must not wrap to negative (or valid) ids.
    auto u = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    for (py::ssize_t i = 0; i < u.size(); ++i) ids.push_back(checks::CheckEnvId(u.data()[i], num_envs));
    return;
  }
  auto ints = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  const int64_t* p = ints.data();
  for (py::ssize_t i = 0; i < ints.size(); ++i) ids.push_back(checks::CheckEnvId(p[i], num_envs));
}

bool ToSeeds(const py::object& seed, const std::vector<int>& ids, int num_envs, std::vector<uint64_t>& seeds) {
  seeds.clear();
  if (seed.is_none()) return false;
  if (IsPyInt(seed)) {
    const int64_t s = CheckedSeed(seed);
    checks::CheckSeedBase(s, num_envs);
    for (int id : ids) seeds.push_back(static_cast<uint64_t>(s) + id);
    return true;
  }
  if (!py::isinstance<py::sequence>(seed) || py::isinstance<py::str>(seed)) throw py::type_error(checks::kSeedType);
  // Owned items (a NumPy array makes a new scalar per item).
  py::list items(seed);
  if (items.size() != ids.size()) throw std::invalid_argument(checks::SeedCount(items.size(), ids.size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    py::object item = items[i];
    seeds.push_back(static_cast<uint64_t>(CheckedSeed(item)));
  }
  return true;
}

ActionKeys::ActionKeys(std::vector<ArraySpec> s) : specs(std::move(s)), array(checks::ArrayAction(specs)) {
  for (const ArraySpec& a : specs) {
    names.push_back(ParseKeyName(a.name).key);
    dtypes.push_back(ToNumpy(a.dtype));
    discrete.push_back(checks::IsDiscrete(a));
  }
}

void ConvertActions(const ActionKeys& keys, const py::object& action, int n, std::vector<py::array>& out) {
  out.clear();
  CheckKeys(keys, action, /*members=*/false);
  if (keys.array) {
    out.push_back(ConvertAction(keys, 0, action, n));
    return;
  }
  py::dict d = py::reinterpret_borrow<py::dict>(action);
  for (std::size_t k = 0; k < keys.specs.size(); ++k) {
    py::str key(keys.names[k]);
    if (!d.contains(key)) throw std::invalid_argument(checks::DictActionMissing(keys.names[k]));
    py::object value = d[key];
    out.push_back(ConvertAction(keys, k, value, n));
  }
}

void RegisterChecks(py::module_& m) {
  m.def(
      "check_env_ids",
      [](const py::object& env_id, int num_envs) {
        std::vector<int> ids;
        ToIds(env_id, num_envs, ids);
        checks::CheckNoRepeats(ids, num_envs);
        return py::array_t<int32_t>(static_cast<py::ssize_t>(ids.size()), ids.data());
      },
      py::arg("env_id"), py::arg("num_envs"),
      "The env ids of a call as int32 (an int or a 1-D integer sequence; each in range, none repeated), "
      "or the pool's TypeError/ValueError");
  m.def(
      "check_seeds",
      [](const py::object& seed, const std::vector<int>& ids, int num_envs) -> py::object {
        std::vector<uint64_t> seeds;
        if (!ToSeeds(seed, ids, num_envs, seeds)) return py::none();
        return py::cast(seeds);
      },
      py::arg("seed"), py::arg("env_ids"), py::arg("num_envs"),
      "One seed per env of env_ids (None for seed None), or the pool's TypeError/ValueError");
  m.def(
      "check_action",
      [](const py::object& action, int n, const py::list& action_spec) {
        std::vector<py::array> out;
        ConvertActions(ActionKeys(SpecsFromPython(action_spec)), action, n, out);
      },
      py::arg("action"), py::arg("n"), py::arg("action_spec"),
      "The pool's checks of an action for n envs (keys, dtype, shape, discrete ranges)");
  m.def(
      "check_action_keys",
      [](const py::list& action_spec, const py::object& action) {
        CheckKeys(ActionKeys(SpecsFromPython(action_spec)), action);
      },
      py::arg("action_spec"), py::arg("action"), "The pool's check of an action's structure (array or dict keys)");
  m.def(
      "check_action_array",
      [](const py::tuple& spec, const py::object& dtype, const std::vector<py::ssize_t>& shape, int n) {
        CheckArray(SpecFromPython(spec), py::dtype::from_args(dtype), shape.data(), shape.size(), n);
      },
      py::arg("spec"), py::arg("dtype"), py::arg("shape"), py::arg("n"),
      "The pool's dtype and shape checks of one action key's values for n envs");
  m.def(
      "is_discrete", [](const py::tuple& spec) { return checks::IsDiscrete(SpecFromPython(spec)); }, py::arg("spec"),
      "Whether an array spec is a discrete choice (a scalar, non-float, with finite bounds)");
  m.def("would_wait_message", &checks::WouldWaitForever, py::arg("available"), py::arg("batch_size"));
  m.def("in_flight_message", &checks::EnvInFlight, py::arg("env_id"));
  m.def("needs_reset_message", &checks::EnvNeedsReset, py::arg("env_id"));
}

}  // namespace envpool::binding
