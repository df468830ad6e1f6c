// BabyAI's levels (minigrid/envs/babyai/): RoomGridLevel's generate-until-
// accepted loop, its step (the instruction verifier decides success), the
// level generator (LevelGen: random instructions over random objects) and
// every level's gen_mission, drawing from numpy's Generator in minigrid's
// order. One env class; the "level" option picks the gen_mission and the
// other options are the level classes' keyword arguments.
#ifndef ENVPOOL_MINIGRID_BABYAI_LEVEL_H_
#define ENVPOOL_MINIGRID_BABYAI_LEVEL_H_

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpp/minigrid/babyai/verifier.h"
#include "cpp/minigrid/core/roomgrid.h"

namespace envpool::minigrid::babyai {

// minigrid's RejectSampling and RecursionError: both make RoomGridLevel
// generate the level again (from the generator's current state).
struct Retry : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Level : int {
  kGoToRedBallGrey,
  kGoToRedBall,
  kGoToObj,
  kGoToLocal,
  kGoTo,
  kGoToImpUnlock,
  kGoToRedBlueBall,
  kGoToDoor,
  kGoToObjDoor,
  kOpen,
  kOpenRedDoor,
  kOpenDoor,
  kOpenTwoDoors,
  kOpenDoorsOrder,
  kPickup,
  kUnblockPickup,
  kPickupDist,
  kPickupAbove,
  kPutNextLocal,
  kPutNext,
  kUnlock,
  kUnlockLocal,
  kKeyInBox,
  kUnlockPickup,
  kBlockedUnlockPickup,
  kUnlockToUnlock,
  kActionObjDoor,
  kFindObj,
  kKeyCorridor,
  kOneRoom,
  kMoveTwoAcross,
  kLevelGen,  // GoToSeq, PickupLoc, Synth*, *BossLevel*
};

inline Level LevelByName(const std::string& name) {
  static const std::map<std::string, Level> kLevels = {
      {"GoToRedBallGrey", Level::kGoToRedBallGrey},
      {"GoToRedBall", Level::kGoToRedBall},
      {"GoToObj", Level::kGoToObj},
      {"GoToLocal", Level::kGoToLocal},
      {"GoTo", Level::kGoTo},
      {"GoToImpUnlock", Level::kGoToImpUnlock},
      {"GoToRedBlueBall", Level::kGoToRedBlueBall},
      {"GoToDoor", Level::kGoToDoor},
      {"GoToObjDoor", Level::kGoToObjDoor},
      {"Open", Level::kOpen},
      {"OpenRedDoor", Level::kOpenRedDoor},
      {"OpenDoor", Level::kOpenDoor},
      {"OpenTwoDoors", Level::kOpenTwoDoors},
      {"OpenDoorsOrder", Level::kOpenDoorsOrder},
      {"Pickup", Level::kPickup},
      {"UnblockPickup", Level::kUnblockPickup},
      {"PickupDist", Level::kPickupDist},
      {"PickupAbove", Level::kPickupAbove},
      {"PutNextLocal", Level::kPutNextLocal},
      {"PutNext", Level::kPutNext},
      {"Unlock", Level::kUnlock},
      {"UnlockLocal", Level::kUnlockLocal},
      {"KeyInBox", Level::kKeyInBox},
      {"UnlockPickup", Level::kUnlockPickup},
      {"BlockedUnlockPickup", Level::kBlockedUnlockPickup},
      {"UnlockToUnlock", Level::kUnlockToUnlock},
      {"ActionObjDoor", Level::kActionObjDoor},
      {"FindObj", Level::kFindObj},
      {"KeyCorridor", Level::kKeyCorridor},
      {"OneRoom", Level::kOneRoom},
      {"MoveTwoAcross", Level::kMoveTwoAcross},
      {"LevelGen", Level::kLevelGen},
  };
  auto it = kLevels.find(name);
  if (it == kLevels.end()) throw std::invalid_argument("babyai: unknown level '" + name + "'");
  return it->second;
}

// A color option: "" is None.
inline int ColorByName(const std::string& name) {
  if (name.empty()) return -1;
  for (int c = 0; c < 6; ++c)
    if (name == ColorName(static_cast<Color>(c))) return c;
  throw std::invalid_argument("babyai: unknown color '" + name + "'");
}

// A comma-separated list option (LevelGen's action_kinds / instr_kinds).
inline std::vector<std::string> SplitKinds(const std::string& s, const std::vector<std::string>& allowed) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(',', start);
    if (end == std::string::npos) end = s.size();
    std::string k = s.substr(start, end - start);
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
      throw std::invalid_argument("babyai: unknown kind '" + k + "'");
    out.push_back(k);
    start = end + 1;
  }
  return out;
}

class BabyAIEnv : public RoomGridEnv {
 public:
  static constexpr int kNumActions = 7;

  static Config Defaults() {
    Config c = BaseDefaults(0, false);
    c.Set("mission_bytes", int64_t{512});
    for (auto& [k, v] :
         std::vector<std::pair<std::string, ConfigValue>>{{"level", std::string("GoToLocal")},
                                                          {"room_size", int64_t{8}},
                                                          {"num_rows", int64_t{3}},
                                                          {"num_cols", int64_t{3}},
                                                          {"num_dists", int64_t{18}},
                                                          {"doors_open", false},
                                                          {"debug", false},
                                                          {"select_by", std::string("")},
                                                          {"first_color", std::string("")},
                                                          {"second_color", std::string("")},
                                                          {"strict", false},
                                                          {"num_doors", int64_t{2}},
                                                          {"distractors", false},
                                                          {"start_carrying", false},
                                                          {"obj_type", std::string("ball")},
                                                          {"locked_room_prob", 0.5},
                                                          {"locations", true},
                                                          {"unblocking", true},
                                                          {"implicit_unlock", true},
                                                          {"action_kinds", std::string("goto,pickup,open,putnext")},
                                                          {"instr_kinds", std::string("action,and,seq")}})
      c.Set(k, v);
    return c;
  }

  // minigrid's max_steps=None is max_episode_steps 0 here: the level sets its
  // own limit at each reset (num_navs * room_size^2 * rooms). The engine's
  // MiniGridEnv wants a positive value, which Reset replaces.
  static Config ForBase(const Config& c) {
    Config out = c;
    if (c.Get<int64_t>("max_episode_steps") == 0) out.Set("max_episode_steps", int64_t{1});
    return out;
  }
  static void Check(const Config& c) {
    CheckRooms(c);
    LevelByName(c.Get<std::string>("level"));
    if (c.Get<int64_t>("max_episode_steps") < 0)
      throw std::invalid_argument("babyai: max_steps must be >= 0 (0: the level's own limit)");
    CheckInt(c, "num_dists", 0, 1000);
    CheckInt(c, "num_doors", 1, 4);
    ColorByName(c.Get<std::string>("first_color"));
    ColorByName(c.Get<std::string>("second_color"));
    const std::string sel = c.Get<std::string>("select_by");
    if (!sel.empty() && sel != "color" && sel != "loc")
      throw std::invalid_argument("babyai: select_by must be '', 'color' or 'loc'");
    SplitKinds(c.Get<std::string>("action_kinds"), {"goto", "pickup", "open", "putnext"});
    SplitKinds(c.Get<std::string>("instr_kinds"), {"action", "and", "seq"});
  }
  static EnvSpec MakeSpec(const Config& c) {
    Check(c);
    const Config b = ForBase(c);
    return MiniGridEnv::Spec(b, kNumActions, std::max(GridWidth(c), GridHeight(c)));
  }

  explicit BabyAIEnv(const Config& c)
      : RoomGridEnv((Check(c), ForBase(c))),
        level_(LevelByName(c.Get<std::string>("level"))),
        fixed_max_steps_(c.Get<int64_t>("max_episode_steps")),
        num_dists_(c.Get<int>("num_dists")),
        doors_open_(c.Get<bool>("doors_open")),
        debug_(c.Get<bool>("debug")),
        select_by_(c.Get<std::string>("select_by")),
        first_color_(ColorByName(c.Get<std::string>("first_color"))),
        second_color_(ColorByName(c.Get<std::string>("second_color"))),
        strict_(c.Get<bool>("strict")),
        num_doors_(c.Get<int>("num_doors")),
        distractors_(c.Get<bool>("distractors")),
        start_carrying_(c.Get<bool>("start_carrying")),
        obj_type_(c.Get<std::string>("obj_type") == "key"   ? kKey
                  : c.Get<std::string>("obj_type") == "box" ? kBox
                                                            : kBall),
        locked_room_prob_(c.Get<double>("locked_room_prob")),
        locations_(c.Get<bool>("locations")),
        unblocking_(c.Get<bool>("unblocking")),
        implicit_unlock_(c.Get<bool>("implicit_unlock")),
        action_kinds_(SplitKinds(c.Get<std::string>("action_kinds"), {"goto", "pickup", "open", "putnext"})),
        instr_kinds_(SplitKinds(c.Get<std::string>("instr_kinds"), {"action", "and", "seq"})) {
    // Levels whose __init__ fills max_steps=None with a fixed formula.
    if (fixed_max_steps_ == 0) {
      const int64_t rs2 = static_cast<int64_t>(room_size_) * room_size_;
      switch (level_) {
        case Level::kPickupAbove:
        case Level::kPutNext:
          fixed_max_steps_ = 8 * rs2;
          break;
        case Level::kOpenTwoDoors:
        case Level::kOpenDoorsOrder:
        case Level::kFindObj:
          fixed_max_steps_ = 20 * rs2;
          break;
        case Level::kBlockedUnlockPickup:
        case Level::kMoveTwoAcross:
          fixed_max_steps_ = 16 * rs2;
          break;
        case Level::kUnlockToUnlock:
        case Level::kKeyCorridor:
          fixed_max_steps_ = 30 * rs2;
          break;
        default:  // UnlockPickup too: its `if max is None` never fires
          break;
      }
    }
  }

  // RoomGridLevel.reset: the verifier starts afresh and, unless max_steps
  // was fixed, the limit follows the instruction (navigations needed) and
  // the maze size. PutNext(start_carrying) then lifts its object, after
  // the observation was made (minigrid returns the one from before), and
  // leaves its cur_pos as it was.
  void Reset(const StateRow& out) override {
    MiniGridEnv::Reset(out);
    instrs_->ResetVerifier(Scene());
    max_steps_ = fixed_max_steps_ > 0
                     ? fixed_max_steps_
                     : static_cast<int64_t>(instrs_->NumNavs()) * room_size_ * room_size_ * num_rows_ * num_cols_;
    if (level_ == Level::kPutNext && start_carrying_) {
      grid_.Set(obj_a_init_.x, obj_a_init_.y, nullptr);
      carrying_ = obj_a_;
    }
  }

  const std::string& mission() const { return mission_; }
  int64_t max_steps() const { return max_steps_; }
  Pos agent_pos() const { return agent_pos_; }
  int agent_dir() const { return agent_dir_; }

 protected:
  babyai::Scene Scene() const { return {&grid_, agent_pos_, agent_dir_, room_size_, carrying_}; }

  // RoomGridLevel.step.
  StepResult StepAction(int a) override {
    StepResult r = BaseStep(a);
    if (a == kDrop) instrs_->UpdateObjsPoss(Scene());
    const Status st = instrs_->Verify(a, Scene());
    if (st == kSuccess) {
      r.terminated = true;
      r.reward = Reward();
    } else if (st == kFailure) {
      r.terminated = true;
      r.reward = 0;
    }
    return r;
  }

  // RoomGridLevel._gen_grid: rooms, then the level's mission, until neither
  // rejects; the mission text is the instruction's surface form.
  //
  // minigrid retries forever; options that leave a level no valid layout
  // (say 9 distractors in a 3 x 3 room) would hang it. After kMaxAttempts
  // rejected layouts in a row the reset fails with an error instead.
  static constexpr int kMaxAttempts = 100000;
  void GenGrid() override {
    for (int attempt = 0;; ++attempt) {
      if (attempt == kMaxAttempts)
        throw std::invalid_argument("babyai: " + std::to_string(kMaxAttempts) +
                                    " level layouts in a row were rejected: these options leave the level no valid "
                                    "layout (minigrid would retry forever)");
      grid_.Reset(width_, height_);
      GenRooms();
      instrs_.reset();
      locked_room_ = -1;
      try {
        GenMission();
        ValidateInstrs(*instrs_);
      } catch (const std::runtime_error&) {
        // Retry (RejectSampling, rand_obj's RecursionError) and the core's
        // place_obj / connect_all failures (RecursionError in minigrid).
        continue;
      }
      break;
    }
    mission_ = instrs_->Surface(Scene());
  }

  // ---- RoomGrid / RoomGridLevel helpers minigrid's levels call.

  // add_distractors: color drawn before type (add_object draws nothing
  // when both are given), a random room unless one is given.
  std::vector<Obj*> AddDistractors(int i, int j, int num, bool all_unique) {
    std::vector<std::pair<Type, Color>> objs;
    for (const Room& r : rooms_)
      for (const Obj* o : r.objs) objs.emplace_back(o->type, o->color);
    static const std::vector<Type> kKinds = {kKey, kBall, kBox};
    std::vector<Obj*> dists;
    while (static_cast<int>(dists.size()) < num) {
      const Color color = RandColor();
      const Type type = RandElem(kKinds);
      if (all_unique && std::find(objs.begin(), objs.end(), std::make_pair(type, color)) != objs.end()) continue;
      const int ri = i < 0 ? RandInt(0, num_cols_) : i;
      const int rj = j < 0 ? RandInt(0, num_rows_) : j;
      dists.push_back(AddObject(ri, rj, type, color));
      objs.emplace_back(type, color);
    }
    return dists;
  }

  // check_objs_reachable: every non-wall object reachable from the agent
  // through empty cells and doors (any door, locked or not).
  bool CheckObjsReachable(bool raise = true) {
    const int w = grid_.width(), h = grid_.height();
    std::vector<uint8_t> reach(static_cast<std::size_t>(w) * h, 0);
    std::vector<Pos> stack{agent_pos_};
    while (!stack.empty()) {
      const Pos p = stack.back();
      stack.pop_back();
      if (p.x < 0 || p.x >= w || p.y < 0 || p.y >= h) continue;
      uint8_t& seen = reach[static_cast<std::size_t>(p.y) * w + p.x];
      if (seen) continue;
      seen = 1;
      const Obj* cell = grid_.At(p.x, p.y);
      if (cell && cell->type != kDoor) continue;
      stack.push_back({p.x + 1, p.y});
      stack.push_back({p.x - 1, p.y});
      stack.push_back({p.x, p.y + 1});
      stack.push_back({p.x, p.y - 1});
    }
    for (int i = 0; i < w; ++i)
      for (int j = 0; j < h; ++j) {
        const Obj* cell = grid_.At(i, j);
        if (!cell || cell->type == kWall) continue;
        if (!reach[static_cast<std::size_t>(j) * w + i]) {
          if (!raise) return false;
          throw Retry("unreachable object");
        }
      }
    return true;
  }

  void OpenAllDoors() {
    for (Room& r : rooms_)
      for (int k = 0; k < 4; ++k)
        if (r.doors[k] == Room::kDoorHere) r.door_obj[k]->is_open = true;
  }

  // connect_all with a door color list (the core's ConnectAll uses
  // COLOR_NAMES; Unlock passes the colors other than its locked door's).
  void ConnectAllColors(const std::vector<Color>& colors, int max_itrs = 5000) {
    const int start = RoomFromPos(agent_pos_);
    const std::size_t n = rooms_.size();
    std::vector<uint8_t> seen(n);
    std::vector<int> stack;
    auto reach_all = [&]() {
      std::fill(seen.begin(), seen.end(), 0);
      stack.assign(1, start);
      std::size_t count = 0;
      while (!stack.empty()) {
        const int k = stack.back();
        stack.pop_back();
        if (seen[k]) continue;
        seen[k] = 1;
        ++count;
        for (int d = 0; d < 4; ++d)
          if (rooms_[k].doors[d] != Room::kNone) stack.push_back(rooms_[k].neighbors[d]);
      }
      return count == n;
    };
    for (int itrs = 0;; ++itrs) {
      if (itrs > max_itrs) throw Retry("connect_all failed");
      if (reach_all()) break;
      const int i = RandInt(0, num_cols_), j = RandInt(0, num_rows_), k = RandInt(0, 4);
      Room& r = GetRoom(i, j);
      if (!r.has_door_pos[k] || r.doors[k] != Room::kNone) continue;
      if (r.locked || rooms_[r.neighbors[k]].locked) continue;
      AddDoor(i, j, k, RandElem(colors), 0);
    }
  }
  void ConnectAllDefault() { ConnectAllColors(std::vector<Color>(kColorNames.begin(), kColorNames.end())); }

  // place_agent() until the agent is outside the given room.
  void PlaceAgentOutside(int room) {
    for (;;) {
      PlaceAgentInRoom();
      if (RoomFromPos(agent_pos_) != room) break;
    }
  }

  // validate_instrs.
  void ValidateInstrs(Instr& instr) {
    const bool unblocking = level_ == Level::kLevelGen && unblocking_;
    std::vector<Color> locked_colors;
    if (unblocking)
      for (const Room& r : rooms_)
        for (int k = 0; k < 4; ++k)
          if (r.doors[k] == Room::kDoorHere && r.door_obj[k]->is_locked) locked_colors.push_back(r.door_obj[k]->color);
    if (instr.kind == Instr::kPutNext) {
      instr.ResetVerifier(Scene());
      for (const Obj* m : instr.desc.obj_set)
        for (const Obj* f : instr.desc_fixed.obj_set)
          if (m == f) throw Retry("there are objects that match both lhs and rhs of PutNext");
      if (instr.ObjsNext()) throw Retry("objs already next to each other");
    }
    if (instr.IsAction()) {
      if (!unblocking) return;
      for (const ObjDesc* d : {&instr.desc, instr.kind == Instr::kPutNext ? &instr.desc_fixed : nullptr}) {
        if (d == nullptr || d->type != kKey) continue;
        for (Color c : locked_colors)
          if (d->color == c) throw Retry("cannot do anything with/to a key that can be used to open a door");
      }
      return;
    }
    ValidateInstrs(*instr.a);
    ValidateInstrs(*instr.b);
  }

  static std::unique_ptr<Instr> GoTo(const Obj* o) { return Instr::Action(Instr::kGoTo, ObjDesc(o->type, o->color)); }

  // ---- LevelGen.

  void AddLockedRoom() {
    Obj* door = nullptr;
    for (;;) {
      const int i = RandInt(0, num_cols_), j = RandInt(0, num_rows_), k = RandInt(0, 4);
      locked_room_ = RoomIndex(i, j);
      if (GetRoom(i, j).neighbors[k] < 0) continue;
      door = AddDoor(i, j, k, -1, 1);
      break;
    }
    for (;;) {
      const int i = RandInt(0, num_cols_), j = RandInt(0, num_rows_);
      if (RoomIndex(i, j) == locked_room_) continue;
      AddObject(i, j, kKey, door->color);
      break;
    }
  }

  ObjDesc RandObj(const std::vector<Type>& types, int max_tries = 100) {
    static const std::vector<int> kColorsOrNone = {-1, kBlue, kGreen, kGrey, kPurple, kRed, kYellow};
    static const std::vector<Loc> kLocs = {kLeft, kRight, kFront, kBehind};
    for (int tries = 0;; ++tries) {
      if (tries > max_tries) throw Retry("failed to find suitable object");
      const int color = RandElem(kColorsOrNone);
      const Type type = RandElem(types);
      Loc loc = kNoLoc;
      if (locations_ && RandBool()) loc = RandElem(kLocs);
      ObjDesc desc(type, color, loc);
      desc.FindMatching(Scene());
      if (desc.obj_set.empty()) continue;
      if (!implicit_unlock_ && locked_room_ >= 0) {
        const Room& lr = rooms_[locked_room_];
        bool outside = false;
        for (const Pos& p : desc.obj_poss)
          outside =
              outside || p.x < lr.top.x || p.y < lr.top.y || p.x >= lr.top.x + lr.size.x || p.y >= lr.top.y + lr.size.y;
        if (!outside) continue;
      }
      return desc;
    }
  }

  std::unique_ptr<Instr> RandInstr(const std::vector<std::string>& instr_kinds) {
    static const std::vector<Type> kAll = {kBox, kBall, kKey, kDoor}, kNotDoor = {kBox, kBall, kKey},
                                   kDoorOnly = {kDoor};
    const std::string kind = RandElem(instr_kinds);
    if (kind == "action") {
      const std::string action = RandElem(action_kinds_);
      if (action == "goto") return Instr::Action(Instr::kGoTo, RandObj(kAll));
      if (action == "pickup") return Instr::Action(Instr::kPickup, RandObj(kNotDoor));
      if (action == "open") return Instr::Action(Instr::kOpen, RandObj(kDoorOnly));
      ObjDesc move = RandObj(kNotDoor);
      return Instr::PutNext(std::move(move), RandObj(kAll));
    }
    if (kind == "and") {
      auto a = RandInstr({"action"});
      auto b = RandInstr({"action"});
      return Instr::Seq(Instr::kAnd, std::move(a), std::move(b));
    }
    auto a = RandInstr({"action", "and"});
    auto b = RandInstr({"action", "and"});
    static const std::vector<std::string> kOrders = {"before", "after"};
    const bool before = RandElem(kOrders) == "before";
    return Instr::Seq(before ? Instr::kBefore : Instr::kAfter, std::move(a), std::move(b));
  }

  // ---- The levels' gen_mission.

  void GenMission() {
    switch (level_) {
      case Level::kGoToRedBallGrey:
      case Level::kGoToRedBall: {
        PlaceAgentInRoom();
        Obj* obj = AddObject(0, 0, kBall, kRed);
        auto dists = AddDistractors(-1, -1, num_dists_, false);
        if (level_ == Level::kGoToRedBallGrey)
          for (Obj* d : dists) d->color = kGrey;
        CheckObjsReachable();
        instrs_ = GoTo(obj);
        break;
      }
      case Level::kGoToObj: {
        PlaceAgentInRoom();
        auto objs = AddDistractors(-1, -1, 1, true);
        instrs_ = GoTo(objs[0]);
        break;
      }
      case Level::kGoToLocal: {
        PlaceAgentInRoom();
        auto objs = AddDistractors(-1, -1, num_dists_, false);
        CheckObjsReachable();
        instrs_ = GoTo(RandElem(objs));
        break;
      }
      case Level::kGoTo: {
        PlaceAgentInRoom();
        ConnectAllDefault();
        auto objs = AddDistractors(-1, -1, num_dists_, false);
        CheckObjsReachable();
        instrs_ = GoTo(RandElem(objs));
        if (doors_open_) OpenAllDoors();
        break;
      }
      case Level::kGoToImpUnlock: {
        const int id = RandInt(0, num_cols_), jd = RandInt(0, num_rows_);
        Obj* door = AddDoor(id, jd, -1, -1, 1);
        const int locked = RoomIndex(id, jd);
        // minigrid's `if ik is id and jk is jd: continue` compares numpy
        // int64s by identity, which never holds: the first room drawn takes
        // the key, the locked room included.
        {
          const int ik = RandInt(0, num_cols_), jk = RandInt(0, num_rows_);
          AddObject(ik, jk, kKey, door->color);
        }
        ConnectAllDefault();
        // `if i is not id or j is not jd` (a Python int against a numpy
        // int64, by identity) always holds: every room gets distractors.
        for (int i = 0; i < num_cols_; ++i)
          for (int j = 0; j < num_rows_; ++j) AddDistractors(i, j, 2, false);
        PlaceAgentOutside(locked);
        CheckObjsReachable();
        auto objs = AddDistractors(id, jd, 1, false);
        instrs_ = GoTo(objs[0]);
        break;
      }
      case Level::kGoToRedBlueBall: {
        PlaceAgentInRoom();
        auto dists = AddDistractors(-1, -1, num_dists_, false);
        for (const Obj* d : dists)
          if (d->type == kBall && (d->color == kBlue || d->color == kRed))
            throw Retry("can only have one blue or red ball");
        static const std::vector<Color> kRedBlue = {kRed, kBlue};
        const Color color = RandElem(kRedBlue);
        Obj* obj = AddObject(0, 0, kBall, color);
        CheckObjsReachable();
        instrs_ = GoTo(obj);
        break;
      }
      case Level::kGoToDoor: {
        std::vector<Obj*> objs;
        for (int k = 0; k < 4; ++k) objs.push_back(AddDoor(1, 1));
        PlaceAgentInRoom(1, 1);
        const Obj* obj = RandElem(objs);
        instrs_ = Instr::Action(Instr::kGoTo, ObjDesc(kDoor, obj->color));
        break;
      }
      case Level::kGoToObjDoor: {
        PlaceAgentInRoom(1, 1);
        auto objs = AddDistractors(1, 1, 8, false);
        for (int k = 0; k < 4; ++k) objs.push_back(AddDoor(1, 1));
        CheckObjsReachable();
        instrs_ = GoTo(RandElem(objs));
        break;
      }
      case Level::kOpen: {
        PlaceAgentInRoom();
        ConnectAllDefault();
        AddDistractors(-1, -1, 18, false);
        CheckObjsReachable();
        // Every room lists its doors (a door twice: once from each side),
        // columns outer as minigrid loops.
        std::vector<Obj*> doors;
        for (int i = 0; i < num_cols_; ++i)
          for (int j = 0; j < num_rows_; ++j) {
            const Room& r = GetRoom(i, j);
            for (int k = 0; k < 4; ++k)
              if (r.doors[k] == Room::kDoorHere) doors.push_back(r.door_obj[k]);
          }
        const Obj* door = RandElem(doors);
        instrs_ = Instr::Action(Instr::kOpen, ObjDesc(kDoor, door->color));
        break;
      }
      case Level::kOpenRedDoor: {
        AddDoor(0, 0, 0, kRed, 0);
        PlaceAgentInRoom(0, 0);
        instrs_ = Instr::Action(Instr::kOpen, ObjDesc(kDoor, kRed));
        break;
      }
      case Level::kOpenDoor: {
        auto colors = RandSubset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 4);
        std::vector<Obj*> objs;
        for (int k = 0; k < 4; ++k) objs.push_back(AddDoor(1, 1, k, colors[k], 0));
        std::string select_by = select_by_;
        if (select_by.empty()) {
          static const std::vector<std::string> kBy = {"color", "loc"};
          select_by = RandElem(kBy);
        }
        ObjDesc desc;
        if (select_by == "color") {
          desc = ObjDesc(kDoor, objs[0]->color);
        } else {
          static const std::vector<Loc> kLocs = {kLeft, kRight, kFront, kBehind};
          desc = ObjDesc(kDoor, -1, RandElem(kLocs));
        }
        PlaceAgentInRoom(1, 1);
        instrs_ = Instr::Action(Instr::kOpen, std::move(desc), debug_);
        break;
      }
      case Level::kOpenTwoDoors: {
        auto colors = RandSubset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 2);
        const int first = first_color_ >= 0 ? first_color_ : colors[0];
        const int second = second_color_ >= 0 ? second_color_ : colors[1];
        Obj* d1 = AddDoor(1, 1, 2, first, 0);
        Obj* d2 = AddDoor(1, 1, 0, second, 0);
        PlaceAgentInRoom(1, 1);
        instrs_ = Instr::Seq(Instr::kBefore, Instr::Action(Instr::kOpen, ObjDesc(kDoor, d1->color), strict_),
                             Instr::Action(Instr::kOpen, ObjDesc(kDoor, d2->color)));
        break;
      }
      case Level::kOpenDoorsOrder: {
        auto colors = RandSubset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), num_doors_);
        std::vector<Obj*> doors;
        for (int k = 0; k < num_doors_; ++k) doors.push_back(AddDoor(1, 1, -1, colors[k], 0));
        PlaceAgentInRoom(1, 1);
        auto pair = RandSubset(doors, 2);
        ObjDesc d1(kDoor, pair[0]->color), d2(kDoor, pair[1]->color);
        const int mode = RandInt(0, 3);
        if (mode == 0) {
          instrs_ = Instr::Action(Instr::kOpen, d1, debug_);
        } else {
          instrs_ = Instr::Seq(mode == 1 ? Instr::kBefore : Instr::kAfter, Instr::Action(Instr::kOpen, d1, debug_),
                               Instr::Action(Instr::kOpen, d2, debug_));
        }
        break;
      }
      case Level::kPickup:
      case Level::kUnblockPickup: {
        PlaceAgentInRoom();
        ConnectAllDefault();
        auto objs = AddDistractors(-1, -1, level_ == Level::kPickup ? 18 : 20, false);
        if (level_ == Level::kPickup) {
          CheckObjsReachable();
        } else if (CheckObjsReachable(false)) {
          throw Retry("all objects reachable");
        }
        const Obj* obj = RandElem(objs);
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, obj->color));
        break;
      }
      case Level::kPickupDist: {
        auto objs = AddDistractors(-1, -1, 5, true);
        PlaceAgentInRoom(0, 0);
        const Obj* obj = RandElem(objs);
        static const std::vector<std::string> kBy = {"type", "color", "both"};
        const std::string by = RandElem(kBy);
        ObjDesc desc(by == "color" ? kEmpty : obj->type, by == "type" ? -1 : obj->color);
        instrs_ = Instr::Action(Instr::kPickup, std::move(desc), debug_);
        break;
      }
      case Level::kPickupAbove: {
        Obj* obj = AddObject(1, 0);
        AddDoor(1, 1, 3, -1, 0);
        PlaceAgentInRoom(1, 1);
        ConnectAllDefault();
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, obj->color));
        break;
      }
      case Level::kPutNextLocal: {
        PlaceAgentInRoom();
        auto objs = AddDistractors(-1, -1, num_dists_, true);
        CheckObjsReachable();
        auto two = RandSubset(objs, 2);
        instrs_ = Instr::PutNext(ObjDesc(two[0]->type, two[0]->color), ObjDesc(two[1]->type, two[1]->color));
        break;
      }
      case Level::kPutNext: {
        PlaceAgentInRoom(0, 0);
        auto left = AddDistractors(0, 0, num_dists_, true);
        auto right = AddDistractors(1, 0, num_dists_, true);
        RemoveWall(0, 0, 0);
        Obj* a = RandElem(left);
        Obj* b = RandElem(right);
        if (RandBool()) std::swap(a, b);
        obj_a_ = a;
        obj_a_init_ = a->cur_pos;
        instrs_ = Instr::PutNext(ObjDesc(a->type, a->color), ObjDesc(b->type, b->color));
        break;
      }
      case Level::kUnlock: {
        const int id = RandInt(0, num_cols_), jd = RandInt(0, num_rows_);
        Obj* door = AddDoor(id, jd, -1, -1, 1);
        const int locked = RoomIndex(id, jd);
        // minigrid's `if ik is id and jk is jd: continue` compares numpy
        // int64s by identity, which never holds: the first room drawn takes
        // the key, the locked room included.
        {
          const int ik = RandInt(0, num_cols_), jk = RandInt(0, num_rows_);
          AddObject(ik, jk, kKey, door->color);
        }
        if (RandBool()) {
          std::vector<Color> colors;
          for (Color c : kColorNames)
            if (c != door->color) colors.push_back(c);
          ConnectAllColors(colors);
        } else {
          ConnectAllDefault();
        }
        // `if i is not id or j is not jd` (a Python int against a numpy
        // int64, by identity) always holds: every room gets distractors.
        for (int i = 0; i < num_cols_; ++i)
          for (int j = 0; j < num_rows_; ++j) AddDistractors(i, j, 3, false);
        PlaceAgentOutside(locked);
        CheckObjsReachable();
        instrs_ = Instr::Action(Instr::kOpen, ObjDesc(kDoor, door->color));
        break;
      }
      case Level::kUnlockLocal: {
        Obj* door = AddDoor(1, 1, -1, -1, 1);
        AddObject(1, 1, kKey, door->color);
        if (distractors_) AddDistractors(1, 1, 3, true);
        PlaceAgentInRoom(1, 1);
        instrs_ = Instr::Action(Instr::kOpen, ObjDesc(kDoor, -1));
        break;
      }
      case Level::kKeyInBox: {
        Obj* door = AddDoor(1, 1, -1, -1, 1);
        Obj* key = objs_.Key(door->color);
        Obj* box = objs_.Box(RandColor());
        box->contains = key;
        PlaceInRoom(1, 1, box);
        PlaceAgentInRoom(1, 1);
        instrs_ = Instr::Action(Instr::kOpen, ObjDesc(kDoor, -1));
        break;
      }
      case Level::kUnlockPickup: {
        Obj* obj = AddObject(1, 0, kBox);
        Obj* door = AddDoor(0, 0, 0, -1, 1);
        AddObject(0, 0, kKey, door->color);
        if (distractors_) AddDistractors(-1, -1, 4, true);
        PlaceAgentInRoom(0, 0);
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, obj->color));
        break;
      }
      case Level::kBlockedUnlockPickup: {
        Obj* obj = AddObject(1, 0, kBox);
        Pos pos;
        Obj* door = AddDoor(0, 0, 0, -1, 1, &pos);
        // The ball is set straight into the grid (no cur_pos, not in the room's objs).
        grid_.Set(pos.x - 1, pos.y, objs_.Ball(RandColor()));
        AddObject(0, 0, kKey, door->color);
        PlaceAgentInRoom(0, 0);
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, -1));
        break;
      }
      case Level::kUnlockToUnlock: {
        auto colors = RandSubset(std::vector<Color>(kColorNames.begin(), kColorNames.end()), 2);
        AddDoor(0, 0, 0, colors[0], 1);
        AddObject(2, 0, kKey, colors[0]);
        AddDoor(1, 0, 0, colors[1], 1);
        AddObject(1, 0, kKey, colors[1]);
        Obj* obj = AddObject(0, 0, kBall);
        PlaceAgentInRoom(1, 0);
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, -1));
        break;
      }
      case Level::kActionObjDoor: {
        auto objs = AddDistractors(1, 1, 5, true);
        for (int k = 0; k < 4; ++k) objs.push_back(AddDoor(1, 1, -1, -1, 0));
        PlaceAgentInRoom(1, 1);
        const Obj* obj = RandElem(objs);
        ObjDesc desc(obj->type, obj->color);
        if (obj->type == kDoor) {
          instrs_ = Instr::Action(RandBool() ? Instr::kGoTo : Instr::kOpen, std::move(desc));
        } else {
          instrs_ = Instr::Action(RandBool() ? Instr::kGoTo : Instr::kPickup, std::move(desc));
        }
        break;
      }
      case Level::kFindObj: {
        // minigrid draws i from num_rows and j from num_cols (both 3).
        const int i = RandInt(0, num_rows_), j = RandInt(0, num_cols_);
        Obj* obj = AddObject(i, j);
        PlaceAgentInRoom(1, 1);
        ConnectAllDefault();
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, -1));
        break;
      }
      case Level::kKeyCorridor: {
        for (int j = 1; j < num_rows_; ++j) RemoveWall(1, j, 3);
        const int room_idx = RandInt(0, num_rows_);
        Obj* door = AddDoor(2, room_idx, 2, -1, 1);
        Obj* obj = AddObject(2, room_idx, obj_type_);
        const int key_row = RandInt(0, num_rows_);
        AddObject(0, key_row, kKey, door->color);
        PlaceAgentInRoom(1, num_rows_ / 2);
        ConnectAllDefault();
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, -1));
        break;
      }
      case Level::kOneRoom: {
        Obj* obj = AddObject(0, 0, kBall);
        PlaceAgentInRoom();
        instrs_ = Instr::Action(Instr::kPickup, ObjDesc(obj->type, -1));
        break;
      }
      case Level::kMoveTwoAcross: {
        PlaceAgentInRoom(0, 0);
        auto left = AddDistractors(0, 0, num_dists_, true);
        auto right = AddDistractors(1, 0, num_dists_, true);
        RemoveWall(0, 0, 0);
        left = RandSubset(left, 2);
        right = RandSubset(right, 2);
        const Obj *a = left[0], *b = right[0], *c = right[1], *d = left[1];
        instrs_ = Instr::Seq(Instr::kBefore, Instr::PutNext(ObjDesc(a->type, a->color), ObjDesc(b->type, b->color)),
                             Instr::PutNext(ObjDesc(c->type, c->color), ObjDesc(d->type, d->color)));
        break;
      }
      case Level::kLevelGen: {
        locked_room_ = -1;
        if (Np().Uniform(0, 1) < locked_room_prob_) AddLockedRoom();
        ConnectAllDefault();
        AddDistractors(-1, -1, num_dists_, false);
        for (;;) {
          PlaceAgentInRoom();
          if (RoomFromPos(agent_pos_) == locked_room_) continue;
          break;
        }
        if (!unblocking_) CheckObjsReachable();
        instrs_ = RandInstr(instr_kinds_);
        break;
      }
    }
  }

  Level level_;
  int64_t fixed_max_steps_;
  int num_dists_;
  bool doors_open_, debug_;
  std::string select_by_;
  int first_color_, second_color_;
  bool strict_;
  int num_doors_;
  bool distractors_, start_carrying_;
  Type obj_type_;
  double locked_room_prob_;
  bool locations_, unblocking_, implicit_unlock_;
  std::vector<std::string> action_kinds_, instr_kinds_;

  std::unique_ptr<Instr> instrs_;
  int locked_room_ = -1;
  Obj* obj_a_ = nullptr;
  Pos obj_a_init_;
};

}  // namespace envpool::minigrid::babyai

#endif  // ENVPOOL_MINIGRID_BABYAI_LEVEL_H_
