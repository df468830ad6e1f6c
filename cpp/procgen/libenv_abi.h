// The C interface of procgen's libenv.so (gym3's "libenv", version 1), as
// its binary uses it: the struct layouts and the functions we look up with
// dlsym. Declared here because the library is loaded at run time, never
// linked, and procgen's headers are not part of any package we build from.
#ifndef ENVPOOL_PROCGEN_LIBENV_ABI_H_
#define ENVPOOL_PROCGEN_LIBENV_ABI_H_

#include <cstdint>

namespace envpool::procgen::abi {

constexpr int kVersion = 1;
constexpr int kNameLen = 128;
constexpr int kMaxDims = 16;

// enum libenv_dtype
constexpr int kUInt8 = 1;
constexpr int kInt32 = 2;
// enum libenv_space_name
constexpr int kObservation = 1;
constexpr int kInfo = 3;

union Value {
  uint8_t uint8;
  int32_t int32;
  float float32;
};

struct TensorType {
  char name[kNameLen];
  int scalar_type;
  int dtype;
  int shape[kMaxDims];
  int ndim;
  Value low;
  Value high;
};

// One option: a name and `count` elements of `dtype` at `data` (a string is
// kUInt8 bytes without a terminator; a bool one kUInt8 of 0 or 1).
struct Option {
  char name[kNameLen];
  int dtype;
  int count;
  void* data;
};

struct Options {
  Option* items;
  int count;
};

// Where the library writes (and reads the action): per space, one pointer
// per env, spaces outer.
struct Buffers {
  void** ob;
  float* rew;
  uint8_t* first;
  void** info;
  void** ac;
};

using Handle = void;
using VersionFn = int (*)();
using MakeFn = Handle* (*)(int, Options);
using TensorTypesFn = int (*)(Handle*, int, TensorType*);
using SetBuffersFn = void (*)(Handle*, Buffers*);
using ObserveFn = void (*)(Handle*);
using ActFn = void (*)(Handle*);
using CloseFn = void (*)(Handle*);

}  // namespace envpool::procgen::abi

#endif  // ENVPOOL_PROCGEN_LIBENV_ABI_H_
