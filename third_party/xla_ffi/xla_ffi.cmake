# XLA's FFI headers (header-only: xla/ffi/api/{c_api,api,ffi}.h) for the
# handlers in cpp/binding/xla.cc, taken from the jaxlib wheel that the
# building Python can import (jax.ffi.include_dir() is that folder). They are
# optional: without them the extension builds without the XLA handlers and
# pool.xla() raises ImportError saying how to get them.
#
# Cache variables:
#   ENVPOOL_XLA               ON (default): build the handlers when the headers
#                             are found; OFF: never.
#   ENVPOOL_XLA_FFI_INCLUDE   the folder holding xla/ffi/api/ffi.h (default:
#                             <jaxlib>/include of the building Python).
include_guard(GLOBAL)

option(ENVPOOL_XLA "Build the XLA FFI handlers behind pool.xla() when jaxlib's headers are found" ON)
set(ENVPOOL_XLA_FFI_INCLUDE "" CACHE PATH "Folder holding xla/ffi/api/ffi.h (default: from jaxlib)")

if(ENVPOOL_XLA)
  set(_xla_include "${ENVPOOL_XLA_FFI_INCLUDE}")
  if(NOT _xla_include)
    # find_spec, not an import of jax: jaxlib's folder is all that is needed.
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -c
              "import importlib.util as u, os; s = u.find_spec('jaxlib'); print(os.path.join(os.path.dirname(s.origin), 'include') if s and s.origin else '')"
      OUTPUT_VARIABLE _xla_include
      OUTPUT_STRIP_TRAILING_WHITESPACE
      RESULT_VARIABLE _xla_rc)
  endif()
  if(_xla_include AND EXISTS "${_xla_include}/xla/ffi/api/ffi.h")
    message(STATUS "envpool: XLA FFI handlers enabled (headers: ${_xla_include})")
    # SYSTEM: XLA's headers are not held to this project's warnings. A stable
    # copy: cmake/stable_headers.cmake says why.
    include(${PROJECT_SOURCE_DIR}/cmake/stable_headers.cmake)
    envpool_stable_headers(_xla_stable_include xla_ffi "${_xla_include}")
    target_include_directories(_envpool SYSTEM PRIVATE "${_xla_stable_include}")
    target_compile_definitions(_envpool PRIVATE ENVPOOL_WITH_XLA)
  else()
    message(STATUS "envpool: XLA FFI handlers skipped: jaxlib's headers (xla/ffi/api/ffi.h) not found; "
                   "pool.xla() will be unavailable. Install jax (pip install \"jax[cpu]\") in the building "
                   "environment, or pass -DENVPOOL_XLA_FFI_INCLUDE=<dir>, and rebuild.")
  endif()
else()
  message(STATUS "envpool: XLA FFI handlers off (ENVPOOL_XLA=OFF); pool.xla() will be unavailable.")
endif()
