// Meta-World's reward shaping helpers (metaworld.utils.reward_utils, which
// are dm_control's tolerance functions plus the Hamacher t-norm), for
// scalars, with the reference's operation order.
#ifndef ENVPOOL_MUJOCO_METAWORLD_REWARD_H_
#define ENVPOOL_MUJOCO_METAWORLD_REWARD_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace envpool::mujoco::metaworld {

enum class Sigmoid { kLongTail, kGaussian, kReciprocal };

// tolerance(x, bounds=(lo, hi), margin, sigmoid, value_at_margin=0.1): 1
// inside the bounds, falling off outside them over `margin`.
inline double Tolerance(double x, double lo, double hi, double margin, Sigmoid sigmoid = Sigmoid::kLongTail,
                        double value_at_margin = 0.1) {
  // The reference raises here (a task whose initial state makes its margin
  // negative would stop the episode); so do we, with its message.
  if (margin < 0) throw std::runtime_error("`margin` must be non-negative. Current value: " + std::to_string(margin));
  const bool in_bounds = lo <= x && x <= hi;
  if (margin == 0) return in_bounds ? 1.0 : 0.0;
  if (in_bounds) return 1.0;
  const double d = (x < lo ? lo - x : x - hi) / margin;
  switch (sigmoid) {
    case Sigmoid::kGaussian: {
      const double scale = std::sqrt(-2 * std::log(value_at_margin));
      const double t = d * scale;
      return std::exp(-0.5 * (t * t));
    }
    case Sigmoid::kReciprocal: {
      const double scale = 1 / value_at_margin - 1;
      return 1 / (std::abs(d) * scale + 1);
    }
    case Sigmoid::kLongTail:
    default: {
      const double scale = std::sqrt(1 / value_at_margin - 1);
      const double t = d * scale;
      return 1 / (t * t + 1);
    }
  }
}

// The Hamacher product a*b / (a + b - a*b); the reference refuses inputs
// outside [0, 1] (NaN included) with ValueError.
inline double HamacherProduct(double a, double b) {
  if (!((0.0 <= a && a <= 1.0) && (0.0 <= b && b <= 1.0)))
    throw std::runtime_error("hamacher_product: a (" + std::to_string(a) + ") and b (" + std::to_string(b) +
                             ") must range between 0 and 1");
  const double denominator = a + b - (a * b);
  return denominator > 0 ? (a * b) / denominator : 0.0;
}

// A reward term as the reference's Python holds it: a Python float, or an
// np.float32 that came from the float32 action (the gripper effort).
// numpy's scalar rules make a Python float meeting an np.float32 an
// np.float32: from there the arithmetic is float32.
struct Scalar {
  double v = 0.0;
  bool f32 = false;
};
inline Scalar Py(double v) { return {v, false}; }
inline Scalar F32(float v) { return {static_cast<double>(v), true}; }
inline Scalar operator+(Scalar a, Scalar b) {
  if (a.f32 || b.f32) return F32(static_cast<float>(a.v) + static_cast<float>(b.v));
  return Py(a.v + b.v);
}
inline Scalar operator-(Scalar a, Scalar b) {
  if (a.f32 || b.f32) return F32(static_cast<float>(a.v) - static_cast<float>(b.v));
  return Py(a.v - b.v);
}
inline Scalar operator*(Scalar a, Scalar b) {
  if (a.f32 || b.f32) return F32(static_cast<float>(a.v) * static_cast<float>(b.v));
  return Py(a.v * b.v);
}
inline Scalar operator/(Scalar a, Scalar b) {
  if (a.f32 || b.f32) return F32(static_cast<float>(a.v) / static_cast<float>(b.v));
  return Py(a.v / b.v);
}

// hamacher_product on such terms (a zero denominator gives Python's 0).
inline Scalar HamacherProduct(Scalar a, Scalar b) {
  if (!((0.0 <= a.v && a.v <= 1.0) && (0.0 <= b.v && b.v <= 1.0)))
    throw std::runtime_error("hamacher_product: a (" + std::to_string(a.v) + ") and b (" + std::to_string(b.v) +
                             ") must range between 0 and 1");
  const Scalar denominator = a + b - (a * b);
  return denominator.v > 0 ? (a * b) / denominator : Py(0.0);
}

// min(max(0, action[-1]), high) with Python's min/max: the float32 action
// itself, or the int/float bound (a NaN action gives 0).
inline Scalar GripEffort(float a, double high) {
  if (!(a > 0)) return Py(0.0);
  if (high < a) return Py(high);
  return F32(a);
}

// rect_prism_tolerance: the product of curr's relative position between the
// prism's corners `zero` and `one`, 1 outside the prism.
inline double RectPrismTolerance(const double* curr, const double* zero, const double* one) {
  auto in_range = [](double a, double b, double c) { return c >= b ? (b <= a && a <= c) : (c <= a && a <= b); };
  if (!(in_range(curr[0], zero[0], one[0]) && in_range(curr[1], zero[1], one[1]) && in_range(curr[2], zero[2], one[2])))
    return 1.0;
  const double x = (curr[0] - zero[0]) / (one[0] - zero[0]);
  const double y = (curr[1] - zero[1]) / (one[1] - zero[1]);
  const double z = (curr[2] - zero[2]) / (one[2] - zero[2]);
  return x * y * z;
}

// A condition as the reference's float(bool) info entry.
inline double Flag(bool b) { return b ? 1.0 : 0.0; }

// clip((clip(a, -1, 1) + 1) / 2, 0, 1) on the float32 grip action: float32
// throughout, as numpy keeps the action's type.
inline double GrabEffortReward(float a) {
  const float clipped = std::min(std::max(a, -1.0f), 1.0f);
  return std::min(std::max((clipped + 1.0f) / 2.0f, 0.0f), 1.0f);
}

// norm(q - ideal) of an observed quaternion (w, x, y z), numpy's dot order.
inline double QuatError(const double* q, const std::array<double, 4>& ideal) {
  const double d0 = q[0] - ideal[0], d1 = q[1] - ideal[1], d2 = q[2] - ideal[2], d3 = q[3] - ideal[3];
  return std::sqrt(std::fma(d3, d3, std::fma(d2, d2, std::fma(d1, d1, d0 * d0))));
}

// The "floor" several tasks keep the hand above: a funnel, 0 within
// `threshold` of its centre, scale * log(radius - threshold) + offset beyond.
inline double FunnelFloor(double radius, double threshold, double scale, double offset) {
  return radius <= threshold ? 0.0 : scale * std::log(radius - threshold) + offset;
}

}  // namespace envpool::mujoco::metaworld

#endif  // ENVPOOL_MUJOCO_METAWORLD_REWARD_H_
