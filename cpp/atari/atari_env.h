// The Atari family: ALE games with the standard DQN-style preprocessing.
//
// Per agent step: the action is repeated frame_skip times (rewards summed),
// the last two frames are max-pooled, converted to grayscale or RGB through
// ALE's palette, resized (cv2-exact INTER_AREA or INTER_LINEAR) and pushed
// onto a frame stack. The observation is (stack_num * C, H, W) uint8, oldest
// frame first. Semantics follow gymnasium's AtariPreprocessing +
// FrameStackObservation (bit for bit with noop_max=0, use_fire_reset=False),
// plus EnvPool's options (noop/fire reset, episodic life, reward clipping).
//
// Config keys (defaults in DefaultConfig()):
//   task          ALE game id, e.g. "pong", "montezuma_revenge".
//   rom_dir       directory holding <task>.bin (filled in by envpool.tasks.atari
//                 from ale_py.roms); rom_path, when non-empty, overrides it.
//   mode, difficulty   game mode / difficulty; -1 keeps the game's default.
//   noop_max      on a reset, 1..noop_max no-ops (uniform, env RNG); 0 = none.
//                 With a fire reset the FIRE replaces the last no-op.
//   use_fire_reset    press FIRE after the no-ops if the action set has FIRE.
//   episodic_life a life loss ends the episode (terminated) but the next
//                 reset continues the same game (no ALE reset) unless the game
//                 is over; zero_discount_on_life_loss sets discount 0 on a
//                 life loss. info:terminated always reports the real game over.
//                 As in EnvPool, a "life loss" ends an episode only while
//                 lives remain (0 < lives < previous lives): the step where
//                 lives reach 0 does not end it unless the game is over
//                 (Atlantis, WizardOfWor play on at 0 lives).
//                 max_episode_steps then bounds the whole game (steps since
//                 the last full reset), not each life: the env truncates.
//   reward_clip   reward = sign(reward); info:reward keeps the raw sum.
//   repeat_action_probability   ALE sticky actions (seeded by Seed()).
//   info_ram      add info:ram, the 128-byte console RAM after the step
//                 (EnvPool's info["ram"]; on by default as in EnvPool).
#ifndef ENVPOOL_ATARI_ATARI_ENV_H_
#define ENVPOOL_ATARI_ATARI_ENV_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ale/ale_interface.hpp"
#include "ale/emucore/MD5.hxx"
#include "ale/games/Roms.hpp"
#include "cpp/atari/palette.h"
#include "cpp/core/family.h"
#include "cpp/core/spec.h"
#include "cpp/draw/resize.h"

namespace envpool::atari {

using draw::Interp;
using draw::Resizer;

inline Config DefaultConfig() {
  return Config{
      {"task", std::string("pong")},
      {"rom_dir", std::string("")},
      {"rom_path", std::string("")},
      {"stack_num", int64_t{4}},
      {"frame_skip", int64_t{4}},
      {"noop_max", int64_t{30}},
      {"episodic_life", false},
      {"zero_discount_on_life_loss", false},
      {"reward_clip", false},
      {"use_fire_reset", true},
      {"img_height", int64_t{84}},
      {"img_width", int64_t{84}},
      {"gray_scale", true},
      {"full_action_space", false},
      {"repeat_action_probability", 0.0},
      {"use_inter_area_resize", true},
      {"max_episode_steps", int64_t{27000}},
      {"mode", int64_t{-1}},
      {"difficulty", int64_t{-1}},
      {"info_ram", true},
  };
}

// Quiet ALE once per process (ALEInterface's constructor and loadROM print a
// banner otherwise).
inline void QuietAle() {
  static std::once_flag flag;
  std::call_once(flag, [] { ale::Logger::setMode(ale::Logger::Error); });
}

inline std::unique_ptr<ale::ALEInterface> NewAle() {
  QuietAle();
  return std::make_unique<ale::ALEInterface>();
}

// The validated options of one Atari task.
struct Options {
  std::string task;
  std::string rom;  // resolved ROM file
  int stack_num, frame_skip, noop_max, img_height, img_width, mode, difficulty;
  int64_t max_episode_steps = 0;  // 0: no limit (the engine's key)
  bool episodic_life, zero_discount_on_life_loss, reward_clip, use_fire_reset, gray_scale, full_action_space,
      use_inter_area_resize, info_ram;
  double repeat_action_probability;

  int channels() const { return gray_scale ? 1 : 3; }
};

inline Options ParseOptions(const Config& c) {
  Options o;
  // Every integer option has an upper bound, so no value wraps or makes a
  // step or reset run for ever (noop_max = 2**31 - 1 once hung reset()).
  auto get_int = [&](const char* key, int64_t lo, int64_t hi) {
    const int64_t v = c.Get<int64_t>(key);
    if (v < lo || v > hi) {
      throw std::invalid_argument("Atari: " + std::string(key) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], got " + std::to_string(v));
    }
    return v;
  };
  o.task = c.Get<std::string>("task");
  o.stack_num = static_cast<int>(get_int("stack_num", 1, 64));
  o.frame_skip = static_cast<int>(get_int("frame_skip", 1, 1000));
  o.noop_max = static_cast<int>(get_int("noop_max", 0, 100000));
  o.img_height = static_cast<int>(get_int("img_height", 1, 16384));
  o.img_width = static_cast<int>(get_int("img_width", 1, 16384));
  o.mode = static_cast<int>(get_int("mode", -1, 1 << 20));
  o.difficulty = static_cast<int>(get_int("difficulty", -1, 1 << 20));
  // The engine's key (64-bit there); here it only bounds whole games.
  if (c.Has("max_episode_steps")) o.max_episode_steps = get_int("max_episode_steps", 0, INT64_MAX);
  o.episodic_life = c.Get<bool>("episodic_life");
  o.zero_discount_on_life_loss = c.Get<bool>("zero_discount_on_life_loss");
  o.reward_clip = c.Get<bool>("reward_clip");
  o.use_fire_reset = c.Get<bool>("use_fire_reset");
  o.gray_scale = c.Get<bool>("gray_scale");
  o.full_action_space = c.Get<bool>("full_action_space");
  o.use_inter_area_resize = c.Get<bool>("use_inter_area_resize");
  o.info_ram = c.Get<bool>("info_ram");
  o.repeat_action_probability = c.Get<double>("repeat_action_probability");
  if (!(o.repeat_action_probability >= 0.0 && o.repeat_action_probability <= 1.0)) {
    throw std::invalid_argument("Atari: repeat_action_probability must be in [0, 1], got " +
                                std::to_string(o.repeat_action_probability));
  }
  std::string rom_path = c.Has("rom_path") ? c.Get<std::string>("rom_path") : "";
  std::string rom_dir = c.Has("rom_dir") ? c.Get<std::string>("rom_dir") : "";
  if (rom_path.empty()) {
    if (o.task.empty()) throw std::invalid_argument("Atari: task is empty");
    if (rom_dir.empty()) {
      throw std::invalid_argument("Atari: no ROM directory given for task '" + o.task +
                                  "' (set rom_dir, or rom_path; envpool.tasks.atari fills rom_dir "
                                  "from ale_py.roms)");
    }
    rom_path = (std::filesystem::path(rom_dir) / (o.task + ".bin")).string();
    if (!std::filesystem::is_regular_file(rom_path)) {
      throw std::invalid_argument("Atari: unknown game '" + o.task + "': no ROM " + rom_path);
    }
  } else if (!std::filesystem::is_regular_file(rom_path)) {
    throw std::invalid_argument("Atari: ROM file not found: " + rom_path);
  }
  o.rom = rom_path;
  return o;
}

// What a ROM offers, probed once per ROM file and cached.
struct RomInfo {
  ale::ActionVect minimal, legal;
  std::vector<int> modes, difficulties;
  int default_mode = 0;
};

inline const RomInfo& ProbeRom(const std::string& rom) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<RomInfo>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(rom);
  if (it != cache.end()) return *it->second;
  // Identify the ROM by its MD5 as ALE does, without loading it (a loadROM
  // costs ~0.25 s, mostly ALE building its colour-blend tables). This also
  // guards loadROM, which exits the process on an unsupported ROM.
  std::ifstream file(rom, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) {
    throw std::invalid_argument("Atari: cannot read ROM " + rom);
  }
  const std::string md5 = ale::stella::MD5(bytes.data(), static_cast<uint32_t>(bytes.size()));
  std::unique_ptr<ale::RomSettings> settings(ale::buildRomRLWrapper(rom, md5));
  if (settings == nullptr || settings->md5() != md5) {
    throw std::invalid_argument("Atari: " + rom + " is not a ROM supported by ALE's single-player interface");
  }
  auto info = std::make_unique<RomInfo>();
  info->minimal = settings->getMinimalActionSet();
  info->legal = settings->getAllActions();
  for (auto m : settings->getAvailableModes()) {
    info->modes.push_back(static_cast<int>(m));
  }
  for (auto d : settings->getAvailableDifficulties()) {
    info->difficulties.push_back(static_cast<int>(d));
  }
  info->default_mode = static_cast<int>(settings->getDefaultMode());
  const RomInfo& ref = *info;
  cache.emplace(rom, std::move(info));
  return ref;
}

inline std::string JoinInts(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s;
}

// Full validation of a config: options plus the ROM's modes/difficulties.
inline Options CheckedOptions(const Config& c) {
  Options o = ParseOptions(c);
  const RomInfo& info = ProbeRom(o.rom);
  if (o.mode != -1 && std::find(info.modes.begin(), info.modes.end(), o.mode) == info.modes.end()) {
    throw std::invalid_argument("Atari: mode " + std::to_string(o.mode) + " is not available for '" + o.task +
                                "' (available: " + JoinInts(info.modes) + ")");
  }
  if (o.difficulty != -1 &&
      std::find(info.difficulties.begin(), info.difficulties.end(), o.difficulty) == info.difficulties.end()) {
    throw std::invalid_argument("Atari: difficulty " + std::to_string(o.difficulty) + " is not available for '" +
                                o.task + "' (available: " + JoinInts(info.difficulties) + ")");
  }
  return o;
}

inline const ale::ActionVect& ActionSet(const Options& o) {
  const RomInfo& info = ProbeRom(o.rom);
  return o.full_action_space ? info.legal : info.minimal;
}

// The env's keys; info:ram only with info_ram.
struct AtariSpec : EnvSpec {
  StateKey<uint8_t> obs;
  StateKey<int32_t> lives;
  StateKey<double> reward;
  StateKey<bool> terminated;
  StateKey<uint8_t> ram;
  ActionKey<int32_t> action;
  explicit AtariSpec(const Options& o)
      : obs(AddState<uint8_t>("obs", {o.stack_num * o.channels(), o.img_height, o.img_width}, {0.0}, {255.0})),
        lives(AddState<int32_t>("info:lives", {})),
        reward(AddState<double>("info:reward", {})),
        terminated(AddState<bool>("info:terminated", {})),
        ram(o.info_ram ? AddState<uint8_t>("info:ram", {128}, {0.0}, {255.0}) : StateKey<uint8_t>{}),
        action(AddAction<int32_t>("action", {}, {0.0}, {static_cast<double>(ActionSet(o).size()) - 1})) {}
};

inline EnvSpec MakeSpec(const Config& c) { return AtariSpec(CheckedOptions(c)); }

// ALE's random_seed is an int: fold the 64-bit seed into [0, 2^31).
inline int AleSeed(uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<int>(z & 0x7fffffffULL);
}

// Creates an ALE for the task seeded with `seed` (loads the ROM, applies
// sticky actions, mode and difficulty).
inline void LoadAle(ale::ALEInterface* ale, const Options& o, uint64_t seed) {
  ale->setInt("random_seed", AleSeed(seed));
  ale->setFloat("repeat_action_probability", static_cast<float>(o.repeat_action_probability));
  ale->loadROM(o.rom);
  if (o.mode != -1) ale->setMode(static_cast<ale::game_mode_t>(o.mode));
  if (o.difficulty != -1) {
    ale->setDifficulty(static_cast<ale::difficulty_t>(o.difficulty));
  }
  // Mode and difficulty take effect at the next reset_game().
}

class AtariEnv : public Env {
 public:
  // What FamilyOf reads (MakeFamily, below).
  static Config Defaults() { return DefaultConfig(); }
  static EnvSpec MakeSpec(const Config& c) { return atari::MakeSpec(c); }

  explicit AtariEnv(const Config& c) : AtariEnv(CheckedOptions(c)) {}

  explicit AtariEnv(Options o) : opt_(std::move(o)), spec_(opt_), ale_(NewAle()) {
    action_set_ = ActionSet(opt_);
    if (opt_.use_fire_reset) {
      fire_reset_ = std::find(action_set_.begin(), action_set_.end(), ale::PLAYER_A_FIRE) != action_set_.end();
    }
    const int c = opt_.channels();
    plane_ = static_cast<std::size_t>(opt_.img_height) * opt_.img_width;
    frame_ = plane_ * c;
    stack_.assign(frame_ * opt_.stack_num, 0);
    noop_dist_ = std::uniform_int_distribution<int>(1, std::max(1, opt_.noop_max));
    // The ROM is loaded by Seed() (the engine seeds every env before its
    // first reset), since ALE reads its random_seed at loadROM.
  }

  void Seed(uint64_t seed) override {
    rng_.seed(seed);
    Load(seed);
  }

  void Reset(const StateRow& out) override {
    if (!loaded_) Load(0);
    bool full = !continue_game_ || ale_->game_over(false);
    continue_game_ = false;
    if (full) {
      ale_->reset_game();
      game_steps_ = 0;
    }
    int noops = opt_.noop_max > 0 ? noop_dist_(rng_) : 0;
    if (fire_reset_ && noops > 0) --noops;
    for (int i = 0; i < noops; ++i) {
      ale_->act(ale::PLAYER_A_NOOP);
      if (ale_->game_over(false)) {
        ale_->reset_game();
        full = true;
      }
    }
    if (fire_reset_) {
      ale_->act(ale::PLAYER_A_FIRE);
      if (ale_->game_over(false)) {
        ale_->reset_game();
        full = true;
      }
    }
    CapturePooled(nullptr);
    PushFrame(full);
    lives_ = ale_->lives();
    WriteOut(out, 0.0, false);
  }

  // The emulator's current screen in RGB, as ale-py's getScreenRGB().
  std::array<int, 2> RenderSize() const override {
    return {static_cast<int>(ale_->getScreen().height()), static_cast<int>(ale_->getScreen().width())};
  }
  void Render(uint8_t* rgb) override {
    ale_->getScreenRGB(rgb_);
    std::memcpy(rgb, rgb_.data(), rgb_.size());
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    const int32_t a = action[spec_.action][0];
    if (a < 0 || a >= static_cast<int32_t>(action_set_.size())) {
      throw std::out_of_range("Atari: action " + std::to_string(a) + " is out of range [0, " +
                              std::to_string(action_set_.size()) + ")");
    }
    const ale::Action act = action_set_[a];
    double reward = 0.0;
    bool game_over = false;
    const int fs = opt_.frame_skip;
    // Frame pooling follows gymnasium's AtariPreprocessing: the frame before
    // the last is kept (as palette indices), the last one is max-pooled
    // with it into raw_ (the pooled frame). On a game over the loop stops
    // early and the pooled frame stays as it was (it already dominates the
    // reference's stale second buffer), except when the game ends on the
    // very last frame, where the fresh frame before it is pooled in.
    const bool pool = fs > 1;
    for (int t = 0; t < fs; ++t) {
      reward += ale_->act(act);
      if (ale_->game_over(false)) {
        game_over = true;
        if (pool && t == fs - 1) MaxIntoPooled(prev_idx_.data());
        break;
      }
      if (t == fs - 2) {
        std::memcpy(prev_idx_.data(), ale_->getScreen().getArray(), raw_size_);
      } else if (t == fs - 1) {
        CapturePooled(pool ? prev_idx_.data() : nullptr);
      }
    }
    PushFrame(false);
    const int lives = ale_->lives();
    const bool life_lost = lives < lives_;
    // EnvPool's rule: a life loss ends the episode only while lives remain.
    const bool life_episode_over = opt_.episodic_life && life_lost && lives > 0;
    lives_ = lives;
    StepResult r;
    r.terminated = game_over || life_episode_over;
    continue_game_ = life_episode_over && !game_over;
    // With episodic life the engine's step count restarts at every life;
    // max_episode_steps still bounds the whole game (as in EnvPool): count
    // the game's steps here and truncate, then fully reset.
    ++game_steps_;
    if (opt_.episodic_life && opt_.max_episode_steps > 0 && game_steps_ >= opt_.max_episode_steps) {
      r.truncated = true;
      continue_game_ = false;
    }
    if (opt_.zero_discount_on_life_loss && life_lost) r.discount = 0.0f;
    r.reward = opt_.reward_clip ? static_cast<double>((reward > 0) - (reward < 0)) : reward;
    WriteOut(out, reward, game_over);
    return r;
  }

  const Options& options() const { return opt_; }

 private:
  // Puts ALE in the state of a fresh loadROM with random_seed AleSeed(seed).
  // The ROM is loaded once (a load costs ~0.25 s); later reseeds restore
  // the emulator snapshot taken right after that load (the emulator's own
  // RNG included) and reseed ALE's sticky-action RNG as loadROM would.
  void Load(uint64_t seed) {
    continue_game_ = false;
    if (loaded_) {
      ale_->restoreState(fresh_state_);
      ale_->environment->getEnvironmentRNG().seed(static_cast<uint32_t>(AleSeed(seed)));
      return;
    }
    LoadAle(ale_.get(), opt_, seed);
    fresh_state_ = ale_->cloneState(/*include_rng=*/false);
    loaded_ = true;
    // Most games are 210x160, a few (e.g. Adventure) are taller.
    const auto& scr = ale_->getScreen();
    const int h = static_cast<int>(scr.height());
    const int w = static_cast<int>(scr.width());
    if (h != resizer_.src_h() || w != resizer_.src_w()) {
      raw_size_ = static_cast<std::size_t>(h) * w;
      raw_.assign(raw_size_ * opt_.channels(), 0);
      prev_idx_.assign(raw_size_, 0);
      resizer_ =
          Resizer(h, w, opt_.img_height, opt_.img_width, opt_.use_inter_area_resize ? Interp::kArea : Interp::kLinear);
    }
    BuildPalette();
  }

  void BuildPalette() {
    // Per-index lookup tables through ALE's own palette conversion.
    uint8_t idx[256];
    for (int i = 0; i < 256; ++i) idx[i] = static_cast<uint8_t>(i);
    auto& palette = ale_->theOSystem->colourPalette();
    uint8_t gray[256];
    palette.applyPaletteGrayscale(gray, idx, 256);
    uint8_t rgb[3 * 256];
    palette.applyPaletteRGB(rgb, idx, 256);
    uint8_t plane[256];
    for (int ch = 0; ch < 3; ++ch) {
      for (int i = 0; i < 256; ++i) plane[i] = rgb[3 * i + ch];
      rgb_lut_[ch].Set(plane);
    }
    gray_lut_.Set(gray);
  }

  // raw_ = the current screen as planes (gray, or R, G, B); with `prev`
  // (palette indices of the previous frame), the elementwise max of both.
  void CapturePooled(const uint8_t* prev) {
    const uint8_t* src = ale_->getScreen().getArray();
    if (prev == nullptr) prev = src;  // max(x, x) = x
    for (int ch = 0; ch < opt_.channels(); ++ch) {
      const PaletteLut& lut = opt_.gray_scale ? gray_lut_ : rgb_lut_[ch];
      PaletteMax(lut, src, prev, raw_.data() + ch * raw_size_, raw_size_);
    }
  }

  // raw_ = max(raw_, colours of the palette-index frame `idx`).
  void MaxIntoPooled(const uint8_t* idx) {
    for (int ch = 0; ch < opt_.channels(); ++ch) {
      const uint8_t* lut = opt_.gray_scale ? gray_lut_.full : rgb_lut_[ch].full;
      uint8_t* d = raw_.data() + ch * raw_size_;
      for (std::size_t i = 0; i < raw_size_; ++i) {
        d[i] = std::max(d[i], lut[idx[i]]);
      }
    }
  }

  // Resizes the pooled frame (raw_) into the stack's next slot (or into every slot).
  void PushFrame(bool fill_all) {
    uint8_t* slot = stack_.data() + frame_ * head_;
    for (int ch = 0; ch < opt_.channels(); ++ch) {
      resizer_.Run(raw_.data() + ch * raw_size_, slot + ch * plane_);
    }
    head_ = (head_ + 1) % opt_.stack_num;  // head_ is now the oldest slot
    if (fill_all) {
      for (int i = 0; i < opt_.stack_num; ++i) {
        uint8_t* s = stack_.data() + frame_ * i;
        if (s != slot) std::memcpy(s, slot, frame_);
      }
    }
  }

  void WriteOut(const StateRow& out, double raw_reward, bool game_over) {
    uint8_t* obs = out[spec_.obs];
    const std::size_t first = frame_ * head_;  // oldest .. end of buffer
    std::memcpy(obs, stack_.data() + first, stack_.size() - first);
    std::memcpy(obs + (stack_.size() - first), stack_.data(), first);
    out[spec_.lives][0] = lives_;
    out[spec_.reward][0] = raw_reward;
    out[spec_.terminated][0] = game_over;
    if (opt_.info_ram) {
      const ale::ALERAM& ram = ale_->getRAM();
      std::memcpy(out[spec_.ram], ram.array(), std::min<std::size_t>(ram.size(), 128));
    }
  }

  Options opt_;
  AtariSpec spec_;
  std::vector<unsigned char> rgb_;  // Render()'s scratch
  std::unique_ptr<ale::ALEInterface> ale_;
  bool loaded_ = false;
  ale::ALEState fresh_state_;  // right after the ROM load
  ale::ActionVect action_set_;
  bool fire_reset_ = false;
  bool continue_game_ = false;
  int64_t game_steps_ = 0;  // agent steps since the last full reset
  int lives_ = 0;
  std::size_t raw_size_ = 0, plane_ = 0, frame_ = 0;
  std::vector<uint8_t> raw_;       // the pooled frame, as planes
  std::vector<uint8_t> prev_idx_;  // palette indices of frame fs-2
  PaletteLut gray_lut_;
  PaletteLut rgb_lut_[3];
  Resizer resizer_;
  std::vector<uint8_t> stack_;  // stack_num frames, ring buffer
  int head_ = 0;
  std::uniform_int_distribution<int> noop_dist_;
};

// A bare ALE for the raw speed ceiling: one agent step = frame_skip act()s
// with a random minimal action, no preprocessing, reset on game over.
inline std::function<void()> MakeRawStepper(const Config& c, uint64_t seed) {
  Options o = CheckedOptions(c);
  std::shared_ptr<ale::ALEInterface> ale = NewAle();
  LoadAle(ale.get(), o, seed);
  ale->reset_game();
  ale::ActionVect actions = ActionSet(o);
  auto rng = std::make_shared<std::mt19937_64>(seed);
  const int fs = o.frame_skip;
  return [ale, actions, rng, fs] {
    const ale::Action a = actions[std::uniform_int_distribution<std::size_t>(0, actions.size() - 1)(*rng)];
    for (int t = 0; t < fs; ++t) {
      ale->act(a);
      if (ale->game_over(false)) {
        ale->reset_game();
        break;
      }
    }
  };
}

inline Family MakeFamily() {
  Family f = FamilyOf<AtariEnv>("Atari", "atari", "envpool.tasks.atari");
  f.make_raw_stepper = &MakeRawStepper;
  return f;
}

}  // namespace envpool::atari

#endif  // ENVPOOL_ATARI_ATARI_ENV_H_
