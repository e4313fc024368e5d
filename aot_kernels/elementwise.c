/*
 * Element-wise example kernels for mscustom's AOT custom operators.
 *
 *   CustomAdd         (a, b)     -> out = a + b       float32/float64/int32/int64
 *   CustomAddInit     init hook for CustomAdd: rejects mismatched input shapes
 *   CustomMul         (a, b)     -> out = a * b       float32/float64/int32/int64
 *   CustomSquare      (x)        -> out = x * x       float32/float64
 *   CustomSquareGrad  (x, dout)  -> dx  = 2 * x * dout float32/float64
 *
 * All operands have the same shape (no broadcasting) and the same dtype.
 */
#include "mscustom_aot.h"

/* Checks that params [0, nparam) all share the shape and dtype of params[0]. */
static int check_same(int nparam, int *ndims, int64_t **shapes, const char **dtypes) {
  int k;
  for (k = 1; k < nparam; ++k) {
    if (!ms_same_dtype(dtypes, 0, k)) return MS_ERR_DTYPE;
    if (!ms_same_shape(ndims, shapes, 0, k)) return MS_ERR_SHAPE;
  }
  return MS_OK;
}

static int check_ptrs(int nparam, void **params) {
  int k;
  if (params == NULL) return MS_ERR_ARGS;
  for (k = 0; k < nparam; ++k)
    if (params[k] == NULL) return MS_ERR_ARGS;
  return MS_OK;
}

/* out[i] = a[i] OP b[i] for one C type. */
#define BINARY_LOOP(T, OP)                                   \
  do {                                                       \
    const T *a_ = (const T *)params[0];                      \
    const T *b_ = (const T *)params[1];                      \
    T *o_ = (T *)params[2];                                  \
    int64_t i_;                                              \
    MS_PARALLEL_FOR(n, "omp parallel for", (i_ = 0; i_ < n; ++i_), \
                    o_[i_] = a_[i_] OP b_[i_];);             \
  } while (0)

#define BINARY_DISPATCH(OP)                                                  \
  do {                                                                       \
    if (ms_dtype_is(dtypes[0], "float32")) BINARY_LOOP(float, OP);           \
    else if (ms_dtype_is(dtypes[0], "float64")) BINARY_LOOP(double, OP);     \
    else if (ms_dtype_is(dtypes[0], "int32")) BINARY_LOOP(int32_t, OP);      \
    else if (ms_dtype_is(dtypes[0], "int64")) BINARY_LOOP(int64_t, OP);      \
    else return MS_ERR_DTYPE;                                                \
  } while (0)

/* ------------------------------------------------------------------------- */

/* CustomAdd: params = [a, b, out], all the same shape and dtype. */
int CustomAdd(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
  int64_t n;
  int rc;
  (void)stream;
  (void)extra;
  if (nparam != 3) return MS_ERR_ARGS;
  if ((rc = check_same(3, ndims, shapes, dtypes)) != MS_OK) return rc;
  n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if ((rc = check_ptrs(3, params)) != MS_OK) return rc;
  BINARY_DISPATCH(+);
  return MS_OK;
}

/* Init hook for CustomAdd, called once per input signature.  Only the two
 * inputs are inspected (indices 0 and 1), so it works whether or not the
 * framework also passes the output description. */
int CustomAddInit(int *ndims, int64_t **shapes, const char **dtypes, void *extra) {
  (void)extra;
  if (ndims == NULL || shapes == NULL || dtypes == NULL) return MS_ERR_ARGS;
  if (!ms_same_shape(ndims, shapes, 0, 1)) return MS_ERR_SHAPE;
  if (!ms_same_dtype(dtypes, 0, 1)) return MS_ERR_DTYPE;
  if (!ms_dtype_is(dtypes[0], "float32") && !ms_dtype_is(dtypes[0], "float64") &&
      !ms_dtype_is(dtypes[0], "int32") && !ms_dtype_is(dtypes[0], "int64"))
    return MS_ERR_DTYPE;
  return MS_OK;
}

/* CustomMul: params = [a, b, out], all the same shape and dtype. */
int CustomMul(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
              void *stream, void *extra) {
  int64_t n;
  int rc;
  (void)stream;
  (void)extra;
  if (nparam != 3) return MS_ERR_ARGS;
  if ((rc = check_same(3, ndims, shapes, dtypes)) != MS_OK) return rc;
  n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if ((rc = check_ptrs(3, params)) != MS_OK) return rc;
  BINARY_DISPATCH(*);
  return MS_OK;
}

/* ------------------------------------------------------------------------- */

#define SQUARE_LOOP(T)                                       \
  do {                                                       \
    const T *x_ = (const T *)params[0];                      \
    T *o_ = (T *)params[1];                                  \
    int64_t i_;                                              \
    MS_PARALLEL_FOR(n, "omp parallel for", (i_ = 0; i_ < n; ++i_), \
                    o_[i_] = x_[i_] * x_[i_];);              \
  } while (0)

/* CustomSquare: params = [x, out], same shape and dtype (float32/float64). */
int CustomSquare(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                 void *stream, void *extra) {
  int64_t n;
  int rc;
  (void)stream;
  (void)extra;
  if (nparam != 2) return MS_ERR_ARGS;
  if ((rc = check_same(2, ndims, shapes, dtypes)) != MS_OK) return rc;
  n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if ((rc = check_ptrs(2, params)) != MS_OK) return rc;
  if (ms_dtype_is(dtypes[0], "float32")) SQUARE_LOOP(float);
  else if (ms_dtype_is(dtypes[0], "float64")) SQUARE_LOOP(double);
  else return MS_ERR_DTYPE;
  return MS_OK;
}

#define SQUARE_GRAD_LOOP(T)                                          \
  do {                                                               \
    const T *x_ = (const T *)params[0];                              \
    const T *d_ = (const T *)params[1];                              \
    T *o_ = (T *)params[2];                                          \
    int64_t i_;                                                      \
    MS_PARALLEL_FOR(n, "omp parallel for", (i_ = 0; i_ < n; ++i_),   \
                    o_[i_] = (T)2 * x_[i_] * d_[i_];);               \
  } while (0)

/* CustomSquareGrad: params = [x, dout, dx], same shape and dtype
 * (float32/float64); dx = 2 * x * dout. */
int CustomSquareGrad(int nparam, void **params, int *ndims, int64_t **shapes, const char **dtypes,
                     void *stream, void *extra) {
  int64_t n;
  int rc;
  (void)stream;
  (void)extra;
  if (nparam != 3) return MS_ERR_ARGS;
  if ((rc = check_same(3, ndims, shapes, dtypes)) != MS_OK) return rc;
  n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if ((rc = check_ptrs(3, params)) != MS_OK) return rc;
  if (ms_dtype_is(dtypes[0], "float32")) SQUARE_GRAD_LOOP(float);
  else if (ms_dtype_is(dtypes[0], "float64")) SQUARE_GRAD_LOOP(double);
  else return MS_ERR_DTYPE;
  return MS_OK;
}
