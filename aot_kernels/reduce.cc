// Reduction example kernel written in C++ (proves C++ sources build and link
// into the same library as the C kernels).
//
//   CustomSumRows  (x[..., C]) -> out[...] = sum of x over its last axis
//                  out may also keep the reduced axis: out[..., 1].
//                  float32/float64 accumulate in double; int32/int64 in int64.
//                  A 1-D x gives a scalar out (rank 0) or out[1].
#include <cstdint>

#include "mscustom_aot.h"

namespace {

template <typename T> struct Acc { using type = double; };
template <> struct Acc<int32_t> { using type = int64_t; };
template <> struct Acc<int64_t> { using type = int64_t; };

template <typename T>
void SumRows(const T *x, T *out, int64_t rows, int64_t c) {
  using A = typename Acc<T>::type;
  int64_t r;
  MS_PARALLEL_FOR(rows * c, "omp parallel for", (r = 0; r < rows; ++r),
    const T *row = x + r * c;
    A s = A(0);
    for (int64_t j = 0; j < c; ++j) s += static_cast<A>(row[j]);
    out[r] = static_cast<T>(s););
}

// out must be x.shape[:-1] or x.shape[:-1] + [1].
bool OutShapeOk(const int *ndims, int64_t *const *shapes) {
  const int nd = ndims[0];
  if (ndims[1] == nd - 1) {
    for (int d = 0; d < nd - 1; ++d)
      if (shapes[1][d] != shapes[0][d]) return false;
    return true;
  }
  if (ndims[1] == nd) {
    for (int d = 0; d < nd - 1; ++d)
      if (shapes[1][d] != shapes[0][d]) return false;
    return shapes[1][nd - 1] == 1;
  }
  return false;
}

}  // namespace

// params = [x[..., C], out[...]] with the same dtype.
extern "C" int CustomSumRows(int nparam, void **params, int *ndims, int64_t **shapes,
                             const char **dtypes, void *stream, void *extra) {
  (void)stream;
  (void)extra;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_same_dtype(dtypes, 0, 1)) return MS_ERR_DTYPE;
  if (ndims[0] < 1 || !OutShapeOk(ndims, shapes)) return MS_ERR_SHAPE;
  const int64_t c = shapes[0][ndims[0] - 1];
  const int64_t rows = ms_numel(ndims[0] - 1, shapes[0]);
  if (rows == 0) return MS_OK;
  // x is never read when the last axis is empty (out becomes zeros).
  if (params == nullptr || params[1] == nullptr) return MS_ERR_ARGS;
  if (params[0] == nullptr && c != 0) return MS_ERR_ARGS;
  const char *dt = dtypes[0];
  if (ms_dtype_is(dt, "float32")) {
    SumRows(static_cast<const float *>(params[0]), static_cast<float *>(params[1]), rows, c);
  } else if (ms_dtype_is(dt, "float64")) {
    SumRows(static_cast<const double *>(params[0]), static_cast<double *>(params[1]), rows, c);
  } else if (ms_dtype_is(dt, "int32")) {
    SumRows(static_cast<const int32_t *>(params[0]), static_cast<int32_t *>(params[1]), rows, c);
  } else if (ms_dtype_is(dt, "int64")) {
    SumRows(static_cast<const int64_t *>(params[0]), static_cast<int64_t *>(params[1]), rows, c);
  } else {
    return MS_ERR_DTYPE;
  }
  return MS_OK;
}
