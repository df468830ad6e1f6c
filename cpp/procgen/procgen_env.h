// Procgen's 16 games, each env one game of procgen 0.10.7's own engine
// (library.h), driven through its C interface with a single game and no
// stepping threads of its own: the pool's threads step it.
//
// Seeding: an env seeded s is procgen's env made with rand_seed = s mod 2^32
// (as int32) and num=1: the same level sequence, frame for frame.
//
// Episode ends: procgen's engine starts the next level inside the step that
// ends one; that step's observation is the new level's first frame (no
// terminal frame exists). The reset that follows (the engine's autoreset or
// the user's) shows that same frame again and draws no level, so the level
// sequence is procgen's. A reset in mid-episode starts the next level of the
// sequence (procgen's own forced reset, action -1); a reset after Seed()
// makes a new game.
#ifndef ENVPOOL_PROCGEN_PROCGEN_ENV_H_
#define ENVPOOL_PROCGEN_PROCGEN_ENV_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/spec.h"
#include "cpp/draw/planar.h"
#include "cpp/procgen/library.h"

namespace envpool::procgen {

constexpr int kRes = 64;
constexpr int kRenderRes = 512;  // procgen's render_mode="rgb_array" frame
constexpr int kNumActions = 15;
constexpr int kExploration = 20;

// Which distribution modes each game accepts (procgen's Game::parse_options
// aborts the process on any other: checked here first), and its timeout.
struct GameInfo {
  const char* name;
  int timeout;
  std::vector<int> modes;
  int exploration_seed;  // procgen's EXPLORATION_LEVEL_SEEDS; 0: none
};

inline const std::vector<GameInfo>& Games() {
  static const std::vector<GameInfo> games = {
      {"bigfish", 6000, {0, 1}, 0},
      {"bossfight", 4000, {0, 1}, 0},
      {"caveflyer", 1000, {0, 1, 10, 20}, 1259048185},
      {"chaser", 1000, {0, 1, 2}, 0},
      {"climber", 1000, {0, 1, 20}, 1561126160},
      {"coinrun", 1000, {0, 1, 20}, 1949448038},
      {"dodgeball", 1000, {0, 1, 2, 10}, 0},
      {"fruitbot", 1000, {0, 1}, 0},
      {"heist", 1000, {0, 1, 10, 20}, 876640971},
      {"jumper", 1000, {0, 1, 10, 20}, 1434825276},
      {"leaper", 500, {0, 1, 2, 20}, 1318677581},
      {"maze", 500, {0, 1, 10, 20}, 158988835},
      {"miner", 1000, {0, 1, 10}, 0},
      {"ninja", 1000, {0, 1, 20}, 1123500215},
      {"plunder", 4000, {0, 1}, 0},
      {"starpilot", 1000, {0, 1, 2}, 0},
  };
  return games;
}

// The game's own episode length: jumper's memory mode runs 2000 steps.
inline int Timeout(const GameInfo& g, int mode) {
  return std::string(g.name) == "jumper" && mode == 10 ? 2000 : g.timeout;
}

// The options one env is made with, checked.
struct Options {
  const GameInfo* game = nullptr;
  int mode = 1;  // the library's distribution_mode (exploration is hard)
  int num_levels = 0, start_level = 0;
  bool use_sequential_levels = false, center_agent = true, use_backgrounds = true, use_monochrome_assets = false,
       restrict_themes = false, use_generated_assets = false, paint_vel_info = false, use_easy_jump = false;
  bool channel_first = true, render_frames = false;
  int timeout = 1000;
  std::string library_dir;
};

inline Options ParseOptions(const Config& c) {
  Options o;
  const std::string name = c.Get<std::string>("env_name");
  for (const GameInfo& g : Games())
    if (name == g.name) o.game = &g;
  if (o.game == nullptr) {
    std::string all;
    for (const GameInfo& g : Games()) all += std::string(all.empty() ? "" : ", ") + g.name;
    throw std::invalid_argument("Procgen: env_name '" + name + "' is not one of procgen's games (" + all + ")");
  }
  const int64_t mode = c.Get<int64_t>("distribution_mode");
  bool known = false;
  for (int m : o.game->modes) known |= m == mode;
  if (!known) {
    std::string msg = "Procgen: " + name + " has no distribution_mode " + std::to_string(mode) + " (its modes:";
    for (int m : o.game->modes) msg += " " + std::to_string(m);
    msg += "; 0 easy, 1 hard, 2 extreme, 10 memory, 20 exploration)";
    throw std::invalid_argument(msg);
  }
  const int64_t num_levels = c.Get<int64_t>("num_levels");
  const int64_t start_level = c.Get<int64_t>("start_level");
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (num_levels < 0 || num_levels > kMax)
    throw std::invalid_argument("Procgen: num_levels must be in [0, 2**31 - 1] (0: unbounded), got " +
                                std::to_string(num_levels));
  if (start_level < 0 || start_level > kMax)
    throw std::invalid_argument("Procgen: start_level must be in [0, 2**31 - 1], got " + std::to_string(start_level));
  if (start_level + num_levels > kMax)
    throw std::invalid_argument("Procgen: start_level + num_levels must be at most 2**31 - 1, got " +
                                std::to_string(start_level + num_levels));
  o.num_levels = static_cast<int>(num_levels);
  o.start_level = static_cast<int>(start_level);
  o.mode = static_cast<int>(mode);
  if (mode == kExploration) {
    // procgen's Python: exploration is hard mode on one fixed level.
    if (num_levels != 0 || start_level != 0)
      throw std::invalid_argument("Procgen: exploration mode sets num_levels and start_level itself (got num_levels=" +
                                  std::to_string(num_levels) + ", start_level=" + std::to_string(start_level) + ")");
    o.mode = 1;
    o.num_levels = 1;
    o.start_level = o.game->exploration_seed;
  }
  o.use_sequential_levels = c.Get<bool>("use_sequential_levels");
  o.center_agent = c.Get<bool>("center_agent");
  o.use_backgrounds = c.Get<bool>("use_backgrounds");
  o.use_monochrome_assets = c.Get<bool>("use_monochrome_assets");
  o.restrict_themes = c.Get<bool>("restrict_themes");
  o.use_generated_assets = c.Get<bool>("use_generated_assets");
  o.paint_vel_info = c.Get<bool>("paint_vel_info");
  o.use_easy_jump = c.Get<bool>("use_easy_jump");
  o.channel_first = c.Get<bool>("channel_first");
  o.render_frames = c.Get<bool>("render_frames");
  o.library_dir = c.Get<std::string>("library_dir");
  o.timeout = Timeout(*o.game, static_cast<int>(mode));
  return o;
}

class ProcgenEnv : public Env {
 public:
  static Config Defaults() {
    return Config{{"env_name", std::string("bigfish")},
                  {"distribution_mode", int64_t{1}},
                  {"num_levels", int64_t{0}},
                  {"start_level", int64_t{0}},
                  {"use_sequential_levels", false},
                  {"center_agent", true},
                  {"use_backgrounds", true},
                  {"use_monochrome_assets", false},
                  {"restrict_themes", false},
                  {"use_generated_assets", false},
                  {"paint_vel_info", false},
                  {"use_easy_jump", false},
                  {"channel_first", true},
                  // Where the library is ("": library.h's DefaultLibraryDir()),
                  // and whether render() is used (its 512x512 frame buffer; set
                  // by envpool.tasks.procgen from render_mode).
                  {"library_dir", std::string()},
                  {"render_frames", false}};
  }

  struct Keys : EnvSpec {
    explicit Keys(bool channel_first)
        : obs(AddState<uint8_t>(
              "obs", channel_first ? std::vector<int>{3, kRes, kRes} : std::vector<int>{kRes, kRes, 3}, {0}, {255})) {}
    StateKey<uint8_t> obs;
    StateKey<int32_t> prev_level_seed = AddState<int32_t>("info:prev_level_seed", {});
    StateKey<int32_t> prev_level_complete = AddState<int32_t>("info:prev_level_complete", {});
    StateKey<int32_t> level_seed = AddState<int32_t>("info:level_seed", {});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {kNumActions - 1});
  };

  // Checks the options and loads the library: everything that can fail
  // fails here, at make, before any env exists.
  static EnvSpec MakeSpec(const Config& c) {
    const Options o = ParseOptions(c);
    LoadLibrary(o.library_dir);
    return Keys(o.channel_first);
  }

  explicit ProcgenEnv(const Config& c)
      : opt_(ParseOptions(c)), lib_(LoadLibrary(opt_.library_dir)), keys_(opt_.channel_first) {
    if (opt_.render_frames) frame_.resize(static_cast<std::size_t>(kRenderRes) * kRenderRes * 3);
  }
  ~ProcgenEnv() override { Close(); }
  ProcgenEnv(const ProcgenEnv&) = delete;
  ProcgenEnv& operator=(const ProcgenEnv&) = delete;

  void Seed(uint64_t seed) override {
    seed_ = seed;
    reseeded_ = true;
  }

  void Reset(const StateRow& out) override {
    if (reseeded_ || handle_ == nullptr) {
      Make();  // its first level starts in libenv_set_buffers
    } else if (!level_started_) {
      action_ = -1;  // procgen's forced reset: the next level of the sequence
      lib_.act(handle_);
    }
    level_started_ = false;
    steps_ = 0;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const int32_t a = *action[keys_.action];
    if (a < 0 || a >= kNumActions)
      throw std::invalid_argument("Procgen: action " + std::to_string(a) + " is not in [0, 14]");
    const int32_t level = level_seed_;
    action_ = a;
    lib_.act(handle_);
    ++steps_;
    StepResult r;
    r.reward = rew_;
    if (first_ != 0) {
      // The library ended the level (and began the next): at its timeout a
      // truncation, else the game's own end.
      (steps_ >= opt_.timeout ? r.truncated : r.terminated) = true;
      level_started_ = true;
      steps_ = 0;
    } else if (level_seed_ != level) {
      steps_ = 0;  // use_sequential_levels: a completed level goes on into the next
    }
    Write(out);
    return r;
  }

  std::array<int, 2> RenderSize() const override {
    return opt_.render_frames ? std::array<int, 2>{kRenderRes, kRenderRes} : std::array<int, 2>{0, 0};
  }

  // procgen's render_mode="rgb_array" frame: the current state drawn at
  // 512x512 with antialiasing, by the library's libenv_observe.
  void Render(uint8_t* rgb) override {
    if (reseeded_ || handle_ == nullptr) Make();  // before the first reset: the game it will start with
    lib_.observe(handle_);
    std::memcpy(rgb, frame_.data(), frame_.size());
  }

  // The raw ceiling: the library stepped with `action`, nothing written.
  void RawStep(int32_t action) {
    action_ = action;
    lib_.act(handle_);
  }

 private:
  void Make() {
    Close();
    reseeded_ = false;
    const std::string assets = lib_.dir + "/assets/";
    const std::string name = opt_.game->name;
    int32_t rand_seed = static_cast<int32_t>(static_cast<uint32_t>(seed_));
    int32_t num_levels = opt_.num_levels, start_level = opt_.start_level, num_actions = kNumActions;
    int32_t debug_mode = 0, num_threads = 0, mode = opt_.mode;
    uint8_t flags[] = {opt_.use_sequential_levels, opt_.render_frames,         opt_.center_agent,
                       opt_.use_backgrounds,       opt_.use_monochrome_assets, opt_.restrict_themes,
                       opt_.use_generated_assets,  opt_.paint_vel_info,        opt_.use_easy_jump};
    std::vector<abi::Option> items;
    auto add = [&](const char* key, int dtype, int count, const void* data) {
      abi::Option o{};
      std::strncpy(o.name, key, abi::kNameLen - 1);
      o.dtype = dtype;
      o.count = count;
      o.data = const_cast<void*>(data);
      items.push_back(o);
    };
    add("env_name", abi::kUInt8, static_cast<int>(name.size()), name.data());
    add("resource_root", abi::kUInt8, static_cast<int>(assets.size()), assets.data());
    add("num_levels", abi::kInt32, 1, &num_levels);
    add("start_level", abi::kInt32, 1, &start_level);
    add("num_actions", abi::kInt32, 1, &num_actions);
    add("rand_seed", abi::kInt32, 1, &rand_seed);
    add("num_threads", abi::kInt32, 1, &num_threads);
    add("debug_mode", abi::kInt32, 1, &debug_mode);
    add("distribution_mode", abi::kInt32, 1, &mode);
    const char* bools[] = {"use_sequential_levels", "render_human",          "center_agent",
                           "use_backgrounds",       "use_monochrome_assets", "restrict_themes",
                           "use_generated_assets",  "paint_vel_info",        "use_easy_jump"};
    for (int i = 0; i < 9; ++i) add(bools[i], abi::kUInt8, 1, &flags[i]);

    std::lock_guard<std::mutex> lock(MakeMutex());
    handle_ = lib_.make(1, abi::Options{items.data(), static_cast<int>(items.size())});
    CheckInfoLayout();
    void* ob[] = {hwc_.data()};
    void* info[] = {&prev_level_seed_, &prev_level_complete_, &level_seed_, frame_.data()};
    void* ac[] = {&action_};
    abi::Buffers b{ob, &rew_, &first_, info, ac};
    lib_.set_buffers(handle_, &b);  // resets and observes (no threads)
    level_started_ = true;
  }

  // The info buffers are handed over in the library's order: refuse one
  // whose order differs (another procgen).
  void CheckInfoLayout() {
    const int n = lib_.tensor_types(handle_, abi::kInfo, nullptr);
    std::vector<abi::TensorType> types(static_cast<std::size_t>(std::max(n, 0)));
    lib_.tensor_types(handle_, abi::kInfo, types.data());
    const std::vector<std::string> want = {"prev_level_seed", "prev_level_complete", "level_seed"};
    bool ok = n == static_cast<int>(want.size()) + (opt_.render_frames ? 1 : 0);
    for (std::size_t i = 0; ok && i < want.size(); ++i) ok = want[i] == types[i].name;
    if (!ok) {
      lib_.close(handle_);
      handle_ = nullptr;
      throw std::runtime_error("Procgen: " + lib_.dir + "/libenv.so reports other info keys than procgen 0.10.7's");
    }
  }

  void Close() {
    if (handle_ == nullptr) return;
    std::lock_guard<std::mutex> lock(MakeMutex());
    lib_.close(handle_);
    handle_ = nullptr;
  }

  void Write(const StateRow& out) {
    uint8_t* obs = out[keys_.obs];
    if (opt_.channel_first) {
      draw::PlanarFromRgb(hwc_.data(), kRes * kRes, obs, static_cast<std::size_t>(kRes) * kRes);
    } else {
      std::memcpy(obs, hwc_.data(), hwc_.size());
    }
    *out[keys_.prev_level_seed] = prev_level_seed_;
    *out[keys_.prev_level_complete] = prev_level_complete_;
    *out[keys_.level_seed] = level_seed_;
  }

  const Options opt_;
  const Library& lib_;
  const Keys keys_;
  abi::Handle* handle_ = nullptr;
  uint64_t seed_ = 0;
  bool reseeded_ = true;
  // The game is at a level's first frame (made, or the last step ended a
  // level and began the next): a reset shows it and draws no level.
  bool level_started_ = false;
  int steps_ = 0;  // steps into the current level

  // The library's buffers (one game).
  std::array<uint8_t, kRes * kRes * 3> hwc_{};
  std::vector<uint8_t> frame_;
  float rew_ = 0.0f;
  uint8_t first_ = 0;
  int32_t prev_level_seed_ = 0;
  uint8_t prev_level_complete_ = 0;
  int32_t level_seed_ = 0;
  int32_t action_ = 0;
};

}  // namespace envpool::procgen

#endif  // ENVPOOL_PROCGEN_PROCGEN_ENV_H_
