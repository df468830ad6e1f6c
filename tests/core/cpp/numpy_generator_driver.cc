// Test driver for cpp/random/numpy_generator.h (tests/core/test_numpy_generator.py).
// Reads a script of draws from stdin, one command a line, and writes every
// drawn value to stdout as 8 little-endian bytes (integers as int64/uint64,
// doubles as their bit patterns), so that the test can replay the same script
// on numpy and compare the two streams word for word.
//
//   seed S              new generator: default_rng(S), S in [0, 2^64)
//   words N W1 .. WN    new generator: Generator(PCG64(SeedSequence(words)))
//   state               the PCG64 state: state high, low, inc high, low,
//                       has_uint32, uinteger
//   u64 K / u32 K / random K
//   uniform LOW HIGH K  (LOW/HIGH as hexadecimal floats, exact)
//   integers LOW HIGH K / closed LOW HIGH K
//   choice N K          ChoiceIndex(N) K times
//   shuffle N           Shuffle of [0, N) (writes the list)
//   permutation N
//   error               integers(0, 0), uniform(5, 2) and uniform(0, inf)
//                       must throw (writes 1 for each that did)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cpp/random/numpy_generator.h"

namespace {

std::vector<uint64_t> out;

void Put(uint64_t v) { out.push_back(v); }
void PutDouble(double d) {
  uint64_t bits;
  static_assert(sizeof(bits) == sizeof(d));
  std::memcpy(&bits, &d, sizeof(d));
  out.push_back(bits);
}
void Flush() {
  std::fwrite(out.data(), sizeof(uint64_t), out.size(), stdout);
  out.clear();
}

}  // namespace

int main() {
  using envpool::random::NumpyGenerator;
  NumpyGenerator gen(uint64_t{0});
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op;
    in >> op;
    if (op == "seed") {
      uint64_t s;
      in >> s;
      gen = NumpyGenerator(s);
    } else if (op == "words") {
      size_t n;
      in >> n;
      std::vector<uint32_t> words(n);
      for (auto& w : words) in >> w;
      gen = NumpyGenerator(words);
    } else if (op == "state") {
      const auto& b = gen.bit_generator();
      Put(static_cast<uint64_t>(b.state() >> 64));
      Put(static_cast<uint64_t>(b.state()));
      Put(static_cast<uint64_t>(b.inc() >> 64));
      Put(static_cast<uint64_t>(b.inc()));
      Put(b.has_uint32() ? 1 : 0);
      Put(b.uinteger());
    } else if (op == "u64" || op == "u32" || op == "random") {
      long k;
      in >> k;
      for (long i = 0; i < k; ++i) {
        if (op == "u64") Put(gen.NextUint64());
        if (op == "u32") Put(gen.NextUint32());
        if (op == "random") PutDouble(gen.Random());
      }
    } else if (op == "uniform") {
      std::string lo, hi;
      long k;
      in >> lo >> hi >> k;
      double low = std::strtod(lo.c_str(), nullptr);
      double high = std::strtod(hi.c_str(), nullptr);
      for (long i = 0; i < k; ++i) PutDouble(gen.Uniform(low, high));
    } else if (op == "integers" || op == "closed") {
      int64_t low, high;
      long k;
      in >> low >> high >> k;
      for (long i = 0; i < k; ++i) {
        Put(static_cast<uint64_t>(op == "integers" ? gen.Integers(low, high) : gen.IntegersClosed(low, high)));
      }
    } else if (op == "choice") {
      int64_t n;
      long k;
      in >> n >> k;
      for (long i = 0; i < k; ++i) Put(static_cast<uint64_t>(gen.ChoiceIndex(n)));
    } else if (op == "shuffle") {
      int64_t n;
      in >> n;
      std::vector<int64_t> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
      gen.Shuffle(v);
      for (auto x : v) Put(static_cast<uint64_t>(x));
    } else if (op == "permutation") {
      int64_t n;
      in >> n;
      for (auto x : gen.Permutation(n)) Put(static_cast<uint64_t>(x));
    } else if (op == "error") {
      bool threw = false;
      try {
        gen.Integers(0, 0);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      Put(threw ? 1 : 0);
      threw = false;
      try {
        gen.Uniform(5.0, 2.0);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      Put(threw ? 1 : 0);
      threw = false;
      try {
        gen.Uniform(0.0, HUGE_VAL);
      } catch (const std::overflow_error&) {
        threw = true;
      }
      Put(threw ? 1 : 0);
    } else if (!op.empty()) {
      std::cerr << "unknown command: " << op << "\n";
      return 2;
    }
    if (out.size() > (1 << 16)) Flush();
  }
  Flush();
  return 0;
}
