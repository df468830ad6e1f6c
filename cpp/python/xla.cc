// XLA FFI handlers: a pool's send, recv and step called from inside compiled
// JAX programs (envpool/xla.py builds the JAX side: shapes, dtypes and the
// structure of results).
//
// A compiled program names its pool by a registry id (an FFI attribute),
// never by a pointer: a program can outlive its pool (JAX caches compiled
// programs), and then finds nothing and raises instead of touching freed
// memory. Each call holds the engine (a shared_ptr) for its duration, so a
// pool closed or deleted meanwhile from Python stays valid until the call
// returns.
//
// The handlers run on whatever threads XLA picks, without the GIL, and call
// the same engine as the Python binding. Inputs are checked as the binding
// checks them, with the same messages; errors go back to XLA as FFI errors
// (never an abort), with an error code that envpool/xla.py maps back to the
// Python exception type the binding would raise (see ErrorCodeOf).
//
// Results are copied once, key by key, from the engine's finished batch into
// XLA's output buffers (the engine writes rows as envs finish, in memory it
// owns; XLA's buffers exist only for the duration of the call).
#include "cpp/python/xla.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cpp/core/pool.h"

#ifdef ENVPOOL_WITH_XLA
#include "xla/ffi/api/ffi.h"
#endif

namespace py = pybind11;
using envpool::EnvPool;

#ifdef ENVPOOL_WITH_XLA
namespace {

namespace ffi = xla::ffi;
using envpool::ArraySpec;
using envpool::DType;

// What the handlers need of one pool, fixed when the pool is bound.
struct Bound {
  std::shared_ptr<EnvPool> pool;
  std::vector<int> all_ids;
  std::vector<bool> discrete;      // per action key, as the binding decides
  std::vector<std::string> label;  // per action key: "action" or "action['k']"
};

std::shared_ptr<const Bound> MakeBound(std::shared_ptr<EnvPool> pool) {
  auto b = std::make_shared<Bound>();
  for (int i = 0; i < pool->options().num_envs; ++i) b->all_ids.push_back(i);
  for (const ArraySpec& a : pool->env_spec().action) {
    b->discrete.push_back(a.dtype != DType::kFloat32 && a.dtype != DType::kFloat64 && a.shape.empty() &&
                          std::isfinite(a.low[0]) && std::isfinite(a.high[0]));
    b->label.push_back(a.name == "action" ? "action" : "action['" + a.name.substr(7) + "']");
  }
  b->pool = std::move(pool);
  return b;
}

// Bound pools by id. Ids are never reused, so a stale program never reaches
// another pool. Leaked on purpose: XLA threads may still call in while the
// interpreter tears down static objects.
class Registry {
 public:
  static Registry& Get() {
    static Registry* r = new Registry;
    return *r;
  }
  int64_t Add(std::shared_ptr<const Bound> b) {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t id = next_++;
    pools_[id] = std::move(b);
    return id;
  }
  void Set(int64_t id, std::shared_ptr<const Bound> b) {
    std::lock_guard<std::mutex> lock(mu_);
    pools_[id].swap(b);  // the old binding is released after the lock
  }
  void Remove(int64_t id) {
    std::shared_ptr<const Bound> gone;  // released (maybe the engine) after the lock
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    if (it == pools_.end()) return;
    gone = std::move(it->second);
    pools_.erase(it);
  }
  std::shared_ptr<const Bound> Find(int64_t id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    return it == pools_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<const Bound>> pools_;
  int64_t next_ = 1;
};

// Python exception type <-> XLA error code; envpool/xla.py holds the same
// table. Python's own mapping of the C++ types is pybind11's (as the
// binding raises them).
ffi::ErrorCode CodeOfCurrent() {
  try {
    throw;
  } catch (const std::invalid_argument&) {
    return ffi::ErrorCode::kInvalidArgument;  // ValueError
  } catch (const std::domain_error&) {
    return ffi::ErrorCode::kInvalidArgument;
  } catch (const std::length_error&) {
    return ffi::ErrorCode::kInvalidArgument;
  } catch (const std::range_error&) {
    return ffi::ErrorCode::kInvalidArgument;
  } catch (const std::out_of_range&) {
    return ffi::ErrorCode::kOutOfRange;  // IndexError
  } catch (const std::overflow_error&) {
    return ffi::ErrorCode::kAborted;  // OverflowError
  } catch (const std::bad_alloc&) {
    return ffi::ErrorCode::kResourceExhausted;  // MemoryError
  } catch (...) {
    return ffi::ErrorCode::kFailedPrecondition;  // RuntimeError
  }
}

ffi::ErrorCode ErrorCodeOf(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (...) {
    return CodeOfCurrent();
  }
}

// Runs a handler body; whatever it throws becomes an FFI error. Env
// failures (BatchError) take the code of the first failed env's exception,
// as the binding raises that exception's type.
template <class F>
ffi::Error Guard(F&& body) {
  try {
    body();
    return ffi::Error::Success();
  } catch (const envpool::BatchError& e) {
    return ffi::Error(ErrorCodeOf(e.failures[0].error), e.message);
  } catch (const std::exception& e) {
    return ffi::Error(CodeOfCurrent(), e.what());
  } catch (...) {
    return ffi::Error(ffi::ErrorCode::kUnknown, "unknown exception");
  }
}

// Calls `f` with a null pointer of the C++ type of an XLA element type;
// false for types no envpool array uses.
template <class F>
bool VisitType(ffi::DataType t, F&& f) {
  switch (t) {
    case ffi::DataType::PRED:
      f(static_cast<bool*>(nullptr));
      return true;
    case ffi::DataType::S8:
      f(static_cast<int8_t*>(nullptr));
      return true;
    case ffi::DataType::S16:
      f(static_cast<int16_t*>(nullptr));
      return true;
    case ffi::DataType::S32:
      f(static_cast<int32_t*>(nullptr));
      return true;
    case ffi::DataType::S64:
      f(static_cast<int64_t*>(nullptr));
      return true;
    case ffi::DataType::U8:
      f(static_cast<uint8_t*>(nullptr));
      return true;
    case ffi::DataType::U16:
      f(static_cast<uint16_t*>(nullptr));
      return true;
    case ffi::DataType::U32:
      f(static_cast<uint32_t*>(nullptr));
      return true;
    case ffi::DataType::U64:
      f(static_cast<uint64_t*>(nullptr));
      return true;
    case ffi::DataType::F32:
      f(static_cast<float*>(nullptr));
      return true;
    case ffi::DataType::F64:
      f(static_cast<double*>(nullptr));
      return true;
    default:
      return false;
  }
}

ffi::DataType FfiType(DType t) {
  switch (t) {
    case DType::kBool:
      return ffi::DataType::PRED;
    case DType::kUInt8:
      return ffi::DataType::U8;
    case DType::kInt32:
      return ffi::DataType::S32;
    case DType::kInt64:
      return ffi::DataType::S64;
    case DType::kFloat32:
      return ffi::DataType::F32;
    case DType::kFloat64:
      return ffi::DataType::F64;
  }
  return ffi::DataType::INVALID;
}

// Without jax_enable_x64, JAX has no 64-bit arrays: such results are
// narrowed to 32 bits, as JAX narrows any 64-bit input.
ffi::DataType NarrowType(DType t) {
  if (t == DType::kInt64) return ffi::DataType::S32;
  if (t == DType::kFloat64) return ffi::DataType::F32;
  return FfiType(t);
}

template <class T>
using Elem = std::remove_pointer_t<T>;

// One thread's converted arguments, alive until the engine has copied them
// (inside Send/Step). Leaked: freeing at thread exit needs nothing.
struct Scratch {
  std::vector<int> ids;
  std::vector<std::vector<char>> actions;
  std::vector<const char*> ptrs;
};
Scratch& scratch() {
  thread_local Scratch* s = new Scratch;
  return *s;
}

// The handle is the registry id's bytes; a handle of another pool (or
// none) means the program mixed up its pools.
std::shared_ptr<const Bound> Lookup(int64_t id, const ffi::AnyBuffer& handle, const ffi::AnyBuffer& handle_out) {
  int64_t given = 0;
  if (handle.element_type() != ffi::DataType::U8 || handle.size_bytes() != sizeof(given))
    throw std::invalid_argument("envpool xla: the handle must be the one xla() returned (8 uint8 bytes)");
  std::memcpy(&given, handle.untyped_data(), sizeof(given));
  if (given != id)
    throw std::invalid_argument("envpool xla: this handle belongs to another env pool: pass this pool's handle");
  if (handle_out.untyped_data() != handle.untyped_data())
    std::memcpy(handle_out.untyped_data(), handle.untyped_data(), sizeof(given));
  std::shared_ptr<const Bound> b = Registry::Get().Find(id);
  if (b == nullptr) throw std::runtime_error("this env pool no longer exists: its XLA functions cannot run");
  return b;
}

// The binding's env id checks (PyPool::ToIds), on an integer buffer of any
// width and signedness.
void ReadIds(const ffi::AnyBuffer& buf, int num_envs, std::vector<int>& ids) {
  ids.clear();
  const bool known = VisitType(buf.element_type(), [&](auto* tag) {
    using T = Elem<decltype(tag)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = static_cast<const T*>(buf.untyped_data());
      for (size_t i = 0; i < buf.element_count(); ++i) {
        if constexpr (std::is_unsigned_v<T>) {
          if (static_cast<uint64_t>(p[i]) > static_cast<uint64_t>(INT64_MAX))
            throw std::invalid_argument("env_id " + std::to_string(p[i]) + " is out of range");
        }
        const auto v = static_cast<int64_t>(p[i]);
        if (v < 0 || v >= num_envs)
          throw std::invalid_argument("env_id " + std::to_string(v) + " is out of range [0, " +
                                      std::to_string(num_envs) + ")");
        ids.push_back(static_cast<int>(v));
      }
    } else {
      throw std::invalid_argument("env_id must hold integers");
    }
  });
  if (!known) throw std::invalid_argument("env_id must hold integers");
}

// The binding's range check of a discrete action (PyPool::CheckRange): on
// the values as given, before any cast, with the same message.
template <class S>
void CheckRange(const ArraySpec& spec, const S* p, size_t count, const std::string& label) {
  const auto lo = static_cast<int64_t>(spec.low[0]), hi = static_cast<int64_t>(spec.high[0]);
  // A branch-free pass in the values' own type first (it vectorises); the
  // loop below finds the offending row.
  if constexpr (std::is_signed_v<S>) {
    if (lo >= std::numeric_limits<S>::min() && hi <= std::numeric_limits<S>::max()) {
      const S l = static_cast<S>(lo), h = static_cast<S>(hi);
      bool any = false;
      for (size_t i = 0; i < count; ++i) any |= (p[i] < l) | (p[i] > h);
      if (!any) return;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    bool out;
    if constexpr (std::is_unsigned_v<S>) {
      const auto v = static_cast<uint64_t>(p[i]);
      out = (hi < 0 || v > static_cast<uint64_t>(hi)) || (lo > 0 && v < static_cast<uint64_t>(lo));
    } else {
      const auto v = static_cast<int64_t>(p[i]);
      out = v < lo || v > hi;
    }
    if (out)
      throw std::invalid_argument(label + " " + std::to_string(p[i]) + " (row " + std::to_string(i) +
                                  ") is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

// One action key for n envs: checked, and cast to the key's dtype when it
// arrives in another (as the binding casts with NumPy's astype).
const char* ConvertAction(const Bound& b, std::size_t k, const ffi::AnyBuffer& a, int n, std::vector<char>& store) {
  const ArraySpec& spec = b.pool->env_spec().action[k];
  const size_t count = static_cast<size_t>(n) * spec.NumElements();
  if (a.element_count() != count) throw std::invalid_argument(b.label[k] + " has the wrong number of elements");
  const bool to_float = spec.dtype == DType::kFloat32 || spec.dtype == DType::kFloat64;
  const char* result = static_cast<const char*>(a.untyped_data());
  const bool known = VisitType(a.element_type(), [&](auto* tag) {
    using S = Elem<decltype(tag)>;
    if constexpr (std::is_same_v<S, bool>) {
      throw std::invalid_argument(b.label[k] + " has dtype bool, which cannot be cast to " +
                                  envpool::DTypeName(spec.dtype));
    } else {
      const S* p = static_cast<const S*>(a.untyped_data());
      if constexpr (std::is_floating_point_v<S>) {
        if (!to_float)
          throw std::invalid_argument(b.label[k] + " has a float dtype, which cannot be cast to " +
                                      envpool::DTypeName(spec.dtype));
      } else {
        if (b.discrete[k]) CheckRange(spec, p, count, b.label[k]);
      }
      if (a.element_type() == FfiType(spec.dtype)) return;
      store.resize(count * envpool::DTypeSize(spec.dtype));
      VisitType(FfiType(spec.dtype), [&](auto* dtag) {
        using D = Elem<decltype(dtag)>;
        D* q = reinterpret_cast<D*>(store.data());
        for (size_t i = 0; i < count; ++i) q[i] = static_cast<D>(p[i]);
      });
      result = store.data();
    }
  });
  if (!known) throw std::invalid_argument(b.label[k] + " has an unsupported dtype");
  return result;
}

// Checks and converts a send's arguments: the action keys, then optionally
// env ids (the default: every env, in sync mode). The binding checks the ids
// first, so this does too.
void ConvertArgs(const Bound& b, const std::vector<ffi::AnyBuffer>& args, const int** ids, int* n) {
  const auto& specs = b.pool->env_spec().action;
  const std::size_t keys = specs.size();
  if (args.size() != keys && args.size() != keys + 1)
    throw std::logic_error("envpool xla: expected " + std::to_string(keys) +
                           " action buffers and optional env ids, got " + std::to_string(args.size()) + " buffers");
  Scratch& s = scratch();
  if (args.size() == keys + 1) {
    ReadIds(args[keys], b.pool->options().num_envs, s.ids);
    *ids = s.ids.data();
    *n = static_cast<int>(s.ids.size());
  } else {
    *ids = b.all_ids.data();
    *n = static_cast<int>(b.all_ids.size());
  }
  if (*n != b.pool->options().batch_size)
    throw std::invalid_argument("envpool xla: a send names exactly batch_size=" +
                                std::to_string(b.pool->options().batch_size) + " envs, got " + std::to_string(*n));
  s.actions.resize(keys);
  s.ptrs.resize(keys);
  for (std::size_t k = 0; k < keys; ++k) s.ptrs[k] = ConvertAction(b, k, args[k], *n, s.actions[k]);
}

// Copies a finished batch into XLA's outputs, one buffer per state key in
// layout order (shapes and dtypes fixed by envpool/xla.py from the spec).
void WriteResults(const envpool::StateBatch& batch, const std::vector<ffi::AnyBuffer>& rets) {
  const envpool::StateLayout& layout = batch.layout;
  const int rows = batch.done.target();
  if (rets.size() != layout.specs.size())
    throw std::logic_error("envpool xla: expected " + std::to_string(layout.specs.size()) + " result buffers, got " +
                           std::to_string(rets.size()));
  for (std::size_t k = 0; k < layout.specs.size(); ++k) {
    const ffi::AnyBuffer& out = rets[k];
    const ArraySpec& spec = layout.specs[k];
    const size_t count = static_cast<size_t>(rows) * spec.NumElements();
    if (out.element_count() != count)
      throw std::runtime_error("envpool xla: this batch has " + std::to_string(rows) +
                               " envs, but the XLA functions take batches of batch_size envs "
                               "(a send() of fewer envs from Python was received here)");
    const char* src = batch.key_base[k];
    if (out.element_type() == FfiType(spec.dtype)) {
      std::memcpy(out.untyped_data(), src, layout.row_bytes[k] * rows);
    } else if (out.element_type() == NarrowType(spec.dtype) && spec.dtype == DType::kFloat64) {
      const double* p = reinterpret_cast<const double*>(src);
      float* q = static_cast<float*>(out.untyped_data());
      for (size_t i = 0; i < count; ++i) q[i] = static_cast<float>(p[i]);
    } else if (out.element_type() == NarrowType(spec.dtype) && spec.dtype == DType::kInt64) {
      const int64_t* p = reinterpret_cast<const int64_t*>(src);
      int32_t* q = static_cast<int32_t*>(out.untyped_data());
      for (size_t i = 0; i < count; ++i) q[i] = static_cast<int32_t>(p[i]);
    } else {
      throw std::logic_error("envpool xla: result '" + spec.name + "' has an unexpected dtype");
    }
  }
}

// The three operations on views of a call's buffers: XLA's own (CPU) or
// host copies of device buffers (CUDA, below).
void DoSend(const ffi::AnyBuffer& handle, const ffi::AnyBuffer& handle_out, const std::vector<ffi::AnyBuffer>& args,
            int64_t pool) {
  std::shared_ptr<const Bound> b = Lookup(pool, handle, handle_out);
  const int* ids = nullptr;
  int n = 0;
  ConvertArgs(*b, args, &ids, &n);
  EnvPool::SequencedCaller sequenced;
  b->pool->Send(envpool::Task::kStep, ids, n, scratch().ptrs.data(), nullptr);
}

void DoRecv(const ffi::AnyBuffer& handle, const ffi::AnyBuffer& handle_out, const std::vector<ffi::AnyBuffer>& rets,
            int64_t pool) {
  std::shared_ptr<const Bound> b = Lookup(pool, handle, handle_out);
  std::shared_ptr<envpool::StateBatch> batch;
  {
    EnvPool::SequencedCaller sequenced;
    batch = b->pool->Recv();
  }
  WriteResults(*batch, rets);
}

// send then recv in one call (the engine's Step: in sync mode the rows are
// exactly the envs sent, in that order; in async mode it refuses, before
// sending, a step that could never complete a batch).
void DoStep(const ffi::AnyBuffer& handle, const ffi::AnyBuffer& handle_out, const std::vector<ffi::AnyBuffer>& args,
            const std::vector<ffi::AnyBuffer>& rets, int64_t pool) {
  std::shared_ptr<const Bound> b = Lookup(pool, handle, handle_out);
  const int* ids = nullptr;
  int n = 0;
  ConvertArgs(*b, args, &ids, &n);
  std::shared_ptr<envpool::StateBatch> batch;
  {
    EnvPool::SequencedCaller sequenced;
    batch = b->pool->Step(envpool::Task::kStep, ids, n, scratch().ptrs.data(), nullptr);
  }
  WriteResults(*batch, rets);
}

// XLA's variadic buffers as views (kept in thread-local vectors: no
// allocation per call once warm).
const std::vector<ffi::AnyBuffer>& ArgViews(const ffi::RemainingArgs& args) {
  thread_local std::vector<ffi::AnyBuffer> v;
  v.clear();
  for (std::size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> a = args.get<ffi::AnyBuffer>(i);
    if (a.has_error()) throw std::logic_error("envpool xla: argument " + std::to_string(i) + " is not a buffer");
    v.push_back(*a);
  }
  return v;
}

const std::vector<ffi::AnyBuffer>& RetViews(const ffi::RemainingRets& rets) {
  thread_local std::vector<ffi::AnyBuffer> v;
  v.clear();
  for (std::size_t i = 0; i < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> r = rets.get<ffi::AnyBuffer>(i);
    if (r.has_error()) throw std::logic_error("envpool xla: result " + std::to_string(i) + " is not a buffer");
    v.push_back(**r);
  }
  return v;
}

ffi::Error SendCpu(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out,
                   int64_t pool) {
  return Guard([&] { DoSend(handle, *handle_out, ArgViews(args), pool); });
}

ffi::Error RecvCpu(ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets,
                   int64_t pool) {
  return Guard([&] { DoRecv(handle, *handle_out, RetViews(rets), pool); });
}

ffi::Error StepCpu(ffi::AnyBuffer handle, ffi::RemainingArgs args, ffi::Result<ffi::AnyBuffer> handle_out,
                   ffi::RemainingRets rets, int64_t pool) {
  return Guard([&] { DoStep(handle, *handle_out, ArgViews(args), RetViews(rets), pool); });
}

XLA_FFI_DEFINE_HANDLER(
    kSend, SendCpu, ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().RemainingArgs().Ret<ffi::AnyBuffer>().Attr<int64_t>("pool"));
XLA_FFI_DEFINE_HANDLER(
    kRecv, RecvCpu, ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Ret<ffi::AnyBuffer>().RemainingRets().Attr<int64_t>("pool"));
XLA_FFI_DEFINE_HANDLER(
    kStep, StepCpu,
    ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().RemainingArgs().Ret<ffi::AnyBuffer>().RemainingRets().Attr<int64_t>("pool"));

// CUDA: the same operations on host copies. The inputs are copied to the
// host on XLA's stream (after whatever computed them), the engine runs on
// the host, and the results go back on that stream; the call returns when
// they are there (its host buffers are reused by the next call). CUDA's
// driver library is opened at the first GPU call, so the extension neither
// links nor needs CUDA on machines without a GPU.
class CudaDriver {
 public:
  using Result = int;              // CUresult; 0 is CUDA_SUCCESS
  using Ptr = unsigned long long;  // NOLINT(runtime/int): CUdeviceptr

  static const CudaDriver& Get() {
    static const CudaDriver* d = new CudaDriver;  // leaked: XLA threads may call at exit
    if (!d->error_.empty()) throw std::runtime_error(d->error_);
    return *d;
  }

  void ToHost(void* dst, const void* src, std::size_t n, void* stream) const {
    Check(dtoh_(dst, reinterpret_cast<Ptr>(src), n, stream), "cuMemcpyDtoHAsync");
  }
  void ToDevice(void* dst, const void* src, std::size_t n, void* stream) const {
    Check(htod_(reinterpret_cast<Ptr>(dst), src, n, stream), "cuMemcpyHtoDAsync");
  }
  void Sync(void* stream) const { Check(sync_(stream), "cuStreamSynchronize"); }
  // Makes the stream's context current on this thread for a scope (XLA's
  // thread normally has it current already; pushing it again is harmless).
  void* PushContext(void* stream) const {
    void* ctx = nullptr;
    Check(stream_ctx_(stream, &ctx), "cuStreamGetCtx");
    Check(push_(ctx), "cuCtxPushCurrent");
    return ctx;
  }
  void PopContext() const {
    void* ctx = nullptr;
    Check(pop_(&ctx), "cuCtxPopCurrent");
  }

 private:
  CudaDriver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      error_ = "envpool xla: a GPU call, but CUDA's driver library (libcuda.so.1) cannot be opened";
      return;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      if (fn == nullptr && error_.empty()) error_ = std::string("envpool xla: libcuda.so.1 lacks ") + name;
    };
    sym(dtoh_, "cuMemcpyDtoHAsync_v2");
    sym(htod_, "cuMemcpyHtoDAsync_v2");
    sym(sync_, "cuStreamSynchronize");
    sym(stream_ctx_, "cuStreamGetCtx");
    sym(push_, "cuCtxPushCurrent_v2");
    sym(pop_, "cuCtxPopCurrent_v2");
  }
  static void Check(Result r, const char* what) {
    if (r != 0)
      throw std::runtime_error(std::string("envpool xla: ") + what + " failed (CUDA error " + std::to_string(r) + ")");
  }

  std::string error_;
  Result (*dtoh_)(void*, Ptr, std::size_t, void*) = nullptr;
  Result (*htod_)(Ptr, const void*, std::size_t, void*) = nullptr;
  Result (*sync_)(void*) = nullptr;
  Result (*stream_ctx_)(void*, void**) = nullptr;
  Result (*push_)(void*) = nullptr;
  Result (*pop_)(void**) = nullptr;
};

// Host copies of one call's device buffers, and their views.
class HostStage {
 public:
  // Call in this order: In() for every input, Fetch(), Out() for every
  // output, the operation on the views, then Publish().
  void Begin(void* stream) {
    stream_ = stream;
    used_ = 0;
    outs_.clear();
  }
  ffi::AnyBuffer In(const ffi::AnyBuffer& dev) {
    Slot& s = Take(dev);
    CudaDriver::Get().ToHost(s.bytes.data(), dev.untyped_data(), dev.size_bytes(), stream_);
    return ffi::AnyBuffer(&s.desc);
  }
  std::vector<ffi::AnyBuffer> In(const std::vector<ffi::AnyBuffer>& dev) {
    std::vector<ffi::AnyBuffer> v;
    for (const ffi::AnyBuffer& d : dev) v.push_back(In(d));
    return v;
  }
  void Fetch() { CudaDriver::Get().Sync(stream_); }
  ffi::AnyBuffer Out(const ffi::AnyBuffer& dev) {
    Slot& s = Take(dev);
    outs_.push_back({&s, dev.untyped_data()});
    return ffi::AnyBuffer(&s.desc);
  }
  std::vector<ffi::AnyBuffer> Out(const std::vector<ffi::AnyBuffer>& dev) {
    std::vector<ffi::AnyBuffer> v;
    for (const ffi::AnyBuffer& d : dev) v.push_back(Out(d));
    return v;
  }
  void Publish() {
    for (const auto& [slot, dev] : outs_)
      CudaDriver::Get().ToDevice(dev, slot->bytes.data(), slot->bytes.size(), stream_);
    CudaDriver::Get().Sync(stream_);
  }

 private:
  struct Slot {
    std::vector<char> bytes;
    std::vector<int64_t> dims;
    XLA_FFI_Buffer desc;
  };
  Slot& Take(const ffi::AnyBuffer& dev) {
    if (used_ == slots_.size()) slots_.push_back(std::make_unique<Slot>());
    Slot& s = *slots_[used_++];
    s.bytes.resize(dev.size_bytes());
    s.dims.assign(dev.dimensions().begin(), dev.dimensions().end());
    s.desc = XLA_FFI_Buffer{XLA_FFI_Buffer_STRUCT_SIZE,
                            nullptr,
                            static_cast<XLA_FFI_DataType>(dev.element_type()),
                            s.bytes.data(),
                            static_cast<int64_t>(s.dims.size()),
                            s.dims.data()};
    return s;
  }
  void* stream_ = nullptr;
  std::size_t used_ = 0;
  std::vector<std::unique_ptr<Slot>> slots_;  // stable addresses: views point at them
  std::vector<std::pair<Slot*, void*>> outs_;
};

// Runs body(stage) with the stream's context current; the stage is this
// thread's (views stay valid for the call).
template <class F>
ffi::Error GuardCuda(void* stream, F&& body) {
  return Guard([&] {
    const CudaDriver& cuda = CudaDriver::Get();
    cuda.PushContext(stream);
    struct Pop {
      const CudaDriver& c;
      ~Pop() {
        try {
          c.PopContext();
        } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to restore
        }
      }
    } pop{cuda};
    thread_local HostStage stage;
    stage.Begin(stream);
    body(stage);
  });
}

ffi::Error SendCuda(void* stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                    ffi::Result<ffi::AnyBuffer> handle_out, int64_t pool) {
  return GuardCuda(stream, [&](HostStage& st) {
    ffi::AnyBuffer h = st.In(handle);
    std::vector<ffi::AnyBuffer> a = st.In(ArgViews(args));
    st.Fetch();
    ffi::AnyBuffer ho = st.Out(*handle_out);
    DoSend(h, ho, a, pool);
    st.Publish();
  });
}

ffi::Error RecvCuda(void* stream, ffi::AnyBuffer handle, ffi::Result<ffi::AnyBuffer> handle_out,
                    ffi::RemainingRets rets, int64_t pool) {
  return GuardCuda(stream, [&](HostStage& st) {
    ffi::AnyBuffer h = st.In(handle);
    st.Fetch();
    ffi::AnyBuffer ho = st.Out(*handle_out);
    std::vector<ffi::AnyBuffer> r = st.Out(RetViews(rets));
    DoRecv(h, ho, r, pool);
    st.Publish();
  });
}

ffi::Error StepCuda(void* stream, ffi::AnyBuffer handle, ffi::RemainingArgs args,
                    ffi::Result<ffi::AnyBuffer> handle_out, ffi::RemainingRets rets, int64_t pool) {
  return GuardCuda(stream, [&](HostStage& st) {
    ffi::AnyBuffer h = st.In(handle);
    std::vector<ffi::AnyBuffer> a = st.In(ArgViews(args));
    st.Fetch();
    ffi::AnyBuffer ho = st.Out(*handle_out);
    std::vector<ffi::AnyBuffer> r = st.Out(RetViews(rets));
    DoStep(h, ho, a, r, pool);
    st.Publish();
  });
}

XLA_FFI_DEFINE_HANDLER(kSendCuda, SendCuda,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<void*>>()
                           .Arg<ffi::AnyBuffer>()
                           .RemainingArgs()
                           .Ret<ffi::AnyBuffer>()
                           .Attr<int64_t>("pool"));
XLA_FFI_DEFINE_HANDLER(kRecvCuda, RecvCuda,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<void*>>()
                           .Arg<ffi::AnyBuffer>()
                           .Ret<ffi::AnyBuffer>()
                           .RemainingRets()
                           .Attr<int64_t>("pool"));
XLA_FFI_DEFINE_HANDLER(kStepCuda, StepCuda,
                       ffi::Ffi::Bind()
                           .Ctx<ffi::PlatformStream<void*>>()
                           .Arg<ffi::AnyBuffer>()
                           .RemainingArgs()
                           .Ret<ffi::AnyBuffer>()
                           .RemainingRets()
                           .Attr<int64_t>("pool"));

// A pool's place in the registry, owned by its Python pool object: bound to
// the pool's engine (rebound when the Python pool rebuilds its engine) and
// removed when the Python object goes.
class XlaSlot {
 public:
  explicit XlaSlot(std::shared_ptr<EnvPool> pool) : id_(Registry::Get().Add(MakeBound(std::move(pool)))) {}
  ~XlaSlot() { Registry::Get().Remove(id_); }
  XlaSlot(const XlaSlot&) = delete;
  XlaSlot& operator=(const XlaSlot&) = delete;
  void Bind(std::shared_ptr<EnvPool> pool) { Registry::Get().Set(id_, MakeBound(std::move(pool))); }
  int64_t id() const { return id_; }

 private:
  int64_t id_;
};

py::capsule Capsule(XLA_FFI_Handler* handler) { return py::capsule(reinterpret_cast<void*>(handler)); }

}  // namespace
#endif  // ENVPOOL_WITH_XLA

void RegisterXla(py::module_& m) {
  // Opaque: Python only passes it from a Pool (Pool._engine) to XlaSlot.
  py::class_<EnvPool, std::shared_ptr<EnvPool>>(m, "_Engine");
#ifdef ENVPOOL_WITH_XLA
  m.attr("has_xla") = true;
  py::class_<XlaSlot>(m, "XlaSlot")
      .def(py::init<std::shared_ptr<EnvPool>>(), py::arg("engine"))
      .def("bind", &XlaSlot::Bind, py::arg("engine"))
      .def_property_readonly("id", &XlaSlot::id);
  m.def(
      "xla_handlers",
      [] {
        py::dict d;
        d["send"] = Capsule(kSend);
        d["recv"] = Capsule(kRecv);
        d["step"] = Capsule(kStep);
        return d;
      },
      "The XLA FFI handlers for the CPU (send, recv, step) as capsules for jax.ffi.register_ffi_target");
  m.def(
      "xla_cuda_handlers",
      [] {
        py::dict d;
        d["send"] = Capsule(kSendCuda);
        d["recv"] = Capsule(kRecvCuda);
        d["step"] = Capsule(kStepCuda);
        return d;
      },
      "The XLA FFI handlers for CUDA GPUs (host round trips through libcuda, opened at the first call)");
#else
  m.attr("has_xla") = false;
#endif
}
