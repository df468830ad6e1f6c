// What every env on libmujoco shares, gymnasium's tasks (MujocoEnv,
// mujoco_env.h) and dm_control's domains (dmc::DmcEnv, dmc/dmc_env.h): the
// env's model (shared read-only until written, model_params.h), its mjData,
// the render() and from_pixels renderers (render.h), the model's fields as
// named arrays, the per-episode model randomization, the expose_state and
// model_info records, and the teardown.
#ifndef ENVPOOL_MUJOCO_MUJOCO_BASE_H_
#define ENVPOOL_MUJOCO_MUJOCO_BASE_H_

#include <mujoco/mujoco.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cpp/core/env.h"
#include "cpp/core/named_arrays.h"
#include "cpp/core/spec.h"
#include "cpp/mujoco/model_params.h"
#include "cpp/mujoco/render.h"

namespace envpool::mujoco {

class MujocoBase;

// The keys MujocoBase writes; an env's spec derives from it.
struct MujocoBaseSpec : EnvSpec {
  StateKey<double> qpos0, qvel0;             // index -1 unless expose_state
  StateKey<uint8_t> pixels;                  // from_pixels: the frame (index -1: none)
  std::vector<StateKey<double>> model_info;  // model_info: one per randomized field

  // info "qpos0"/"qvel0" with expose_state.
  void AddInitialState(const MujocoBase& env);
  // info "model_<field>" with model_info.
  void AddModelInfo(const MujocoBase& env);
};

class MujocoBase : public Env, public NamedArrays {
 public:
  ~MujocoBase() override;  // the renderers, then the data
  MujocoBase(const MujocoBase&) = delete;
  MujocoBase& operator=(const MujocoBase&) = delete;

  void Seed(uint64_t seed) override { model_->Seed(seed); }

  const mjModel* model() const { return m_; }
  const EnvModel& env_model() const { return *model_; }
  bool model_info() const { return model_info_; }
  bool expose_state() const { return expose_state_; }
  bool from_pixels() const { return pixel_renderer_ != nullptr; }
  // The pixel observation's {height, width} (from_pixels only).
  std::array<int, 2> pixel_size() const { return {pixel_renderer_->height(), pixel_renderer_->width()}; }

  // The model's fields by MuJoCo's names (NamedArrays; model_params.h).
  std::vector<std::string> ArrayNames() const override { return ModelFieldNames(); }
  bool FindArray(const std::string& name, ArraySpec* spec) const override { return model_->Find(name, spec); }
  void GetArray(const std::string& name, void* dst) const override { model_->Get(name, dst); }
  bool CanSetArray(const std::string& name, std::string* why) const override { return model_->CanSet(name, why); }
  // mj_setConst's scratch is its own mjData: the episode goes on from its
  // state, under the new model; then AfterSetArray.
  void SetArray(const std::string& name, const void* src) final;

  // render_mode="rgb_array": MuJoCo's renderer on this thread's GL context.
  std::array<int, 2> RenderSize() const override { return {renderer_->height(), renderer_->width()}; }
  void Render(uint8_t* rgb) override { renderer_->Render(d_, rgb); }

 protected:
  // shared: the model every env on the same file uses (never freed); own:
  // the env edits its model itself, so it has its copy from the start.
  // Reads model_randomization, model_info and expose_state.
  MujocoBase(const Config& c, const mjModel* shared, bool own_model = false);

  // The renderers check their options now (a bad camera or size fails
  // make); GL is set up at the first render. pixels: from_pixels' options,
  // or nullptr.
  void MakeRenderers(const RenderOptions& render, const RenderOptions* pixels);
  // The task edits hfield_data per episode: the renderers upload it.
  void UploadHFieldsWhenRendering();

  // The episode's start: the model's randomization (model_randomization),
  // then mj_resetData.
  void ResetData();
  // expose_state: remembers qpos/qvel as the episode's initial state.
  void RecordInitialState();
  // Writes model_info and expose_state's keys, and renders the pixel
  // observation, after the task's writes.
  void WriteBaseState(const StateRow& out, const MujocoBaseSpec& s) const;

  // The env's own model copy, for a task that edits its model as its
  // reference does (Fetch's weld poses), without mj_setConst.
  mjModel* OwnModel() {
    mjModel* m = model_->Writable();
    ModelChanged();
    return m;
  }

  // After the model became the env's copy or was written (m_ is current).
  virtual void OnModelChanged() {}
  // After SetArray wrote the model.
  virtual void AfterSetArray() {}

  // model_->get(): the shared model until written, then the env's copy.
  // Only envs that own their model (or write it through EnvModel) write it.
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;

 private:
  void ModelChanged();

  std::unique_ptr<EnvModel> model_;
  bool model_info_ = false;
  bool expose_state_ = false;
  std::vector<double> qpos0_, qvel0_;
  std::unique_ptr<MujocoRenderer> renderer_;        // render()
  std::unique_ptr<MujocoRenderer> pixel_renderer_;  // from_pixels
};

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_MUJOCO_BASE_H_
