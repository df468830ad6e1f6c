// Catch: EnvPool 1.2.5's Catch-v0, bsuite's catch: a ball falls from a
// random column of the top row, one row a step; the paddle on the bottom row
// moves left (0), stays (1) or right (2). The episode ends when the ball
// reaches the bottom row: +1 if the paddle is under it, else -1. The
// observation is the height x width board, 1 at the ball and the paddle.
#ifndef ENVPOOL_TOY_TEXT_CATCH_H_
#define ENVPOOL_TOY_TEXT_CATCH_H_

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

class Catch : public ToyTextEnv {
 public:
  static Config Defaults() {
    return {{"max_episode_steps", int64_t{0}}, {"height", int64_t{10}}, {"width", int64_t{5}}, {"report_draws", false}};
  }
  struct Spec : EnvSpec {
    int height, width;
    StateKey<float> obs;
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {2});
    DrawKeys draws;
    explicit Spec(const Config& c) : height(c.Get<int>("height")), width(c.Get<int>("width")) {
      if (height < 2 || height > 4096 || width < 1 || width > 4096)
        throw std::invalid_argument("height must be in [2, 4096] and width in [1, 4096], got " +
                                    std::to_string(height) + " x " + std::to_string(width));
      obs = AddState<float>("obs", {height, width}, {0.0}, {1.0});
      draws = AddDrawKeys(*this, c);
    }
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit Catch(const Config& c) : spec_(c) {}

  void Reset(const StateRow& out) override {
    ClearDraws();
    ball_x_ = Choice(spec_.width);
    ball_y_ = 0;
    paddle_x_ = spec_.width / 2;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    paddle_x_ = std::clamp(paddle_x_ + action[spec_.action][0] - 1, 0, spec_.width - 1);
    StepResult r;
    if (++ball_y_ == spec_.height - 1) {
      r.terminated = true;
      r.reward = ball_x_ == paddle_x_ ? 1.0 : -1.0;
    }
    Write(out);
    return r;
  }

 private:
  void Write(const StateRow& out) {
    float* board = out[spec_.obs];
    std::fill(board, board + spec_.height * spec_.width, 0.0f);
    board[ball_y_ * spec_.width + ball_x_] = 1.0f;
    board[(spec_.height - 1) * spec_.width + paddle_x_] = 1.0f;
    WriteDraws(out, spec_.draws);
  }
  Spec spec_;
  int ball_x_ = 0, ball_y_ = 0, paddle_x_ = 0;
};

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_CATCH_H_
