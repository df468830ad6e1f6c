// OpenCV's resize (resize.h), in its own translation unit: it must compute
// exactly like OpenCV, so cpp/draw/CMakeLists.txt compiles this file alone
// with IEEE float arithmetic (no FMA contraction, no reassociation).
#include "cpp/draw/resize.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define ENVPOOL_DRAW_HAVE_AVX512_RESIZE 1
#endif

namespace envpool::draw {

ResizePath BestResizePath() {
#ifdef ENVPOOL_DRAW_HAVE_AVX512_RESIZE
  static const ResizePath best =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
          ? ResizePath::kAvx512
          : ResizePath::kPortable;
  return best;
#else
  return ResizePath::kPortable;
#endif
}

class Resizer::Impl {
 public:
  Impl(int src_h, int src_w, int dst_h, int dst_w, Interp interp, ResizePath path)
      : src_h_(src_h), src_w_(src_w), dst_h_(dst_h), dst_w_(dst_w) {
    if (src_h <= 0 || src_w <= 0 || dst_h <= 0 || dst_w <= 0) {
      throw std::invalid_argument("resize: sizes must be positive, got " + std::to_string(src_h) + "x" +
                                  std::to_string(src_w) + " -> " + std::to_string(dst_h) + "x" + std::to_string(dst_w));
    }
    const double inv_sx = static_cast<double>(dst_w) / src_w;
    const double inv_sy = static_cast<double>(dst_h) / src_h;
    const double sx = 1.0 / inv_sx;
    const double sy = 1.0 / inv_sy;
    const int isx = static_cast<int>(std::lrint(sx));
    const int isy = static_cast<int>(std::lrint(sy));
    const bool int_scale = std::abs(sx - isx) < DBL_EPSILON && std::abs(sy - isy) < DBL_EPSILON;
    if (src_h == dst_h && src_w == dst_w) {
      mode_ = Mode::kCopy;
      return;
    }
    // OpenCV: a 2x linear downscale is computed as an area downscale.
    if (interp == Interp::kLinear && int_scale && isx == 2 && isy == 2) {
      interp = Interp::kArea;
    }
    if (interp == Interp::kArea && sx >= 1 && sy >= 1) {
      if (int_scale) {
        mode_ = (isx == 2 && isy == 2) ? Mode::kArea2x2 : Mode::kAreaInt;
        int_sx_ = isx;
        int_sy_ = isy;
        inv_area_ = 1.f / static_cast<float>(isx * isy);
      } else {
        mode_ = Mode::kAreaGeneric;
        BuildAreaTable(src_w, dst_w, sx, &xtab_);
        BuildAreaTable(src_h, dst_h, sy, &ytab_);
        // The taps of one destination column are consecutive source pixels
        // (in table order): store a start and ntaps_ weights per column,
        // padded with zero weights (adding 0*x leaves a sum unchanged).
        std::vector<int> count(dst_w, 0);
        for (const Tap& t : xtab_) ++count[t.di];
        ntaps_ = *std::max_element(count.begin(), count.end());
        xstart_.assign(dst_w, -1);
        xw_.assign(static_cast<std::size_t>(dst_w) * ntaps_, 0.f);
        std::fill(count.begin(), count.end(), 0);
        for (const Tap& t : xtab_) {
          if (xstart_[t.di] < 0) xstart_[t.di] = t.si;
          xw_[static_cast<std::size_t>(t.di) * ntaps_ + count[t.di]++] = t.w;
        }
        // Source rows as floats, 4 rows interleaved, zero-padded at the end.
        f4_.assign(static_cast<std::size_t>(src_w + ntaps_) * 4, 0.f);
        t4_.assign(static_cast<std::size_t>(dst_w) * 4, 0.f);
        hbuf_.assign(static_cast<std::size_t>(src_h) * dst_w, 0.f);
        fsum_.assign(dst_w, 0.f);
        hrow_.assign(src_h, 0);
        distinct_.reserve(src_h);
        BuildRowRuns();
        if (path == ResizePath::kAvx512) BuildAvx512Tables();
      }
      return;
    }
    // Two-tap interpolation (linear, or OpenCV's INTER_AREA upscale which
    // uses area-derived weights in the linear machinery).
    mode_ = Mode::kTwoTap;
    const bool area = interp == Interp::kArea;
    xofs_.resize(dst_w);
    xalpha_.resize(2 * dst_w);
    xmax_ = dst_w;
    for (int dx = 0; dx < dst_w; ++dx) {
      int s;
      float f;
      TapCoord(dx, sx, inv_sx, area, &s, &f);
      if (s < 0) f = 0, s = 0;
      if (s + 1 >= src_w) {
        xmax_ = std::min(xmax_, dx);
        if (s >= src_w - 1) f = 0, s = src_w - 1;
      }
      xofs_[dx] = s;
      xalpha_[2 * dx] = ToFixed(1.f - f);
      xalpha_[2 * dx + 1] = ToFixed(f);
    }
    yofs_.resize(dst_h);
    ybeta_.resize(2 * dst_h);
    for (int dy = 0; dy < dst_h; ++dy) {
      int s;
      float f;
      TapCoord(dy, sy, inv_sy, area, &s, &f);
      yofs_[dy] = s;
      ybeta_[2 * dy] = ToFixed(1.f - f);
      ybeta_[2 * dy + 1] = ToFixed(f);
    }
    rows_[0].assign(dst_w, 0);
    rows_[1].assign(dst_w, 0);
  }

  int src_h() const { return src_h_; }
  // The path Run() takes for this size (kPortable unless an AVX-512 area
  // downscale was asked for and fits).
  ResizePath path() const { return avx512_ ? ResizePath::kAvx512 : ResizePath::kPortable; }
  int src_w() const { return src_w_; }
  int dst_h() const { return dst_h_; }
  int dst_w() const { return dst_w_; }

  // src: src_h x src_w plane (row-major, contiguous); dst: dst_h x dst_w.
  void Run(const uint8_t* src, uint8_t* dst) {
    switch (mode_) {
      case Mode::kCopy:
        std::memcpy(dst, src, static_cast<std::size_t>(src_h_) * src_w_);
        return;
      case Mode::kArea2x2:
        RunArea2x2(src, dst);
        return;
      case Mode::kAreaInt:
        RunAreaInt(src, dst);
        return;
      case Mode::kAreaGeneric:
        RunAreaGeneric(src, dst);
        return;
      case Mode::kTwoTap:
        RunTwoTap(src, dst);
        return;
    }
  }

 private:
  enum class Mode { kCopy, kArea2x2, kAreaInt, kAreaGeneric, kTwoTap };
  struct Tap {
    int di;   // destination index
    int si;   // source index
    float w;  // weight
  };
  static constexpr int kCoefBits = 11;
  static constexpr int kCoefScale = 1 << kCoefBits;

  static uint8_t RoundToU8(float v) {
    // cvRound: round half to even (default FP rounding mode), then saturate.
#if defined(__SSE2__)
    int r = _mm_cvtss_si32(_mm_set_ss(v));
#else
    long r = std::lrint(v);
#endif
    return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
  }

  // dst[i] = RoundToU8(v[i]) for i < n.
  static void RoundRow(const float* v, uint8_t* dst, int n) {
    int i = 0;
#if defined(__SSE2__)
    for (; i + 8 <= n; i += 8) {
      __m128i a = _mm_cvtps_epi32(_mm_loadu_ps(v + i));
      __m128i b = _mm_cvtps_epi32(_mm_loadu_ps(v + i + 4));
      __m128i p = _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_setzero_si128());
      _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + i), p);
    }
#endif
    for (; i < n; ++i) dst[i] = RoundToU8(v[i]);
  }

  static int16_t ToFixed(float v) {
    long r = std::lrint(v * kCoefScale);
    if (r < INT16_MIN) r = INT16_MIN;
    if (r > INT16_MAX) r = INT16_MAX;
    return static_cast<int16_t>(r);
  }

  static void TapCoord(int d, double scale, double inv_scale, bool area, int* s, float* f) {
    if (!area) {
      float fv = static_cast<float>((d + 0.5) * scale - 0.5);
      int sv = static_cast<int>(std::floor(fv));
      *f = fv - static_cast<float>(sv);
      *s = sv;
    } else {
      int sv = static_cast<int>(std::floor(d * scale));
      float fv = static_cast<float>((d + 1) - (sv + 1) * inv_scale);
      fv = fv <= 0 ? 0.f : fv - static_cast<float>(std::floor(fv));
      *f = fv;
      *s = sv;
    }
  }

  // Coverage of each destination cell over source cells (1-D).
  static void BuildAreaTable(int ssize, int dsize, double scale, std::vector<Tap>* tab) {
    tab->clear();
    for (int d = 0; d < dsize; ++d) {
      const double f1 = d * scale;
      const double f2 = f1 + scale;
      const double cell = std::min(scale, ssize - f1);
      int s1 = static_cast<int>(std::ceil(f1));
      int s2 = static_cast<int>(std::floor(f2));
      s2 = std::min(s2, ssize - 1);
      s1 = std::min(s1, s2);
      if (s1 - f1 > 1e-3) {
        tab->push_back({d, s1 - 1, static_cast<float>((s1 - f1) / cell)});
      }
      for (int s = s1; s < s2; ++s) {
        tab->push_back({d, s, static_cast<float>(1.0 / cell)});
      }
      if (f2 - s2 > 1e-3) {
        tab->push_back({d, s2, static_cast<float>(std::min(std::min(f2 - s2, 1.0), cell) / cell)});
      }
    }
  }

  void RunArea2x2(const uint8_t* src, uint8_t* dst) const {
    for (int dy = 0; dy < dst_h_; ++dy) {
      const uint8_t* s0 = src + static_cast<std::size_t>(2 * dy) * src_w_;
      const uint8_t* s1 = s0 + src_w_;
      uint8_t* d = dst + static_cast<std::size_t>(dy) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        const int i = 2 * dx;
        d[dx] = static_cast<uint8_t>((s0[i] + s0[i + 1] + s1[i] + s1[i + 1] + 2) >> 2);
      }
    }
  }

  void RunAreaInt(const uint8_t* src, uint8_t* dst) const {
    for (int dy = 0; dy < dst_h_; ++dy) {
      uint8_t* d = dst + static_cast<std::size_t>(dy) * dst_w_;
      for (int dx = 0; dx < dst_w_; ++dx) {
        int sum = 0;
        for (int ky = 0; ky < int_sy_; ++ky) {
          const uint8_t* s = src + static_cast<std::size_t>(dy * int_sy_ + ky) * src_w_ + dx * int_sx_;
          for (int kx = 0; kx < int_sx_; ++kx) sum += s[kx];
        }
        d[dx] = RoundToU8(static_cast<float>(sum) * inv_area_);
      }
    }
  }

  // Each destination row's vertical taps are a run of ytab_ (ordered by
  // row): ystart_/ycount_. yprev_[dy]: the last earlier destination row
  // with the same tap count and bitwise the same weights, or -1.
  void BuildRowRuns() {
    ystart_.assign(dst_h_, 0);
    ycount_.assign(dst_h_, 0);
    for (std::size_t i = ytab_.size(); i-- > 0;) {
      ystart_[ytab_[i].di] = static_cast<int>(i);
      ++ycount_[ytab_[i].di];
    }
    yprev_.assign(dst_h_, -1);
    for (int dy = 0; dy < dst_h_; ++dy) {
      for (int e = dy - 1; e >= 0 && e >= dy - 8; --e) {
        if (ycount_[e] != ycount_[dy]) continue;
        bool same = true;
        for (int j = 0; j < ycount_[dy] && same; ++j) {
          same = std::memcmp(&ytab_[ystart_[e] + j].w, &ytab_[ystart_[dy] + j].w, sizeof(float)) == 0;
        }
        if (same) {
          yprev_[dy] = e;
          break;
        }
      }
    }
  }

  // True when destination row dy is computed from the same weights and the
  // same horizontal-sum rows as the earlier row yprev_[dy]: it is a copy.
  bool SameAsEarlierRow(int dy) const {
    const int e = yprev_[dy];
    if (e < 0) return false;
    const Tap* a = ytab_.data() + ystart_[dy];
    const Tap* b = ytab_.data() + ystart_[e];
    for (int j = 0; j < ycount_[dy]; ++j) {
      if (hrow_[a[j].si] != hrow_[b[j].si]) return false;
    }
    return true;
  }

  // Atari frames are made of horizontal bands: most rows repeat the row
  // above (Pong ~94%, Breakout ~90%, Space Invaders ~60%, Enduro ~40%). A
  // row's horizontal sums depend on its pixels only, so a repeated row
  // reuses the sums of the first row of its run (same floats, bit for bit).
  void FindDistinctRows(const uint8_t* src) {
    const std::size_t sw = static_cast<std::size_t>(src_w_);
    distinct_.clear();
    for (int y = 0; y < src_h_; ++y) {
      const uint8_t* row = src + y * sw;
      if (y > 0 && std::memcmp(row, row - sw, sw) == 0) {
        hrow_[y] = hrow_[y - 1];
      } else {
        hrow_[y] = y;
        distinct_.push_back(y);
      }
    }
  }

  // Same operations, in the same order, as OpenCV's resizeArea_<uchar,
  // float>: per source row a horizontal weighted sum (taps added in table
  // order, from 0), then per destination row sum = b0*h0 (+ b1*h1 ...),
  // rounded half to even. Every distinct source row is resampled once up
  // front (OpenCV recomputes rows shared by two destination rows, and
  // repeated rows: same values).
  void RunAreaGeneric(const uint8_t* src, uint8_t* dst) {
    FindDistinctRows(src);
#ifdef ENVPOOL_DRAW_HAVE_AVX512_RESIZE
    if (avx512_) {
      RunAreaGenericAvx512(src, dst);
      return;
    }
#endif
    HorizontalArea(src);
    float* sum = fsum_.data();
    const int w = dst_w_;
    for (int dy = 0; dy < dst_h_; ++dy) {
      uint8_t* d = dst + static_cast<std::size_t>(dy) * w;
      if (SameAsEarlierRow(dy)) {
        std::memcpy(d, dst + static_cast<std::size_t>(yprev_[dy]) * w, w);
        continue;
      }
      const Tap* t = ytab_.data() + ystart_[dy];
      for (int j = 0; j < ycount_[dy]; ++j) {
        const float* buf = hbuf_.data() + static_cast<std::size_t>(hrow_[t[j].si]) * w;
        const float beta = t[j].w;
        if (j == 0) {
          for (int x = 0; x < w; ++x) sum[x] = beta * buf[x];
        } else {
          for (int x = 0; x < w; ++x) sum[x] += beta * buf[x];
        }
      }
      RoundRow(sum, d, w);
    }
  }

#if defined(__SSE2__)
  // t4[4*dx + r] = sum_k f4[4*(xs[dx]+k) + r] * xw[dx*K + k], added in k
  // order; K is the compile-time tap count (0: runtime k_n).
  template <int K>
  static void Taps4Rows(const float* f4, const int* xs, const float* xw, float* t4, int w, int k_n = K) {
    const int kk = K > 0 ? K : k_n;
    for (int dx = 0; dx < w; ++dx) {
      const float* p = f4 + static_cast<std::size_t>(xs[dx]) * 4;
      const float* wk = xw + static_cast<std::size_t>(dx) * kk;
      __m128 acc = _mm_mul_ps(_mm_loadu_ps(p), _mm_set1_ps(wk[0]));
      for (int k = 1; k < kk; ++k) {
        acc = _mm_add_ps(acc, _mm_mul_ps(_mm_loadu_ps(p + 4 * k), _mm_set1_ps(wk[k])));
      }
      _mm_storeu_ps(t4 + 4 * dx, acc);
    }
  }
#endif

  // hbuf_ row y = horizontal area resample of source row y, for each
  // distinct row y.
  void HorizontalArea(const uint8_t* src) {
    const int w = dst_w_, sw = src_w_, k_n = ntaps_;
    const float* xw = xw_.data();
    const int* xs = xstart_.data();
    const int* rows = distinct_.data();
    const int n_rows = static_cast<int>(distinct_.size());
    int i = 0;
#if defined(__SSE2__)
    // Four distinct source rows at a time, one SSE lane per row: lane r
    // computes exactly the scalar sum for row rows[i + r].
    float* f4 = f4_.data();
    float* t4 = t4_.data();
    const __m128i zero = _mm_setzero_si128();
    for (; i + 4 <= n_rows; i += 4) {
      const uint8_t* r0 = src + static_cast<std::size_t>(rows[i]) * sw;
      const uint8_t* r1 = src + static_cast<std::size_t>(rows[i + 1]) * sw;
      const uint8_t* r2 = src + static_cast<std::size_t>(rows[i + 2]) * sw;
      const uint8_t* r3 = src + static_cast<std::size_t>(rows[i + 3]) * sw;
      int x = 0;
      for (; x + 16 <= sw; x += 16) {
        __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + x));
        __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + x));
        __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2 + x));
        __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r3 + x));
        __m128i ab_lo = _mm_unpacklo_epi8(a, b), ab_hi = _mm_unpackhi_epi8(a, b);
        __m128i cd_lo = _mm_unpacklo_epi8(c, d), cd_hi = _mm_unpackhi_epi8(c, d);
        __m128i q[4] = {_mm_unpacklo_epi16(ab_lo, cd_lo), _mm_unpackhi_epi16(ab_lo, cd_lo),
                        _mm_unpacklo_epi16(ab_hi, cd_hi), _mm_unpackhi_epi16(ab_hi, cd_hi)};
        float* o = f4 + static_cast<std::size_t>(x) * 4;
        for (int j = 0; j < 4; ++j) {  // q[j]: pixels x+4j .. x+4j+3, rows 0..3
          __m128i lo = _mm_unpacklo_epi8(q[j], zero);
          __m128i hi = _mm_unpackhi_epi8(q[j], zero);
          _mm_storeu_ps(o + 16 * j + 0, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
          _mm_storeu_ps(o + 16 * j + 4, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
          _mm_storeu_ps(o + 16 * j + 8, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
          _mm_storeu_ps(o + 16 * j + 12, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
        }
      }
      for (; x < sw; ++x) {
        f4[4 * x + 0] = static_cast<float>(r0[x]);
        f4[4 * x + 1] = static_cast<float>(r1[x]);
        f4[4 * x + 2] = static_cast<float>(r2[x]);
        f4[4 * x + 3] = static_cast<float>(r3[x]);
      }
      switch (k_n) {  // unrolled for the usual tap counts
        case 2:
          Taps4Rows<2>(f4, xs, xw, t4, w);
          break;
        case 3:
          Taps4Rows<3>(f4, xs, xw, t4, w);
          break;
        case 4:
          Taps4Rows<4>(f4, xs, xw, t4, w);
          break;
        default:
          Taps4Rows<0>(f4, xs, xw, t4, w, k_n);
      }
      for (int r = 0; r < 4; ++r) {
        float* h = hbuf_.data() + static_cast<std::size_t>(rows[i + r]) * w;
        for (int dx = 0; dx < w; ++dx) h[dx] = t4[4 * dx + r];
      }
    }
#endif
    for (; i < n_rows; ++i) {
      const uint8_t* s = src + static_cast<std::size_t>(rows[i]) * sw;
      float* h = hbuf_.data() + static_cast<std::size_t>(rows[i]) * w;
      for (int dx = 0; dx < w; ++dx) {
        const float* wk = xw + static_cast<std::size_t>(dx) * k_n;
        float acc = 0.f;
        for (int k = 0; k < k_n; ++k) {
          const int sx = xs[dx] + k;
          // Padded taps (weight 0) may point past the row: they add 0.
          const float v = sx < sw ? static_cast<float>(s[sx]) : 0.f;
          acc += v * wk[k];
        }
        h[dx] = acc;
      }
    }
  }

  // The AVX-512 area downscale. Output columns go in groups of 16 (one
  // vector); a group's taps all lie in a window of 32 source pixels starting
  // at gbase_[g], so a source row converted to floats is two vectors and
  // each tap k of the group is one two-register permute (gidx_) times the
  // group's weights for tap k (gw_, 0 for padded taps and for the lanes past
  // dst_w). The float operations per output are those of the portable path:
  // h = v0*w0 (+ v1*w1 ...), then out = b0*h0 (+ b1*h1 ...), rounded half to
  // even and saturated. The explicitly rounded (*_round_ps) multiplies and
  // adds are plain IEEE operations that no compiler contracts into FMAs.
  void BuildAvx512Tables() {
    avx512_ = false;
    const int k_n = ntaps_;
    const int groups = (dst_w_ + 15) / 16;
    std::vector<int> gbase(groups);
    std::vector<int32_t> gidx(static_cast<std::size_t>(groups) * k_n * 16, 0);
    std::vector<float> gw(static_cast<std::size_t>(groups) * k_n * 16, 0.f);
    int max_base = 0;
    for (int g = 0; g < groups; ++g) {
      gbase[g] = xstart_[16 * g];
      max_base = std::max(max_base, gbase[g]);
      for (int l = 0; l < 16; ++l) {
        const int dx = 16 * g + l;
        if (dx >= dst_w_) break;
        for (int k = 0; k < k_n; ++k) {
          const int off = xstart_[dx] + k - gbase[g];
          if (off < 0 || off >= 32) return;  // window too wide: portable path
          const std::size_t i = (static_cast<std::size_t>(g) * k_n + k) * 16 + l;
          gidx[i] = off;
          gw[i] = xw_[static_cast<std::size_t>(dx) * k_n + k];
        }
      }
    }
    groups_ = groups;
    gbase_ = std::move(gbase);
    gidx_ = std::move(gidx);
    gw_ = std::move(gw);
    // One source row as floats, zero beyond src_w (read by padded taps).
    rowf_.assign(static_cast<std::size_t>(std::max(max_base + 32, (src_w_ + 15) / 16 * 16)), 0.f);
    hbuf16_.assign(static_cast<std::size_t>(src_h_) * groups_ * 16, 0.f);
    avx512_ = true;
  }

#ifdef ENVPOOL_DRAW_HAVE_AVX512_RESIZE
// GCC 12 warns about the intrinsics' own undefined-vector idiom.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
  // h[16g + l] for every group g: the horizontal sums of one source row
  // (rowf, as floats). K: compile-time tap count (0: runtime k_n).
  template <int K>
  __attribute__((target("avx512f,avx512bw,avx512vl"))) void HorizontalGroupsAvx512(const float* rowf, float* h,
                                                                                   int groups, int k_n = K) const {
    constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const int kk = K > 0 ? K : k_n;
    const int32_t* idx = gidx_.data();
    const float* w = gw_.data();
    for (int g = 0; g < groups; ++g) {
      const float* base = rowf + gbase_[g];
      const __m512 lo = _mm512_loadu_ps(base);
      const __m512 hi = _mm512_loadu_ps(base + 16);
      __m512 acc =
          _mm512_mul_round_ps(_mm512_permutex2var_ps(lo, _mm512_loadu_si512(idx), hi), _mm512_loadu_ps(w), kRound);
      for (int k = 1; k < kk; ++k) {
        const __m512 v = _mm512_permutex2var_ps(lo, _mm512_loadu_si512(idx + 16 * k), hi);
        acc = _mm512_add_round_ps(acc, _mm512_mul_round_ps(v, _mm512_loadu_ps(w + 16 * k), kRound), kRound);
      }
      _mm512_storeu_ps(h + 16 * g, acc);
      idx += 16 * kk;
      w += 16 * kk;
    }
  }

  __attribute__((target("avx512f,avx512bw,avx512vl"))) void RunAreaGenericAvx512(const uint8_t* src, uint8_t* dst) {
    constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const int k_n = ntaps_, groups = groups_, sw = src_w_;
    const std::size_t stride = static_cast<std::size_t>(groups) * 16;
    float* rowf = rowf_.data();
    const int full = sw / 16, rest = sw % 16;
    const __mmask16 rest_mask = static_cast<__mmask16>((1u << rest) - 1);
    for (const int y : distinct_) {
      const uint8_t* s = src + static_cast<std::size_t>(y) * sw;
      for (int j = 0; j < full; ++j) {
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 16 * j));
        _mm512_storeu_ps(rowf + 16 * j, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)));
      }
      if (rest) {
        const __m128i b = _mm_maskz_loadu_epi8(rest_mask, s + 16 * full);
        _mm512_mask_storeu_ps(rowf + 16 * full, rest_mask, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)));
      }
      float* h = hbuf16_.data() + static_cast<std::size_t>(y) * stride;
      switch (k_n) {  // unrolled for the usual tap counts
        case 2:
          HorizontalGroupsAvx512<2>(rowf, h, groups);
          break;
        case 3:
          HorizontalGroupsAvx512<3>(rowf, h, groups);
          break;
        default:
          HorizontalGroupsAvx512<0>(rowf, h, groups, k_n);
      }
    }
    const __m512i zero = _mm512_setzero_si512();
    for (int dy = 0; dy < dst_h_; ++dy) {
      const Tap* t = ytab_.data() + ystart_[dy];
      const int n = ycount_[dy];
      uint8_t* d = dst + static_cast<std::size_t>(dy) * dst_w_;
      if (SameAsEarlierRow(dy)) {
        std::memcpy(d, dst + static_cast<std::size_t>(yprev_[dy]) * dst_w_, dst_w_);
        continue;
      }
      for (int g = 0; g < groups; ++g) {
        const float* col = hbuf16_.data() + 16 * g;
        __m512 acc =
            _mm512_mul_round_ps(_mm512_set1_ps(t[0].w), _mm512_loadu_ps(col + hrow_[t[0].si] * stride), kRound);
        for (int j = 1; j < n; ++j) {
          const __m512 h = _mm512_loadu_ps(col + hrow_[t[j].si] * stride);
          acc = _mm512_add_round_ps(acc, _mm512_mul_round_ps(_mm512_set1_ps(t[j].w), h, kRound), kRound);
        }
        // cvRound (half to even), then saturate to [0, 255].
        const __m512i r = _mm512_max_epi32(_mm512_cvt_roundps_epi32(acc, kRound), zero);
        const int left = std::min(16, dst_w_ - 16 * g);
        _mm_mask_storeu_epi8(d + 16 * g, static_cast<__mmask16>((1u << left) - 1), _mm512_cvtusepi32_epi8(r));
      }
    }
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif

  void HorizontalTwoTap(const uint8_t* s, int32_t* d) const {
    int dx = 0;
    for (; dx < xmax_; ++dx) {
      const int sx = xofs_[dx];
      d[dx] = s[sx] * xalpha_[2 * dx] + s[sx + 1] * xalpha_[2 * dx + 1];
    }
    for (; dx < dst_w_; ++dx) d[dx] = s[xofs_[dx]] * kCoefScale;
  }

  void RunTwoTap(const uint8_t* src, uint8_t* dst) {
    int cached[2] = {-1, -1};
    for (int dy = 0; dy < dst_h_; ++dy) {
      int sy[2];
      for (int k = 0; k < 2; ++k) {
        sy[k] = std::clamp(yofs_[dy] + k, 0, src_h_ - 1);
      }
      // Reuse horizontally resampled rows from the previous output row.
      if (cached[0] != sy[0]) {
        if (cached[1] == sy[0]) {
          rows_[0].swap(rows_[1]);
          std::swap(cached[0], cached[1]);
        } else {
          HorizontalTwoTap(src + static_cast<std::size_t>(sy[0]) * src_w_, rows_[0].data());
          cached[0] = sy[0];
        }
      }
      if (cached[1] != sy[1]) {
        if (sy[1] == sy[0]) {
          rows_[1] = rows_[0];
        } else {
          HorizontalTwoTap(src + static_cast<std::size_t>(sy[1]) * src_w_, rows_[1].data());
        }
        cached[1] = sy[1];
      }
      const int32_t* r0 = rows_[0].data();
      const int32_t* r1 = rows_[1].data();
      const int16_t b0 = ybeta_[2 * dy];
      const int16_t b1 = ybeta_[2 * dy + 1];
      uint8_t* d = dst + static_cast<std::size_t>(dy) * dst_w_;
      // OpenCV's vectorised vertical pass uses a reduced-precision product
      // (16-bit high multiply of the 4-bit-shifted row values); cv2 gives
      // that result for every pixel of the row, so it is reproduced here.
      for (int x = 0; x < dst_w_; ++x) {
        d[x] = VerticalSimd(r0[x], r1[x], b0, b1);
      }
    }
  }

  static uint8_t VerticalSimd(int32_t a, int32_t b, int16_t b0, int16_t b1) {
    auto pack16 = [](int32_t v) { return static_cast<int16_t>(std::clamp(v, -32768, 32767)); };
    auto mulhi = [](int16_t p, int16_t q) { return static_cast<int16_t>((static_cast<int32_t>(p) * q) >> 16); };
    const int16_t t = static_cast<int16_t>(mulhi(pack16(a >> 4), b0) + mulhi(pack16(b >> 4), b1));
    const int32_t r = (static_cast<int32_t>(t) + 2) >> 2;
    return static_cast<uint8_t>(std::clamp(r, 0, 255));
  }

  Mode mode_ = Mode::kCopy;
  int src_h_ = 0, src_w_ = 0, dst_h_ = 0, dst_w_ = 0;
  // Integer-factor area.
  int int_sx_ = 1, int_sy_ = 1;
  float inv_area_ = 1.f;
  // Generic area.
  std::vector<Tap> xtab_, ytab_;
  int ntaps_ = 0;
  std::vector<int> xstart_;
  std::vector<float> xw_, f4_, t4_, hbuf_, fsum_;
  // Generic area: hrow_[y] = the source row whose horizontal sums row y
  // uses (y, or an earlier identical row); distinct_ = the rows computed.
  std::vector<int> hrow_, distinct_;
  std::vector<int> ystart_, ycount_, yprev_;  // BuildRowRuns
  // Generic area, AVX-512 path (BuildAvx512Tables).
  bool avx512_ = false;
  int groups_ = 0;
  std::vector<int> gbase_;
  std::vector<int32_t> gidx_;
  std::vector<float> gw_, rowf_, hbuf16_;
  // Two-tap.
  std::vector<int> xofs_, yofs_;
  std::vector<int16_t> xalpha_, ybeta_;
  int xmax_ = 0;
  std::vector<int32_t> rows_[2];
};

Resizer::Resizer() = default;
Resizer::~Resizer() = default;
Resizer::Resizer(Resizer&&) noexcept = default;
Resizer& Resizer::operator=(Resizer&&) noexcept = default;

Resizer::Resizer(int src_h, int src_w, int dst_h, int dst_w, Interp interp, ResizePath path)
    : src_h_(src_h),
      src_w_(src_w),
      dst_h_(dst_h),
      dst_w_(dst_w),
      impl_(std::make_unique<Impl>(src_h, src_w, dst_h, dst_w, interp, path)) {}

ResizePath Resizer::path() const { return impl_ ? impl_->path() : ResizePath::kPortable; }

void Resizer::Run(const uint8_t* src, uint8_t* dst) { impl_->Run(src, dst); }

}  // namespace envpool::draw
