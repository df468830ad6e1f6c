// What every env on libmujoco shares; see mujoco_base.h.
#include "cpp/mujoco/mujoco_base.h"

#include <algorithm>
#include <stdexcept>

namespace envpool::mujoco {

void MujocoBaseSpec::AddInitialState(const MujocoBase& env) {
  if (!env.expose_state()) return;
  const mjModel* m = env.model();
  qpos0 = AddState<double>("info:qpos0", {static_cast<int>(m->nq)});
  qvel0 = AddState<double>("info:qvel0", {static_cast<int>(m->nv)});
}

void MujocoBaseSpec::AddModelInfo(const MujocoBase& env) {
  if (!env.model_info()) return;
  for (const EnvModel::Randomized& r : env.env_model().randomized())
    model_info.push_back(AddState<double>(ModelInfoKey(r.field.name), r.field.shape));
}

MujocoBase::MujocoBase(const Config& c, const mjModel* shared, bool own_model)
    : model_(std::make_unique<EnvModel>(shared, c.Get<std::string>("model_randomization"), own_model)),
      model_info_(c.Get<bool>("model_info")),
      expose_state_(c.Get<bool>("expose_state")) {
  // Written only once it is the env's own copy (EnvModel::Writable).
  m_ = const_cast<mjModel*>(model_->get());
  d_ = mj_makeData(m_);
  if (d_ == nullptr) throw std::runtime_error("mj_makeData failed");
  if (expose_state_) {
    qpos0_.assign(m_->nq, 0.0);
    qvel0_.assign(m_->nv, 0.0);
  }
}

MujocoBase::~MujocoBase() {
  renderer_.reset();  // before the model they render
  pixel_renderer_.reset();
  if (d_ != nullptr) mj_deleteData(d_);
}

void MujocoBase::MakeRenderers(const RenderOptions& render, const RenderOptions* pixels) {
  renderer_ = std::make_unique<MujocoRenderer>(m_, render);
  if (pixels != nullptr) pixel_renderer_ = std::make_unique<MujocoRenderer>(m_, *pixels);
}

void MujocoBase::UploadHFieldsWhenRendering() {
  renderer_->set_upload_hfields(true);
  if (pixel_renderer_ != nullptr) pixel_renderer_->set_upload_hfields(true);
}

void MujocoBase::SetArray(const std::string& name, const void* src) {
  if (model_->Set(name, src)) SetConst(model_->Writable());
  ModelChanged();
  AfterSetArray();
}

void MujocoBase::ModelChanged() {
  m_ = const_cast<mjModel*>(model_->get());
  renderer_->set_scene_model(m_);
  if (pixel_renderer_ != nullptr) pixel_renderer_->set_scene_model(m_);
  OnModelChanged();
}

void MujocoBase::ResetData() {
  if (!model_->randomized().empty()) {
    // d_ is reset next, so mj_setConst may use it as its scratch.
    if (model_->Randomize()) mj_setConst(model_->Writable(), d_);
    ModelChanged();
  }
  mj_resetData(m_, d_);
}

void MujocoBase::RecordInitialState() {
  if (!expose_state_) return;
  std::copy(d_->qpos, d_->qpos + m_->nq, qpos0_.begin());
  std::copy(d_->qvel, d_->qvel + m_->nv, qvel0_.begin());
}

void MujocoBase::WriteBaseState(const StateRow& out, const MujocoBaseSpec& s) const {
  if (expose_state_) {
    std::copy(qpos0_.begin(), qpos0_.end(), out[s.qpos0]);
    std::copy(qvel0_.begin(), qvel0_.end(), out[s.qvel0]);
  }
  for (std::size_t i = 0; i < s.model_info.size(); ++i)
    model_->Read(model_->randomized()[i].field, out[s.model_info[i]]);
  if (pixel_renderer_ != nullptr) pixel_renderer_->Render(d_, out[s.pixels], /*channel_first=*/true);
}

}  // namespace envpool::mujoco
