// Per-env model parameters of the MuJoCo families (gymnasium's tasks and
// dm_control's): mjModel fields read and written by MuJoCo's names
// (envs.get_model / set_model), copy on write, and the per-episode
// randomization of model_randomization.
//
// Envs of one model file share its compiled mjModel (parsing costs
// milliseconds; the arrays are read-only while simulating). An env gets its
// own copy (mj_copyModel) only when one of its fields is written, by
// set_model or by a randomization, so a pool that never randomizes keeps one
// model. Writing a field that mj_setConst reads (MuJoCo's own table,
// MJSETCONST_ARRAYS: body_mass, body_inertia, body_pos, actuator_gear, ...)
// recomputes the derived constants (body_subtreemass, dof_invweight0,
// actuator_acc0, ...), as compiling a model with those values would.
//
// model_randomization, as text (src/envpool/tasks/mujoco.py writes it from the
// user's dict): "field:op:lo:hi;..." with lo and hi one number or one per
// element (comma separated), op one of
//   scale    base * U(lo, hi)
//   add      base + U(lo, hi)
//   uniform  U(lo, hi)
// per element, drawn at each reset from the env's own generator (seeded
// from the env's seed, apart from the task's own draws), relative to the
// base values: the XML's, or the last set_model's.
#ifndef ENVPOOL_MUJOCO_MODEL_PARAMS_H_
#define ENVPOOL_MUJOCO_MODEL_PARAMS_H_

#include <mujoco/mujoco.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cpp/core/spec.h"

namespace envpool::mujoco {

// An mjModel field: an array of the model's buffer ("body_mass") or a field
// of its mjOption ("opt.gravity").
struct ModelField {
  std::string name;
  DType dtype = DType::kFloat64;
  std::vector<int> shape;  // the mujoco Python bindings' shape
  bool in_opt = false;
  std::size_t offset = 0;  // bytes from m->buffer, or from &m->opt
  bool floating = false;   // settable: mjtNum and float fields
  bool set_const = false;  // an input of mj_setConst

  std::size_t count() const;
  char* In(mjModel* m) const;
  const char* In(const mjModel* m) const;
};

// Not an mjModel field: the bytes of the env's own model copy (int64; 0
// while it shares the compiled model), what copy on write saved or cost.
inline constexpr const char* kCopyBytes = "envpool.model_copy_bytes";

// nullopt: the model has no such field (or it is text).
std::optional<ModelField> FindModelField(const mjModel* m, const std::string& name);
std::vector<std::string> ModelFieldNames();

// model_info's key of a randomized field: "info:model_body_mass",
// "info:model_opt_gravity" (a Python identifier: dm_env's observation is a
// namedtuple of the info keys).
inline std::string ModelInfoKey(const std::string& field) {
  std::string key = "info:model_" + field;
  for (char& c : key)
    if (c == '.') c = '_';
  return key;
}

// One env's model: the shared one until written, then its own copy.
class EnvModel {
 public:
  // own: the env edits its model itself (a dm_control task that moves its
  // targets per episode), so it has its copy from the start.
  EnvModel(const mjModel* shared, const std::string& randomization, bool own = false);
  ~EnvModel();
  EnvModel(const EnvModel&) = delete;
  EnvModel& operator=(const EnvModel&) = delete;

  const mjModel* get() const { return own_ != nullptr ? own_ : shared_; }
  const mjModel* shared() const { return shared_; }
  bool owned() const { return own_ != nullptr; }
  mjModel* Writable();  // the env's copy, made at the first call

  // The env's NamedArrays.
  bool Find(const std::string& name, ArraySpec* spec) const;
  void Get(const std::string& name, void* dst) const;
  bool CanSet(const std::string& name, std::string* why) const;
  // Also the base of a randomized field. Returns whether mj_setConst must run.
  bool Set(const std::string& name, const void* src);

  // The randomized fields, in the option's order, and their element counts.
  struct Randomized {
    ModelField field;
    enum class Op { kScale, kAdd, kUniform } op;
    std::vector<double> lo, hi, base;
  };
  const std::vector<Randomized>& randomized() const { return randomized_; }
  void Seed(uint64_t seed);
  // Draws the episode's values into the env's copy; returns whether
  // mj_setConst must run.
  bool Randomize();
  // Field f's current values as float64.
  void Read(const ModelField& f, double* dst) const;

 private:
  const mjModel* shared_;
  mjModel* own_ = nullptr;
  std::vector<Randomized> randomized_;
  std::mt19937_64 rng_;
};

// mj_setConst on m without touching d's state: MuJoCo's scratch is a
// temporary mjData.
void SetConst(mjModel* m);

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_MODEL_PARAMS_H_
