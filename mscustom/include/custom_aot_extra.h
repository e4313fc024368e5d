/*
 * custom_aot_extra.h -- the C++ `extra` argument of aot kernels, as MindSpore
 * documents it for its Custom operator (func_type="aot"), written for
 * mscustom.  A kernel written against MindSpore's header of the same name
 * compiles against this one unchanged.
 *
 *   extern "C" int FuncInit(int *ndims, int64_t **shapes, const char **dtypes,
 *                           AotExtra *extra);                       (optional)
 *   extern "C" int Func(int nparam, void **params, int *ndims,
 *                       int64_t **shapes, const char **dtypes,
 *                       void *stream, void *extra);                 (AotExtra*)
 *   extern "C" std::vector<int64_t> FuncInferShape(int *ndims,
 *                       int64_t **shapes, AotExtra *extra);         (optional)
 *   extern "C" std::vector<std::vector<int64_t>> FuncInferShape(...) (several outputs)
 *
 * - FuncInit runs once per input signature, before the first launch; it may
 *   read attributes (extra->Attr<T>("name")), ask for workspace buffers
 *   (extra->SetWorkSpace({bytes, ...})) and keep per-signature state
 *   (extra->SetKernelData(new MyData)).  Non-zero means failure.
 * - Func then gets inputs, outputs and one buffer per workspace entry in
 *   `params` (nparam counts them all); ndims/shapes/dtypes describe the inputs
 *   and outputs only.  `extra` is the same object FuncInit saw.
 * - FuncInferShape, when the op's out_shape is None, gives the output shape(s)
 *   from the inputs' (-1 marks an unknown dimension, {-2} an unknown rank).
 * - The kernel data is deleted (DestructKernelData) when the op is dropped.
 *
 * mscustom passes a real object derived from AotExtra (its own shim, built
 * with the same _GLIBCXX_USE_CXX11_ABI as the kernel library, since
 * std::string crosses the boundary).  Sources given to ops.Custom as
 * "file.cc:Func" are compiled as MindSpore compiles them: C++17,
 * -D_GLIBCXX_USE_CXX11_ABI=0, this header's folder and the source's folder on
 * the include path.
 *
 * Reading an attribute that is absent, or as a type it does not have, makes
 * the getter return an empty value and the framework raise an error naming
 * the op and the attribute once the call returns.
 */
#ifndef MSCUSTOM_CUSTOM_AOT_EXTRA_H_
#define MSCUSTOM_CUSTOM_AOT_EXTRA_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/* Per-signature state a kernel keeps between FuncInit and its launches. */
class AotKernelData {
 public:
  AotKernelData() = default;
  virtual ~AotKernelData() = default;
};

class AotExtra {
 public:
  AotExtra() = default;
  virtual ~AotExtra() = default;

  /* Whether the op carries attribute `name`. */
  virtual bool HasAttr(std::string name) = 0;

  /* The value of attribute `name` as T: one of bool, int64_t, float,
   * std::string, std::vector<int64_t>, std::vector<float>,
   * std::vector<std::vector<int64_t>>, std::vector<std::vector<float>>. */
  template <typename T>
  inline T Attr(std::string name) {
    return Get(name, static_cast<T *>(nullptr));
  }

  /* Workspace buffers (bytes each) that every launch receives after the outputs. */
  inline void SetWorkSpace(const std::vector<size_t> &sizes) { workspace_ = sizes; }
  inline const std::vector<size_t> &WorkSpace() const { return workspace_; }

  /* Per-signature kernel state; the extra owns it and deletes it at the end. */
  inline void SetKernelData(AotKernelData *data) {
    if (kernel_data_ != nullptr && kernel_data_ != data) delete kernel_data_;
    kernel_data_ = data;
  }
  inline AotKernelData *KernelData() const { return kernel_data_; }
  inline void DestructKernelData() {
    delete kernel_data_;
    kernel_data_ = nullptr;
  }

 private:
  virtual bool GetAttrBool(std::string name) = 0;
  virtual int64_t GetAttrInt(std::string name) = 0;
  virtual float GetAttrFloat(std::string name) = 0;
  virtual std::string GetAttrStr(std::string name) = 0;
  virtual std::vector<int64_t> GetAttrInts(std::string name) = 0;
  virtual std::vector<float> GetAttrFloats(std::string name) = 0;
  virtual std::vector<std::vector<int64_t>> GetAttr2DInts(std::string name) = 0;
  virtual std::vector<std::vector<float>> GetAttr2DFloats(std::string name) = 0;

  inline bool Get(const std::string &n, bool *) { return GetAttrBool(n); }
  inline int64_t Get(const std::string &n, int64_t *) { return GetAttrInt(n); }
  inline float Get(const std::string &n, float *) { return GetAttrFloat(n); }
  inline std::string Get(const std::string &n, std::string *) { return GetAttrStr(n); }
  inline std::vector<int64_t> Get(const std::string &n, std::vector<int64_t> *) { return GetAttrInts(n); }
  inline std::vector<float> Get(const std::string &n, std::vector<float> *) { return GetAttrFloats(n); }
  inline std::vector<std::vector<int64_t>> Get(const std::string &n, std::vector<std::vector<int64_t>> *) {
    return GetAttr2DInts(n);
  }
  inline std::vector<std::vector<float>> Get(const std::string &n, std::vector<std::vector<float>> *) {
    return GetAttr2DFloats(n);
  }

  std::vector<size_t> workspace_;
  AotKernelData *kernel_data_ = nullptr;
};

/* Marks a library built against this header, and with which std::string ABI
 * (bit 0: _GLIBCXX_USE_CXX11_ABI; bits 1..: the layout version, 1), so that
 * mscustom passes it an AotExtra and builds the matching shim. */
#ifndef _GLIBCXX_USE_CXX11_ABI
#define MSCUSTOM_AOT_EXTRA_CXX11 0
#else
#define MSCUSTOM_AOT_EXTRA_CXX11 _GLIBCXX_USE_CXX11_ABI
#endif
extern "C" __attribute__((weak, visibility("default"), used))
const int mscustom_aot_extra_abi = (1 << 1) | MSCUSTOM_AOT_EXTRA_CXX11;

#endif /* MSCUSTOM_CUSTOM_AOT_EXTRA_H_ */
