// What several env families share: the fixed start pose option
// (agent_start_pos: [] for minigrid's None, or [x, y]; agent_start_dir) and
// the object kinds minigrid names as strings.
#ifndef ENVPOOL_MINIGRID_ENVS_COMMON_H_
#define ENVPOOL_MINIGRID_ENVS_COMMON_H_

#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/minigrid/minigrid_env.h"

namespace envpool::minigrid {

inline Pos StartOf(const Config& c) {
  const auto& v = c.Get<std::vector<double>>("agent_start_pos");
  if (v.empty()) return {-1, -1};
  return {static_cast<int>(v[0]), static_cast<int>(v[1])};
}

inline void CheckStart(const Config& c, int width, int height) {
  const auto& v = c.Get<std::vector<double>>("agent_start_pos");
  if (!v.empty()) {
    if (v.size() != 2 || v[0] < 1 || v[1] < 1 || v[0] > width - 2 || v[1] > height - 2 ||
        v[0] != static_cast<int>(v[0]) || v[1] != static_cast<int>(v[1]))
      throw std::invalid_argument("minigrid: agent_start_pos must be None or (x, y) inside the walls");
  }
  CheckInt(c, "agent_start_dir", 0, 3);
}

// minigrid's "key", "ball", "box" (the order of its type lists).
inline Type ObjTypeOf(const std::string& s) {
  if (s == "key") return kKey;
  if (s == "ball") return kBall;
  if (s == "box") return kBox;
  throw std::invalid_argument("minigrid: object type must be 'key', 'ball' or 'box', got '" + s + "'");
}

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_ENVS_COMMON_H_
