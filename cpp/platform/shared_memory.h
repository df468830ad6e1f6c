// A named shared-memory segment mapped into this process: POSIX shm_open +
// mmap (Linux, macOS), a named file mapping on Windows (the name Python's
// multiprocessing.shared_memory gives it there). On Windows the segments
// mapped here are listed (SegmentOf), so that a wait on a word inside one
// can use a named kernel object that other processes find (shared_wait.h).
#ifndef ENVPOOL_PLATFORM_SHARED_MEMORY_H_
#define ENVPOOL_PLATFORM_SHARED_MEMORY_H_

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "cpp/platform/os.h"

#if defined(ENVPOOL_WINDOWS)
#include <map>
#include <mutex>
#include <vector>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace envpool::platform {

#if defined(ENVPOOL_WINDOWS)
// The segments this process has mapped, and the named semaphores of the
// words waited on in them (one per word offset, made at the first use).
struct MappedSegment {
  const char* base;
  std::size_t size;
  std::string name;
  std::map<std::size_t, HANDLE> semaphores;
};
struct SegmentTable {
  std::mutex mu;
  std::vector<MappedSegment> segments;
};
inline SegmentTable& Segments() {
  static auto* table = new SegmentTable;  // never destroyed: waits may run at exit
  return *table;
}
#endif

class SharedMemory {
 public:
  // Maps the existing segment `name` ("/name" on POSIX), read-write.
  static SharedMemory Open(const std::string& name, std::size_t bytes) { return SharedMemory(name, bytes, false); }
  // Creates the segment (zero-filled; refused if it exists). Remove the
  // name with Unlink once every process has it open (on Windows it goes
  // with its last mapping).
  static SharedMemory Create(const std::string& name, std::size_t bytes) { return SharedMemory(name, bytes, true); }
  static void Unlink(const std::string& name) {
#if !defined(ENVPOOL_WINDOWS)
    shm_unlink(name.c_str());
#else
    (void)name;
#endif
  }

  SharedMemory(SharedMemory&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(o.size_), handle_(std::exchange(o.handle_, nullptr)) {}
  SharedMemory& operator=(SharedMemory&&) = delete;
  SharedMemory(const SharedMemory&) = delete;
  ~SharedMemory() {
    if (data_ == nullptr) return;
#if defined(ENVPOOL_WINDOWS)
    {
      SegmentTable& t = Segments();
      std::lock_guard<std::mutex> lock(t.mu);
      for (auto it = t.segments.begin(); it != t.segments.end(); ++it) {
        if (it->base != data_) continue;
        for (auto& [off, h] : it->semaphores) CloseHandle(h);
        t.segments.erase(it);
        break;
      }
    }
    UnmapViewOfFile(data_);
    CloseHandle(handle_);
#else
    munmap(data_, size_);
#endif
  }

  char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  SharedMemory(const std::string& name, std::size_t bytes, bool create) : size_(bytes) {
#if defined(ENVPOOL_WINDOWS)
    // POSIX-style names start with '/'; a Windows object name has none.
    const std::string win = !name.empty() && name[0] == '/' ? name.substr(1) : name;
    if (create) {
      const unsigned long long n = bytes;
      handle_ = CreateFileMappingA(INVALID_HANDLE_VALUE, nullptr, PAGE_READWRITE, static_cast<DWORD>(n >> 32),
                                   static_cast<DWORD>(n & 0xffffffffu), win.c_str());
      if (handle_ != nullptr && GetLastError() == ERROR_ALREADY_EXISTS) {
        CloseHandle(handle_);
        throw std::runtime_error("shared memory '" + name + "' exists already");
      }
    } else {
      handle_ = OpenFileMappingA(FILE_MAP_ALL_ACCESS, FALSE, win.c_str());
    }
    if (handle_ == nullptr)
      throw std::runtime_error("cannot open shared memory '" + name + "': Windows error " +
                               std::to_string(GetLastError()));
    data_ = static_cast<char*>(MapViewOfFile(handle_, FILE_MAP_ALL_ACCESS, 0, 0, bytes));
    if (data_ == nullptr) {
      const DWORD err = GetLastError();
      CloseHandle(handle_);
      throw std::runtime_error("cannot map shared memory '" + name + "': Windows error " + std::to_string(err));
    }
    SegmentTable& t = Segments();
    std::lock_guard<std::mutex> lock(t.mu);
    t.segments.push_back({data_, bytes, win, {}});
#else
    const int fd = create ? shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600) : shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) throw std::runtime_error("cannot open shared memory '" + name + "': " + std::strerror(errno));
    if (create && ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      const int err = errno;
      ::close(fd);
      shm_unlink(name.c_str());
      throw std::runtime_error("cannot size shared memory '" + name + "': " + std::strerror(err));
    }
    void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (mem == MAP_FAILED) throw std::runtime_error(std::string("mmap failed: ") + std::strerror(errno));
    data_ = static_cast<char*>(mem);
#endif
  }

  char* data_ = nullptr;
  std::size_t size_ = 0;
  void* handle_ = nullptr;  // the file mapping (Windows)
};

}  // namespace envpool::platform

#endif  // ENVPOOL_PLATFORM_SHARED_MEMORY_H_
