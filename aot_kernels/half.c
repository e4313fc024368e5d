/*
 * float16 example kernels for mscustom's AOT custom operators.
 *
 *   CustomAxpyHalf     (x, y)  -> out = alpha * x + y   float16 (alpha: float attribute, default 1)
 *   CustomHalfToFloat  (x)     -> out = float(x)        float16 -> float32
 *   CustomFloatToHalf  (x)     -> out = half(x)         float32 -> float16 (round to nearest even)
 *
 * A float16 param holds 16-bit IEEE halves: read and write them as
 * mscustom_half and compute in float with mscustom_half_to_float /
 * mscustom_float_to_half (mscustom_aot.h), which behave as NumPy's float16.
 */
#include "mscustom_aot.h"

/* CustomAxpyHalf: params = [x, y, out], float16, all the same shape.  Each
 * element is computed in float and rounded once to half, so the result is
 * NumPy's (alpha * x.astype(np.float32) + y).astype(np.float16). */
int CustomAxpyHalf(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                   void *stream, void *extra) {
  const mscustom_half *x, *y;
  mscustom_half *out;
  float alpha;
  int64_t i, n;
  int k;
  (void)stream;
  if (nparam != 3) return MS_ERR_ARGS;
  for (k = 0; k < 3; ++k) {
    if (!ms_dtype_is(dtypes[k], "float16")) return MS_ERR_DTYPE;
    if (!ms_same_shape(ndims, shapes, 0, k)) return MS_ERR_SHAPE;
  }
  alpha = (float)ms_attr_float(extra, "alpha", 1.0);
  x = (const mscustom_half *)params[0];
  y = (const mscustom_half *)params[1];
  out = (mscustom_half *)params[2];
  n = ms_numel(ndims[0], shapes[0]);
  MS_PARALLEL_FOR(n, "omp parallel for", (i = 0; i < n; ++i),
                  out[i] = mscustom_float_to_half(alpha * mscustom_half_to_float(x[i]) +
                                                  mscustom_half_to_float(y[i])););
  return MS_OK;
}

/* CustomHalfToFloat: params = [x float16, out float32], the same shape. */
int CustomHalfToFloat(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                      void *stream, void *extra) {
  const mscustom_half *x;
  float *out;
  int64_t i, n;
  (void)stream;
  (void)extra;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_dtype_is(dtypes[0], "float16") || !ms_dtype_is(dtypes[1], "float32")) return MS_ERR_DTYPE;
  if (!ms_same_shape(ndims, shapes, 0, 1)) return MS_ERR_SHAPE;
  x = (const mscustom_half *)params[0];
  out = (float *)params[1];
  n = ms_numel(ndims[0], shapes[0]);
  MS_PARALLEL_FOR(n, "omp parallel for", (i = 0; i < n; ++i), out[i] = mscustom_half_to_float(x[i]););
  return MS_OK;
}

/* CustomFloatToHalf: params = [x float32, out float16], the same shape. */
int CustomFloatToHalf(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                      void *stream, void *extra) {
  const float *x;
  mscustom_half *out;
  int64_t i, n;
  (void)stream;
  (void)extra;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_dtype_is(dtypes[0], "float32") || !ms_dtype_is(dtypes[1], "float16")) return MS_ERR_DTYPE;
  if (!ms_same_shape(ndims, shapes, 0, 1)) return MS_ERR_SHAPE;
  x = (const float *)params[0];
  out = (mscustom_half *)params[1];
  n = ms_numel(ndims[0], shapes[0]);
  MS_PARALLEL_FOR(n, "omp parallel for", (i = 0; i < n; ++i), out[i] = mscustom_float_to_half(x[i]););
  return MS_OK;
}
