// minigrid's world objects (core/world_object.py, core/constants.py): the
// types, colors and door states as minigrid encodes them, and what each type
// lets the agent do.
#ifndef ENVPOOL_MINIGRID_CORE_WORLD_OBJECT_H_
#define ENVPOOL_MINIGRID_CORE_WORLD_OBJECT_H_

#include <array>
#include <cstdint>

namespace envpool::minigrid {

// OBJECT_TO_IDX.
enum Type : uint8_t {
  kUnseen = 0,
  kEmpty = 1,
  kWall = 2,
  kFloor = 3,
  kDoor = 4,
  kKey = 5,
  kBall = 6,
  kBox = 7,
  kGoal = 8,
  kLava = 9,
  kAgent = 10
};
// COLOR_TO_IDX.
enum Color : uint8_t { kRed = 0, kGreen = 1, kBlue = 2, kPurple = 3, kYellow = 4, kGrey = 5 };
// COLOR_NAMES: the color names sorted alphabetically (the order minigrid's
// _rand_color and _rand_elem(COLOR_NAMES) index).
constexpr std::array<Color, 6> kColorNames = {kBlue, kGreen, kGrey, kPurple, kRed, kYellow};
// COLORS, by color index.
constexpr uint8_t kColorRgb[6][3] = {{255, 0, 0},    {0, 255, 0},   {0, 0, 255},
                                     {112, 39, 195}, {255, 255, 0}, {100, 100, 100}};
// DIR_TO_VEC.
constexpr int kDirVec[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};

inline const char* ColorName(Color c) {
  static constexpr const char* kNames[6] = {"red", "green", "blue", "purple", "yellow", "grey"};
  return kNames[c];
}
inline const char* TypeName(Type t) {
  static constexpr const char* kNames[11] = {"unseen", "empty", "wall", "floor", "door", "key",
                                             "ball",   "box",   "goal", "lava",  "agent"};
  return kNames[t];
}

struct Pos {
  int x = -1, y = -1;
  bool operator==(const Pos& o) const { return x == o.x && y == o.y; }
  bool operator!=(const Pos& o) const { return !(*this == o); }
};

// One object. Objects are compared by identity (minigrid compares them with
// `is` / `==`, which is identity for WorldObj), so envs hold pointers.
struct Obj {
  Type type = kEmpty;
  Color color = kRed;
  bool is_open = false;
  bool is_locked = false;
  // A Box's content (Box.contains), which toggling the box puts in its cell.
  Obj* contains = nullptr;
  Pos cur_pos;

  bool CanOverlap() const { return type == kGoal || type == kFloor || type == kLava || (type == kDoor && is_open); }
  bool CanPickup() const { return type == kKey || type == kBall || type == kBox; }
  bool SeeBehind() const { return type != kWall && !(type == kDoor && !is_open); }
  // The third channel of encode(): a door's open (0) / closed (1) / locked (2).
  uint8_t State() const {
    if (type != kDoor) return 0;
    return is_open ? 0 : (is_locked ? 2 : 1);
  }
};

}  // namespace envpool::minigrid

#endif  // ENVPOOL_MINIGRID_CORE_WORLD_OBJECT_H_
