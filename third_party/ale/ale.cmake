# Builds the Arcade Learning Environment (ALE) C++ library from the ale-py
# source distribution and exposes it as the imported target `envpool::ale`.
#
# The sdist is fetched at configure time with pip (pinned to the same version
# as the runtime dependency in pyproject.toml) and unpacked into a cache
# directory, then built at build time with ExternalProject (C++ library only:
# no Python bindings, no SDL, no vector interface; needs zlib).
#
# How ALE is compiled (measured: see the README's "How the Atari family is
# built"): Release (-O3 -DNDEBUG) with our C++ compiler, position-independent,
# WITHOUT link-time optimisation (ale_project_include.cmake turns off the IPO
# that ALE's CMake forces: its slim LTO objects would be re-optimised inside
# our extension's LTO unit, where GCC's inliner has no budget left for the
# emulator's hot inline functions), and with hidden visibility (ALE's ~2600
# symbols are not exported from _envpool; calls inside ALE are direct, not
# through the PLT, and ale-py's own module can never bind to our copy).
#
# Cache variables:
#   ENVPOOL_ALE_VERSION    ale-py version to build (default 0.12.1).
#   ENVPOOL_ALE_CACHE_DIR  where the download, sources, build and install live
#                          (default <build>/_deps/ale). Point several build
#                          trees at one directory to build ALE only once.
#   ENVPOOL_ALE_SDIST      a local ale_py-<version>.tar.gz to use instead of
#                          downloading (offline builds).
#   ENVPOOL_ALE_JOBS       parallel jobs for the ALE build (default: cores).
include_guard(GLOBAL)
include(ExternalProject)

set(ENVPOOL_ALE_VERSION "0.12.1" CACHE STRING "ale-py version whose sdist provides ALE")
set(ENVPOOL_ALE_CACHE_DIR "${CMAKE_BINARY_DIR}/_deps/ale" CACHE PATH
    "Download/build/install directory for ALE")
set(ENVPOOL_ALE_SDIST "" CACHE FILEPATH "Local ale-py sdist (skips the download)")
cmake_host_system_information(RESULT _envpool_ncores QUERY NUMBER_OF_LOGICAL_CORES)
set(ENVPOOL_ALE_JOBS "${_envpool_ncores}" CACHE STRING "Parallel jobs for building ALE")

set(_ale_root "${ENVPOOL_ALE_CACHE_DIR}")
set(_ale_name "ale_py-${ENVPOOL_ALE_VERSION}")
set(_ale_src "${_ale_root}/src/${_ale_name}")
set(_ale_install "${_ale_root}/install")

# 1. Obtain the sdist (once; the cache survives incremental rebuilds).
if(ENVPOOL_ALE_SDIST)
  set(_ale_sdist "${ENVPOOL_ALE_SDIST}")
else()
  set(_ale_sdist "${_ale_root}/download/${_ale_name}.tar.gz")
  if(NOT EXISTS "${_ale_sdist}")
    if(NOT Python_EXECUTABLE)
      find_package(Python 3 REQUIRED COMPONENTS Interpreter)
    endif()
    message(STATUS "Downloading the ale-py ${ENVPOOL_ALE_VERSION} sdist with pip")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps
              --no-binary ale-py --no-build-isolation
              "ale-py==${ENVPOOL_ALE_VERSION}" -d "${_ale_root}/download"
      RESULT_VARIABLE _ale_rc
      OUTPUT_VARIABLE _ale_out
      ERROR_VARIABLE _ale_err)
    if(NOT _ale_rc EQUAL 0 OR NOT EXISTS "${_ale_sdist}")
      message(FATAL_ERROR
        "Could not download the ale-py ${ENVPOOL_ALE_VERSION} sdist "
        "(pip needs scikit-build-core and nanobind installed for its metadata "
        "step; or pass -DENVPOOL_ALE_SDIST=/path/to/${_ale_name}.tar.gz):\n"
        "${_ale_out}\n${_ale_err}")
    endif()
  endif()
endif()

# 2. Unpack it (once).
if(NOT EXISTS "${_ale_src}/src/ale/ale_interface.hpp")
  file(ARCHIVE_EXTRACT INPUT "${_ale_sdist}" DESTINATION "${_ale_root}/src")
  if(NOT EXISTS "${_ale_src}/src/ale/ale_interface.hpp")
    message(FATAL_ERROR "${_ale_sdist} does not contain ${_ale_name}/src/ale")
  endif()
endif()

# 3. Build and install the static C++ library at build time.
set(_ale_lib "${_ale_install}/lib/${CMAKE_STATIC_LIBRARY_PREFIX}ale${CMAKE_STATIC_LIBRARY_SUFFIX}")
ExternalProject_Add(envpool_ale_build
  SOURCE_DIR "${_ale_src}"
  BINARY_DIR "${_ale_root}/build"
  INSTALL_DIR "${_ale_install}"
  CMAKE_ARGS
    -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
    -DCMAKE_INSTALL_PREFIX=<INSTALL_DIR>
    -DCMAKE_INSTALL_LIBDIR=lib
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON
    -DCMAKE_CXX_VISIBILITY_PRESET=hidden
    -DCMAKE_VISIBILITY_INLINES_HIDDEN=ON
    -DCMAKE_PROJECT_ale_INCLUDE=${CMAKE_CURRENT_LIST_DIR}/ale_project_include.cmake
    -DCMAKE_TOOLCHAIN_FILE=
    -DBUILD_CPP_LIB=ON
    -DBUILD_PYTHON_LIB=OFF
    -DSDL_SUPPORT=OFF
    -DBUILD_VECTOR_LIB=OFF
    -DBUILD_VECTOR_XLA_LIB=OFF
  BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --parallel ${ENVPOOL_ALE_JOBS}
  BUILD_BYPRODUCTS "${_ale_lib}"
  UPDATE_COMMAND ""
  DOWNLOAD_COMMAND "")

# 4. The imported target. The installed headers include each other as
# "ale/..." and also as "version.hpp", so both the include/ root and
# include/ale go on the path (ALE's own exported config misses the root).
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)
file(MAKE_DIRECTORY "${_ale_install}/include/ale")
add_library(envpool_ale STATIC IMPORTED GLOBAL)
set_target_properties(envpool_ale PROPERTIES
  IMPORTED_LOCATION "${_ale_lib}"
  INTERFACE_INCLUDE_DIRECTORIES "${_ale_install}/include;${_ale_install}/include/ale"
  INTERFACE_LINK_LIBRARIES "ZLIB::ZLIB;Threads::Threads")
add_dependencies(envpool_ale envpool_ale_build)
add_library(envpool::ale ALIAS envpool_ale)
