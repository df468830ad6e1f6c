// The pool binding: one generic Python pool type for every family.
//
// Specs drive everything: configs are validated against the family's
// defaults (config.cc), actions are checked and cast against the action
// specs (args.cc), and a finished batch becomes NumPy views (no copy) of
// the batch memory, grouped into (obs, reward, terminated, truncated,
// discount, info, final).
#include "cpp/binding/pool_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/binding/args.h"
#include "cpp/binding/config.h"
#include "cpp/binding/exceptions.h"
#include "cpp/binding/xla.h"
#include "cpp/core/keys.h"
#include "cpp/core/named_arrays.h"
#include "cpp/core/pool.h"
#include "cpp/core/warnings.h"

namespace envpool::binding {

namespace {

using envpool::ArraySpec;
using envpool::Config;

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
  PyPool(const std::string& family_name, const py::dict& user_config, bool with_discount, const py::object& seeds)
      : PyPool(std::vector<std::string>{family_name}, std::vector<py::dict>{user_config}, {}, with_discount, seeds, {},
               false) {}

  // A multi-task pool: one (family, config) per task, env_task[i] the task
  // of env i. The engine keys (num_envs, batch_size, num_threads, seed,
  // thread_affinity_offset, autoreset_mode) must agree across the configs;
  // max_episode_steps is per task. seeds (None: env i gets seed + i) gives
  // env i its own seed; task_ids (empty: each task's index) what
  // info:task_id reports for each task's envs; report_task_id gives
  // info:task_id even when they all run one task (a list of one task).
  PyPool(const std::vector<std::string>& families, const std::vector<py::dict>& configs, std::vector<int> env_task,
         bool with_discount, const py::object& seeds, const std::vector<int>& task_ids, bool report_task_id)
      : with_discount_(with_discount) {
    if (families.empty() || families.size() != configs.size())
      throw py::value_error("a pool needs one config per family, and at least one");
    if (!task_ids.empty() && task_ids.size() != families.size())
      throw py::value_error("task_ids needs one id per config");
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
      tasks.push_back(
          envpool::PoolTask{&family, std::move(c), o.max_episode_steps, task_ids.empty() ? -1 : task_ids[t]});
    }
    opt.report_task_id = report_task_id;
    if (!seeds.is_none()) {
      std::vector<int> ids(static_cast<std::size_t>(opt.num_envs));
      for (int i = 0; i < opt.num_envs; ++i) ids[i] = i;
      ToSeeds(seeds, ids, opt.num_envs, opt.seeds);
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
      const envpool::KeyName name = envpool::ParseKeyName(a.name);
      o.name = py::str(name.key);
      if (name.group == envpool::KeyName::kObs) (name.final ? final_obs_ : obs_).push_back(o);
      if (name.group == envpool::KeyName::kInfo) (name.final ? final_info_ : info_).push_back(o);
      if (k < envpool::kNumCommonKeys) common_.push_back(o);  // reward, terminated, ...
    }
    action_keys_ = std::make_unique<ActionKeys>(pool_->env_spec().action);
    for (int i = 0; i < opt.num_envs; ++i) all_ids_.push_back(i);
    last_ids_ = all_ids_;
  }

  // Hands the state key `key` ("info:action_mask"; its "final:" copy too) out
  // as `dtype`, a view of the same bytes: a dtype of the same size that the
  // engine has not (Taxi's int8 action mask, which the engine writes as uint8).
  void ViewAs(const std::string& key, const py::dtype& dtype) {
    const envpool::KeyName want = envpool::ParseKeyName(key);
    const auto& specs = pool_->layout().specs;
    int found = 0;
    for (std::vector<OutputKey>* keys : {&obs_, &info_, &final_obs_, &final_info_}) {
      for (OutputKey& o : *keys) {
        const envpool::KeyName name = envpool::ParseKeyName(specs[o.key].name);
        if (name.group != want.group || name.key != want.key || want.final) continue;
        if (static_cast<std::size_t>(dtype.itemsize()) != envpool::DTypeSize(specs[o.key].dtype))
          throw py::value_error("view_as: " + key + " holds " + envpool::DTypeName(specs[o.key].dtype) +
                                ", whose size " + py::str(dtype).cast<std::string>() + " does not have");
        o.dtype = dtype;
        ++found;
      }
    }
    if (found == 0) throw py::key_error("view_as: no obs or info key " + key);
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
    const std::vector<int>& ids = env_id.is_none() ? all_ids_ : Ids(env_id);
    const uint64_t* seeds = Seeds(seed, ids);
    pool_->Send(envpool::Task::kReset, ids.data(), static_cast<int>(ids.size()), nullptr, seeds);
  }

  // Reset then recv. With own_batch (or an empty env_id) the rows are
  // exactly the envs named, in that order, in either mode; otherwise, in
  // async mode, the next batch as EnvPool returns it.
  py::tuple Reset(const py::object& env_id, const py::object& seed, bool own_batch) {
    Converting guard;
    const std::vector<int>& ids = env_id.is_none() ? all_ids_ : Ids(env_id);
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
    const std::vector<int>& ids = Ids(env_id);
    const int n = static_cast<int>(ids.size());
    std::shared_ptr<envpool::StateBatch> batch;
    PyThreadState* state = PyEval_SaveThread();
    try {
      batch = pool_->Render(ids.data(), n);
    } catch (const envpool::BatchError& e) {
      PyEval_RestoreThread(state);
      IssueWarnings();
      PyObject* type = PythonType(e.kind());
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
    const envpool::ArraySpec& frame = batch->layout.specs[envpool::kRenderFrame];
    py::capsule base(new std::shared_ptr<char>(batch->memory),
                     [](void* p) { delete static_cast<std::shared_ptr<char>*>(p); });
    const py::ssize_t h = frame.shape[0], w = frame.shape[1];
    return py::array(py::dtype::of<uint8_t>(), {static_cast<py::ssize_t>(n), h, w, py::ssize_t{3}},
                     {h * w * 3, w * 3, py::ssize_t{3}, py::ssize_t{1}}, batch->key_base[envpool::kRenderFrame], base);
  }

  py::tuple RenderSize() const {
    const std::array<int, 2> size = pool_->RenderSize();
    return py::make_tuple(size[0], size[1]);
  }

  // Named per-env arrays (envs that also derive from NamedArrays, e.g. a
  // simulator's model parameters). Every env named must have the array, with
  // one dtype and shape; env_id None is every env.
  py::tuple EnvArraySpec(const std::string& name, const py::object& env_id) {
    const std::vector<int> ids = ArrayIds(env_id);
    envpool::ArraySpec spec;
    pool_->WithIdleEnvs(ids.data(), static_cast<int>(ids.size()),
                        [&](const std::vector<envpool::Env*>& envs) { spec = CommonArraySpec(envs, ids, name); });
    py::tuple shape(spec.shape.size());
    for (std::size_t d = 0; d < spec.shape.size(); ++d) shape[d] = py::int_(spec.shape[d]);
    return py::make_tuple(ToNumpy(spec.dtype), shape);
  }

  py::list EnvArrayNames(int env_id) {
    py::list names;
    pool_->WithIdleEnvs(&env_id, 1, [&](const std::vector<envpool::Env*>& envs) {
      if (envpool::NamedArrays* a = envpool::NamedArraysOf(envs[0]))
        for (const std::string& n : a->ArrayNames()) names.append(py::str(n));
    });
    return names;
  }

  // (n, *shape), the arrays of env_id's envs in that order.
  py::array GetEnvArray(const std::string& name, const py::object& env_id) {
    const std::vector<int> ids = ArrayIds(env_id);
    py::array out;
    pool_->WithIdleEnvs(ids.data(), static_cast<int>(ids.size()), [&](const std::vector<envpool::Env*>& envs) {
      const envpool::ArraySpec spec = CommonArraySpec(envs, ids, name);
      std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(ids.size())};
      for (int d : spec.shape) shape.push_back(d);
      out = py::array(ToNumpy(spec.dtype), shape);
      char* dst = static_cast<char*>(out.mutable_data());
      for (std::size_t i = 0; i < envs.size(); ++i)
        envpool::NamedArraysOf(envs[i])->GetArray(name, dst + i * spec.NumBytes());
    });
    return out;
  }

  // values: (n, *shape) of the array's dtype (src/envpool/_model.py converts);
  // every env and value is checked before any env changes.
  void SetEnvArray(const std::string& name, const py::array& values, const py::object& env_id) {
    const std::vector<int> ids = ArrayIds(env_id);
    pool_->WithIdleEnvs(ids.data(), static_cast<int>(ids.size()), [&](const std::vector<envpool::Env*>& envs) {
      const envpool::ArraySpec spec = CommonArraySpec(envs, ids, name);
      std::string why;
      for (std::size_t i = 0; i < envs.size(); ++i)
        if (!envpool::NamedArraysOf(envs[i])->CanSetArray(name, &why)) throw py::value_error(why);
      const bool dtype_ok = values.dtype().equal(ToNumpy(spec.dtype));
      const bool c_order = (values.flags() & py::array::c_style) != 0;
      if (!dtype_ok || !c_order || values.size() != static_cast<py::ssize_t>(ids.size() * spec.NumElements()))
        throw py::value_error("'" + name + "' takes a C-ordered " + envpool::DTypeName(spec.dtype) + " array of " +
                              std::to_string(ids.size() * spec.NumElements()) + " values (" +
                              std::to_string(spec.NumElements()) + " per env)");
      const char* src = static_cast<const char*>(values.data());
      for (std::size_t i = 0; i < envs.size(); ++i)
        envpool::NamedArraysOf(envs[i])->SetArray(name, src + i * spec.NumBytes());
    });
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

  // The exception an env threw, with its Python type (errors.h's table), a
  // message naming the failed envs, and as attributes: env_ids (every env
  // of the batch; all may be sent again, failed ones are reset on their
  // next step), failed_env_ids, and result (the whole batch, packaged like
  // recv()'s; failed rows are zeroed with terminated set).
  [[noreturn]] void RaiseBatchError(const envpool::BatchError& e) {
    PyObject* type = PythonType(e.kind());
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

  std::vector<int> ArrayIds(const py::object& env_id) {
    if (env_id.is_none()) return all_ids_;
    Converting guard;
    return Ids(env_id);
  }

  // The spec of array `name`, which every env of envs must have alike.
  static envpool::ArraySpec CommonArraySpec(const std::vector<envpool::Env*>& envs, const std::vector<int>& ids,
                                            const std::string& name) {
    envpool::ArraySpec first;
    for (std::size_t i = 0; i < envs.size(); ++i) {
      envpool::NamedArrays* a = envpool::NamedArraysOf(envs[i]);
      const std::string env = "env " + std::to_string(ids[i]);
      if (a == nullptr) throw py::type_error(env + " has no named parameter arrays");
      envpool::ArraySpec spec;
      if (!a->FindArray(name, &spec)) throw py::key_error(env + " has no array '" + name + "'");
      if (i == 0) {
        first = spec;
      } else if (spec.dtype != first.dtype || spec.shape != first.shape) {
        throw py::value_error("array '" + name + "' differs in dtype or shape between env " + std::to_string(ids[0]) +
                              " and " + env + "; name envs of one kind");
      }
    }
    if (envs.empty()) throw py::value_error("no env named");
    return first;
  }

  // Converts (and checks) every action key for n envs; the pointers stay
  // valid until this thread's Converting guard ends.
  const char* const* ConvertActions(const py::object& action, int n) {
    Scratch& sc = scratch();
    sc.ptrs.clear();
    binding::ConvertActions(*action_keys_, action, n, sc.arrays);
    for (const py::array& a : sc.arrays) sc.ptrs.push_back(static_cast<const char*>(a.data()));
    return sc.ptrs.data();
  }

  // Seeds for a reset of `ids`: null for none, else one per env.
  const uint64_t* Seeds(const py::object& seed, const std::vector<int>& ids) {
    std::vector<uint64_t>& seeds = scratch().seeds;
    return ToSeeds(seed, ids, pool_->options().num_envs, seeds) ? seeds.data() : nullptr;
  }

  // Fills (and returns) this thread's scratch list of ids.
  const std::vector<int>& Ids(const py::object& env_id) {
    std::vector<int>& ids = scratch().ids;
    ToIds(env_id, pool_->options().num_envs, ids);
    return ids;
  }

  const std::vector<int>& EnvIds(const py::object& env_id) {
    if (!env_id.is_none()) return Ids(env_id);
    if (pool_->sync()) return all_ids_;
    // A copy: another thread's recv() may replace last_ids_ while this call
    // runs without the GIL.
    std::vector<int>& ids = scratch().ids;
    ids = last_ids_;
    return ids;
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
  std::unique_ptr<ActionKeys> action_keys_;
  std::vector<int> all_ids_, last_ids_;  // last_ids_: with the GIL held
  py::str env_id_key_{"env_id"}, players_key_{"players"};
  bool with_discount_ = true;
};

}  // namespace

py::object BatchTypeObject() { return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(BatchType())); }

void RegisterPool(py::module_& m) {
  py::class_<PyPool>(m, "Pool")
      .def(py::init<const std::string&, const py::dict&, bool, const py::object&>(), py::arg("family"),
           py::arg("config"), py::arg("with_discount") = true, py::arg("seeds") = py::none(),
           "A pool; seeds (a list of num_envs ints) seeds env i with seeds[i] instead of seed + i")
      .def(py::init<const std::vector<std::string>&, const std::vector<py::dict>&, std::vector<int>, bool,
                    const py::object&, const std::vector<int>&, bool>(),
           py::arg("families"), py::arg("configs"), py::arg("env_task"), py::arg("with_discount") = true,
           py::arg("seeds") = py::none(), py::arg("task_ids") = std::vector<int>{}, py::arg("report_task_id") = false,
           "A pool of several configs: env i runs config env_task[i] (an index into families/configs); "
           "info:task_id reports task_ids[env_task[i]] (default: the index) when they differ, or always "
           "with report_task_id")
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
      .def("render_size", &PyPool::RenderSize,
           "(height, width) of the envs' frames (ValueError: they cannot render, or not at one size)")
      .def("env_array_spec", &PyPool::EnvArraySpec, py::arg("name"), py::arg("env_id") = py::none(),
           "(dtype, shape) of a named per-env array (KeyError: no such array)")
      .def("env_array_names", &PyPool::EnvArrayNames, py::arg("env_id") = 0)
      .def("get_env_array", &PyPool::GetEnvArray, py::arg("name"), py::arg("env_id") = py::none())
      .def("set_env_array", &PyPool::SetEnvArray, py::arg("name"), py::arg("values"), py::arg("env_id") = py::none())
      .def("view_as", &PyPool::ViewAs, py::arg("key"), py::arg("dtype"),
           "Hands an obs or info key out as a dtype of the same size (a view of the engine's bytes)")
      .def("close", &PyPool::Close)
      .def("_engine", &PyPool::engine);
}

}  // namespace envpool::binding
