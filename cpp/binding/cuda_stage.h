// The CUDA handlers' host round trips: CUDA's driver library, opened at the
// first GPU call (the extension neither links nor needs CUDA on machines
// without a GPU), and the host copies of one call's device buffers.
#ifndef ENVPOOL_BINDING_CUDA_STAGE_H_
#define ENVPOOL_BINDING_CUDA_STAGE_H_

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cpp/platform/dynamic_library.h"
#include "xla/ffi/api/ffi.h"

namespace envpool::binding {

namespace ffi = xla::ffi;

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
#if defined(_WIN32)
    const std::string name = "nvcuda.dll";
#else
    const std::string name = "libcuda.so.1";
#endif
    void* lib = platform::OpenLibrary(name, nullptr);
    if (lib == nullptr) {
      error_ = "envpool xla: a GPU call, but CUDA's driver library (" + name + ") cannot be opened";
      return;
    }
    auto sym = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(platform::LibrarySymbol(lib, symbol));
      if (fn == nullptr && error_.empty()) error_ = "envpool xla: " + name + " lacks " + symbol;
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

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_CUDA_STAGE_H_
