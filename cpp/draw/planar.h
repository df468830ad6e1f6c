// Interleaved RGB bytes (height x width x 3, as renderers draw them) to
// planes (3 x height x width, a channel-first pixel observation): on every
// Procgen step and MuJoCo pixel observation, so it is on the hot path. The
// plain loop is a byte gather the compiler cannot vectorise with x86-64's
// baseline SSE2 (a stride of 3 needs a byte shuffle): 4-6 us for a 64x64
// frame, a fifth of a BigfishEasy step. SSSE3's pshufb does 16 pixels per
// three loads; every x86-64 CPU since 2006 has it, and the check is made
// once. Elsewhere (arm64's NEON has a 3-way deinterleaving load) the
// compiler vectorises the plain loop itself.
#ifndef ENVPOOL_DRAW_PLANAR_H_
#define ENVPOOL_DRAW_PLANAR_H_

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ENVPOOL_DRAW_PLANAR_SSSE3 1
#include <immintrin.h>
#endif

namespace envpool::draw {

// dst[c * plane + i] = src[3 * i + c] for the `pixels` pixels of src.
inline void PlanarFromRgbPlain(const uint8_t* __restrict src, int pixels, uint8_t* __restrict dst, std::size_t plane) {
  uint8_t* __restrict r = dst;
  uint8_t* __restrict g = dst + plane;
  uint8_t* __restrict b = dst + 2 * plane;
  for (int i = 0; i < pixels; ++i) {
    r[i] = src[3 * i];
    g[i] = src[3 * i + 1];
    b[i] = src[3 * i + 2];
  }
}

#ifdef ENVPOOL_DRAW_PLANAR_SSSE3
namespace planar_detail {
// The pshufb mask that takes channel `c`'s bytes of 16 pixels from the 16
// bytes of source vector `v` (0x80: a zero byte, filled from another vector).
struct Masks {
  alignas(16) uint8_t m[3][3][16];
  constexpr Masks() : m{} {
    for (int c = 0; c < 3; ++c)
      for (int v = 0; v < 3; ++v)
        for (int i = 0; i < 16; ++i) {
          const int at = 3 * i + c - 16 * v;
          m[c][v][i] = at >= 0 && at < 16 ? static_cast<uint8_t>(at) : 0x80;
        }
  }
};
inline constexpr Masks kMasks{};

__attribute__((target("ssse3"))) inline void Ssse3(const uint8_t* src, int pixels, uint8_t* dst, std::size_t plane) {
  __m128i mask[3][3];
  for (int c = 0; c < 3; ++c)
    for (int v = 0; v < 3; ++v) mask[c][v] = _mm_load_si128(reinterpret_cast<const __m128i*>(kMasks.m[c][v]));
  int i = 0;
  for (; i + 16 <= pixels; i += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * i + 16));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 3 * i + 32));
    for (int c = 0; c < 3; ++c) {
      const __m128i out = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(a, mask[c][0]), _mm_shuffle_epi8(b, mask[c][1])),
                                       _mm_shuffle_epi8(d, mask[c][2]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + c * plane + i), out);
    }
  }
  PlanarFromRgbPlain(src + 3 * i, pixels - i, dst + i, plane);
}
}  // namespace planar_detail
#endif

inline void PlanarFromRgb(const uint8_t* src, int pixels, uint8_t* dst, std::size_t plane) {
#ifdef ENVPOOL_DRAW_PLANAR_SSSE3
  static const bool ssse3 = __builtin_cpu_supports("ssse3");
  if (ssse3) {
    planar_detail::Ssse3(src, pixels, dst, plane);
    return;
  }
#endif
  PlanarFromRgbPlain(src, pixels, dst, plane);
}

}  // namespace envpool::draw

#endif  // ENVPOOL_DRAW_PLANAR_H_
