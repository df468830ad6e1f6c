// What the toy-text envs share: gymnasium's tabular model (a table
// P[s][a] of (prob, next state, reward, terminated) outcomes, sampled as
// gymnasium's categorical_sample samples it), the env's random draws, and
// their optional report (report_draws=True) so that a test can replay them
// into gymnasium's env through a stand-in for its np_random.
#ifndef ENVPOOL_TOY_TEXT_COMMON_H_
#define ENVPOOL_TOY_TEXT_COMMON_H_

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/core/env.h"

namespace envpool::toy_text {

// The most draws one Reset or Step makes: Blackjack's stick, where the
// dealer draws at most 10 cards (A A A A A A 6 A A A A A, counted by
// enumeration); its reset draws 6 (4 cards, a suit, a face).
constexpr int kMaxDraws = 16;

class ToyTextEnv : public Env {
 public:
  // info["draws"] (float64[kMaxDraws]) and info["num_draws"] (int32): this
  // Reset's or Step's draws in gymnasium's call order, a uniform in [0, 1)
  // where gymnasium calls np_random.random() and an index where it calls
  // np_random.choice(seq) (it picks seq[index]); unused slots are 0.
  struct DrawKeys {
    StateKey<double> draws;
    StateKey<int32_t> num_draws;
  };
  static DrawKeys AddDrawKeys(EnvSpec& spec, const Config& c) {
    if (!c.Get<bool>("report_draws")) return {};
    DrawKeys k;
    k.draws = spec.AddState<double>("info:draws", {kMaxDraws});
    k.num_draws = spec.AddState<int32_t>("info:num_draws", {}, {0}, {kMaxDraws});
    return k;
  }

 protected:
  // gymnasium's np_random.random(): here 53 random bits, exactly in [0, 1).
  double Random() {
    const double u = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
    Record(u);
    return u;
  }
  // gymnasium's np_random.choice(seq) for a seq of n items: the index.
  int Choice(int n) {
    const int i = std::uniform_int_distribution<int>(0, n - 1)(rng_);
    Record(i);
    return i;
  }
  void ClearDraws() { num_draws_ = 0; }
  void WriteDraws(const StateRow& out, const DrawKeys& k) const {
    if (k.draws.index < 0) return;
    double* d = out[k.draws];
    for (int i = 0; i < kMaxDraws; ++i) d[i] = i < num_draws_ ? draws_[i] : 0.0;
    *out[k.num_draws] = num_draws_;
  }

 private:
  void Record(double v) {
    if (num_draws_ >= kMaxDraws) throw std::logic_error("toy_text: more than kMaxDraws draws in one step");
    draws_[num_draws_++] = v;
  }
  double draws_[kMaxDraws] = {};
  int num_draws_ = 0;
};

// One outcome of P[s][a], as gymnasium's tuple (prob, next_state, reward, terminated).
struct Outcome {
  double p;
  int s;
  double r;
  bool t;
};

// gymnasium's P as flat arrays: the outcomes of (s, a) are
// outcomes[start[s * nA + a] .. start[s * nA + a + 1]).
class Table {
 public:
  Table() = default;
  Table(int num_states, int num_actions) : na_(num_actions), start_(1, 0) {
    start_.reserve(static_cast<std::size_t>(num_states) * num_actions + 1);
  }
  // Outcomes are added state by state, action by action.
  void Add(const Outcome& o) { outcomes_.push_back(o); }
  void EndAction() { start_.push_back(static_cast<int>(outcomes_.size())); }

  // categorical_sample([o.p for o in P[s][a]], u): np.argmax(np.cumsum(p) > u),
  // 0 where no partial sum exceeds u (argmax of all False).
  const Outcome& Sample(int s, int a, double u) const {
    const int b = start_[s * na_ + a], e = start_[s * na_ + a + 1];
    double c = 0.0;
    for (int i = b; i < e; ++i) {
      c += outcomes_[i].p;
      if (c > u) return outcomes_[i];
    }
    return outcomes_[b];
  }

 private:
  int na_ = 0;
  std::vector<int> start_;
  std::vector<Outcome> outcomes_;
};

// categorical_sample(initial_state_distrib, u) with the distribution's
// cumulative sums precomputed (np.cumsum adds in order, as here).
class Initial {
 public:
  Initial() = default;
  explicit Initial(const std::vector<double>& dist) {
    double c = 0.0;
    for (double p : dist) cumsum_.push_back(c += p);
  }
  int Sample(double u) const {
    auto it = std::upper_bound(cumsum_.begin(), cumsum_.end(), u);
    return it == cumsum_.end() ? 0 : static_cast<int>(it - cumsum_.begin());
  }

 private:
  std::vector<double> cumsum_;
};

// A tabular env's model: P and the initial-state distribution.
struct Model {
  Table table;
  Initial initial;
};

// Models are shared by every env of the process built from the same
// parameters (key): a pool of thousands of Taxis holds one table, not
// thousands. build() runs once per key while an env holds its model.
template <class Build>
std::shared_ptr<const Model> SharedModel(const std::string& key, Build build) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<const Model>> cache;
  static std::size_t next_sweep = 64;
  std::lock_guard<std::mutex> lock(mu);
  if (auto m = cache[key].lock()) return m;
  auto m = std::make_shared<const Model>(build());
  cache[key] = m;
  // Forget the models no env holds any more, now and then (amortised O(1)).
  if (cache.size() >= next_sweep) {
    for (auto it = cache.begin(); it != cache.end();) it = it->second.expired() ? cache.erase(it) : std::next(it);
    next_sweep = 2 * cache.size() + 64;
  }
  return m;
}

inline void CheckProbability(const Config& c, const std::string& key) {
  const double p = c.Get<double>(key);
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument(key + " must be in [0, 1], got " + std::to_string(p));
}

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_COMMON_H_
