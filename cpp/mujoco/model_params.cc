// Per-env model parameters; see model_params.h.
#include "cpp/mujoco/model_params.h"

#include <mujoco/mjxmacro.h>

#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <type_traits>

namespace envpool::mujoco {
namespace {

template <class T>
constexpr bool kIsText = std::is_same_v<T, char>;

template <class T>
DType DTypeOfField() {
  if constexpr (std::is_same_v<T, mjtNum>) return DType::kFloat64;
  if constexpr (std::is_same_v<T, float>) return DType::kFloat32;
  if constexpr (std::is_same_v<T, int>) return DType::kInt32;
  if constexpr (std::is_same_v<T, mjtSize>) return DType::kInt64;
  return DType::kUInt8;  // mjtByte, mjtBool
}

bool IsSetConstInput(const std::string& name) {
  // The first group of mj_setConst that uses an array decides: an input if
  // it reads it (mjxmacro.h's rule).
  auto input = [](int g0, int g1, int g2, int g3) {
    for (int g : {g0, g1, g2, g3})
      if (g != 0) return (g & mjSC_IN) != 0;
    return false;
  };
#define X(field, g0, g1, g2, g3) \
  if (name == #field) return input(g0, g1, g2, g3);
  MJSETCONST_ARRAYS
#undef X
  return false;
}

double Draw(std::mt19937_64& rng, double lo, double hi) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return lo + (hi - lo) * u;
}

// lo or hi: one number for every element, one per column of a 2-D field
// (the same for every row, as numpy broadcasts a row), or one per element.
std::vector<double> ParseBounds(const std::string& text, const ModelField& f, const std::string& what) {
  const std::size_t count = f.count();
  const std::size_t cols = f.shape.size() == 2 ? static_cast<std::size_t>(f.shape[1]) : count;
  std::vector<double> v;
  std::stringstream s(text);
  std::string item;
  while (std::getline(s, item, ',')) {
    std::size_t used = 0;
    double x = 0.0;
    try {
      x = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || !std::isfinite(x))
      throw std::invalid_argument("model_randomization: " + what + " holds '" + item + "', not a finite number");
    v.push_back(x);
  }
  if (v.size() == 1) v.assign(count, v[0]);
  if (v.size() == cols && cols != count) {
    std::vector<double> row = v;
    v.clear();
    for (std::size_t i = 0; i < count; ++i) v.push_back(row[i % cols]);
  }
  if (v.size() != count)
    throw std::invalid_argument("model_randomization: " + what + " has " + std::to_string(v.size()) +
                                " values; the field has " + std::to_string(count) + " elements (give one, " +
                                (cols != count ? "one per column (" + std::to_string(cols) + "), " : std::string()) +
                                "or " + std::to_string(count) + ")");
  return v;
}

}  // namespace

std::size_t ModelField::count() const {
  std::size_t n = 1;
  for (int d : shape) n *= static_cast<std::size_t>(d);
  return n;
}

char* ModelField::In(mjModel* m) const {
  return (in_opt ? reinterpret_cast<char*>(&m->opt) : static_cast<char*>(m->buffer)) + offset;
}
const char* ModelField::In(const mjModel* m) const {
  return (in_opt ? reinterpret_cast<const char*>(&m->opt) : static_cast<const char*>(m->buffer)) + offset;
}

std::optional<ModelField> FindModelField(const mjModel* m, const std::string& name) {
  if (name.rfind("opt.", 0) == 0) {
    const std::string key = name.substr(4);
    const char* base = reinterpret_cast<const char*>(&m->opt);
#define X(type, field, n)                                                                        \
  if (key == #field) {                                                                           \
    ModelField f{name,                                                                           \
                 DTypeOfField<type>(),                                                           \
                 {},                                                                             \
                 true,                                                                           \
                 static_cast<std::size_t>(reinterpret_cast<const char*>(&m->opt.field) - base)}; \
    f.floating = std::is_floating_point_v<type>;                                                 \
    return f;                                                                                    \
  }
#define XVEC(type, field, n)                                                                        \
  if (key == #field) {                                                                              \
    ModelField f{name,                                                                              \
                 DTypeOfField<type>(),                                                              \
                 {static_cast<int>(n)},                                                             \
                 true,                                                                              \
                 static_cast<std::size_t>(reinterpret_cast<const char*>(&m->opt.field[0]) - base)}; \
    f.floating = std::is_floating_point_v<type>;                                                    \
    return f;                                                                                       \
  }
    MJOPTION_FIELDS
#undef X
#undef XVEC
    return std::nullopt;
  }
  MJMODEL_POINTERS_PREAMBLE(m)
  const char* buffer = static_cast<const char*>(m->buffer);
#define X(type, field, nr, nc)                                                                                       \
  if (name == #field) {                                                                                              \
    if constexpr (kIsText<type>) return std::nullopt;                                                                \
    ModelField f;                                                                                                    \
    f.name = name;                                                                                                   \
    f.dtype = DTypeOfField<type>();                                                                                  \
    f.shape = {static_cast<int>(m->nr)};                                                                             \
    if ((nc) != 1) f.shape.push_back(static_cast<int>(nc));                                                          \
    f.offset = m->field != nullptr ? static_cast<std::size_t>(reinterpret_cast<const char*>(m->field) - buffer) : 0; \
    f.floating = std::is_floating_point_v<type>;                                                                     \
    f.set_const = IsSetConstInput(name);                                                                             \
    return f;                                                                                                        \
  }
#define XNV X
  MJMODEL_POINTERS
#undef X
#undef XNV
      (void)
  nuser_body, (void)nuser_jnt, (void)nuser_geom, (void)nuser_site, (void)nuser_cam, (void)nuser_tendon;
  (void)nuser_actuator, (void)nuser_sensor, (void)nq, (void)nv, (void)na, (void)nu, (void)nmocap;
  return std::nullopt;
}

std::vector<std::string> ModelFieldNames() {
  std::vector<std::string> names{kCopyBytes};
#define X(type, field, n) names.push_back("opt." #field);
#define XVEC X
  MJOPTION_FIELDS
#undef X
#undef XVEC
#define X(type, field, nr, nc) \
  if (!kIsText<type>) names.push_back(#field);
#define XNV X
  MJMODEL_POINTERS
#undef X
#undef XNV
  return names;
}

void SetConst(mjModel* m) {
  mjData* scratch = mj_makeData(m);
  if (scratch == nullptr) throw std::bad_alloc();
  mj_setConst(m, scratch);
  mj_deleteData(scratch);
}

EnvModel::EnvModel(const mjModel* shared, const std::string& randomization, bool own) : shared_(shared) {
  if (own) Writable();
  std::stringstream spec(randomization);
  std::string item;
  while (std::getline(spec, item, ';')) {
    if (item.empty()) continue;
    std::vector<std::string> parts;
    std::stringstream s(item);
    std::string part;
    while (std::getline(s, part, ':')) parts.push_back(part);
    if (parts.size() != 4)
      throw std::invalid_argument("model_randomization: '" + item + "' is not field:operation:low:high");
    std::optional<ModelField> f = FindModelField(shared_, parts[0]);
    if (!f) throw std::invalid_argument("model_randomization: the model has no field '" + parts[0] + "'");
    if (!f->floating)
      throw std::invalid_argument("model_randomization: '" + parts[0] +
                                  "' is an integer field (the model's structure); only float fields can be randomized");
    for (const Randomized& r : randomized_)
      if (r.field.name == f->name)
        throw std::invalid_argument("model_randomization: '" + parts[0] + "' is given twice");
    Randomized r{*f, Randomized::Op::kScale, {}, {}, {}};
    if (parts[1] == "scale")
      r.op = Randomized::Op::kScale;
    else if (parts[1] == "add")
      r.op = Randomized::Op::kAdd;
    else if (parts[1] == "uniform")
      r.op = Randomized::Op::kUniform;
    else
      throw std::invalid_argument("model_randomization: '" + parts[0] + "' has operation '" + parts[1] +
                                  "'; the operations are 'scale', 'add' and 'uniform'");
    const std::size_t n = f->count();
    r.lo = ParseBounds(parts[2], *f, "'" + parts[0] + "' low");
    r.hi = ParseBounds(parts[3], *f, "'" + parts[0] + "' high");
    for (std::size_t i = 0; i < n; ++i)
      if (r.lo[i] > r.hi[i])
        throw std::invalid_argument("model_randomization: '" + parts[0] + "' has low > high at element " +
                                    std::to_string(i));
    r.base.resize(n);
    Read(*f, r.base.data());
    randomized_.push_back(std::move(r));
  }
}

EnvModel::~EnvModel() {
  if (own_ != nullptr) mj_deleteModel(own_);
}

mjModel* EnvModel::Writable() {
  if (own_ == nullptr) {
    own_ = mj_copyModel(nullptr, shared_);
    if (own_ == nullptr) throw std::bad_alloc();
  }
  return own_;
}

bool EnvModel::Find(const std::string& name, ArraySpec* spec) const {
  if (name == kCopyBytes) {
    *spec = ArraySpec{name, DType::kInt64, {}, {}, {}};
    return true;
  }
  std::optional<ModelField> f = FindModelField(get(), name);
  if (!f) return false;
  *spec = ArraySpec{name, f->dtype, f->shape, {}, {}};
  return true;
}

void EnvModel::Get(const std::string& name, void* dst) const {
  if (name == kCopyBytes) {
    const int64_t bytes = own_ != nullptr ? static_cast<int64_t>(mj_sizeModel(own_)) : 0;
    std::memcpy(dst, &bytes, sizeof(bytes));
    return;
  }
  const std::optional<ModelField> f = FindModelField(get(), name);
  if (!f) throw std::invalid_argument("the model has no field '" + name + "'");
  std::memcpy(dst, f->In(get()), f->count() * DTypeSize(f->dtype));
}

bool EnvModel::CanSet(const std::string& name, std::string* why) const {
  if (name == kCopyBytes) {
    *why = "'" + name + "' is read-only";
    return false;
  }
  const std::optional<ModelField> f = FindModelField(get(), name);
  if (!f) {
    *why = "the model has no field '" + name + "'";
    return false;
  }
  if (!f->floating) {
    *why = "'" + name + "' is an integer field (ids, addresses, types, flags: the model's structure) and read-only";
    return false;
  }
  return true;
}

bool EnvModel::Set(const std::string& name, const void* src) {
  const std::optional<ModelField> f = FindModelField(get(), name);
  if (!f || !f->floating) throw std::invalid_argument("'" + name + "' cannot be set");
  mjModel* m = Writable();
  std::memcpy(f->In(m), src, f->count() * DTypeSize(f->dtype));
  for (Randomized& r : randomized_)
    if (r.field.name == name) Read(*f, r.base.data());
  return f->set_const;
}

void EnvModel::Seed(uint64_t seed) {
  // splitmix64 of the seed: a stream apart from the task's own draws.
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  rng_.seed(z ^ (z >> 31));
}

void EnvModel::Read(const ModelField& f, double* dst) const {
  const char* p = f.In(get());
  const std::size_t n = f.count();
  if (f.dtype == DType::kFloat32) {
    const float* v = reinterpret_cast<const float*>(p);
    for (std::size_t i = 0; i < n; ++i) dst[i] = v[i];
  } else {
    std::memcpy(dst, p, n * sizeof(double));
  }
}

bool EnvModel::Randomize() {
  if (randomized_.empty()) return false;
  mjModel* m = Writable();
  bool set_const = false;
  for (const Randomized& r : randomized_) {
    char* p = r.field.In(m);
    const std::size_t n = r.field.count();
    for (std::size_t i = 0; i < n; ++i) {
      const double u = Draw(rng_, r.lo[i], r.hi[i]);
      const double v = r.op == Randomized::Op::kScale ? r.base[i] * u
                       : r.op == Randomized::Op::kAdd ? r.base[i] + u
                                                      : u;
      if (r.field.dtype == DType::kFloat32)
        reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      else
        reinterpret_cast<double*>(p)[i] = v;
    }
    set_const = set_const || r.field.set_const;
  }
  return set_const;
}

}  // namespace envpool::mujoco
