# Builds the Box2D 2.3 C++ library from the box2d-py source distribution and
# exposes it as the static target `envpool::box2d`.
#
# Why box2d-py 2.3.8 and not box2d 2.3.10 (the wheel gymnasium's Box2D envs
# import, our reference): box2d 2.3.10 has no sdist on PyPI, only wheels.
# box2d-py 2.3.8's sdist carries pybox2d's Box2D/ C++ tree, the same Box2D
# 2.3.x library the 2.3.10 wheel compiles; tests/families/box2d/test_box2d.py
# proves the two bit-equal step for step (see README.md here).
#
# The sdist is fetched at configure time with pip and unpacked into a cache
# directory; its Box2D/*.cpp files (not the SWIG wrapper) are compiled into a
# static library here. Floating point: no FMA contraction, no fast-math, as
# the wheel is compiled (plain -O2/-O3, SSE2 on x86_64): every float
# operation rounds as in the wheel.
#
# Cache variables:
#   ENVPOOL_BOX2D_VERSION    box2d-py version to build (default 2.3.8).
#   ENVPOOL_BOX2D_CACHE_DIR  where the download and sources live (default
#                            <build>/_deps/box2d).
#   ENVPOOL_BOX2D_SDIST      a local box2d-py-<version>.tar.gz to use instead
#                            of downloading (offline builds).
include_guard(GLOBAL)

set(ENVPOOL_BOX2D_VERSION "2.3.8" CACHE STRING "box2d-py version whose sdist provides Box2D")
set(ENVPOOL_BOX2D_CACHE_DIR "${CMAKE_BINARY_DIR}/_deps/box2d" CACHE PATH
    "Download/source directory for Box2D")
set(ENVPOOL_BOX2D_SDIST "" CACHE FILEPATH "Local box2d-py sdist (skips the download)")

set(_b2_root "${ENVPOOL_BOX2D_CACHE_DIR}")
set(_b2_name "box2d-py-${ENVPOOL_BOX2D_VERSION}")
set(_b2_src "${_b2_root}/src/${_b2_name}")

# 1. Obtain the sdist (once; the cache survives incremental rebuilds).
if(ENVPOOL_BOX2D_SDIST)
  set(_b2_sdist "${ENVPOOL_BOX2D_SDIST}")
else()
  set(_b2_sdist "${_b2_root}/download/${_b2_name}.tar.gz")
  if(NOT EXISTS "${_b2_sdist}")
    if(NOT Python_EXECUTABLE)
      find_package(Python 3 REQUIRED COMPONENTS Interpreter)
    endif()
    message(STATUS "Downloading the box2d-py ${ENVPOOL_BOX2D_VERSION} sdist with pip")
    # pip prepares the sdist's metadata (its setup.py) in an isolated
    # build environment: setuptools and wheel come from the index too.
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps
              --no-binary :all: "box2d-py==${ENVPOOL_BOX2D_VERSION}" -d "${_b2_root}/download"
      RESULT_VARIABLE _b2_rc
      OUTPUT_VARIABLE _b2_out
      ERROR_VARIABLE _b2_err)
    if(NOT _b2_rc EQUAL 0 OR NOT EXISTS "${_b2_sdist}")
      message(FATAL_ERROR
        "Could not download the box2d-py ${ENVPOOL_BOX2D_VERSION} sdist "
        "(or pass -DENVPOOL_BOX2D_SDIST=/path/to/${_b2_name}.tar.gz):\n"
        "${_b2_out}\n${_b2_err}")
    endif()
  endif()
endif()

# 2. Unpack it (once).
if(NOT EXISTS "${_b2_src}/Box2D/Box2D.h")
  file(ARCHIVE_EXTRACT INPUT "${_b2_sdist}" DESTINATION "${_b2_root}/src")
  if(NOT EXISTS "${_b2_src}/Box2D/Box2D.h")
    message(FATAL_ERROR "${_b2_sdist} does not contain ${_b2_name}/Box2D/Box2D.h")
  endif()
endif()

# pybox2d's b2Settings.h reports a failed b2Assert through Python's C API
# (PyErr_SetString, then a C++ throw that its SWIG wrapper catches). Our
# envs run on worker threads without the GIL and without that wrapper: the
# assertion throws the same b2AssertException, with no Python call (the envs
# turn it into a std::runtime_error). Nothing else in the sources touches
# Python. Patched in the unpacked cache copy, once.
set(_b2_settings "${_b2_src}/Box2D/Common/b2Settings.h")
file(READ "${_b2_settings}" _b2_text)
string(FIND "${_b2_text}" "#include <Python.h>" _b2_has_python)
if(NOT _b2_has_python EQUAL -1)
  string(REPLACE "#include <Python.h>\n" "" _b2_text "${_b2_text}")
  string(REPLACE "PyErr_SetString(PyExc_AssertionError, #A); " "" _b2_text "${_b2_text}")
  string(FIND "${_b2_text}" "Py" _b2_left)
  if(NOT _b2_left EQUAL -1)
    message(FATAL_ERROR "${_b2_settings}: unexpected Python references left after patching b2Assert")
  endif()
  file(WRITE "${_b2_settings}" "${_b2_text}")
endif()

# b2World::Step and b2Island::Solve time their phases for b2World's
# profile (b2Timer: gettimeofday, 10 reads a step and 7 per island of
# moving bodies), which only pybox2d's world.GetProfile() reads; our envs
# never do, and the reads took 3-4% of a LunarLander or BipedalWalker step
# (envpool-bench -e raw, 8 envs on 2 threads: LunarLander-v3 178k-183k ->
# 188k-191k steps/s). The timer's portable branch (no clock: the profile
# reads 0) is compiled instead; no simulated value depends on it. Patched
# in the unpacked cache copy, once.
set(_b2_timer "${_b2_src}/Box2D/Common/b2Timer.cpp")
file(READ "${_b2_timer}" _b2_text)
set(_b2_clock "#elif defined(__linux__) || defined (__APPLE__)")
string(FIND "${_b2_text}" "${_b2_clock}" _b2_has_clock)
if(NOT _b2_has_clock EQUAL -1)
  string(REPLACE "${_b2_clock}" "#elif 0  // envpool: no clock reads (third_party/box2d/box2d.cmake)"
                 _b2_text "${_b2_text}")
  file(WRITE "${_b2_timer}" "${_b2_text}")
elseif(NOT _b2_text MATCHES "envpool: no clock reads")
  message(FATAL_ERROR "${_b2_timer}: its Linux clock branch was not found to patch")
endif()

# 3. The static library: Box2D's own sources (the SWIG interface files and
# the Python wrapper are not compiled). Sources include each other as
# <Box2D/...>, so the sdist root is the include directory.
file(GLOB _b2_sources
  "${_b2_src}/Box2D/Common/*.cpp"
  "${_b2_src}/Box2D/Collision/*.cpp"
  "${_b2_src}/Box2D/Collision/Shapes/*.cpp"
  "${_b2_src}/Box2D/Dynamics/*.cpp"
  "${_b2_src}/Box2D/Dynamics/Contacts/*.cpp"
  "${_b2_src}/Box2D/Dynamics/Joints/*.cpp"
  "${_b2_src}/Box2D/Rope/*.cpp")
add_library(envpool_box2d STATIC ${_b2_sources})
set_target_properties(envpool_box2d PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
# Third-party code: its warnings are not ours (-w), and its headers are
# system headers for our sources.
target_compile_options(envpool_box2d PRIVATE -O2 -w -ffp-contract=off -fno-fast-math)
target_include_directories(envpool_box2d SYSTEM PUBLIC "${_b2_src}")
add_library(envpool::box2d ALIAS envpool_box2d)
