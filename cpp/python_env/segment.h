// The shared-memory segment through which the engine and the worker
// processes of users' Python envs talk (proc_env.h on the engine's side,
// cpp/binding/python_env_worker.cc's serving loop and envpool/python_env on the workers'
// and the owner's): the one description of its layout. Every C++ file reads
// the offsets from these structs, and Python reads them from
// _envpool._segment_layout() (SegmentLayout below), so that moving a field
// moves it everywhere; the static_asserts pin the layout the comments
// describe (little-endian, offsets in bytes).
//
// The segment: a header, one record per worker, then one slot per env.
// A slot is a control block, then each action array, then each state array
// (8-byte aligned, in spec order), the render frame (h * w * 3), the error
// text (u32 length, then UTF-8); both sides compute those offsets with the
// same rule (proc_env.h's Layout, envpool/python_env/_spaces.py), checked
// through slot_bytes.
#ifndef ENVPOOL_PYTHON_ENV_SEGMENT_H_
#define ENVPOOL_PYTHON_ENV_SEGMENT_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace envpool::python_env {

inline constexpr uint32_t kMagic = 0x50595052;  // "PYPR"
inline constexpr std::size_t kErrorBytes = 8192;
enum Command : uint32_t { kCmdReset = 1, kCmdStep = 2, kCmdRender = 3 };
// What the worker reports: ok, or the env's exception as the engine's
// exception types carry it (ValueError -> invalid_argument, IndexError ->
// out_of_range, anything else -> runtime_error).
enum Status : uint32_t { kOk = 0, kError = 1, kValueError = 2, kIndexError = 3 };

// At offset 0.
struct SegmentHeader {
  uint32_t magic;
  uint32_t closing;  // the owner closes the pool: workers return
  uint32_t num_envs;
  uint32_t num_workers;
  uint32_t epoch;          // bumped at each result, and by the owner when a worker dies
  uint32_t epoch_waiters;  // threads asleep on epoch
  uint32_t reserved[10];
};

// Worker w's, at sizeof(SegmentHeader) + w * sizeof(WorkerRecord).
struct WorkerRecord {
  int32_t pid;
  uint32_t gen;          // bumped by the owner when it replaces the worker
  uint32_t doorbell;     // bumped by a poster; the worker sleeps on it
  int32_t death_status;  // multiprocessing's exitcode: >= 0 exit code, < 0 -signal
  uint32_t broken;       // the worker could not be restarted
  uint32_t ticket;       // the next request's arrival number
  uint32_t sleeping;     // the worker sleeps on the doorbell
  uint32_t control;      // bumped by the owner for a request on its own pipe
  uint32_t reserved[8];
};

// The first bytes of env i's slot. A request is pending while req != done
// and the slot's gen is its worker's; the worker serves pending requests in
// ticket order: begun = req, the command, status (and the results), then
// done = req.
struct SlotControl {
  uint32_t req;   // bumped by the poster for each request
  uint32_t done;  // = req once answered; the poster sleeps on it
  uint32_t cmd;   // Command
  uint32_t gen;   // the worker generation the request is for
  uint64_t seed;
  uint32_t has_seed;
  uint32_t status;  // Status
  double reward;
  uint8_t terminated;
  uint8_t truncated;
  uint8_t pad[2];
  uint32_t error_req;  // the request an error answers
  uint32_t begun;      // the request taken up (the step timeout counts from it)
  uint32_t sleeping;   // a poster sleeps on done
  uint32_t ticket;     // the request's arrival number
  uint32_t reserved;
};

static_assert(sizeof(SegmentHeader) == 64 && sizeof(WorkerRecord) == 64 && sizeof(SlotControl) == 64);
static_assert(offsetof(SegmentHeader, closing) == 4 && offsetof(SegmentHeader, epoch) == 16 &&
              offsetof(SegmentHeader, epoch_waiters) == 20);
static_assert(offsetof(WorkerRecord, gen) == 4 && offsetof(WorkerRecord, doorbell) == 8 &&
              offsetof(WorkerRecord, death_status) == 12 && offsetof(WorkerRecord, broken) == 16 &&
              offsetof(WorkerRecord, ticket) == 20 && offsetof(WorkerRecord, sleeping) == 24 &&
              offsetof(WorkerRecord, control) == 28);
static_assert(offsetof(SlotControl, done) == 4 && offsetof(SlotControl, cmd) == 8 && offsetof(SlotControl, gen) == 12 &&
              offsetof(SlotControl, seed) == 16 && offsetof(SlotControl, has_seed) == 24 &&
              offsetof(SlotControl, status) == 28 && offsetof(SlotControl, reward) == 32 &&
              offsetof(SlotControl, terminated) == 40 && offsetof(SlotControl, truncated) == 41 &&
              offsetof(SlotControl, error_req) == 44 && offsetof(SlotControl, begun) == 48 &&
              offsetof(SlotControl, sleeping) == 52 && offsetof(SlotControl, ticket) == 56);
static_assert(std::atomic<uint32_t>::is_always_lock_free && sizeof(std::atomic<uint32_t>) == sizeof(uint32_t),
              "the segment's words are accessed as lock-free 32-bit atomics from both processes");

// A 32-bit word of the segment at p + offset, accessed atomically (both
// processes read and write it).
inline std::atomic<uint32_t>* Word(char* p, std::size_t offset) {
  return reinterpret_cast<std::atomic<uint32_t>*>(p + offset);
}

inline constexpr std::size_t kHeader = sizeof(SegmentHeader);
inline constexpr std::size_t kWorkerRecord = sizeof(WorkerRecord);
inline constexpr std::size_t kControl = sizeof(SlotControl);
inline constexpr std::size_t RecordOffset(int worker) { return kHeader + kWorkerRecord * worker; }

// What Python reads (envpool/python_env): sizes, constants, and every field's
// offset within its struct, as "<struct>.<field>".
inline std::vector<std::pair<std::string, std::size_t>> SegmentLayout() {
#define ENVPOOL_FIELD(S, prefix, f)              \
  {                                              \
    std::string(prefix) + "." #f, offsetof(S, f) \
  }
  return {
      {"header_bytes", kHeader},
      {"worker_record_bytes", kWorkerRecord},
      {"control_bytes", kControl},
      {"error_bytes", kErrorBytes},
      {"magic", kMagic},
      {"cmd_reset", kCmdReset},
      {"cmd_step", kCmdStep},
      {"cmd_render", kCmdRender},
      {"status_ok", kOk},
      {"status_error", kError},
      {"status_value_error", kValueError},
      {"status_index_error", kIndexError},
      ENVPOOL_FIELD(SegmentHeader, "header", magic),
      ENVPOOL_FIELD(SegmentHeader, "header", closing),
      ENVPOOL_FIELD(SegmentHeader, "header", num_envs),
      ENVPOOL_FIELD(SegmentHeader, "header", num_workers),
      ENVPOOL_FIELD(SegmentHeader, "header", epoch),
      ENVPOOL_FIELD(SegmentHeader, "header", epoch_waiters),
      ENVPOOL_FIELD(WorkerRecord, "record", pid),
      ENVPOOL_FIELD(WorkerRecord, "record", gen),
      ENVPOOL_FIELD(WorkerRecord, "record", doorbell),
      ENVPOOL_FIELD(WorkerRecord, "record", death_status),
      ENVPOOL_FIELD(WorkerRecord, "record", broken),
      ENVPOOL_FIELD(WorkerRecord, "record", ticket),
      ENVPOOL_FIELD(WorkerRecord, "record", sleeping),
      ENVPOOL_FIELD(WorkerRecord, "record", control),
      ENVPOOL_FIELD(SlotControl, "slot", req),
      ENVPOOL_FIELD(SlotControl, "slot", done),
      ENVPOOL_FIELD(SlotControl, "slot", cmd),
      ENVPOOL_FIELD(SlotControl, "slot", gen),
      ENVPOOL_FIELD(SlotControl, "slot", seed),
      ENVPOOL_FIELD(SlotControl, "slot", has_seed),
      ENVPOOL_FIELD(SlotControl, "slot", status),
      ENVPOOL_FIELD(SlotControl, "slot", reward),
      ENVPOOL_FIELD(SlotControl, "slot", terminated),
      ENVPOOL_FIELD(SlotControl, "slot", truncated),
      ENVPOOL_FIELD(SlotControl, "slot", error_req),
      ENVPOOL_FIELD(SlotControl, "slot", begun),
      ENVPOOL_FIELD(SlotControl, "slot", sleeping),
      ENVPOOL_FIELD(SlotControl, "slot", ticket),
  };
#undef ENVPOOL_FIELD
}

}  // namespace envpool::python_env

#endif  // ENVPOOL_PYTHON_ENV_SEGMENT_H_
