// XLA FFI handlers: a pool's send, recv and step called from inside compiled
// JAX programs (src/envpool/xla.py builds the JAX side: shapes, dtypes and the
// structure of results). The pools they reach are in xla_registry.h; the
// CUDA handlers' host round trips in cuda_stage.h.
//
// A compiled program names its pool by a registry id (an FFI attribute),
// never by a pointer: a program can outlive its pool (JAX caches compiled
// programs), and then finds nothing and raises instead of touching freed
// memory. Each call holds the engine (a shared_ptr) for its duration, so a
// pool closed or deleted meanwhile from Python stays valid until the call
// returns.
//
// The handlers run on whatever threads XLA picks, without the GIL, and call
// the same engine as the Python binding. Inputs are checked with the
// binding's checks (checks.h); errors go back to XLA as FFI errors (never
// an abort), with an error code that src/envpool/xla.py maps back to the Python
// exception type the binding would raise (kCodes).
//
// Results are copied once, key by key, from the engine's finished batch into
// XLA's output buffers (the engine writes rows as envs finish, in memory it
// owns; XLA's buffers exist only for the duration of the call).
#include "cpp/binding/xla.h"

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

#include "cpp/binding/exceptions.h"
#include "cpp/binding/xla_registry.h"
#include "cpp/core/checks.h"
#include "cpp/core/errors.h"
#include "cpp/core/keys.h"
#include "cpp/core/pool.h"

#ifdef ENVPOOL_WITH_XLA
#include "cpp/binding/cuda_stage.h"
#include "xla/ffi/api/ffi.h"
#endif

namespace py = pybind11;
using envpool::EnvPool;

#ifdef ENVPOOL_WITH_XLA
namespace {

namespace ffi = xla::ffi;
using envpool::ArraySpec;
using envpool::DType;
using envpool::binding::Bound;
using envpool::binding::CudaDriver;
using envpool::binding::HostStage;
using envpool::binding::Registry;
using envpool::binding::XlaSlot;

// errors.h's error kinds as XLA error codes; src/envpool/xla.py maps the codes
// back to the kinds' Python types (_envpool.xla_error_types()), so an error
// has the Python path's type.
struct CodeOfKind {
  envpool::ErrorKind kind;
  ffi::ErrorCode code;
  const char* name;  // as XLA prefixes its messages
};
constexpr CodeOfKind kCodes[] = {
    {envpool::ErrorKind::kValue, ffi::ErrorCode::kInvalidArgument, "INVALID_ARGUMENT"},
    {envpool::ErrorKind::kIndex, ffi::ErrorCode::kOutOfRange, "OUT_OF_RANGE"},
    {envpool::ErrorKind::kMemory, ffi::ErrorCode::kResourceExhausted, "RESOURCE_EXHAUSTED"},
    {envpool::ErrorKind::kRuntime, ffi::ErrorCode::kFailedPrecondition, "FAILED_PRECONDITION"},
};
ffi::ErrorCode CodeOf(envpool::ErrorKind kind) {
  for (const CodeOfKind& c : kCodes)
    if (c.kind == kind) return c.code;
  return ffi::ErrorCode::kUnknown;
}

// Runs a handler body; whatever it throws becomes an FFI error. Env
// failures (BatchError) take the code of the first failed env's exception,
// as the binding raises that exception's type; a non-std exception is
// UNKNOWN (RuntimeError).
template <class F>
ffi::Error Guard(F&& body) {
  try {
    body();
    return ffi::Error::Success();
  } catch (const envpool::BatchError& e) {
    return ffi::Error(CodeOf(e.kind()), e.message);
  } catch (const std::exception& e) {
    return ffi::Error(CodeOf(envpool::ErrorKindOfCurrent()), e.what());
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

// The binding's env id checks (checks.h), on an integer buffer of any
// width and signedness.
void ReadIds(const ffi::AnyBuffer& buf, int num_envs, std::vector<int>& ids) {
  ids.clear();
  const bool known = VisitType(buf.element_type(), [&](auto* tag) {
    using T = Elem<decltype(tag)>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = static_cast<const T*>(buf.untyped_data());
      for (size_t i = 0; i < buf.element_count(); ++i) {
        if constexpr (std::is_unsigned_v<T>)
          ids.push_back(envpool::checks::CheckEnvId(static_cast<uint64_t>(p[i]), num_envs));
        else
          ids.push_back(envpool::checks::CheckEnvId(static_cast<int64_t>(p[i]), num_envs));
      }
    } else {
      throw std::invalid_argument("env_id must hold integers");
    }
  });
  if (!known) throw std::invalid_argument("env_id must hold integers");
}

// NumPy's name of an XLA element type, for messages.
const char* TypeName(ffi::DataType t) {
  switch (t) {
    case ffi::DataType::PRED:
      return "bool";
    case ffi::DataType::F16:
      return "float16";
    case ffi::DataType::BF16:
      return "bfloat16";
    case ffi::DataType::F32:
      return "float32";
    case ffi::DataType::F64:
      return "float64";
    default:
      return "unknown";
  }
}

// One action key for n envs: checked, and cast to the key's dtype when it
// arrives in another (as the binding casts with NumPy's astype).
const char* ConvertAction(const Bound& b, std::size_t k, const ffi::AnyBuffer& a, int n, std::vector<char>& store) {
  const ArraySpec& spec = b.pool->env_spec().action[k];
  const size_t count = static_cast<size_t>(n) * spec.NumElements();
  if (a.element_count() != count)
    throw std::invalid_argument(envpool::ActionLabel(spec.name) + " has the wrong number of elements");
  const bool to_float = spec.dtype == DType::kFloat32 || spec.dtype == DType::kFloat64;
  const char* result = static_cast<const char*>(a.untyped_data());
  const bool known = VisitType(a.element_type(), [&](auto* tag) {
    using S = Elem<decltype(tag)>;
    const S* p = static_cast<const S*>(a.untyped_data());
    if constexpr (std::is_floating_point_v<S>) {
      if (!to_float) throw std::invalid_argument(envpool::checks::CannotCast(spec, TypeName(a.element_type())));
    } else {  // integers and bools (0 and 1), as the binding takes them
      if (b.discrete[k]) envpool::checks::CheckActionRange(spec, p, count);
    }
    if (a.element_type() == FfiType(spec.dtype)) return;
    store.resize(count * envpool::DTypeSize(spec.dtype));
    VisitType(FfiType(spec.dtype), [&](auto* dtag) {
      using D = Elem<decltype(dtag)>;
      D* q = reinterpret_cast<D*>(store.data());
      for (size_t i = 0; i < count; ++i) q[i] = static_cast<D>(p[i]);
    });
    result = store.data();
  });
  if (!known) throw std::invalid_argument(envpool::ActionLabel(spec.name) + " has an unsupported dtype");
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
// layout order (shapes and dtypes fixed by src/envpool/xla.py from the spec).
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
  m.def(
      "xla_error_types",
      [] {
        py::dict d;
        for (const CodeOfKind& c : kCodes)
          d[c.name] = py::reinterpret_borrow<py::object>(envpool::binding::PythonType(c.kind));
        d["UNKNOWN"] = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
        return d;
      },
      "{XLA error code: the Python exception type of its error kind} (errors.h's table)");
#else
  m.attr("has_xla") = false;
#endif
}
