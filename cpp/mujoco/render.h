// MuJoCo's own renderer (mjr_*) off-screen, as gymnasium's MujocoRenderer /
// OffScreenViewer drives it, so frames equal gymnasium's render() under the
// same GL backend: an mjvScene of max_geom geoms, default mjvOption and
// mjvPerturb, a free camera at the median of the geoms' positions and the
// model's extent, then default_camera_config applied on top; each frame
// mjv_updateScene (mjCAT_ALL), mjr_render and mjr_readPixels into the
// model's offscreen buffer (vis.global.offwidth/offheight grown, never
// shrunk, to the frame size, as gymnasium's MujocoEnv does), flipped to top
// row first.
//
// Threads: a renderer belongs to one env and is used by one thread at a
// time (any thread). The GL state lives per thread: each thread that
// renders gets its own GL context (gl_context.h) at its first render and,
// in it, one mjrContext per (model, offscreen size), shared by the envs of
// that model rendering on that thread. They are freed at thread exit (the
// pool's workers exit at close()), and a model's mjrContexts when no
// renderer uses the model any more (at the thread's next render). On Mesa's
// software rasterizer the GL part runs instead in a helper process per
// thread (render_process.h), which holds the same per-model contexts; the
// scene is still built on the thread.
#ifndef ENVPOOL_MUJOCO_RENDER_H_
#define ENVPOOL_MUJOCO_RENDER_H_

#include <mujoco/mujoco.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace envpool::mujoco {

// gymnasium's default_camera_config: the mjvCamera fields it sets, each
// optional. As text (the config value): "key=value;..." with keys type,
// fixedcamid, trackbodyid, orthographic (ints), distance, azimuth,
// elevation (numbers) and lookat (three numbers, comma separated), e.g.
// "distance=4;lookat=0,0,2;elevation=-20". "" is no config.
struct CameraConfig {
  std::optional<int> type, fixedcamid, trackbodyid, orthographic;
  std::optional<double> distance, azimuth, elevation;
  std::optional<std::array<double, 3>> lookat;

  // Throws std::invalid_argument naming the bad entry.
  static CameraConfig Parse(const std::string& text);
  void ApplyTo(mjvCamera* cam) const;
};

struct RenderOptions {
  int width = 480;
  int height = 480;
  // gymnasium's camera_id / camera_name: -1 and "" (its None, None) render
  // from the free camera; a camera_name is looked up with mj_name2id.
  int camera_id = -1;
  std::string camera_name;
  CameraConfig default_camera;
  int max_geom = 1000;
  // gymnasium's visual_options: mjvOption flags (mjtVisFlag index, value).
  std::vector<std::pair<int, bool>> visual_flags;

  // Where frames are drawn: in a helper process per stepping thread
  // (render_process.h), or on the thread's own GL context. kAuto: in
  // helper processes where the GL backend is Mesa's software rasterizer
  // (GLContext::Software) and the helper is installed.
  enum class Process { kAuto, kOn, kOff };
  Process process = Process::kAuto;

  // visual_options as text, "flag=0|1;...", e.g. "0=1;13=0" (mjtVisFlag
  // indices). Throws std::invalid_argument.
  static std::vector<std::pair<int, bool>> ParseVisualOptions(const std::string& text);
  // render_processes as text: "auto", "on" or "off". Throws
  // std::invalid_argument.
  static Process ParseProcess(const std::string& text);
};

class MujocoRenderer {
 public:
  // Checks the options against the model (std::invalid_argument: sizes not
  // positive, an unknown camera name or id, both a camera id and a name).
  // No GL work happens here: the first Render() sets everything up.
  MujocoRenderer(const mjModel* m, const RenderOptions& options);
  ~MujocoRenderer();
  MujocoRenderer(const MujocoRenderer&) = delete;
  MujocoRenderer& operator=(const MujocoRenderer&) = delete;

  int width() const { return width_; }
  int height() const { return height_; }
  // The free camera (-1) or a model camera's id.
  int camera_id() const { return camera_id_; }

  // Draws d's current state into rgb, top row first: height x width x 3
  // uint8, or 3 x height x width with channel_first (a pixel observation),
  // on the calling thread's GL context. The first call fixes the free
  // camera (the median geom position of d's state, like gymnasium's viewer
  // at its first render). Throws std::runtime_error when no GL is
  // available, or what MuJoCo's renderer raises.
  void Render(mjData* d, uint8_t* rgb, bool channel_first = false);

  // Upload the model's height fields to the GL context before each frame:
  // for a model whose hfield_data changes between frames (dm_control's
  // quadruped escape draws its terrain per episode and uploads it then).
  void set_upload_hfields(bool on) { upload_hfields_ = on; }

  // The model the scene is drawn from (an env's own copy of the model it
  // was made with, model_params.h): same sizes, meshes and textures, so the
  // GL context of the original serves it.
  void set_scene_model(const mjModel* m) { scene_m_ = m; }

 private:
  void SetUp(mjData* d);
  bool InProcess();  // whether this frame goes to the thread's helper process

  const mjModel* m_;
  const mjModel* scene_m_;
  int width_, height_;
  int camera_id_;
  int max_geom_;
  RenderOptions::Process process_;
  CameraConfig default_camera_;
  std::vector<std::pair<int, bool>> visual_flags_;
  int off_width_, off_height_;  // the offscreen buffer: at least the frame
  uint64_t model_serial_ = 0;   // 0: not registered (no render yet)
  bool set_up_ = false;
  bool upload_hfields_ = false;
  mjvScene scene_;
  mjvCamera camera_;
  mjvOption option_;
  mjvPerturb perturb_;
  std::vector<unsigned char> pixels_;  // bottom row first, as read
};

}  // namespace envpool::mujoco

#endif  // ENVPOOL_MUJOCO_RENDER_H_
