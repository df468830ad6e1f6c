// Links against the mujoco wheel's Windows DLL (tools/cross_check.py wine):
// a function, a data export (mju_user_error) and a failing model load that
// reports through the error buffer.
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>

static void Error(const char* msg) { std::printf("mujoco error: %s\n", msg); }

int main() {
  mju_user_error = &Error;
  char err[256] = "";
  mjModel* m = mj_loadXML("no-such-model.xml", nullptr, err, sizeof(err));
  if (m != nullptr || std::strlen(err) == 0) return 1;
  std::printf("mujoco %d\n", mj_version());
  if (mj_version() != mjVERSION_HEADER) return 2;
  std::puts("all ok");
  return 0;
}
