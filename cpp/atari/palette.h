// Palette lookups for the Atari preprocessing: ALE frames hold palette
// indices; these turn them into one colour channel (grayscale, or R, G or B
// through ALE's palette), optionally max-pooling two frames on the way.
#ifndef ENVPOOL_ATARI_PALETTE_H_
#define ENVPOOL_ATARI_PALETTE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace envpool::atari {

// A palette-index -> colour table (one channel), and the conversion of a
// frame of palette indices, optionally max-pooled with a second frame:
// dst[i] = max(lut[a[i]], lut[b[i]]). The TIA only emits even indices (its
// colour registers drop bit 0), so the table has 128 live entries: with
// AVX-512 VBMI (checked at run time) they are two-table byte permutes, with
// AVX2 8 shuffle tables of 16; a block holding an odd index falls back to
// the plain 256-entry table, so every path gives the same bytes.
struct PaletteLut {
  uint8_t full[256] = {};
  uint8_t even[8][16] = {};

  void Set(const uint8_t* lut) {
    std::memcpy(full, lut, 256);
    for (int k = 0; k < 8; ++k) {
      for (int j = 0; j < 16; ++j) even[k][j] = lut[2 * (16 * k + j)];
    }
  }
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ENVPOOL_ATARI_HAVE_AVX2_PATH 1
// 32 even palette indices -> colours (index bits 7..5 pick the table, 4..1
// the entry).
__attribute__((target("avx2"))) inline __m256i PaletteLookupAvx2(const __m256i* table, __m256i x) {
  const __m256i lo = _mm256_and_si256(_mm256_srli_epi16(x, 1), _mm256_set1_epi8(15));
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 5), _mm256_set1_epi8(7));
  __m256i r = _mm256_setzero_si256();
  for (int k = 0; k < 8; ++k) {
    const __m256i sel = _mm256_cmpeq_epi8(hi, _mm256_set1_epi8(static_cast<char>(k)));
    r = _mm256_or_si256(r, _mm256_and_si256(sel, _mm256_shuffle_epi8(table[k], lo)));
  }
  return r;
}

__attribute__((target("avx2"))) inline std::size_t PaletteMaxAvx2(const PaletteLut& lut, const uint8_t* a,
                                                                  const uint8_t* b, uint8_t* dst, std::size_t n) {
  __m256i table[8];
  for (int k = 0; k < 8; ++k) {
    table[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lut.even[k])));
  }
  const __m256i one = _mm256_set1_epi8(1);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    if (!_mm256_testz_si256(_mm256_or_si256(x, y), one)) {
      for (std::size_t j = i; j < i + 32; ++j) {
        dst[j] = std::max(lut.full[a[j]], lut.full[b[j]]);
      }
      continue;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_max_epu8(PaletteLookupAvx2(table, x), PaletteLookupAvx2(table, y)));
  }
  return i;
}

// AVX-512 VBMI (256-bit, with VL): two-table byte permutes look up 32 even
// indices in the 128-entry table (index bits 7..1; the permutes ignore the
// bit shifted in at the top of each byte).
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) inline __m256i PaletteLookupVbmi(__m256i t0, __m256i t1,
                                                                                                 __m256i t2, __m256i t3,
                                                                                                 __m256i x) {
  const __m256i idx = _mm256_srli_epi16(x, 1);               // entry in bits 6..0
  const __m256i lo = _mm256_permutex2var_epi8(t0, idx, t1);  // entries 0..63
  const __m256i hi = _mm256_permutex2var_epi8(t2, idx, t3);  // entries 64..127
  const __mmask32 upper = _mm256_test_epi8_mask(idx, _mm256_set1_epi8(64));
  return _mm256_mask_blend_epi8(upper, lo, hi);
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) inline std::size_t PaletteMaxVbmi(
    const PaletteLut& lut, const uint8_t* a, const uint8_t* b, uint8_t* dst, std::size_t n) {
  const __m256i t0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&lut.even[0][0]));
  const __m256i t1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&lut.even[2][0]));
  const __m256i t2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&lut.even[4][0]));
  const __m256i t3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(&lut.even[6][0]));
  const __m256i one = _mm256_set1_epi8(1);
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i));
    if (_mm256_test_epi8_mask(_mm256_or_si256(x, y), one) != 0) {
      for (std::size_t j = i; j < i + 32; ++j) {
        dst[j] = std::max(lut.full[a[j]], lut.full[b[j]]);
      }
      continue;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_max_epu8(PaletteLookupVbmi(t0, t1, t2, t3, x), PaletteLookupVbmi(t0, t1, t2, t3, y)));
  }
  return i;
}
#endif

enum class PalettePath { kScalar, kAvx2, kVbmi };

// The fastest path this CPU supports.
inline PalettePath BestPalettePath() {
#ifdef ENVPOOL_ATARI_HAVE_AVX2_PATH
  static const PalettePath best = [] {
    if (__builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512bw")) {
      return PalettePath::kVbmi;
    }
    return __builtin_cpu_supports("avx2") ? PalettePath::kAvx2 : PalettePath::kScalar;
  }();
  return best;
#else
  return PalettePath::kScalar;
#endif
}

inline void PaletteMax(const PaletteLut& lut, const uint8_t* a, const uint8_t* b, uint8_t* dst, std::size_t n,
                       [[maybe_unused]] PalettePath path = BestPalettePath()) {
  std::size_t i = 0;
#ifdef ENVPOOL_ATARI_HAVE_AVX2_PATH
  if (path == PalettePath::kVbmi) i = PaletteMaxVbmi(lut, a, b, dst, n);
  if (path == PalettePath::kAvx2) i = PaletteMaxAvx2(lut, a, b, dst, n);
#endif
  for (; i < n; ++i) dst[i] = std::max(lut.full[a[i]], lut.full[b[i]]);
}

}  // namespace envpool::atari

#endif  // ENVPOOL_ATARI_PALETTE_H_
