// C++ exceptions as Python exceptions (see exceptions.h).
#include "cpp/binding/exceptions.h"

#include <exception>

namespace envpool::binding {

namespace py = pybind11;

PyObject* PythonType(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kValue:
      return PyExc_ValueError;
    case ErrorKind::kIndex:
      return PyExc_IndexError;
    case ErrorKind::kMemory:
      return PyExc_MemoryError;
    case ErrorKind::kRuntime:
      break;
  }
  return PyExc_RuntimeError;
}

void RegisterExceptions(py::module_& m) {
  (void)m;
  py::register_local_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const py::error_already_set&) {
      throw;
    } catch (const std::exception& e) {
      PyErr_SetString(PythonType(ErrorKindOfCurrent()), e.what());
    }
  });
}

}  // namespace envpool::binding
