// What a separately built family module and the engine must agree on to
// share C++ objects (Family, Config, EnvSpec, Env): the envpool version, the
// SDK version, and the C++ ABI (compiler family and major version, the
// Itanium ABI version, libstdc++'s dual string ABI and debug mode). Both
// sides compute the stamp with these macros, the engine when it is built,
// a module when it is; the engine refuses a module whose stamp differs
// (envpool.cpp_extension raises ImportError naming both).
#ifndef ENVPOOL_CORE_ABI_H_
#define ENVPOOL_CORE_ABI_H_

#include <cstddef>  // defines the libstdc++ ABI macros (_GLIBCXX_USE_CXX11_ABI)

#include "cpp/core/version.h"

// The SDK's interface version: bumped when a v1 name changes meaning.
#define ENVPOOL_SDK_VERSION 1

#define ENVPOOL_ABI_STR2(x) #x
#define ENVPOOL_ABI_STR(x) ENVPOOL_ABI_STR2(x)

#if defined(__clang__)
#define ENVPOOL_ABI_COMPILER "clang-" ENVPOOL_ABI_STR(__clang_major__)
#elif defined(__GNUC__)
#define ENVPOOL_ABI_COMPILER "gcc-" ENVPOOL_ABI_STR(__GNUC__)
#else
#define ENVPOOL_ABI_COMPILER "unknown"
#endif

#if defined(__GXX_ABI_VERSION)
#define ENVPOOL_ABI_GXX ENVPOOL_ABI_STR(__GXX_ABI_VERSION)
#else
#define ENVPOOL_ABI_GXX "none"
#endif

#if defined(_GLIBCXX_USE_CXX11_ABI)
#define ENVPOOL_ABI_CXX11 ENVPOOL_ABI_STR(_GLIBCXX_USE_CXX11_ABI)
#else
#define ENVPOOL_ABI_CXX11 "none"
#endif

// _GLIBCXX_DEBUG changes the layout of std::vector and friends.
#if defined(_GLIBCXX_DEBUG)
#define ENVPOOL_ABI_GLIBCXX_DEBUG "1"
#else
#define ENVPOOL_ABI_GLIBCXX_DEBUG "0"
#endif

#define ENVPOOL_ABI_STAMP                                                                                   \
  "envpool=" ENVPOOL_VERSION " sdk=" ENVPOOL_ABI_STR(ENVPOOL_SDK_VERSION) " compiler=" ENVPOOL_ABI_COMPILER \
                                                                          " gxx_abi=" ENVPOOL_ABI_GXX       \
                                                                          " cxx11_abi=" ENVPOOL_ABI_CXX11   \
                                                                          " glibcxx_debug=" ENVPOOL_ABI_GLIBCXX_DEBUG

// The full compiler version, reported (not compared) on a mismatch.
#if defined(__VERSION__)
#define ENVPOOL_ABI_COMPILER_VERSION __VERSION__
#else
#define ENVPOOL_ABI_COMPILER_VERSION "unknown"
#endif

#endif  // ENVPOOL_CORE_ABI_H_
