// CUDA example kernels for mscustom's AOT custom operators (GPU target).
//
//   CustomSquareCuda  (x)    -> out = x * x    float32 (and float64)
//   CustomAddCuda     (a, b) -> out = a + b    float32 (and float64)
//
// params are device pointers; shapes/ndims/dtypes are host memory.  The
// kernels are launched asynchronously on `stream` (the framework's
// cudaStream_t; NULL means the legacy default stream) and do not synchronize.
// A launch failure is reported as MS_ERR_CUDA.
#include <cstdint>

#include <cuda_runtime.h>

#include "mscustom_aot.h"

namespace {

constexpr int kThreads = 256;

template <typename T>
__global__ void SquareKernel(const T *__restrict__ x, T *__restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T v = x[i];
    out[i] = v * v;
  }
}

template <typename T>
__global__ void AddKernel(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ out,
                          int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    out[i] = a[i] + b[i];
  }
}

// Grid size for a grid-stride loop over n elements.
unsigned int Blocks(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  const int64_t kMaxBlocks = 65535;  // grid-stride loop covers the rest
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return static_cast<unsigned int>(blocks);
}

int LaunchStatus() { return cudaGetLastError() == cudaSuccess ? MS_OK : MS_ERR_CUDA; }

}  // namespace

// params = [x, out] (device pointers), same shape and dtype.
extern "C" int CustomSquareCuda(int nparam, void **params, int *ndims, int64_t **shapes,
                                const char **dtypes, void *stream, void *extra) {
  (void)extra;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_same_dtype(dtypes, 0, 1)) return MS_ERR_DTYPE;
  if (!ms_same_shape(ndims, shapes, 0, 1)) return MS_ERR_SHAPE;
  const int64_t n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if (params == nullptr || params[0] == nullptr || params[1] == nullptr) return MS_ERR_ARGS;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (ms_dtype_is(dtypes[0], "float32")) {
    SquareKernel<float><<<Blocks(n), kThreads, 0, s>>>(static_cast<const float *>(params[0]),
                                                       static_cast<float *>(params[1]), n);
  } else if (ms_dtype_is(dtypes[0], "float64")) {
    SquareKernel<double><<<Blocks(n), kThreads, 0, s>>>(static_cast<const double *>(params[0]),
                                                        static_cast<double *>(params[1]), n);
  } else {
    return MS_ERR_DTYPE;
  }
  return LaunchStatus();
}

// params = [a, b, out] (device pointers), same shape and dtype.
extern "C" int CustomAddCuda(int nparam, void **params, int *ndims, int64_t **shapes,
                             const char **dtypes, void *stream, void *extra) {
  (void)extra;
  if (nparam != 3) return MS_ERR_ARGS;
  if (!ms_same_dtype(dtypes, 0, 1) || !ms_same_dtype(dtypes, 0, 2)) return MS_ERR_DTYPE;
  if (!ms_same_shape(ndims, shapes, 0, 1) || !ms_same_shape(ndims, shapes, 0, 2))
    return MS_ERR_SHAPE;
  const int64_t n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if (params == nullptr || params[0] == nullptr || params[1] == nullptr || params[2] == nullptr)
    return MS_ERR_ARGS;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (ms_dtype_is(dtypes[0], "float32")) {
    AddKernel<float><<<Blocks(n), kThreads, 0, s>>>(static_cast<const float *>(params[0]),
                                                    static_cast<const float *>(params[1]),
                                                    static_cast<float *>(params[2]), n);
  } else if (ms_dtype_is(dtypes[0], "float64")) {
    AddKernel<double><<<Blocks(n), kThreads, 0, s>>>(static_cast<const double *>(params[0]),
                                                     static_cast<const double *>(params[1]),
                                                     static_cast<double *>(params[2]), n);
  } else {
    return MS_ERR_DTYPE;
  }
  return LaunchStatus();
}
