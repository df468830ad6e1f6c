// The XLA handlers' pools: a compiled program names its pool by a registry
// id (an FFI attribute), never by a pointer, and each Python pool owns its
// entry (XlaSlot). Needs no XLA headers.
#ifndef ENVPOOL_BINDING_XLA_REGISTRY_H_
#define ENVPOOL_BINDING_XLA_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cpp/core/checks.h"
#include "cpp/core/pool.h"

namespace envpool::binding {

// What the handlers need of one pool, fixed when the pool is bound.
struct Bound {
  std::shared_ptr<envpool::EnvPool> pool;
  std::vector<int> all_ids;
  std::vector<bool> discrete;  // per action key (checks::IsDiscrete)
};

inline std::shared_ptr<const Bound> MakeBound(std::shared_ptr<envpool::EnvPool> pool) {
  auto b = std::make_shared<Bound>();
  for (int i = 0; i < pool->options().num_envs; ++i) b->all_ids.push_back(i);
  for (const ArraySpec& a : pool->env_spec().action) {
    b->discrete.push_back(checks::IsDiscrete(a));
  }
  b->pool = std::move(pool);
  return b;
}

// Bound pools by id. Ids are never reused, so a stale program never reaches
// another pool. Leaked on purpose: XLA threads may still call in while the
// interpreter tears down static objects.
class Registry {
 public:
  static Registry& Get() {
    static Registry* r = new Registry;
    return *r;
  }
  int64_t Add(std::shared_ptr<const Bound> b) {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t id = next_++;
    pools_[id] = std::move(b);
    return id;
  }
  void Set(int64_t id, std::shared_ptr<const Bound> b) {
    std::lock_guard<std::mutex> lock(mu_);
    pools_[id].swap(b);  // the old binding is released after the lock
  }
  void Remove(int64_t id) {
    std::shared_ptr<const Bound> gone;  // released (maybe the engine) after the lock
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    if (it == pools_.end()) return;
    gone = std::move(it->second);
    pools_.erase(it);
  }
  std::shared_ptr<const Bound> Find(int64_t id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pools_.find(id);
    return it == pools_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<const Bound>> pools_;
  int64_t next_ = 1;
};

// A pool's place in the registry, owned by its Python pool object: bound to
// the pool's engine (rebound when the Python pool rebuilds its engine) and
// removed when the Python object goes.
class XlaSlot {
 public:
  explicit XlaSlot(std::shared_ptr<EnvPool> pool) : id_(Registry::Get().Add(MakeBound(std::move(pool)))) {}
  ~XlaSlot() { Registry::Get().Remove(id_); }
  XlaSlot(const XlaSlot&) = delete;
  XlaSlot& operator=(const XlaSlot&) = delete;
  void Bind(std::shared_ptr<EnvPool> pool) { Registry::Get().Set(id_, MakeBound(std::move(pool))); }
  int64_t id() const { return id_; }

 private:
  int64_t id_;
};

}  // namespace envpool::binding

#endif  // ENVPOOL_BINDING_XLA_REGISTRY_H_
