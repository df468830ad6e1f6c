// numpy's Generator(PCG64(SeedSequence(seed))) in C++, bit for bit: what
// np.random.default_rng(seed) and gymnasium.utils.seeding.np_random(seed)
// return, and the calls that minigrid and BabyAI make on it (integers,
// uniform, random, shuffle of a list, choice on a sequence, permutation).
// Every draw and every rejection loop follows numpy's C code (numpy keeps
// these streams stable across releases by policy), so an env written against
// this class lays out its levels exactly as the Python env seeded alike.
// tests/core/test_numpy_generator.py compares it with numpy itself.
#ifndef ENVPOOL_RANDOM_NUMPY_GENERATOR_H_
#define ENVPOOL_RANDOM_NUMPY_GENERATOR_H_

#include <cmath>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <vector>

namespace envpool::random {

// numpy.random.SeedSequence without spawn keys: a 4-word pool of entropy,
// hashed and mixed, from which generate_state draws the bit generator's seed.
// All arithmetic is on uint32 words that wrap, as numpy's uint32 arrays do.
class SeedSequence {
 public:
  static constexpr int kPoolSize = 4;

  // The entropy words, least significant first: what
  // SeedSequence._coerce_to_uint32_array makes of a Python int (0 is [0]; an
  // int >= 2^32 splits into 32-bit words, low word first).
  explicit SeedSequence(const std::vector<uint32_t>& entropy) {
    uint32_t hash_const = kInitA;
    // The first pool-size words are hashed in place; missing words hash as
    // zeros (so [5] and [5, 0] give the same pool, as in numpy).
    for (int i = 0; i < kPoolSize; ++i) {
      uint32_t word = i < static_cast<int>(entropy.size()) ? entropy[i] : 0U;
      pool_[i] = HashMix(word, &hash_const);
    }
    // Every word then mixes into every other one; the hash constant keeps
    // evolving across all these calls, which is why the order matters.
    for (int src = 0; src < kPoolSize; ++src) {
      for (int dst = 0; dst < kPoolSize; ++dst) {
        if (src != dst) {
          pool_[dst] = Mix(pool_[dst], HashMix(pool_[src], &hash_const));
        }
      }
    }
    // Entropy beyond the pool's 4 words folds into every pool word.
    for (size_t src = kPoolSize; src < entropy.size(); ++src) {
      for (int dst = 0; dst < kPoolSize; ++dst) {
        pool_[dst] = Mix(pool_[dst], HashMix(entropy[src], &hash_const));
      }
    }
  }

  // A Python int seed in [0, 2^64): one word below 2^32, two words above.
  static std::vector<uint32_t> IntToWords(uint64_t seed) {
    std::vector<uint32_t> words{static_cast<uint32_t>(seed)};
    if ((seed >> 32) != 0) {
      words.push_back(static_cast<uint32_t>(seed >> 32));
    }
    return words;
  }

  // generate_state(n_words, np.uint32): cycles through the pool with its own
  // hash constant (INIT_B / MULT_B, distinct from the mixing's).
  std::vector<uint32_t> GenerateState32(int n_words) const {
    std::vector<uint32_t> state(n_words);
    uint32_t hash_const = kInitB;
    for (int i = 0; i < n_words; ++i) {
      uint32_t value = pool_[i % kPoolSize];
      value ^= hash_const;
      hash_const *= kMultB;
      value *= hash_const;
      value ^= value >> kXShift;
      state[i] = value;
    }
    return state;
  }

  // generate_state(n_words, np.uint64): twice as many uint32 words, viewed as
  // little-endian uint64s (numpy views the uint32 array as uint64 and
  // byte-swaps on big-endian hosts so that the value is the same everywhere).
  std::vector<uint64_t> GenerateState64(int n_words) const {
    std::vector<uint32_t> words = GenerateState32(2 * n_words);
    std::vector<uint64_t> state(n_words);
    for (int i = 0; i < n_words; ++i) {
      state[i] = static_cast<uint64_t>(words[2 * i]) | (static_cast<uint64_t>(words[2 * i + 1]) << 32);
    }
    return state;
  }

  const uint32_t* pool() const { return pool_; }

 private:
  static constexpr uint32_t kInitA = 0x43b0d7e5U;
  static constexpr uint32_t kMultA = 0x931e8875U;
  static constexpr uint32_t kInitB = 0x8b51f9ddU;
  static constexpr uint32_t kMultB = 0x58f38dedU;
  static constexpr uint32_t kMixMultL = 0xca01f9ddU;
  static constexpr uint32_t kMixMultR = 0x4973f715U;
  static constexpr int kXShift = 16;  // half of a 32-bit word

  static uint32_t HashMix(uint32_t value, uint32_t* hash_const) {
    value ^= *hash_const;
    *hash_const *= kMultA;
    value *= *hash_const;
    value ^= value >> kXShift;
    return value;
  }
  static uint32_t Mix(uint32_t x, uint32_t y) {
    uint32_t result = kMixMultL * x - kMixMultR * y;
    result ^= result >> kXShift;
    return result;
  }

  uint32_t pool_[kPoolSize];
};

// numpy's PCG64 bit generator: PCG XSL-RR 128/64 (a 128-bit LCG, output =
// rotate-right of high ^ low by the top 6 bits of the state), plus numpy's
// one-word buffer that hands out a 64-bit output as two 32-bit halves.
class Pcg64 {
 public:
  using U128 = unsigned __int128;

  Pcg64() = default;
  // PCG64(seed_seq): generate_state(4, uint64) gives {state high, state low,
  // increment high, increment low}; pcg64_set_seed then runs pcg's
  // srandom_r: state = 0, inc = 2 * initseq + 1 (odd, as an LCG needs), one
  // step, add the initial state, one more step. The 32-bit buffer starts
  // empty (PCG64._reset_state_variables).
  explicit Pcg64(const SeedSequence& seq) {
    std::vector<uint64_t> val = seq.GenerateState64(4);
    U128 init_state = (static_cast<U128>(val[0]) << 64) | val[1];
    U128 init_seq = (static_cast<U128>(val[2]) << 64) | val[3];
    state_ = 0;
    inc_ = (init_seq << 1) | 1U;
    Step();
    state_ += init_state;
    Step();
  }

  // pcg64_next64: step first, then output from the new state.
  uint64_t Next64() {
    Step();
    auto high = static_cast<uint64_t>(state_ >> 64);
    auto low = static_cast<uint64_t>(state_);
    unsigned rot = static_cast<unsigned>(state_ >> 122);
    uint64_t x = high ^ low;
    return (x >> rot) | (x << ((64U - rot) & 63U));
  }

  // pcg64_next32: a fresh 64-bit output gives its low half now and keeps the
  // high half for the next 32-bit request. 64-bit draws (Next64, doubles)
  // neither use nor clear the kept half, so a 32-bit draw after any number of
  // 64-bit draws still returns the half kept before them.
  uint32_t Next32() {
    if (has_uint32_) {
      has_uint32_ = false;
      return uinteger_;
    }
    uint64_t next = Next64();
    has_uint32_ = true;
    uinteger_ = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }

  bool operator==(const Pcg64& other) const {
    return state_ == other.state_ && inc_ == other.inc_ && has_uint32_ == other.has_uint32_ &&
           uinteger_ == other.uinteger_;
  }

  U128 state() const { return state_; }
  U128 inc() const { return inc_; }
  bool has_uint32() const { return has_uint32_; }
  uint32_t uinteger() const { return uinteger_; }

 private:
  // PCG_DEFAULT_MULTIPLIER_128.
  static constexpr U128 kMultiplier = (static_cast<U128>(0x2360ed051fc65da4ULL) << 64) | 0x4385df649fccf645ULL;

  void Step() { state_ = state_ * kMultiplier + inc_; }

  U128 state_ = 0;
  U128 inc_ = 1;
  bool has_uint32_ = false;
  uint32_t uinteger_ = 0;
};

// numpy.random.Generator on PCG64.
class NumpyGenerator {
 public:
  // np.random.default_rng(seed) for any Python int seed in [0, 2^64).
  explicit NumpyGenerator(uint64_t seed) : bits_(SeedSequence(SeedSequence::IntToWords(seed))) {}
  // SeedSequence(entropy) for the given 32-bit words (least significant
  // first for a big int; a list of ints < 2^32 gives the same words).
  explicit NumpyGenerator(const std::vector<uint32_t>& entropy) : bits_(SeedSequence(entropy)) {}

  // The bit generator's raw outputs (random_raw, and next_uint32 with its
  // buffered half).
  uint64_t NextUint64() { return bits_.Next64(); }
  uint32_t NextUint32() { return bits_.Next32(); }

  // rng.random(): the top 53 bits of a 64-bit output, times 2^-53.
  double Random() { return static_cast<double>(bits_.Next64() >> 11) * (1.0 / 9007199254740992.0); }

  // rng.uniform(low, high): low + (high - low) * random(). numpy refuses a
  // span that is not finite (OverflowError, NaN included) and then a
  // negative one (ValueError: "high - low < 0"), in that order.
  double Uniform(double low, double high) {
    double range = high - low;
    if (!std::isfinite(range)) {
      throw std::overflow_error("high - low range exceeds valid bounds");
    }
    if (range < 0) {
      throw std::invalid_argument("high - low < 0");
    }
    return low + range * Random();
  }

  // rng.integers(low, high) (default dtype int64, high exclusive, scalar).
  // numpy raises ValueError("low >= high") for an empty range.
  int64_t Integers(int64_t low, int64_t high) {
    if (low >= high) {
      throw std::invalid_argument("low >= high");
    }
    // The closed range [low, high - 1] as an unsigned offset and span: the
    // span fits uint64 even for low = INT64_MIN and high = INT64_MAX.
    uint64_t range = static_cast<uint64_t>(high) - 1U - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + BoundedUint64(range));
  }
  // rng.integers(high) == rng.integers(0, high).
  int64_t Integers(int64_t high) { return Integers(0, high); }
  // rng.integers(low, high, endpoint=True): high inclusive.
  int64_t IntegersClosed(int64_t low, int64_t high) {
    if (low > high) {
      throw std::invalid_argument("low > high");
    }
    uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    return static_cast<int64_t>(static_cast<uint64_t>(low) + BoundedUint64(range));
  }

  // random_bounded_uint64 for one value (Lemire's method, numpy's
  // use_masked=False, which Generator.integers always uses): a uniform
  // integer in [0, range].
  uint64_t BoundedUint64(uint64_t range) {
    if (range == 0) {
      // numpy draws nothing for a single-valued range.
      return 0;
    }
    if (range <= 0xffffffffULL) {
      // Ranges that fit 32 bits draw 32-bit words (so they use, and leave,
      // PCG64's buffered half), except the full 32-bit range, which Lemire's
      // 32-bit form cannot express (range + 1 overflows) and which takes one
      // next_uint32 as it is.
      if (range == 0xffffffffULL) {
        return bits_.Next32();
      }
      return Lemire32(static_cast<uint32_t>(range));
    }
    if (range == 0xffffffffffffffffULL) {
      return bits_.Next64();
    }
    return Lemire64(range);
  }

  // rng.shuffle(x) of a Python list (or a 1-D array) of the range's length:
  // Fisher-Yates from the back, j = random_interval(i) for i = n-1 .. 1.
  template <class It>
  void Shuffle(It first, It last) {
    auto n = static_cast<uint64_t>(std::distance(first, last));
    for (uint64_t i = n > 0 ? n - 1 : 0; i >= 1; --i) {
      uint64_t j = RandomInterval(i);
      std::iter_swap(first + static_cast<std::ptrdiff_t>(i), first + static_cast<std::ptrdiff_t>(j));
    }
  }
  template <class T>
  void Shuffle(std::vector<T>& v) {
    Shuffle(v.begin(), v.end());
  }

  // The index rng.choice(a) picks for a sequence of length n (size=None,
  // replace=True, p=None): integers(0, n). numpy raises ValueError for an
  // empty sequence.
  int64_t ChoiceIndex(int64_t n) {
    if (n <= 0) {
      throw std::invalid_argument("a cannot be empty unless no samples are taken");
    }
    return Integers(0, n);
  }

  // rng.permutation(n): arange(n) shuffled in place.
  std::vector<int64_t> Permutation(int64_t n) {
    if (n < 0) {
      throw std::invalid_argument("negative dimensions are not allowed");
    }
    std::vector<int64_t> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      out[static_cast<size_t>(i)] = i;
    }
    Shuffle(out);
    return out;
  }

  // random_interval(max) (a shuffle of more than 2^32 items is the only way
  // numpy reaches its 64-bit branch, so only the 32-bit one is tested
  // against numpy): a uniform integer in [0, max] by masking to the
  // smallest all-ones mask >= max and rejecting values above max (shuffle's
  // method, not Lemire's). It draws 32-bit words (buffered halves) while
  // max fits 32 bits, 64-bit words otherwise.
  uint64_t RandomInterval(uint64_t max) {
    if (max == 0) {
      return 0;
    }
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xffffffffULL) {
      while ((value = (bits_.Next32() & mask)) > max) {
      }
    } else {
      while ((value = (bits_.Next64() & mask)) > max) {
      }
    }
    return value;
  }

  const Pcg64& bit_generator() const { return bits_; }
  bool operator==(const NumpyGenerator& other) const { return bits_ == other.bits_; }

 private:
  // buffered_bounded_lemire_uint32: multiply a 32-bit word by range + 1 and
  // keep the high word; reject when the low word falls below
  // 2^32 mod (range + 1), which is only possible (and only then computed)
  // when the low word is below range + 1.
  uint32_t Lemire32(uint32_t range) {
    const uint32_t range_excl = range + 1U;
    uint64_t m = static_cast<uint64_t>(bits_.Next32()) * range_excl;
    auto leftover = static_cast<uint32_t>(m);
    if (leftover < range_excl) {
      // (UINT32_MAX - range) % range_excl == 2^32 mod range_excl.
      const uint32_t threshold = (0xffffffffU - range) % range_excl;
      while (leftover < threshold) {
        m = static_cast<uint64_t>(bits_.Next32()) * range_excl;
        leftover = static_cast<uint32_t>(m);
      }
    }
    return static_cast<uint32_t>(m >> 32);
  }

  // bounded_lemire_uint64: the same on 64-bit words with a 128-bit product.
  uint64_t Lemire64(uint64_t range) {
    const uint64_t range_excl = range + 1U;
    Pcg64::U128 m = static_cast<Pcg64::U128>(bits_.Next64()) * range_excl;
    auto leftover = static_cast<uint64_t>(m);
    if (leftover < range_excl) {
      const uint64_t threshold = (0xffffffffffffffffULL - range) % range_excl;
      while (leftover < threshold) {
        m = static_cast<Pcg64::U128>(bits_.Next64()) * range_excl;
        leftover = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  Pcg64 bits_;
};

}  // namespace envpool::random

#endif  // ENVPOOL_RANDOM_NUMPY_GENERATOR_H_
