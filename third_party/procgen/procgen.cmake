# Obtains procgen 0.10.7's built engine and its assets from procgen's cp310
# wheel and installs them into the package (envpool/_procgen/).
#
# Why the wheel and not a build from source: procgen publishes no sdist, and
# its engine draws with Qt; the wheel's libenv.so has Qt 5.13 linked in, and
# Debian's Qt 5.15 draws rotated and scaled sprites a few pixels differently,
# so only the wheel's own library gives procgen's frames. Its interface is
# plain C (gym3's libenv.h: libenv_make/set_buffers/act/...), so it loads in
# any Python; cpp/procgen dlopen()s it at make time (no link-time
# dependency). Nothing is compiled or patched here: the library is procgen's
# byte for byte (the wheel's sha256 is checked).
#
# Installed (relative to the package root):
#   envpool/_procgen/libenv.so     the engine (needs libz, glib-2.0,
#                                  gthread-2.0, libstdc++ from the system)
#   envpool/_procgen/assets/       its sprites and backgrounds (~28 MB)
#   envpool/_procgen/version.txt   "0.10.7" (checked at make)
#   envpool/_procgen/LICENSE       procgen's MIT license (assets: see
#                                  procgen's ASSET_LICENSES.md)
#
# Cache variables:
#   ENVPOOL_PROCGEN_WHEEL      a local procgen-0.10.7-cp310-...whl to use
#                              instead of downloading (offline builds).
#   ENVPOOL_PROCGEN_CACHE_DIR  download/unpack directory (default
#                              <build>/_deps/procgen).
include_guard(GLOBAL)

set(ENVPOOL_PROCGEN_WHEEL "" CACHE FILEPATH "Local procgen 0.10.7 cp310 wheel (skips the download)")
set(ENVPOOL_PROCGEN_CACHE_DIR "${CMAKE_BINARY_DIR}/_deps/procgen" CACHE PATH
    "Download/unpack directory for procgen's wheel")

set(_pg_name "procgen-0.10.7-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl")
set(_pg_sha256 "4b594d14e42f0f2166e59a9e294477b906eb99c90c3343b570b7124cbc865f53")
set(_pg_root "${ENVPOOL_PROCGEN_CACHE_DIR}")
set(_pg_unpacked "${_pg_root}/unpacked")

# 1. Obtain the wheel (once; the cache survives rebuilds). pip fetches a
#    wheel of another Python version with --python-version/--only-binary.
if(ENVPOOL_PROCGEN_WHEEL)
  set(_pg_wheel "${ENVPOOL_PROCGEN_WHEEL}")
else()
  set(_pg_wheel "${_pg_root}/download/${_pg_name}")
  if(NOT EXISTS "${_pg_wheel}")
    if(NOT Python_EXECUTABLE)
      find_package(Python 3 REQUIRED COMPONENTS Interpreter)
    endif()
    message(STATUS "Downloading procgen 0.10.7's cp310 wheel with pip")
    execute_process(
      COMMAND "${Python_EXECUTABLE}" -m pip download --no-deps --only-binary :all:
              --python-version 3.10 --platform manylinux2014_x86_64 "procgen==0.10.7"
              -d "${_pg_root}/download"
      RESULT_VARIABLE _pg_rc
      OUTPUT_VARIABLE _pg_out
      ERROR_VARIABLE _pg_err)
    if(NOT _pg_rc EQUAL 0 OR NOT EXISTS "${_pg_wheel}")
      message(FATAL_ERROR
        "Could not download procgen 0.10.7's wheel (pass -DENVPOOL_PROCGEN_WHEEL=/path/to/${_pg_name}, "
        "or -DENVPOOL_PROCGEN=OFF to build without Procgen):\n${_pg_out}\n${_pg_err}")
    endif()
  endif()
endif()

# 2. Check it is the wheel we test against, and unpack its data (once).
file(SHA256 "${_pg_wheel}" _pg_got)
if(NOT _pg_got STREQUAL _pg_sha256)
  message(FATAL_ERROR "${_pg_wheel} is not procgen 0.10.7's cp310 manylinux wheel "
                      "(sha256 ${_pg_got}, expected ${_pg_sha256})")
endif()
if(NOT EXISTS "${_pg_unpacked}/${_pg_sha256}.stamp")
  file(REMOVE_RECURSE "${_pg_unpacked}")
  file(ARCHIVE_EXTRACT INPUT "${_pg_wheel}" DESTINATION "${_pg_unpacked}"
       PATTERNS "procgen/data/*" "procgen/version.txt" "procgen-0.10.7.dist-info/LICENSE")
  if(NOT EXISTS "${_pg_unpacked}/procgen/data/prebuilt/libenv.so")
    message(FATAL_ERROR "${_pg_wheel} has no procgen/data/prebuilt/libenv.so")
  endif()
  file(TOUCH "${_pg_unpacked}/${_pg_sha256}.stamp")
endif()

# 3. Install it into the package.
set(_pg_data "${_pg_unpacked}/procgen")
install(PROGRAMS "${_pg_data}/data/prebuilt/libenv.so" DESTINATION envpool/_procgen)
install(FILES "${_pg_data}/version.txt" "${_pg_unpacked}/procgen-0.10.7.dist-info/LICENSE"
        DESTINATION envpool/_procgen)
install(DIRECTORY "${_pg_data}/data/assets/" DESTINATION envpool/_procgen/assets)
