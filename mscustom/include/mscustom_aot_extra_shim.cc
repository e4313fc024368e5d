// The AotExtra object mscustom hands to C++ aot kernels (see custom_aot_extra.h),
// with C entry points that Python (cffi) uses to create, fill, query and free it,
// and the trampolines that call a kernel's <Func>InferShape, which returns a C++
// vector.  Built once per _GLIBCXX_USE_CXX11_ABI setting into the build cache.
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <vector>

#include "custom_aot_extra.h"

namespace {

enum Kind { kBool, kInt, kFloat, kStr, kInts, kFloats, kInts2D, kFloats2D };
const char *const kKindNames[] = {"bool",     "int64",       "float",         "string",
                                  "int64 vector", "float vector", "2-D int64 vector", "2-D float vector"};

struct Value {
  Kind kind;
  bool b = false;
  int64_t i = 0;
  double f = 0.0;
  std::string s;
  std::vector<int64_t> ints;
  std::vector<float> floats;
  std::vector<std::vector<int64_t>> ints2d;
  std::vector<std::vector<float>> floats2d;
};

class ShimExtra : public AotExtra {
 public:
  std::map<std::string, Value> values;
  std::string error;  // the first bad attribute read since the last reset

  bool HasAttr(std::string name) override { return values.count(name) != 0; }

 private:
  // The value of `name` if it holds kind `want` (an int64 also reads as float); else records why not.
  const Value *Find(const std::string &name, Kind want) {
    auto it = values.find(name);
    if (it == values.end()) {
      Fail("attribute '" + name + "' is not set (asked for " + kKindNames[want] + ")");
      return nullptr;
    }
    const Value &v = it->second;
    bool ok = v.kind == want || (want == kFloat && v.kind == kInt) || (want == kFloats && v.kind == kInts) ||
              (want == kFloats2D && v.kind == kInts2D);
    if (!ok) {
      Fail("attribute '" + name + "' holds a " + kKindNames[v.kind] + ", the kernel asked for a " +
           kKindNames[want]);
      return nullptr;
    }
    return &v;
  }
  void Fail(const std::string &why) {
    if (error.empty()) error = why;
  }

  bool GetAttrBool(std::string name) override {
    const Value *v = Find(name, kBool);
    return v ? v->b : false;
  }
  int64_t GetAttrInt(std::string name) override {
    const Value *v = Find(name, kInt);
    return v ? v->i : 0;
  }
  float GetAttrFloat(std::string name) override {
    const Value *v = Find(name, kFloat);
    if (!v) return 0.0f;
    return v->kind == kInt ? static_cast<float>(v->i) : static_cast<float>(v->f);
  }
  std::string GetAttrStr(std::string name) override {
    const Value *v = Find(name, kStr);
    return v ? v->s : std::string();
  }
  std::vector<int64_t> GetAttrInts(std::string name) override {
    const Value *v = Find(name, kInts);
    return v ? v->ints : std::vector<int64_t>();
  }
  std::vector<float> GetAttrFloats(std::string name) override {
    const Value *v = Find(name, kFloats);
    if (!v) return {};
    if (v->kind == kInts) return std::vector<float>(v->ints.begin(), v->ints.end());
    return v->floats;
  }
  std::vector<std::vector<int64_t>> GetAttr2DInts(std::string name) override {
    const Value *v = Find(name, kInts2D);
    return v ? v->ints2d : std::vector<std::vector<int64_t>>();
  }
  std::vector<std::vector<float>> GetAttr2DFloats(std::string name) override {
    const Value *v = Find(name, kFloats2D);
    if (!v) return {};
    if (v->kind == kFloats2D) return v->floats2d;
    std::vector<std::vector<float>> out;
    for (const auto &row : v->ints2d) out.emplace_back(row.begin(), row.end());
    return out;
  }
};

ShimExtra *Cast(void *p) { return static_cast<ShimExtra *>(static_cast<AotExtra *>(p)); }

Value &Slot(void *p, const char *name, Kind kind) {
  Value &v = Cast(p)->values[name];
  v = Value();
  v.kind = kind;
  return v;
}

// rows of a 2-D attribute: `lens[r]` values each, stored one after another in `flat`
template <typename T, typename S>
std::vector<std::vector<T>> Rows(const S *flat, const int64_t *lens, int64_t nrows) {
  std::vector<std::vector<T>> out;
  int64_t at = 0;
  for (int64_t r = 0; r < nrows; ++r) {
    out.emplace_back(flat + at, flat + at + lens[r]);
    at += lens[r];
  }
  return out;
}

int CopyShape(const std::vector<int64_t> &shape, int64_t *out, int64_t cap) {
  if (static_cast<int64_t>(shape.size()) > cap) return -1;
  for (size_t k = 0; k < shape.size(); ++k) out[k] = shape[k];
  return static_cast<int>(shape.size());
}

}  // namespace

extern "C" {

// Pass the AotExtra* (not the derived pointer) to kernels: what they cast `extra` to.
void *ms_extra_new(void) { return static_cast<AotExtra *>(new ShimExtra()); }

void ms_extra_free(void *p) {
  if (p == nullptr) return;
  AotExtra *e = static_cast<AotExtra *>(p);
  e->DestructKernelData();
  delete e;
}

void ms_extra_set_bool(void *p, const char *name, int v) { Slot(p, name, kBool).b = v != 0; }
void ms_extra_set_int(void *p, const char *name, int64_t v) { Slot(p, name, kInt).i = v; }
void ms_extra_set_float(void *p, const char *name, double v) { Slot(p, name, kFloat).f = v; }
void ms_extra_set_str(void *p, const char *name, const char *v, int64_t len) {
  Slot(p, name, kStr).s.assign(v, static_cast<size_t>(len));
}
void ms_extra_set_ints(void *p, const char *name, const int64_t *v, int64_t n) {
  Slot(p, name, kInts).ints.assign(v, v + n);
}
void ms_extra_set_floats(void *p, const char *name, const double *v, int64_t n) {
  Slot(p, name, kFloats).floats.assign(v, v + n);
}
void ms_extra_set_ints2d(void *p, const char *name, const int64_t *flat, const int64_t *lens, int64_t nrows) {
  Slot(p, name, kInts2D).ints2d = Rows<int64_t>(flat, lens, nrows);
}
void ms_extra_set_floats2d(void *p, const char *name, const double *flat, const int64_t *lens, int64_t nrows) {
  Slot(p, name, kFloats2D).floats2d = Rows<float>(flat, lens, nrows);
}

int64_t ms_extra_workspace_count(void *p) { return static_cast<int64_t>(Cast(p)->WorkSpace().size()); }
uint64_t ms_extra_workspace_size(void *p, int64_t k) { return Cast(p)->WorkSpace()[static_cast<size_t>(k)]; }

// The first bad attribute read since the last call (empty: none); copied into buf, then cleared.
int64_t ms_extra_take_error(void *p, char *buf, int64_t cap) {
  ShimExtra *e = Cast(p);
  int64_t n = static_cast<int64_t>(e->error.size());
  if (n == 0 || cap <= 0) return n;
  int64_t m = n < cap - 1 ? n : cap - 1;
  std::memcpy(buf, e->error.data(), static_cast<size_t>(m));
  buf[m] = '\0';
  e->error.clear();
  return n;
}

typedef std::vector<int64_t> (*InferOne)(int *, int64_t **, AotExtra *);
typedef std::vector<std::vector<int64_t>> (*InferMany)(int *, int64_t **, AotExtra *);

// One output: its rank, or -1 (more than cap dims), -3 (the function threw; message in msg).
int ms_extra_infer_one(void *fn, int *ndims, int64_t **shapes, void *extra, int64_t *out, int64_t cap,
                       char *msg, int64_t msg_cap) {
  try {
    return CopyShape(reinterpret_cast<InferOne>(fn)(ndims, shapes, static_cast<AotExtra *>(extra)), out, cap);
  } catch (const std::exception &exc) {
    std::strncpy(msg, exc.what(), static_cast<size_t>(msg_cap - 1));
    msg[msg_cap - 1] = '\0';
  } catch (...) {
    std::strncpy(msg, "unknown C++ exception", static_cast<size_t>(msg_cap - 1));
    msg[msg_cap - 1] = '\0';
  }
  return -3;
}

// Several outputs: how many shapes came back (ranks in ranks[], dims `cap` apart in out[]),
// or -1 (too many outputs or dims), -3 (the function threw; message in msg).
int ms_extra_infer_many(void *fn, int *ndims, int64_t **shapes, void *extra, int64_t *out, int64_t cap,
                        int64_t *ranks, int64_t max_out, char *msg, int64_t msg_cap) {
  try {
    auto all = reinterpret_cast<InferMany>(fn)(ndims, shapes, static_cast<AotExtra *>(extra));
    if (static_cast<int64_t>(all.size()) > max_out) return -1;
    for (size_t j = 0; j < all.size(); ++j) {
      int r = CopyShape(all[j], out + j * cap, cap);
      if (r < 0) return -1;
      ranks[j] = r;
    }
    return static_cast<int>(all.size());
  } catch (const std::exception &exc) {
    std::strncpy(msg, exc.what(), static_cast<size_t>(msg_cap - 1));
    msg[msg_cap - 1] = '\0';
  } catch (...) {
    std::strncpy(msg, "unknown C++ exception", static_cast<size_t>(msg_cap - 1));
    msg[msg_cap - 1] = '\0';
  }
  return -3;
}

}  // extern "C"
