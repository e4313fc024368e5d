/*
 * Example kernels showing attributes and error reporting.
 *
 *   CustomScale  (x) -> out = x * scale + bias       float32/float64
 *                attributes (read from `extra`, see mscustom_aot.h):
 *                  scale  float, default 1.0
 *                  bias   float, default 0.0
 *                INT / BOOL attributes are accepted and converted.
 *   CustomAttrProbe (x) -> out float64[>= 10]: reports the attributes it
 *                received, to test how a framework marshals them (x is
 *                ignored and may be of any dtype and shape):
 *                  out[0] = int    "n"       (default -1)
 *                  out[1] = float  "alpha"   (default -1.0)
 *                  out[2] = bool   "flag"    (default -1)
 *                  out[3] = ints   "axes"    element count (-1 if absent)
 *                  out[4] =                  sum of the elements
 *                  out[5] = str    "mode"    length (-1 if absent)
 *                  out[6] =                  1 if "mode" equals "mean", else 0
 *                  out[7] = floats "weights" element count (-1 if absent)
 *                  out[8] =                  sum of the elements
 *                  out[9] = number of attributes in extra (-1 if extra is NULL)
 *                remaining elements of out are set to 0.
 *   CustomFail   any params -> returns 7 without touching anything; used to
 *                test how the framework reports kernel error codes.
 */
#include "mscustom_aot.h"

#define SCALE_LOOP(T)                                           \
  do {                                                          \
    const T *x_ = (const T *)params[0];                         \
    T *o_ = (T *)params[1];                                     \
    const T s_ = (T)scale, b_ = (T)bias;                        \
    int64_t i_;                                                 \
    MS_PARALLEL_FOR(n, "omp parallel for", (i_ = 0; i_ < n; ++i_), \
                    o_[i_] = x_[i_] * s_ + b_;);                \
  } while (0)

/* params = [x, out], same shape and dtype. */
int CustomScale(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                void *stream, void *extra) {
  double scale, bias;
  int64_t n;
  (void)stream;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_same_dtype(dtypes, 0, 1)) return MS_ERR_DTYPE;
  if (!ms_same_shape(ndims, shapes, 0, 1)) return MS_ERR_SHAPE;
  scale = ms_attr_float(extra, "scale", 1.0);
  bias = ms_attr_float(extra, "bias", 0.0);
  n = ms_numel(ndims[0], shapes[0]);
  if (ms_dtype_is(dtypes[0], "float32")) {
    if (n > 0 && (params == NULL || params[0] == NULL || params[1] == NULL)) return MS_ERR_ARGS;
    SCALE_LOOP(float);
  } else if (ms_dtype_is(dtypes[0], "float64")) {
    if (n > 0 && (params == NULL || params[0] == NULL || params[1] == NULL)) return MS_ERR_ARGS;
    SCALE_LOOP(double);
  } else {
    return MS_ERR_DTYPE;
  }
  return MS_OK;
}

/* params = [x, out]; see the table at the top of the file. */
int CustomAttrProbe(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                    void *stream, void *extra) {
  double *out;
  const int64_t *axes;
  const double *weights;
  const char *mode;
  const MsAttr *found;
  int64_t n, len, k;
  double sum;
  (void)stream;
  if (nparam != 2) return MS_ERR_ARGS;
  if (!ms_dtype_is(dtypes[1], "float64")) return MS_ERR_DTYPE;
  n = ms_numel(ndims[1], shapes[1]);
  if (n < 10) return MS_ERR_SHAPE;
  if (params == NULL || params[1] == NULL) return MS_ERR_ARGS;
  out = (double *)params[1];
  for (k = 0; k < n; ++k) out[k] = 0.0;

  out[0] = (double)ms_attr_int(extra, "n", -1);
  out[1] = ms_attr_float(extra, "alpha", -1.0);
  out[2] = (double)ms_attr_bool(extra, "flag", -1);

  /* An empty list may arrive with a NULL pointer, so presence is tested with
   * ms_attr_find rather than by the returned pointer. */
  axes = ms_attr_ints(extra, "axes", &len);
  found = ms_attr_find(extra, "axes");
  out[3] = (found != NULL && found->kind == MS_ATTR_INTS) ? (double)len : -1.0;
  for (sum = 0.0, k = 0; axes != NULL && k < len; ++k) sum += (double)axes[k];
  out[4] = sum;

  mode = ms_attr_str(extra, "mode", NULL);
  out[5] = mode != NULL ? (double)strlen(mode) : -1.0;
  out[6] = (mode != NULL && strcmp(mode, "mean") == 0) ? 1.0 : 0.0;

  weights = ms_attr_floats(extra, "weights", &len);
  found = ms_attr_find(extra, "weights");
  out[7] = (found != NULL && found->kind == MS_ATTR_FLOATS) ? (double)len : -1.0;
  for (sum = 0.0, k = 0; weights != NULL && k < len; ++k) sum += weights[k];
  out[8] = sum;

  out[9] = extra != NULL ? (double)((const MsAttrs *)extra)->count : -1.0;
  return MS_OK;
}

/* Always fails with error code 7. */
int CustomFail(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
               void *stream, void *extra) {
  (void)nparam;
  (void)params;
  (void)ndims;
  (void)shapes;
  (void)dtypes;
  (void)stream;
  (void)extra;
  return 7;
}
