// What a pool call throws, and THE table of which C++ exception reaches
// Python as which exception type. The binding (cpp/binding), the XLA
// handlers and src/envpool/xla.py all read this table (through ErrorKindOf), so
// an env's exception has one Python type on every path.
#ifndef ENVPOOL_CORE_ERRORS_H_
#define ENVPOOL_CORE_ERRORS_H_

#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/core/state_batch.h"

namespace envpool {

// The Python exception types a C++ exception can become.
enum class ErrorKind : int { kValue, kIndex, kMemory, kRuntime };

// The table (env.h documents it for env authors): std::invalid_argument ->
// ValueError, std::out_of_range -> IndexError, std::bad_alloc ->
// MemoryError, anything else (std::range_error, a non-std exception, ...)
// -> RuntimeError. Call inside a catch block.
inline ErrorKind ErrorKindOfCurrent() {
  try {
    throw;
  } catch (const std::invalid_argument&) {
    return ErrorKind::kValue;
  } catch (const std::out_of_range&) {
    return ErrorKind::kIndex;
  } catch (const std::bad_alloc&) {
    return ErrorKind::kMemory;
  } catch (...) {
    return ErrorKind::kRuntime;
  }
}

inline ErrorKind ErrorKindOf(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (...) {
    return ErrorKindOfCurrent();
  }
}

inline constexpr ErrorKind kErrorKinds[] = {ErrorKind::kValue, ErrorKind::kIndex, ErrorKind::kMemory,
                                            ErrorKind::kRuntime};

inline const char* PythonTypeName(ErrorKind k) {
  switch (k) {
    case ErrorKind::kValue:
      return "ValueError";
    case ErrorKind::kIndex:
      return "IndexError";
    case ErrorKind::kMemory:
      return "MemoryError";
    case ErrorKind::kRuntime:
      break;
  }
  return "RuntimeError";
}

// Thrown by Recv()/Call()/Render() when envs of the batch threw. The batch
// is complete (the other envs' rows are valid; a failed env's row is zeroed
// with terminated set) and every env in it is free to be sent again; a
// failed env is reset on its next step. Its Python type is the first
// failure's (kind()).
class BatchError : public std::exception {
 public:
  BatchError(std::shared_ptr<StateBatch> b, std::vector<StateBatch::Failure> f)
      : batch(std::move(b)), failures(std::move(f)) {
    message = failures.size() == 1 ? "env " : "envs ";
    for (std::size_t i = 0; i < failures.size(); ++i) {
      if (i > 0) message += ", ";
      message += std::to_string(failures[i].env_id);
    }
    message += " failed";
    try {
      std::rethrow_exception(failures[0].error);
    } catch (const std::exception& e) {
      message += std::string(": ") + e.what();
    } catch (...) {
      message += ": unknown exception";
    }
  }
  const char* what() const noexcept override { return message.c_str(); }
  ErrorKind kind() const { return ErrorKindOf(failures[0].error); }

  std::shared_ptr<StateBatch> batch;
  std::vector<StateBatch::Failure> failures;
  std::string message;
};

// Thrown if the batch recorded failures (under its failure mutex). They
// come in row order, not the order the stepping threads met them, so that
// the raised type (the first failure's) and the ids' order do not depend on
// which thread stepped which env first (envs 1 and 6 of 8 on 2 threads,
// throwing std::out_of_range and std::invalid_argument: ValueError in 8 of
// 1500 failing calls, IndexError in the rest).
inline void ThrowIfFailed(const std::shared_ptr<StateBatch>& batch) {
  if (!batch->failed.load(std::memory_order_acquire)) return;
  std::vector<StateBatch::Failure> failures;
  {
    std::lock_guard<std::mutex> lock(batch->failure_mu);
    failures = batch->failures;
  }
  std::stable_sort(failures.begin(), failures.end(),
                   [](const StateBatch::Failure& a, const StateBatch::Failure& b) { return a.row < b.row; });
  throw BatchError(batch, std::move(failures));
}

// Thrown to a thread waiting in the pool when another thread closes it.
class PoolClosed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ERRORS_H_
