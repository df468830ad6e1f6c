# Locate MuJoCo from the installed `mujoco` Python wheel.
#
# We never build or bundle MuJoCo: the extension links the exact shared
# library shipped inside the wheel (the same one gymnasium uses), with an
# rpath pointing at the wheel's directory, and compiles against the headers
# shipped next to it. Defines the imported target `mujoco::mujoco`.
#
# Inputs (optional): MUJOCO_PYTHON_DIR - override the wheel's directory.
set(ENVPOOL_MUJOCO_VERSION "3.17.0")

if(NOT MUJOCO_PYTHON_DIR)
  if(NOT Python_EXECUTABLE)
    find_package(Python 3.11 REQUIRED COMPONENTS Interpreter)
  endif()
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c
            "import os, mujoco; print(os.path.dirname(mujoco.__file__), end='')"
    OUTPUT_VARIABLE MUJOCO_PYTHON_DIR
    ERROR_VARIABLE _mujoco_err
    RESULT_VARIABLE _mujoco_rc)
  if(NOT _mujoco_rc EQUAL 0)
    message(FATAL_ERROR
      "ENVPOOL_MUJOCO=ON but the `mujoco` Python package could not be "
      "imported by ${Python_EXECUTABLE}:\n${_mujoco_err}\n"
      "Install mujoco==${ENVPOOL_MUJOCO_VERSION} or configure with "
      "-DENVPOOL_MUJOCO=OFF.")
  endif()
endif()

set(MUJOCO_INCLUDE_DIR "${MUJOCO_PYTHON_DIR}/include")
# The wheel's library: libmujoco.so.X (Linux), libmujoco.X.dylib (macOS),
# mujoco.dll (Windows, shipped without an import library: MinGW links the
# DLL itself; MSVC gets an import library made from the DLL's exports,
# mujoco_import_lib.cmake).
if(WIN32)
  set(MUJOCO_LIBRARY "${MUJOCO_PYTHON_DIR}/mujoco.dll")
  set(_mujoco_soname "mujoco.dll")
elseif(APPLE)
  set(MUJOCO_LIBRARY "${MUJOCO_PYTHON_DIR}/libmujoco.${ENVPOOL_MUJOCO_VERSION}.dylib")
  set(_mujoco_soname "@rpath/libmujoco.${ENVPOOL_MUJOCO_VERSION}.dylib")
else()
  set(MUJOCO_LIBRARY "${MUJOCO_PYTHON_DIR}/libmujoco.so.${ENVPOOL_MUJOCO_VERSION}")
  set(_mujoco_soname "libmujoco.so.${ENVPOOL_MUJOCO_VERSION}")
endif()

if(NOT EXISTS "${MUJOCO_INCLUDE_DIR}/mujoco/mujoco.h")
  message(FATAL_ERROR "MuJoCo headers not found at ${MUJOCO_INCLUDE_DIR}/mujoco/mujoco.h")
endif()
if(NOT EXISTS "${MUJOCO_LIBRARY}")
  message(FATAL_ERROR
    "MuJoCo library ${MUJOCO_LIBRARY} not found: envpool needs the mujoco "
    "wheel version ${ENVPOOL_MUJOCO_VERSION} exactly.")
endif()

# The headers from a stable copy (cmake/stable_headers.cmake says why).
include(${PROJECT_SOURCE_DIR}/cmake/stable_headers.cmake)
envpool_stable_headers(_mujoco_stable_include mujoco "${MUJOCO_INCLUDE_DIR}")

if(NOT TARGET mujoco::mujoco)
  add_library(mujoco::mujoco SHARED IMPORTED GLOBAL)
  set_target_properties(mujoco::mujoco PROPERTIES
    IMPORTED_LOCATION "${MUJOCO_LIBRARY}"
    IMPORTED_SONAME "${_mujoco_soname}"
    INTERFACE_INCLUDE_DIRECTORIES "${_mujoco_stable_include}")
  if(WIN32)
    if(MSVC)
      include(${CMAKE_CURRENT_LIST_DIR}/mujoco_import_lib.cmake)
      envpool_mujoco_import_lib("${MUJOCO_LIBRARY}" _mujoco_implib)
    else()
      set(_mujoco_implib "${MUJOCO_LIBRARY}")  # GNU ld links against a DLL directly
    endif()
    set_target_properties(mujoco::mujoco PROPERTIES IMPORTED_IMPLIB "${_mujoco_implib}")
  endif()
endif()
message(STATUS "MuJoCo: ${MUJOCO_LIBRARY}")
