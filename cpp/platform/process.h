// Other processes: whether one is alive, killing one, whether the process
// that started this one is gone, dying with it, and starting a child (the
// cross-process tests). Process ids are plain integers everywhere.
#ifndef ENVPOOL_PLATFORM_PROCESS_H_
#define ENVPOOL_PLATFORM_PROCESS_H_

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/platform/os.h"

#if !defined(ENVPOOL_WINDOWS)
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#endif
#if defined(ENVPOOL_LINUX)
#include <sys/prctl.h>
#elif defined(ENVPOOL_MACOS)
#include <thread>
#endif

#if !defined(ENVPOOL_WINDOWS)
extern char** environ;
#endif

namespace envpool::platform {

inline long CurrentPid() {
#if defined(ENVPOOL_WINDOWS)
  return static_cast<long>(GetCurrentProcessId());
#else
  return static_cast<long>(getpid());
#endif
}

inline bool ProcessAlive(long pid) {
#if defined(ENVPOOL_WINDOWS)
  HANDLE h = OpenProcess(SYNCHRONIZE, FALSE, static_cast<DWORD>(pid));
  if (h == nullptr) return false;
  const bool alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT;
  CloseHandle(h);
  return alive;
#else
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
#endif
}

inline void KillProcess(long pid) {
#if defined(ENVPOOL_WINDOWS)
  HANDLE h = OpenProcess(PROCESS_TERMINATE, FALSE, static_cast<DWORD>(pid));
  if (h == nullptr) return;
  TerminateProcess(h, 137);
  CloseHandle(h);
#else
  kill(static_cast<pid_t>(pid), SIGKILL);
#endif
}

// Whether the process `parent_pid` that started this one is gone. POSIX
// asks whether this process was handed to another parent (a recycled pid
// cannot fool it); Windows, which reparents nothing, whether it is alive.
inline bool ParentGone(long parent_pid) {
#if defined(ENVPOOL_WINDOWS)
  return !ProcessAlive(parent_pid);
#else
  return static_cast<long>(getppid()) != parent_pid;
#endif
}

// Ends this process when its parent `parent_pid` ends: the kernel's
// parent-death signal on Linux, elsewhere a thread that looks every 100 ms.
inline void DieWithParent(long parent_pid) {
#if defined(ENVPOOL_LINUX)
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (ParentGone(parent_pid)) _exit(0);  // it died before the signal was armed
#else
  std::thread([parent_pid] {
    while (!ParentGone(parent_pid)) {
#if defined(ENVPOOL_WINDOWS)
      Sleep(100);
#else
      usleep(100 * 1000);
#endif
    }
    _exit(0);
  }).detach();
#endif
}

// The signal's name ("Killed"), or "" where there are no signals.
inline std::string SignalName(int sig) {
#if defined(ENVPOOL_WINDOWS)
  (void)sig;
  return "";
#else
  const char* s = strsignal(sig);
  return s != nullptr ? s : "";
#endif
}

// A child process running `exe` with `args` (the environment inherited).
class ChildProcess {
 public:
  ChildProcess(const std::string& exe, const std::vector<std::string>& args) {
#if defined(ENVPOOL_WINDOWS)
    std::string cmd = "\"" + exe + "\"";
    for (const std::string& a : args) cmd += " \"" + a + "\"";
    STARTUPINFOA si;
    std::memset(&si, 0, sizeof(si));
    si.cb = sizeof(si);
    PROCESS_INFORMATION pi;
    if (!CreateProcessA(exe.c_str(), cmd.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &si, &pi))
      throw std::runtime_error("cannot start '" + exe + "': Windows error " + std::to_string(GetLastError()));
    CloseHandle(pi.hThread);
    handle_ = pi.hProcess;
    pid_ = static_cast<long>(pi.dwProcessId);
#else
    std::vector<char*> argv{const_cast<char*>(exe.c_str())};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ);
    if (rc != 0) throw std::runtime_error("cannot start '" + exe + "': " + std::strerror(rc));
    pid_ = static_cast<long>(pid);
#endif
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess() {
    if (pid_ == 0) return;
    KillProcess(pid_);
    Wait();
  }

  long pid() const { return pid_; }

  // Waits for the child to end; its exit code (-signal if a signal ended it).
  int Wait() {
    int code = -1;
#if defined(ENVPOOL_WINDOWS)
    if (handle_ == nullptr) return code;
    WaitForSingleObject(handle_, INFINITE);
    DWORD c = 0;
    if (GetExitCodeProcess(handle_, &c)) code = static_cast<int>(c);
    CloseHandle(handle_);
    handle_ = nullptr;
#else
    if (pid_ == 0) return code;
    int status = 0;
    pid_t r;
    while ((r = waitpid(static_cast<pid_t>(pid_), &status, 0)) < 0 && errno == EINTR) {
    }
    if (r > 0) code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
#endif
    pid_ = 0;
    return code;
  }

 private:
  long pid_ = 0;
#if defined(ENVPOOL_WINDOWS)
  HANDLE handle_ = nullptr;
#endif
};

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_PROCESS_H_
