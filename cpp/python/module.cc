// The Python binding: one generic pool type for every family.
//
// Specs drive everything: configs are validated against the family's
// defaults, actions are checked and cast against the action specs, and a
// finished batch becomes NumPy views (no copy) of the batch memory, grouped
// into (obs, reward, terminated, truncated, discount, info, final).
#include <linux/futex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpp/core/family.h"
#include "cpp/core/pool.h"
#include "cpp/core/raw_ceiling.h"
#include "cpp/core/warnings.h"
#include "cpp/python/xla.h"

namespace py = pybind11;
using envpool::ArraySpec;
using envpool::Config;
using envpool::ConfigValue;
using envpool::DType;

namespace {

// The result of every pool call: a named tuple type (a C struct sequence,
// as cheap to build as a plain tuple) with the fields
// obs, reward, terminated, truncated, discount, info, final. obs is an array
// or a dict of arrays; info a dict of arrays (plus info["players"]);
// discount is None for pools made with with_discount=false; final is None
// unless autoreset_mode is same_step, else (final obs, final info).
PyTypeObject* BatchType() {
  static PyStructSequence_Field fields[] = {
      {"obs", "the observations, one row per env of the batch (an array, or a dict of arrays)"},
      {"reward", "float32 rewards"},
      {"terminated", "bool"},
      {"truncated", "bool"},
      {"discount", "float32 discounts (None when the pool was made with with_discount=False)"},
      {"info", "dict of arrays: env_id, elapsed_step, the family's info keys, players"},
      {"final", "same_step autoreset: (final obs, final info) of episodes that ended; else None"},
      {nullptr, nullptr}};
  static PyStructSequence_Desc desc = {"envpool._envpool.Batch", "One batch of results of a pool call.", fields, 7};
  static PyTypeObject* type = PyStructSequence_NewType(&desc);
  if (type == nullptr) throw py::error_already_set();
  return type;
}

py::tuple MakeBatch(std::array<py::object, 7> items) {
  PyObject* r = PyStructSequence_New(BatchType());
  if (r == nullptr) throw py::error_already_set();
  for (int i = 0; i < 7; ++i) PyStructSequence_SetItem(r, i, items[i].release().ptr());
  return py::reinterpret_steal<py::tuple>(r);
}

const envpool::Family& GetFamily(const std::string& name) {
  const envpool::Family* f = envpool::FindFamily(name);
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

Config AllDefaults(const envpool::Family& family) {
  Config c = EngineDefaults();
  for (const auto& [k, v] : family.defaults.entries()) c.Set(k, v);
  return c;
}

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

bool IsPyBool(const py::handle& o) { return py::isinstance<py::bool_>(o) || py::isinstance(o, Numpy().bool_); }

bool IsPyInt(const py::handle& o) {
  if (IsPyBool(o)) return false;
  return py::isinstance<py::int_>(o) || py::isinstance(o, Numpy().integer);
}

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

Config BuildConfig(const envpool::Family& family, const py::dict& user) {
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

envpool::PoolOptions ParseOptions(const Config& c) {
  envpool::PoolOptions o;
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
  if (mode != "next_step" && mode != "same_step")
    throw py::value_error("autoreset_mode must be 'next_step' or 'same_step', got '" + mode + "'");
  o.num_envs = static_cast<int>(num_envs);
  o.batch_size = static_cast<int>(batch);
  o.num_threads = static_cast<int>(threads);
  o.thread_affinity_offset = static_cast<int>(affinity);
  o.seed = static_cast<uint64_t>(seed);
  o.max_episode_steps = max_steps;
  o.autoreset = mode == "same_step" ? envpool::AutoresetMode::kSameStep : envpool::AutoresetMode::kNextStep;
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
  return py::make_tuple(a.name, envpool::DTypeName(a.dtype), py::tuple(py::cast(a.shape)), a.low, a.high);
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

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Where each state key goes in the result tuple, computed once per pool.
struct OutputKey {
  int key;
  py::str name;  // the key within obs / info / final (prefix stripped)
  py::dtype dtype;
  std::vector<py::ssize_t> shape;  // per env
  std::vector<py::ssize_t> strides;
};

class PyPool {
 public:
  // with_discount=false leaves the discount slot of results None (saves a
  // view per call for interfaces that do not hand discounts out).
  PyPool(const std::string& family_name, const py::dict& user_config, bool with_discount)
      : PyPool(std::vector<std::string>{family_name}, std::vector<py::dict>{user_config}, {}, with_discount) {}

  // A multi-task pool: one (family, config) per task, env_task[i] the task
  // of env i. The engine keys (num_envs, batch_size, num_threads, seed,
  // thread_affinity_offset, autoreset_mode) must agree across the configs;
  // max_episode_steps is per task.
  PyPool(const std::vector<std::string>& families, const std::vector<py::dict>& configs, std::vector<int> env_task,
         bool with_discount)
      : with_discount_(with_discount) {
    if (families.empty() || families.size() != configs.size())
      throw py::value_error("a pool needs one config per family, and at least one");
    std::vector<envpool::PoolTask> tasks;
    envpool::PoolOptions opt;
    for (std::size_t t = 0; t < families.size(); ++t) {
      const envpool::Family& family = GetFamily(families[t]);
      Config c = BuildConfig(family, configs[t]);
      envpool::PoolOptions o = ParseOptions(c);
      if (t == 0) {
        opt = o;
        config_ = c;
      } else if (o.num_envs != opt.num_envs || o.batch_size != opt.batch_size || o.num_threads != opt.num_threads ||
                 o.seed != opt.seed || o.thread_affinity_offset != opt.thread_affinity_offset ||
                 o.autoreset != opt.autoreset) {
        throw py::value_error("task " + std::to_string(t) +
                              "'s engine options (num_envs, batch_size, num_threads, seed, thread_affinity_offset, "
                              "autoreset_mode) differ from task 0's");
      }
      tasks.push_back(envpool::PoolTask{&family, std::move(c), o.max_episode_steps});
    }
    {
      py::gil_scoped_release release;
      pool_ = std::make_shared<envpool::EnvPool>(std::move(tasks), std::move(env_task), opt);
    }
    IssueWarnings();  // e.g. from loading a model
    const auto& specs = pool_->layout().specs;
    for (int k = 0; k < static_cast<int>(specs.size()); ++k) {
      const ArraySpec& a = specs[k];
      OutputKey o{k, py::str(""), ToNumpy(a.dtype), {}, {}};
      for (int d : a.shape) o.shape.push_back(d);
      py::ssize_t stride = static_cast<py::ssize_t>(envpool::DTypeSize(a.dtype));
      o.strides.resize(o.shape.size());
      for (int d = static_cast<int>(o.shape.size()) - 1; d >= 0; --d) {
        o.strides[d] = stride;
        stride *= o.shape[d];
      }
      std::string name = a.name;
      if (StartsWith(name, "final:")) {
        name = name.substr(6);
        if (StartsWith(name, "obs")) {
          o.name = py::str(name == "obs" ? "" : name.substr(4));
          final_obs_.push_back(o);
        } else {
          o.name = py::str(name.substr(5));
          final_info_.push_back(o);
        }
      } else if (StartsWith(name, "obs")) {
        o.name = py::str(name == "obs" ? "" : name.substr(4));
        obs_.push_back(o);
      } else if (StartsWith(name, "info:")) {
        o.name = py::str(name.substr(5));
        info_.push_back(o);
      }
      if (k < envpool::kNumCommonKeys) common_.push_back(o);  // reward, terminated, ...
    }
    const auto& actions = pool_->env_spec().action;
    for (const ArraySpec& a : actions) {
      action_names_.push_back(a.name == "action" ? "" : a.name.substr(7));
      action_dtypes_.push_back(ToNumpy(a.dtype));
      discrete_.push_back(a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64 && a.shape.empty() &&
                          std::isfinite(a.low[0]) && std::isfinite(a.high[0]));
    }
    for (int i = 0; i < opt.num_envs; ++i) all_ids_.push_back(i);
    last_ids_ = all_ids_;
  }

  py::dict config() const { return ConfigDict(config_); }
  py::list state_spec() const { return SpecList(pool_->layout().specs); }
  py::list action_spec() const { return SpecList(pool_->env_spec().action); }
  bool closed() const { return pool_->closed(); }
  int in_flight() const { return pool_->in_flight(); }
  std::shared_ptr<envpool::EnvPool> engine() const { return pool_; }

  // Queue one step of each env in env_id (default: every env in sync mode,
  // the last batch's envs in async mode) without waiting.
  void Send(const py::object& action, const py::object& env_id) {
    Converting guard;
    const std::vector<int>& ids = EnvIds(env_id);
    const char* const* actions = ConvertActions(action, static_cast<int>(ids.size()));
    pool_->Send(envpool::Task::kStep, ids.data(), static_cast<int>(ids.size()), actions, nullptr);
  }

  py::tuple Recv() {
    return Run([&] { return pool_->Recv(); });
  }

  // Send then recv. In sync mode (and for an empty env_id) the rows are
  // exactly the envs named, in that order; in async mode the next batch.
  py::tuple Step(const py::object& action, const py::object& env_id) {
    Converting guard;
    const std::vector<int>& ids = EnvIds(env_id);
    const int n = static_cast<int>(ids.size());
    const char* const* actions = ConvertActions(action, n);
    const bool own = n == 0;
    return Run([&] {
      return own ? pool_->Call(envpool::Task::kStep, ids.data(), n, actions, nullptr)
                 : pool_->Step(envpool::Task::kStep, ids.data(), n, actions, nullptr);
    });
  }

  // Queue resets (optionally reseeding) without waiting.
  void SendReset(const py::object& env_id, const py::object& seed) {
    Converting guard;
    const std::vector<int>& ids = env_id.is_none() ? all_ids_ : ToIds(env_id);
    const uint64_t* seeds = Seeds(seed, ids);
    pool_->Send(envpool::Task::kReset, ids.data(), static_cast<int>(ids.size()), nullptr, seeds);
  }

  // Reset then recv. With own_batch (or an empty env_id) the rows are
  // exactly the envs named, in that order, in either mode; otherwise, in
  // async mode, the next batch as EnvPool returns it.
  py::tuple Reset(const py::object& env_id, const py::object& seed, bool own_batch) {
    Converting guard;
    const std::vector<int>& ids = env_id.is_none() ? all_ids_ : ToIds(env_id);
    const uint64_t* seeds = Seeds(seed, ids);
    const int n = static_cast<int>(ids.size());
    const bool own = own_batch || n == 0;
    return Run([&] {
      return own ? pool_->Call(envpool::Task::kReset, ids.data(), n, nullptr, seeds)
                 : pool_->Step(envpool::Task::kReset, ids.data(), n, nullptr, seeds);
    });
  }

  // Frames of env_id's envs (not in flight), rendered on the stepping
  // threads: uint8 (n, height, width, 3), a view of the engine's buffer.
  // An env that throws while rendering raises its exception type, with
  // failed_env_ids.
  py::array Render(const py::object& env_id) {
    Converting guard;
    const std::vector<int>& ids = ToIds(env_id);
    const int n = static_cast<int>(ids.size());
    std::shared_ptr<envpool::StateBatch> batch;
    PyThreadState* state = PyEval_SaveThread();
    try {
      batch = pool_->Render(ids.data(), n);
    } catch (const envpool::BatchError& e) {
      PyEval_RestoreThread(state);
      IssueWarnings();
      PyObject* type = ExceptionType(e);
      std::vector<int32_t> failed;
      for (const auto& f : e.failures) failed.push_back(f.env_id);
      py::object exc = py::reinterpret_borrow<py::object>(type)(e.message);
      exc.attr("failed_env_ids") = py::array_t<int32_t>(failed.size(), failed.data());
      PyErr_SetObject(type, exc.ptr());
      throw py::error_already_set();
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
    IssueWarnings();
    const envpool::ArraySpec& frame = batch->layout.specs[0];
    py::capsule base(new std::shared_ptr<char>(batch->memory),
                     [](void* p) { delete static_cast<std::shared_ptr<char>*>(p); });
    const py::ssize_t h = frame.shape[0], w = frame.shape[1];
    return py::array(py::dtype::of<uint8_t>(), {static_cast<py::ssize_t>(n), h, w, py::ssize_t{3}},
                     {h * w * 3, w * 3, py::ssize_t{3}, py::ssize_t{1}}, batch->key_base[0], base);
  }

  void Close() {
    if (pool_->closed()) return;
    py::gil_scoped_release release;
    pool_->Close();
  }

 private:
  // Per-thread scratch for converted arguments (no allocation per call
  // once warm; each Python thread has its own, so concurrent calls from
  // several threads never share buffers).
  struct Scratch {
    std::vector<int> ids;
    std::vector<py::array> arrays;  // converted actions, alive until sent
    std::vector<const char*> ptrs;
    std::vector<uint64_t> seeds;
    bool converting = false;
  };
  static Scratch& scratch() {
    // Leaked: a thread's scratch holds no Python objects between calls, and
    // freeing it at thread exit must not touch Python.
    thread_local Scratch* s = new Scratch;
    return *s;
  }

  // Marks this thread as converting a call's arguments. Conversion can run
  // Python code (an action's __array__); a pool call from there would
  // reuse the scratch of the call being converted, so it is refused.
  class Converting {
   public:
    Converting() : s_(scratch()) {
      if (s_.converting)
        throw std::runtime_error(
            "envpool: a pool was called while converting the arguments of another pool call on this thread "
            "(e.g. from an action's __array__); make the inner call before or after");
      s_.converting = true;
    }
    ~Converting() {
      s_.arrays.clear();
      s_.converting = false;
    }

   private:
    Scratch& s_;
  };

  // Runs an engine call without the GIL and packages its batch; envs that
  // threw come back as the exception they threw (see RaiseBatchError).
  // The GIL is released and retaken by hand, not by a scoped guard: a
  // daemon thread that retakes it while the interpreter shuts down is ended
  // by a forced unwind, which must not pass through a (noexcept) destructor.
  template <class F>
  py::tuple Run(F&& call) {
    std::shared_ptr<envpool::StateBatch> batch;
    PyThreadState* state = PyEval_SaveThread();
    try {
      batch = call();
    } catch (const envpool::BatchError& e) {
      PyEval_RestoreThread(state);
      IssueWarnings();
      RaiseBatchError(e);
    } catch (...) {
      PyEval_RestoreThread(state);
      throw;
    }
    PyEval_RestoreThread(state);
    IssueWarnings();
    return Package(batch);
  }

  // Warnings queued by envs on any thread (e.g. MuJoCo's), as Python
  // RuntimeWarnings; under -W error the first one raises.
  static void IssueWarnings() {
    for (const std::string& w : envpool::Warnings().Take())
      if (PyErr_WarnEx(PyExc_RuntimeWarning, w.c_str(), 1) != 0) throw py::error_already_set();
  }

  // The exception an env threw, with its Python type (std::invalid_argument
  // -> ValueError, std::out_of_range -> IndexError, else RuntimeError), a
  // message naming the failed envs, and as attributes: env_ids (every env
  // of the batch; all may be sent again, failed ones are reset on their
  // next step), failed_env_ids, and result (the whole batch, packaged like
  // recv()'s; failed rows are zeroed with terminated set).
  [[noreturn]] void RaiseBatchError(const envpool::BatchError& e) {
    PyObject* type = ExceptionType(e);
    py::tuple result = Package(e.batch);
    std::vector<int32_t> failed;
    for (const auto& f : e.failures) failed.push_back(f.env_id);
    py::object exc = py::reinterpret_borrow<py::object>(type)(e.message);
    exc.attr("env_ids") = py::array_t<int32_t>(last_ids_.size(), last_ids_.data());
    exc.attr("failed_env_ids") = py::array_t<int32_t>(failed.size(), failed.data());
    exc.attr("result") = result;
    PyErr_SetObject(type, exc.ptr());
    throw py::error_already_set();
  }

  static PyObject* ExceptionType(const envpool::BatchError& e) {
    PyObject* type = PyExc_RuntimeError;
    try {
      std::rethrow_exception(e.failures[0].error);
    } catch (const std::invalid_argument&) {
      type = PyExc_ValueError;
    } catch (const std::domain_error&) {
      type = PyExc_ValueError;
    } catch (const std::length_error&) {
      type = PyExc_ValueError;
    } catch (const std::out_of_range&) {
      type = PyExc_IndexError;
    } catch (const std::overflow_error&) {
      type = PyExc_OverflowError;
    } catch (const std::bad_alloc&) {
      type = PyExc_MemoryError;
    } catch (...) {
    }
    return type;
  }

  std::string ActionKeyList() const {
    std::string s;
    for (const std::string& k : action_names_) s += (s.empty() ? "'" : ", '") + k + "'";
    return "{" + s + "}";
  }

  // Converts (and checks) every action key for n envs; the pointers stay
  // valid until this thread's Converting guard ends.
  const char* const* ConvertActions(const py::object& action, int n) {
    Scratch& sc = scratch();
    sc.arrays.clear();
    sc.ptrs.clear();
    const auto& specs = pool_->env_spec().action;
    if (specs.size() == 1 && action_names_[0].empty()) {
      if (py::isinstance<py::dict>(action)) throw py::type_error("this env takes an array action, not a dict");
      sc.arrays.push_back(ConvertAction(0, action, n));
    } else {
      if (!py::isinstance<py::dict>(action))
        throw py::type_error("this env takes a dict action with keys " + ActionKeyList());
      py::dict d = action.cast<py::dict>();
      if (d.size() != specs.size()) throw py::value_error("action dict must have exactly the keys " + ActionKeyList());
      for (std::size_t k = 0; k < specs.size(); ++k) {
        py::str key(action_names_[k]);
        if (!d.contains(key)) throw py::value_error("action dict is missing key '" + action_names_[k] + "'");
        py::object value = d[key];
        sc.arrays.push_back(ConvertAction(static_cast<int>(k), value, n));
      }
    }
    for (const py::array& a : sc.arrays) sc.ptrs.push_back(static_cast<const char*>(a.data()));
    return sc.ptrs.data();
  }

  // Seeds for a reset of `ids`: null for none, else one per env (an int
  // seed s gives env i the seed s + i).
  const uint64_t* Seeds(const py::object& seed, const std::vector<int>& ids) {
    if (seed.is_none()) return nullptr;
    std::vector<uint64_t>& seeds = scratch().seeds;
    seeds.clear();
    if (IsPyInt(seed)) {
      int64_t s = CheckedSeed(seed);
      if (s > INT64_MAX - pool_->options().num_envs) throw py::value_error("seed must be in [0, 2**63 - 1 - num_envs]");
      for (int id : ids) seeds.push_back(static_cast<uint64_t>(s) + id);
    } else {
      if (!py::isinstance<py::sequence>(seed) || py::isinstance<py::str>(seed))
        throw py::type_error("seed must be an int, a list of ints (one per env) or None");
      // Owned items (a NumPy array makes a new scalar per item).
      py::list items(seed);
      if (items.size() != ids.size())
        throw py::value_error("seed list has " + std::to_string(items.size()) + " entries for " +
                              std::to_string(ids.size()) + " envs");
      for (std::size_t i = 0; i < items.size(); ++i) {
        py::object item = items[i];
        seeds.push_back(static_cast<uint64_t>(CheckedSeed(item)));
      }
    }
    return seeds.data();
  }

  static int64_t CheckedSeed(const py::handle& s) {
    if (!IsPyInt(s)) throw py::type_error("seed must be an int or a list of ints");
    py::int_ i(py::reinterpret_borrow<py::object>(s));
    if (i < py::int_(0) || i > py::int_(INT64_MAX)) throw py::value_error("seed must be in [0, 2**63 - 1]");
    return i.cast<int64_t>();
  }

  // Fills (and returns) this thread's scratch list of ids.
  const std::vector<int>& ToIds(const py::object& env_id) {
    std::vector<int>& ids = scratch().ids;
    ids.clear();
    if (IsPyInt(env_id)) {
      ids.push_back(CheckedId(env_id));
      return ids;
    }
    py::array arr = py::array::ensure(env_id);
    if (!arr || arr.ndim() != 1) throw py::type_error("env_id must be an int or a 1-D sequence of ints");
    if (arr.size() == 0) return ids;  // no envs: an empty batch
    char kind = arr.dtype().kind();
    if (kind != 'i' && kind != 'u')
      throw py::type_error("env_id must hold integers, got dtype " + std::string(py::str(arr.dtype())));
    if (arr.dtype().is(py::dtype::of<int32_t>()) && (arr.flags() & py::array::c_style)) {
      // info["env_id"] as recv() returned it: read in place.
      const int32_t* p = static_cast<const int32_t*>(arr.data());
      for (py::ssize_t i = 0; i < arr.size(); ++i) ids.push_back(CheckedId(p[i]));
      return ids;
    }
    if (kind == 'u' && arr.itemsize() == 8) {
      // uint64 ids above INT64_MAX must not wrap to negative (or valid) ids.
      auto u = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
      for (py::ssize_t i = 0; i < u.size(); ++i) {
        if (u.data()[i] > static_cast<uint64_t>(INT64_MAX))
          throw py::value_error("env_id " + std::to_string(u.data()[i]) + " is out of range");
        ids.push_back(CheckedId(static_cast<int64_t>(u.data()[i])));
      }
      return ids;
    }
    auto ints = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    const int64_t* p = ints.data();
    for (py::ssize_t i = 0; i < ints.size(); ++i) ids.push_back(CheckedId(p[i]));
    return ids;
  }

  int CheckedId(int64_t id) const {
    if (id < 0 || id >= pool_->options().num_envs)
      throw py::value_error("env_id " + std::to_string(id) + " is out of range [0, " +
                            std::to_string(pool_->options().num_envs) + ")");
    return static_cast<int>(id);
  }
  int CheckedId(const py::handle& id) const {
    try {
      return CheckedId(py::int_(py::reinterpret_borrow<py::object>(id)).cast<int64_t>());
    } catch (const py::cast_error&) {
      throw py::value_error("env_id " + std::string(py::repr(id)) + " is out of range");
    }
  }

  const std::vector<int>& EnvIds(const py::object& env_id) {
    if (!env_id.is_none()) return ToIds(env_id);
    if (pool_->sync()) return all_ids_;
    // A copy: another thread's recv() may replace last_ids_ while this call
    // runs without the GIL.
    std::vector<int>& ids = scratch().ids;
    ids = last_ids_;
    return ids;
  }

  // Checks the shape, dtype and (for discrete actions) range of one action
  // key, the range on the values as given (before any cast: 2**32 + 1 must
  // not pass as 1); casts to the spec dtype without copying when it matches.
  py::array ConvertAction(int k, const py::object& obj, int n) const {
    const ArraySpec& spec = pool_->env_spec().action[k];
    const std::string label = action_names_[k].empty() ? "action" : "action['" + action_names_[k] + "']";
    // NumPy's own conversion, so an exception raised by the object's
    // __array__ (e.g. a refused re-entrant call) reaches the caller as is.
    const auto& api = py::detail::npy_api::get();
    PyObject* raw =
        api.PyArray_FromAny_(obj.ptr(), nullptr, 0, 0, py::detail::npy_api::NPY_ARRAY_ENSUREARRAY_, nullptr);
    if (raw == nullptr) throw py::error_already_set();
    auto arr = py::reinterpret_steal<py::array>(raw);
    char kind = arr.dtype().kind();
    bool is_float = spec.dtype == DType::kFloat32 || spec.dtype == DType::kFloat64;
    bool ok = kind == 'i' || kind == 'u' || (is_float && kind == 'f');
    if (!ok)
      throw py::type_error(label + " has dtype " + std::string(py::str(arr.dtype())) + ", which cannot be cast to " +
                           envpool::DTypeName(spec.dtype));
    if (arr.ndim() != static_cast<py::ssize_t>(spec.shape.size()) + 1 || arr.shape(0) != n) {
      throw py::value_error(
          label + " has shape " +
          std::string(py::str(py::tuple(py::cast(std::vector<py::ssize_t>(arr.shape(), arr.shape() + arr.ndim()))))) +
          ", expected " + ExpectedShape(spec, n));
    }
    for (std::size_t d = 0; d < spec.shape.size(); ++d)
      if (arr.shape(d + 1) != spec.shape[d])
        throw py::value_error(label + " has the wrong shape, expected " + ExpectedShape(spec, n));
    if (discrete_[k]) CheckRange(spec, arr, label);
    return arr.dtype().is(action_dtypes_[k]) && (arr.flags() & py::array::c_style)
               ? arr
               : py::array(arr.attr("astype")(action_dtypes_[k], py::arg("order") = "C"));
  }

  static std::string ExpectedShape(const ArraySpec& spec, int n) {
    std::string s = "(" + std::to_string(n);
    for (int d : spec.shape) s += ", " + std::to_string(d);
    return s + (spec.shape.empty() ? ",)" : ")");
  }

  // `a` has an integer dtype of any width and signedness, as given.
  static void CheckRange(const ArraySpec& spec, py::array a, const std::string& label) {
    const auto lo = static_cast<int64_t>(spec.low[0]), hi = static_cast<int64_t>(spec.high[0]);
    // Native byte order: '=' or '|', or this machine's own explicit one.
    const char order = a.dtype().byteorder();
    const bool native = order == '=' || order == '|' || order == (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? '>' : '<');
    if (!(a.flags() & py::array::c_style) || !native)
      a = py::array(a.attr("astype")(a.dtype().attr("newbyteorder")("="), py::arg("order") = "C"));
    auto fail = [&](const std::string& v, py::ssize_t i) {
      throw py::value_error(label + " " + v + " (row " + std::to_string(i) + ") is out of range [" +
                            std::to_string(lo) + ", " + std::to_string(hi) + "]");
    };
    auto check_signed = [&](auto* p) {
      for (py::ssize_t i = 0; i < a.size(); ++i) {
        const auto v = static_cast<int64_t>(p[i]);
        if (v < lo || v > hi) fail(std::to_string(v), i);
      }
    };
    auto check_unsigned = [&](auto* p) {
      for (py::ssize_t i = 0; i < a.size(); ++i) {
        const auto v = static_cast<uint64_t>(p[i]);
        if ((hi < 0 || v > static_cast<uint64_t>(hi)) || (lo > 0 && v < static_cast<uint64_t>(lo)))
          fail(std::to_string(v), i);
      }
    };
    const void* d = a.data();
    const bool is_signed = a.dtype().kind() == 'i';
    switch (a.itemsize()) {
      case 1:
        return is_signed ? check_signed(static_cast<const int8_t*>(d)) : check_unsigned(static_cast<const uint8_t*>(d));
      case 2:
        return is_signed ? check_signed(static_cast<const int16_t*>(d))
                         : check_unsigned(static_cast<const uint16_t*>(d));
      case 4:
        return is_signed ? check_signed(static_cast<const int32_t*>(d))
                         : check_unsigned(static_cast<const uint32_t*>(d));
      case 8:
        return is_signed ? check_signed(static_cast<const int64_t*>(d))
                         : check_unsigned(static_cast<const uint64_t*>(d));
      default:
        throw py::type_error(label + " has an unsupported integer dtype " + std::string(py::str(a.dtype())));
    }
  }

  // NumPy's C API directly: py::array's constructor allocates shape and
  // stride vectors per call, and a batch has a dozen views.
  py::array View(const OutputKey& o, const envpool::StateBatch& b, int rows, const py::capsule& base) const {
    constexpr std::size_t kMaxDims = 16;
    const std::size_t ndim = o.shape.size() + 1;
    if (ndim > kMaxDims) throw std::length_error("state key has too many dimensions");
    Py_intptr_t shape[kMaxDims], strides[kMaxDims];
    shape[0] = rows;
    strides[0] = static_cast<Py_intptr_t>(b.layout.row_bytes[o.key]);
    std::copy(o.shape.begin(), o.shape.end(), shape + 1);
    std::copy(o.strides.begin(), o.strides.end(), strides + 1);
    const auto& api = py::detail::npy_api::get();
    PyObject* arr =
        api.PyArray_NewFromDescr_(api.PyArray_Type_, o.dtype.inc_ref().ptr(), static_cast<int>(ndim), shape, strides,
                                  b.key_base[o.key], py::detail::npy_api::NPY_ARRAY_WRITEABLE_, nullptr);
    if (arr == nullptr) throw py::error_already_set();
    auto view = py::reinterpret_steal<py::array>(arr);
    if (api.PyArray_SetBaseObject_(arr, base.inc_ref().ptr()) != 0) throw py::error_already_set();
    return view;
  }

  py::object Group(const std::vector<OutputKey>& keys, const envpool::StateBatch& b, int rows,
                   const py::capsule& base) const {
    if (keys.size() == 1 && py::len(keys[0].name) == 0) return View(keys[0], b, rows, base);
    py::dict d;
    for (const OutputKey& o : keys) d[o.name] = View(o, b, rows, base);
    return d;
  }

  py::tuple Package(const std::shared_ptr<envpool::StateBatch>& batch) {
    const int rows = batch->done.target();
    // One owner for every view of this batch.
    py::capsule base(new std::shared_ptr<char>(batch->memory),
                     [](void* p) { delete static_cast<std::shared_ptr<char>*>(p); });
    const envpool::StateBatch& b = *batch;
    const int32_t* ids = reinterpret_cast<const int32_t*>(b.key_base[envpool::kEnvId]);
    last_ids_.assign(ids, ids + rows);
    // The C API: pybind11's item accessors cost as much again, and this
    // runs once per step() call.
    py::dict info;
    PyObject* env_id = nullptr;
    for (const OutputKey& o : info_) {
      py::array view = View(o, b, rows, base);
      if (PyDict_SetItem(info.ptr(), o.name.ptr(), view.ptr()) != 0) throw py::error_already_set();
      if (o.key == envpool::kEnvId) env_id = view.ptr();
    }
    if (env_id == nullptr) throw std::logic_error("a batch without env ids");
    // EnvPool's info["players"]["env_id"] (one player per env here).
    py::dict players;
    if (PyDict_SetItem(players.ptr(), env_id_key_.ptr(), env_id) != 0 ||
        PyDict_SetItem(info.ptr(), players_key_.ptr(), players.ptr()) != 0)
      throw py::error_already_set();
    py::object final = py::none();
    if (!final_obs_.empty()) {
      py::dict final_info;
      for (const OutputKey& o : final_info_) final_info[o.name] = View(o, b, rows, base);
      final = py::make_tuple(Group(final_obs_, b, rows, base), final_info);
    }
    py::object discount = py::none();
    if (with_discount_) discount = View(Common(envpool::kDiscount), b, rows, base);
    return MakeBatch({Group(obs_, b, rows, base), View(Common(envpool::kReward), b, rows, base),
                      View(Common(envpool::kTerminated), b, rows, base),
                      View(Common(envpool::kTruncated), b, rows, base), discount, info, final});
  }

  const OutputKey& Common(int key) const { return common_[key]; }

  Config config_;
  std::shared_ptr<envpool::EnvPool> pool_;  // shared with running XLA calls (xla.cc)
  std::vector<OutputKey> obs_, info_, final_obs_, final_info_, common_;
  std::vector<std::string> action_names_;
  std::vector<py::dtype> action_dtypes_;
  std::vector<bool> discrete_;
  std::vector<int> all_ids_, last_ids_;  // last_ids_: with the GIL held
  py::str env_id_key_{"env_id"}, players_key_{"players"};
  bool with_discount_ = true;
};

py::tuple MakeSpec(const std::string& family_name, const py::dict& user_config) {
  const envpool::Family& family = GetFamily(family_name);
  Config c = BuildConfig(family, user_config);
  envpool::PoolOptions opt = ParseOptions(c);
  envpool::EnvSpec spec = family.make_spec(c);
  std::vector<ArraySpec> state = envpool::CommonStateSpecs();
  state.insert(state.end(), spec.state.begin(), spec.state.end());
  (void)opt;
  return py::make_tuple(ConfigDict(c), SpecList(state), SpecList(spec.action));
}

double RawCeiling(const std::string& family_name, const py::dict& user_config, int num_threads, double seconds) {
  const envpool::Family& family = GetFamily(family_name);
  if (!family.make_raw_stepper) throw py::value_error("family '" + family_name + "' has no raw ceiling");
  if (num_threads < 1) throw py::value_error("num_threads must be >= 1");
  Config c = BuildConfig(family, user_config);
  py::gil_scoped_release release;
  return envpool::RawCeiling(family, c, num_threads, seconds, static_cast<uint64_t>(c.Get<int64_t>("seed")));
}

}  // namespace

PYBIND11_MODULE(_envpool, m) {
  m.doc() = "envpool's C++ engine";
  // Every family compiled in registers itself (see FamilyRegistrar).
  envpool::RunFamilyRegistrations();

  m.attr("Batch") = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(BatchType()));
  m.def(
      "families",
      [] {
        py::dict out;
        for (const envpool::Family& f : envpool::Families()) {
          py::dict meta;
          meta["kind"] = f.kind;
          meta["task_module"] = f.task_module;
          meta["raw_ceiling"] = static_cast<bool>(f.make_raw_stepper);
          meta["bench"] = ConfigDict(f.bench);
          out[py::str(f.name)] = meta;
        }
        return out;
      },
      "{family name: {kind, task_module, raw_ceiling, bench}} of the families compiled in");
  m.def("family_defaults", [](const std::string& name) { return ConfigDict(AllDefaults(GetFamily(name))); });
  m.def("make_spec", &MakeSpec, py::arg("family"), py::arg("config"),
        "(config, state_spec, action_spec) of a family under a config, without making envs");
  m.def("raw_ceiling", &RawCeiling, py::arg("family"), py::arg("config"), py::arg("num_threads"), py::arg("seconds"),
        "Steps/s of the bare emulator/simulator, one env per thread, no engine");

  // Process-shared futex words (e.g. in a shared-memory segment that worker
  // processes step envs through): the address is an integer, the word a
  // uint32. Not a public API.
  m.def(
      "_futex_wait",
      [](uintptr_t addr, uint32_t expected, double timeout_s) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        if (word->load(std::memory_order_acquire) != expected) return true;
        py::gil_scoped_release release;
        timespec t{static_cast<time_t>(timeout_s),
                   static_cast<long>((timeout_s - static_cast<time_t>(timeout_s)) * 1e9)};
        syscall(SYS_futex, word, FUTEX_WAIT, expected, timeout_s >= 0 ? &t : nullptr, nullptr, 0);
        return word->load(std::memory_order_acquire) != expected;
      },
      py::arg("addr"), py::arg("expected"), py::arg("timeout_s"),
      "Sleep while the uint32 at addr holds expected (at most timeout_s; < 0: no limit); whether it changed");
  m.def(
      "_futex_store_wake",
      [](uintptr_t addr, uint32_t value) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        word->store(value, std::memory_order_release);
        syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), py::arg("value"), "Store value (release) in the uint32 at addr and wake its waiters");
  m.def(
      "_futex_store_wake_if",
      [](uintptr_t addr, uint32_t value, uintptr_t flag) {
        auto* word = reinterpret_cast<std::atomic<uint32_t>*>(addr);
        word->store(value, std::memory_order_seq_cst);
        // The waiter raises its flag before it re-checks the word and sleeps.
        if (reinterpret_cast<std::atomic<uint32_t>*>(flag)->load(std::memory_order_seq_cst) != 0)
          syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), py::arg("value"), py::arg("flag"),
      "Store value in the uint32 at addr; wake its waiters if the uint32 at flag is set (one sleeps)");
  m.def(
      "_futex_wake",
      [](uintptr_t addr) {
        syscall(SYS_futex, reinterpret_cast<uint32_t*>(addr), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      },
      py::arg("addr"), "Wake the waiters on the uint32 at addr");

  RegisterXla(m);  // before Pool: Pool._engine returns its engine type
  py::class_<PyPool>(m, "Pool")
      .def(py::init<const std::string&, const py::dict&, bool>(), py::arg("family"), py::arg("config"),
           py::arg("with_discount") = true)
      .def(py::init<const std::vector<std::string>&, const std::vector<py::dict>&, std::vector<int>, bool>(),
           py::arg("families"), py::arg("configs"), py::arg("env_task"), py::arg("with_discount") = true,
           "A multi-task pool: env i runs task env_task[i] (an index into families/configs)")
      .def_property_readonly("config", &PyPool::config)
      .def_property_readonly("state_spec", &PyPool::state_spec)
      .def_property_readonly("action_spec", &PyPool::action_spec)
      .def_property_readonly("closed", &PyPool::closed)
      .def_property_readonly("in_flight", &PyPool::in_flight)
      .def("send", &PyPool::Send, py::arg("action"), py::arg("env_id") = py::none())
      .def("recv", &PyPool::Recv)
      .def("step", &PyPool::Step, py::arg("action"), py::arg("env_id") = py::none())
      .def("send_reset", &PyPool::SendReset, py::arg("env_id") = py::none(), py::arg("seed") = py::none())
      .def("reset", &PyPool::Reset, py::arg("env_id") = py::none(), py::arg("seed") = py::none(),
           py::arg("own_batch") = false)
      .def("render", &PyPool::Render, py::arg("env_id"))
      .def("close", &PyPool::Close)
      .def("_engine", &PyPool::engine);
}
