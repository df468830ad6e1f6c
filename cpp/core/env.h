// The interface an environment family implements.
//
// An env writes its observation and info straight into its row of the batch
// buffer (no intermediate copy) through out[key], with the typed StateKey
// handles its EnvSpec handed out, and reads its action through
// action[key] (ActionKey handles). Batch memory is recycled, so every Reset and Step must
// write every state key of its row. Episode bookkeeping (elapsed steps, max_episode_steps
// truncation, autoreset, env ids) belongs to the engine, not to the env.
#ifndef ENVPOOL_CORE_ENV_H_
#define ENVPOOL_CORE_ENV_H_

#include <array>
#include <cstdint>
#include <memory>
#include <random>

#include "cpp/core/spec.h"

namespace envpool {

// Lets the engine choose an env's row only when the env first writes to it.
// In async mode a batch is the first batch_size envs to *finish*, so the
// row is claimed after the env has simulated, at its first write (out[key]).
struct RowClaim {
  bool claimed = true;
  void (*claim)(RowClaim*) = nullptr;  // fills the row pointers, sets claimed
};

// Pointers to one env's row in each state array of the batch. Envs write
// their outputs after simulating (the row is claimed at the first write).
class StateRow {
 public:
  explicit StateRow(char* const* ptrs, RowClaim* claim = nullptr, KeyTypes types = {})
      : ptrs_(ptrs), claim_(claim), types_(types) {}
  template <class T>
  T* operator[](StateKey<T> key) const {
    types_.Check(key.index, DTypeOf<T>(), "state");
    if (claim_ != nullptr && !claim_->claimed) claim_->claim(claim_);
    return reinterpret_cast<T*>(ptrs_[key.index]);
  }

 private:
  char* const* ptrs_;
  RowClaim* claim_;
  KeyTypes types_;
};

// Pointers to one env's action, one per action key.
class ActionRow {
 public:
  explicit ActionRow(const char* const* ptrs, KeyTypes types = {}) : ptrs_(ptrs), types_(types) {}
  template <class T>
  const T* operator[](ActionKey<T> key) const {
    types_.Check(key.index, DTypeOf<T>(), "action");
    return reinterpret_cast<const T*>(ptrs_[key.index]);
  }

 private:
  const char* const* ptrs_;
  KeyTypes types_;
};

struct StepResult {
  double reward = 0.0;
  bool terminated = false;
  // An env's own truncation; the engine adds max_episode_steps on top.
  bool truncated = false;
  // Discount for dm_env (e.g. 0 on an Atari life loss with
  // zero_discount_on_life_loss); the engine also zeroes it on termination.
  float discount = 1.0f;
};

class Env {
 public:
  virtual ~Env() = default;

  // Re-seed the env's randomness; called before the first reset and when a
  // user reseeds. Override to seed an emulator or simulator as well.
  virtual void Seed(uint64_t seed) { rng_.seed(seed); }

  // Begin an episode and write the first observation and info.
  virtual void Reset(const StateRow& out) = 0;

  // Advance one step, writing observation and info. Write them after the
  // simulation: the first write claims the env's row of the batch. A
  // std::invalid_argument thrown here reaches Python as ValueError, a
  // std::out_of_range as IndexError, a std::bad_alloc as MemoryError,
  // anything else as RuntimeError (errors.h's table, on every path).
  virtual StepResult Step(const ActionRow& action, const StateRow& out) = 0;

  // A hint that the env's next call (on this thread or, in a later task, on
  // another) is Step(*action) (or, with action null, a Reset, seeded with
  // *seed when seed is not null): an env whose work runs elsewhere (another
  // process) starts it here, and the Step/Reset that follows waits for it.
  // Families that set Family::steps_elsewhere get it for every env of a
  // call (or a send) before the first Step/Reset. What goes wrong is
  // reported by that Step/Reset.
  virtual void Prepare(const ActionRow* action, const uint64_t* seed) { (void)action, (void)seed; }

  // Rendering (render_mode="rgb_array"). RenderSize() is the frame's
  // {height, width}, fixed for the env's life ({0, 0}: the env cannot
  // render). Render() draws the current state into rgb, height x width x 3
  // uint8, row-major. It runs on a stepping thread, never concurrently with
  // the env's Reset/Step; an env that needs a per-thread graphics context
  // (MuJoCo's) creates it there.
  virtual std::array<int, 2> RenderSize() const { return {0, 0}; }
  virtual void Render(uint8_t* rgb) { (void)rgb; }

 protected:
  std::mt19937_64 rng_;
};

}  // namespace envpool

#endif  // ENVPOOL_CORE_ENV_H_
