// Test driver for cpp/minigrid/babyai (tests/families/babyai/test_babyai_levels.py):
// runs one BabyAI level outside the pool and prints what minigrid's env would
// show, so that the test can compare it line for line with minigrid 3.2.
//
//   env KEY=T:VALUE ...   a new env (T: i int, d double, b bool, s string)
//   reset [SEED]          reset (seeded when SEED is given)
//   step A                step with action A
// Each reset / step prints one line: mission|direction|image hex|x,y|
// reward bits (hex)|terminated|truncated|max_steps.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cpp/minigrid/babyai/level.h"

using envpool::minigrid::babyai::BabyAIEnv;

namespace {

class Probe : public BabyAIEnv {
 public:
  using BabyAIEnv::BabyAIEnv;
  void Print(const envpool::EnvSpec& spec, const std::vector<std::vector<char>>& bufs, double reward, bool term,
             bool trunc) const {
    std::string out = mission() + "|";
    int dir = 0;
    std::string image;
    for (std::size_t k = 0; k < spec.state.size(); ++k) {
      const std::string& name = spec.state[k].name;
      if (name == "obs:direction") std::memcpy(&dir, bufs[k].data(), sizeof(int));
      if (name == "obs:image") {
        int n = 1;
        for (int d : spec.state[k].shape) n *= d;
        char hex[3];
        for (int i = 0; i < n; ++i) {
          std::snprintf(hex, sizeof(hex), "%02x", static_cast<unsigned char>(bufs[k][i]));
          image += hex;
        }
      }
    }
    uint64_t bits;
    std::memcpy(&bits, &reward, sizeof(bits));
    std::printf("%s%d|%s|%d,%d|%016llx|%d|%d|%lld\n", out.c_str(), dir, image.c_str(), agent_pos().x, agent_pos().y,
                static_cast<unsigned long long>(bits), term ? 1 : 0, trunc ? 1 : 0,
                static_cast<long long>(max_steps()));
  }
};

}  // namespace

int main() {
  std::unique_ptr<Probe> env;
  envpool::EnvSpec spec;
  std::vector<std::vector<char>> bufs;
  std::vector<char*> ptrs;
  int32_t action = 0;
  const char* aptr = reinterpret_cast<const char*>(&action);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string op;
    in >> op;
    if (op == "env") {
      envpool::Config c = BabyAIEnv::Defaults();
      std::string kv;
      while (in >> kv) {
        const auto eq = kv.find('=');
        const std::string key = kv.substr(0, eq), t = kv.substr(eq + 1, 1), v = kv.substr(eq + 3);
        if (t == "i") c.Set(key, static_cast<int64_t>(std::stoll(v)));
        if (t == "d") c.Set(key, std::stod(v));
        if (t == "b") c.Set(key, v == "1");
        if (t == "s") c.Set(key, v);
      }
      spec = BabyAIEnv::MakeSpec(c);
      env = std::make_unique<Probe>(c);
      bufs.assign(spec.state.size(), std::vector<char>(1 << 16));
      ptrs.clear();
      for (auto& b : bufs) ptrs.push_back(b.data());
    } else if (op == "reset") {
      uint64_t seed;
      if (in >> seed) env->Seed(seed);
      env->Reset(envpool::StateRow(ptrs.data()));
      env->Print(spec, bufs, 0.0, false, false);
    } else if (op == "step") {
      in >> action;
      auto r = env->Step(envpool::ActionRow(&aptr), envpool::StateRow(ptrs.data()));
      env->Print(spec, bufs, r.reward, r.terminated, r.truncated);
    }
  }
  return 0;
}
