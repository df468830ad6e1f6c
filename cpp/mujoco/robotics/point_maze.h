// PointMaze_*-v3: gymnasium-robotics' PointMazeEnv (maze_v4.MazeEnv on
// PointEnv): a force-actuated ball reaching a goal in a maze of blocks.
//
// The model is point.xml with a box per wall cell and the "target" site,
// built by envpool/tasks/robotics.py exactly as Maze.make_maze builds it and
// handed over as xml_file; the cells arrive as maze_map text (rows joined by
// '/', one character per cell: 0, 1, r, g, c).
#ifndef ENVPOOL_MUJOCO_ROBOTICS_POINT_MAZE_H_
#define ENVPOOL_MUJOCO_ROBOTICS_POINT_MAZE_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/mujoco/robotics/goal_env.h"

namespace envpool::mujoco::robotics {

class PointMaze : public GoalEnv {
 public:
  static constexpr int kMaxTries = 1000000;
  static Config Defaults(int version) {
    return GymDefaults(version, "", 1,
                       {{"maze_map", std::string("11111/10001/11101/10001/11111")},
                        {"reward_type", std::string("sparse")},
                        {"continuing_task", true},
                        {"reset_target", false},
                        {"maze_size_scaling", 1.0},
                        {"maze_height", 0.4},
                        {"position_noise_range", 0.25},
                        {"report_draws", false}});
  }
  // Set per maze by envpool/tasks/robotics.py (8.8 or 12.5, the reference's).
  static const char* DefaultCameraConfig(int /*version*/) { return "distance=8.8"; }

  struct Spec : GoalSpec {
    StateKey<double> success;
    Spec(const PointMaze& e, const Config& c) : GoalSpec(c, 4, 2) {
      success = Info("success");
      Finish(e);
      // PointEnv's Box(-1, 1): the model's ctrlrange, as the base sets it.
    }
  };

  PointMaze(const Config& c, int /*version*/)
      : GoalEnv(c, 1, 2, 2),
        dense_(ReadRewardType(c)),
        continuing_(c.Get<bool>("continuing_task")),
        reset_target_(c.Get<bool>("reset_target")),
        scaling_(c.Get<double>("maze_size_scaling")),
        noise_range_(c.Get<double>("position_noise_range")),
        target_site_(mj_name2id(m_, mjOBJ_SITE, "target")),
        spec_(*this, c) {
    if (!(scaling_ > 0.0) || !std::isfinite(scaling_))
      throw std::invalid_argument("maze_size_scaling must be a positive number");
    if (!(noise_range_ >= 0.0) || !std::isfinite(noise_range_))
      throw std::invalid_argument("position_noise_range must be a non-negative number");
    const double h = c.Get<double>("maze_height");
    if (!(h > 0.0) || !std::isfinite(h)) throw std::invalid_argument("maze_height must be a positive number");
    if (m_->nq != 2 || m_->nv != 2 || m_->nu != 2)
      throw std::invalid_argument("PointMaze needs point.xml's two slide joints and two motors");
    ParseMaze(c.Get<std::string>("maze_map"));
  }
  const MujocoSpec& spec() const override { return spec_; }

 protected:
  void ResetModel() override {
    ClearDraws();
    goal_ = NoisyXY(goals_[DrawInteger(0, static_cast<int64_t>(goals_.size()))]);
    // generate_reset_pos: a reset cell more than half a cell from the goal.
    std::array<double, 2> reset = goal_;
    for (int tries = 0; Norm2(reset[0] - goal_[0], reset[1] - goal_[1]) <= 0.5 * scaling_; ++tries) {
      if (tries == kMaxTries) throw std::runtime_error("PointMaze: no reset cell away from the goal");
      reset = resets_[DrawInteger(0, static_cast<int64_t>(resets_.size()))];
    }
    reset = NoisyXY(reset);
    d_->qpos[0] = reset[0];
    d_->qpos[1] = reset[1];
    d_->qvel[0] = d_->qvel[1] = 0.0;
  }

  void WriteReset(const StateRow& out) override {
    WriteObs(out);
    *out[spec_.success] = Near() ? 1.0 : 0.0;
    WriteDraws(out, spec_.draw_keys);
    PlaceTarget();
  }

  StepResult StepModel(const float* a, const StateRow& out) override {
    ClearDraws();
    // PointEnv.step: the action clipped to [-1, 1] (NaN passes: MuJoCo
    // zeroes a non-finite ctrl with a warning, as in the reference), the
    // velocity clipped to [-5, 5], then one mj_step. The reference clips
    // through set_state, whose mj_forward computes nothing that mj_step does
    // not compute again from the same qpos, qvel and warm start (it leaves
    // qacc_warmstart alone): skipping it halves the physics and changes no
    // bit (the replay tests compare every step bit for bit).
    for (int i = 0; i < 2; ++i) d_->qvel[i] = std::clamp(d_->qvel[i], -5.0, 5.0);
    for (int i = 0; i < 2; ++i) {
      const float x = a[i];
      d_->ctrl[i] = std::isnan(x) ? x : std::clamp(x, -1.0f, 1.0f);
    }
    mj_step(m_, d_);
    WriteObs(out);
    StepResult r;
    r.reward = Reward(d_->qpos[0] - goal_[0], d_->qpos[1] - goal_[1]);
    const bool near = Near();
    r.terminated = !continuing_ && near;
    *out[spec_.success] = near ? 1.0 : 0.0;
    // update_goal: a continuing task with reset_target moves a reached goal.
    if (continuing_ && reset_target_ && near && goals_.size() > 1) {
      for (int tries = 0; Near(); ++tries) {
        // A tiny maze_size_scaling can put every goal cell within reach of
        // the ball, where the reference loops forever.
        if (tries == kMaxTries) throw std::runtime_error("PointMaze: every goal lies within 0.45 of the ball");
        goal_ = NoisyXY(goals_[DrawInteger(0, static_cast<int64_t>(goals_.size()))]);
      }
    }
    WriteDraws(out, spec_.draw_keys);
    PlaceTarget();
    return r;
  }

 private:
  static bool ReadRewardType(const Config& c) {
    const std::string t = c.Get<std::string>("reward_type");
    CheckRewardType(t);
    return t == "dense";
  }

  // compute_reward: norm(axis=-1) sums the squares without an FMA.
  double Reward(double dx, double dy) const {
    const double dist = std::sqrt(dx * dx + dy * dy);
    return dense_ ? std::exp(-dist) : (dist <= 0.45 ? 1.0 : 0.0);
  }
  // bool(np.linalg.norm(achieved_goal - goal) <= 0.45): a dot product.
  bool Near() const { return Norm2(d_->qpos[0] - goal_[0], d_->qpos[1] - goal_[1]) <= 0.45; }

  std::array<double, 2> NoisyXY(std::array<double, 2> xy) {
    const double nx = DrawUniform(-noise_range_, noise_range_) * scaling_;
    const double ny = DrawUniform(-noise_range_, noise_range_) * scaling_;
    xy[0] += nx;
    xy[1] += ny;
    return xy;
  }

  void WriteObs(const StateRow& out) {
    double* o = StateObs(out);
    o[0] = d_->qpos[0];
    o[1] = d_->qpos[1];
    o[2] = d_->qvel[0];
    o[3] = d_->qvel[1];
    double* ag = out[spec_.achieved_goal];
    ag[0] = d_->qpos[0];
    ag[1] = d_->qpos[1];
    double* dg = out[spec_.desired_goal];
    dg[0] = goal_[0];
    dg[1] = goal_[1];
  }

  // The reference moves the target site in the model (for rendering only);
  // the shared model stays as it is and the frame's site position is set.
  void PlaceTarget() {
    if (target_site_ < 0) return;
    d_->site_xpos[3 * target_site_] = goal_[0];
    d_->site_xpos[3 * target_site_ + 1] = goal_[1];
  }

  // Maze.make_maze's cell lists, in its order and with its fallbacks.
  void ParseMaze(const std::string& text) {
    std::vector<std::string> rows;
    std::string row;
    for (char ch : text + "/") {
      if (ch == '/') {
        rows.push_back(row);
        row.clear();
      } else if (ch == '0' || ch == '1' || ch == 'r' || ch == 'g' || ch == 'c') {
        row.push_back(ch);
      } else {
        throw std::invalid_argument(std::string("maze_map: unknown cell '") + ch +
                                    "' (cells are 0, 1, 'r', 'g' and 'c')");
      }
    }
    const std::size_t width = rows.empty() ? 0 : rows[0].size();
    if (width == 0) throw std::invalid_argument("maze_map must have at least one row and one column");
    for (const std::string& r : rows)
      if (r.size() != width) throw std::invalid_argument("maze_map rows must all have the same length");
    const double xc = static_cast<double>(width) / 2 * scaling_;
    const double yc = static_cast<double>(rows.size()) / 2 * scaling_;
    std::vector<std::array<double, 2>> empty, combined;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j < width; ++j) {
        const std::array<double, 2> xy{(static_cast<double>(j) + 0.5) * scaling_ - xc,
                                       yc - (static_cast<double>(i) + 0.5) * scaling_};
        switch (rows[i][j]) {
          case 'r':
            resets_.push_back(xy);
            break;
          case 'g':
            goals_.push_back(xy);
            break;
          case 'c':
            combined.push_back(xy);
            break;
          case '0':
            empty.push_back(xy);
            break;
          default:
            break;
        }
      }
    }
    if (goals_.empty() && resets_.empty() && combined.empty()) {
      combined = empty;
    } else if (resets_.empty() && combined.empty()) {
      resets_ = empty;
    } else if (goals_.empty() && combined.empty()) {
      goals_ = empty;
    }
    goals_.insert(goals_.end(), combined.begin(), combined.end());
    resets_.insert(resets_.end(), combined.begin(), combined.end());
    if (goals_.empty() || resets_.empty())
      throw std::invalid_argument("maze_map has no free cell for the goal or the ball");
    // generate_reset_pos loops forever when a goal has no reset cell more
    // than half a cell away (the reference hangs; we refuse the map).
    const double reach = 0.5 * scaling_ + std::sqrt(2.0) * noise_range_ * scaling_;
    for (const auto& g : goals_) {
      bool apart = false;
      for (const auto& r : resets_) apart = apart || Norm2(r[0] - g[0], r[1] - g[1]) > reach;
      if (!apart)
        throw std::invalid_argument(
            "maze_map: every goal cell needs a reset cell more than half a cell away (the reset draw would never end)");
    }
  }

  bool dense_, continuing_, reset_target_;
  double scaling_, noise_range_;
  int target_site_;
  std::vector<std::array<double, 2>> goals_, resets_;
  std::array<double, 2> goal_{0.0, 0.0};
  Spec spec_;
};

}  // namespace envpool::mujoco::robotics

#endif  // ENVPOOL_MUJOCO_ROBOTICS_POINT_MAZE_H_
