// BabyAI's instruction language (minigrid/envs/babyai/core/verifier.py):
// object descriptions, the action clauses (go to, open, pick up, put next
// to) and their sequencing (and, then, after you), with their surface text
// and the per-step verifier, in minigrid's semantics (BABYAI_DONE_ACTIONS
// unset, as minigrid runs by default).
#ifndef ENVPOOL_MINIGRID_BABYAI_VERIFIER_H_
#define ENVPOOL_MINIGRID_BABYAI_VERIFIER_H_

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cpp/minigrid/core/grid.h"
#include "cpp/minigrid/core/world_object.h"

namespace envpool::minigrid::babyai {

// LOC_NAMES, relative to the agent's start pose; kNoLoc is None.
enum Loc : int { kNoLoc = -1, kLeft = 0, kRight = 1, kFront = 2, kBehind = 3 };

// What a description needs from the env: the grid, the agent's pose and the
// room lattice (rooms share their walls, so a wall cell lies in two rooms).
struct Scene {
  const Grid* grid;
  Pos agent_pos;
  int agent_dir;
  int room_size;
  const Obj* carrying;
  // The agent's room's top-left corner and size (RoomGrid.room_from_pos).
  Pos RoomTop() const {
    return {agent_pos.x / (room_size - 1) * (room_size - 1), agent_pos.y / (room_size - 1) * (room_size - 1)};
  }
};

// ObjDesc: type kEmpty and color -1 stand for None (any).
struct ObjDesc {
  Type type = kEmpty;
  int color = -1;
  Loc loc = kNoLoc;
  std::vector<Obj*> obj_set;
  std::vector<Pos> obj_poss;

  ObjDesc() = default;
  ObjDesc(Type t, int c, Loc l = kNoLoc) : type(t), color(c), loc(l) {}

  // find_matching_objs. With use_location, the matching objects are found
  // afresh (the location taken from the agent's current pose); without it
  // (after a drop), only the positions of the objects found before are
  // refreshed, and a carried object has none. Columns outer, rows inner, as
  // minigrid scans.
  void FindMatching(const Scene& s, bool use_location = true) {
    if (use_location) obj_set.clear();
    obj_poss.clear();
    const Pos top = s.RoomTop();
    const Grid& g = *s.grid;
    for (int i = 0; i < g.width(); ++i) {
      for (int j = 0; j < g.height(); ++j) {
        Obj* cell = g.At(i, j);
        if (cell == nullptr) continue;
        if (!use_location) {
          bool tracked = false;
          for (Obj* o : obj_set) tracked = tracked || o == cell;
          if (!tracked) continue;
        }
        if (type != kEmpty && cell->type != type) continue;
        if (color >= 0 && cell->color != color) continue;
        if (use_location && loc != kNoLoc) {
          // Locations apply only in the agent's room (Room.pos_inside: the
          // room's walls included).
          if (i < top.x || j < top.y || i >= top.x + s.room_size || j >= top.y + s.room_size) continue;
          const int vx = i - s.agent_pos.x, vy = j - s.agent_pos.y;
          const int d1x = kDirVec[s.agent_dir][0], d1y = kDirVec[s.agent_dir][1];
          const int d2x = -d1y, d2y = d1x;
          const int along = vx * d1x + vy * d1y, side = vx * d2x + vy * d2y;
          const bool match = loc == kLeft ? side < 0 : loc == kRight ? side > 0 : loc == kFront ? along > 0 : along < 0;
          if (!match) continue;
        }
        if (use_location) obj_set.push_back(cell);
        obj_poss.push_back({i, j});
      }
    }
  }

  // ObjDesc.surface: "the"/"a" by how many objects match now.
  std::string Surface(const Scene& s) {
    FindMatching(s);
    if (obj_set.empty()) throw std::logic_error("babyai: no object matching description");
    std::string out = type != kEmpty ? TypeName(type) : "object";
    if (color >= 0) out = std::string(ColorName(static_cast<Color>(color))) + " " + out;
    if (loc == kFront) out += " in front of you";
    if (loc == kBehind) out += " behind you";
    if (loc == kLeft) out += " on your left";
    if (loc == kRight) out += " on your right";
    return (obj_set.size() > 1 ? "a " : "the ") + out;
  }
};

// verify()'s results; kNotRun is a sequence's initial False.
enum Status : int { kNotRun, kContinue, kSuccess, kFailure };

// One node of an instruction tree.
struct Instr {
  enum Kind : int { kGoTo, kOpen, kPickup, kPutNext, kBefore, kAfter, kAnd };
  Kind kind;
  bool strict = false;
  ObjDesc desc;        // desc, or desc_move for put next
  ObjDesc desc_fixed;  // put next's
  std::unique_ptr<Instr> a, b;
  // Verifier state.
  const Obj* pre_carrying = nullptr;
  Status a_done = kNotRun, b_done = kNotRun;

  bool IsAction() const { return kind <= kPutNext; }

  static std::unique_ptr<Instr> Action(Kind k, ObjDesc d, bool strict = false) {
    auto p = std::make_unique<Instr>();
    p->kind = k, p->desc = std::move(d), p->strict = strict;
    return p;
  }
  static std::unique_ptr<Instr> PutNext(ObjDesc move, ObjDesc fixed, bool strict = false) {
    auto p = Action(kPutNext, std::move(move), strict);
    p->desc_fixed = std::move(fixed);
    return p;
  }
  static std::unique_ptr<Instr> Seq(Kind k, std::unique_ptr<Instr> a, std::unique_ptr<Instr> b) {
    auto p = std::make_unique<Instr>();
    p->kind = k, p->a = std::move(a), p->b = std::move(b);
    return p;
  }

  std::string Surface(const Scene& s) {
    switch (kind) {
      case kGoTo:
        return "go to " + desc.Surface(s);
      case kOpen:
        return "open " + desc.Surface(s);
      case kPickup:
        return "pick up " + desc.Surface(s);
      case kPutNext: {
        std::string m = desc.Surface(s);
        return "put " + m + " next to " + desc_fixed.Surface(s);
      }
      case kBefore: {
        std::string x = a->Surface(s);
        return x + ", then " + b->Surface(s);
      }
      case kAfter: {
        std::string x = a->Surface(s);
        return x + " after you " + b->Surface(s);
      }
      default: {
        std::string x = a->Surface(s);
        return x + " and " + b->Surface(s);
      }
    }
  }

  // reset_verifier.
  void ResetVerifier(const Scene& s) {
    pre_carrying = nullptr;
    a_done = b_done = kNotRun;
    if (IsAction()) {
      desc.FindMatching(s);
      if (kind == kPutNext) desc_fixed.FindMatching(s);
    } else {
      a->ResetVerifier(s);
      b->ResetVerifier(s);
    }
  }

  // RoomGridLevel.update_objs_poss, after a drop.
  void UpdateObjsPoss(const Scene& s) {
    if (IsAction()) {
      desc.FindMatching(s, false);
      if (kind == kPutNext) desc_fixed.FindMatching(s, false);
    } else {
      a->UpdateObjsPoss(s);
      b->UpdateObjsPoss(s);
    }
  }

  // PutNextInstr.objs_next (for rejection sampling).
  bool ObjsNext() const {
    for (const Obj* o : desc.obj_set)
      for (const Pos& p : desc_fixed.obj_poss)
        if (std::abs(o->cur_pos.x - p.x) + std::abs(o->cur_pos.y - p.y) == 1) return true;
    return false;
  }

  // verify(action) after the env has stepped; front is the cell in front of
  // the agent now.
  Status Verify(int action, const Scene& s) {
    constexpr int kPickupAction = 3, kDropAction = 4, kToggleAction = 5;
    const Pos front{s.agent_pos.x + kDirVec[s.agent_dir][0], s.agent_pos.y + kDirVec[s.agent_dir][1]};
    switch (kind) {
      case kGoTo:
        for (const Pos& p : desc.obj_poss)
          if (p == front) return kSuccess;
        return kContinue;
      case kOpen: {
        if (action != kToggleAction) return kContinue;
        const Obj* cell = s.grid->Get(front.x, front.y);
        for (const Obj* door : desc.obj_set)
          if (cell != nullptr && cell == door && door->is_open) return kSuccess;
        if (strict && cell != nullptr && cell->type == kDoor) return kFailure;
        return kContinue;
      }
      case kPickup: {
        const Obj* pre = pre_carrying;
        pre_carrying = s.carrying;
        if (action != kPickupAction) return kContinue;
        for (const Obj* o : desc.obj_set)
          if (pre == nullptr && s.carrying == o) return kSuccess;
        if (strict && s.carrying != nullptr) return kFailure;
        pre_carrying = s.carrying;
        return kContinue;
      }
      case kPutNext: {
        const Obj* pre = pre_carrying;
        pre_carrying = s.carrying;
        if (strict && action == kPickupAction && s.carrying != nullptr) return kFailure;
        if (action != kDropAction) return kContinue;
        for (const Obj* o : desc.obj_set) {
          if (pre != o) continue;
          for (const Pos& p : desc_fixed.obj_poss)
            if (std::abs(o->cur_pos.x - p.x) + std::abs(o->cur_pos.y - p.y) == 1) return kSuccess;
        }
        return kContinue;
      }
      case kBefore:
        if (a_done == kSuccess) {
          b_done = b->Verify(action, s);
          if (b_done == kFailure) return kFailure;
          if (b_done == kSuccess) return kSuccess;
        } else {
          a_done = a->Verify(action, s);
          if (a_done == kFailure) return kFailure;
          // b sees the same action in the step that completes a.
          if (a_done == kSuccess) return Verify(action, s);
          if (strict && b->Verify(action, s) == kSuccess) return kFailure;
        }
        return kContinue;
      case kAfter:
        if (b_done == kSuccess) {
          a_done = a->Verify(action, s);
          if (a_done == kSuccess) return kSuccess;
          if (a_done == kFailure) return kFailure;
        } else {
          b_done = b->Verify(action, s);
          if (b_done == kFailure) return kFailure;
          if (b_done == kSuccess) return Verify(action, s);
          if (strict && a->Verify(action, s) == kSuccess) return kFailure;
        }
        return kContinue;
      default:  // and: each side is verified until it has succeeded
        if (a_done != kSuccess) a_done = a->Verify(action, s);
        if (b_done != kSuccess) b_done = b->Verify(action, s);
        return a_done == kSuccess && b_done == kSuccess ? kSuccess : kContinue;
    }
  }

  // RoomGridLevel.num_navs_needed.
  int NumNavs() const {
    if (kind == kPutNext) return 2;
    if (IsAction()) return 1;
    return a->NumNavs() + b->NumNavs();
  }
};

}  // namespace envpool::minigrid::babyai

#endif  // ENVPOOL_MINIGRID_BABYAI_VERIFIER_H_
