/*
 * Neural-network example kernels for mscustom's AOT custom operators.
 *
 *   CustomBiasAddRelu             (x[..., C], bias[C])        -> out[..., C]
 *                                 out = relu(x + bias)
 *   CustomBiasAddReluGrad         (dout[..., C], out[..., C]) -> dx[..., C], dbias[C]
 *                                 dx = dout * (out > 0), dbias = dx summed over
 *                                 all axes but the last
 *   CustomSoftmaxCrossEntropy     (logits[N, C], labels[N])   -> loss[N], probs[N, C]
 *   CustomSoftmaxCrossEntropyGrad (probs[N, C], labels[N], dloss[N]) -> dlogits[N, C]
 *                                 dlogits = (probs - onehot(labels)) * dloss[:, None]
 *
 * Floating-point operands are float32 or float64 (all the same); labels are
 * int32 or int64.  For the softmax kernels "N" may be any leading shape:
 * logits[..., C] pairs with labels[...] and loss[...].
 */
#include <math.h>
#include <stdlib.h>

#include "mscustom_aot.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int is_float_dtype(const char *d) {
  return ms_dtype_is(d, "float32") || ms_dtype_is(d, "float64");
}

static int is_label_dtype(const char *d) {
  return ms_dtype_is(d, "int32") || ms_dtype_is(d, "int64");
}

/* Non-zero when param b has exactly the leading ndims[a]-1 dims of param a. */
static int is_leading_shape(int *ndims, int64_t **shapes, int a, int b) {
  int d;
  if (ndims[a] < 1 || ndims[b] != ndims[a] - 1) return 0;
  for (d = 0; d < ndims[b]; ++d)
    if (shapes[b][d] != shapes[a][d]) return 0;
  return 1;
}

static int any_null(int nparam, void **params) {
  int k;
  if (params == NULL) return 1;
  for (k = 0; k < nparam; ++k)
    if (params[k] == NULL) return 1;
  return 0;
}

/* ------------------------------------------------------------------------- */
/* BiasAddRelu                                                               */
/* ------------------------------------------------------------------------- */

#define BIAS_ADD_RELU_LOOP(T)                                    \
  do {                                                           \
    const T *x_ = (const T *)params[0];                          \
    const T *b_ = (const T *)params[1];                          \
    T *o_ = (T *)params[2];                                      \
    int64_t r_;                                                  \
    MS_PARALLEL_FOR(n, "omp parallel for", (r_ = 0; r_ < rows; ++r_), \
      const T *xr = x_ + r_ * c;                                 \
      T *orow = o_ + r_ * c;                                     \
      int64_t j;                                                 \
      for (j = 0; j < c; ++j) {                                  \
        T v = xr[j] + b_[j];                                     \
        orow[j] = v > (T)0 ? v : (T)0;                           \
      });                                                        \
  } while (0)

/* params = [x[..., C], bias[C], out[..., C]]. */
int CustomBiasAddRelu(int nparam, void **params, int *ndims, int64_t **shapes,
                      const char **dtypes, void *stream, void *extra) {
  int64_t n, c, rows;
  (void)stream;
  (void)extra;
  if (nparam != 3) return MS_ERR_ARGS;
  if (!is_float_dtype(dtypes[0]) || !ms_same_dtype(dtypes, 0, 1) || !ms_same_dtype(dtypes, 0, 2))
    return MS_ERR_DTYPE;
  if (ndims[0] < 1 || ndims[1] != 1) return MS_ERR_SHAPE;
  c = shapes[0][ndims[0] - 1];
  if (shapes[1][0] != c) return MS_ERR_SHAPE;
  if (!ms_same_shape(ndims, shapes, 0, 2)) return MS_ERR_SHAPE;
  n = ms_numel(ndims[0], shapes[0]);
  if (n == 0) return MS_OK;
  if (any_null(3, params)) return MS_ERR_ARGS;
  rows = n / c;
  if (ms_dtype_is(dtypes[0], "float32")) BIAS_ADD_RELU_LOOP(float);
  else BIAS_ADD_RELU_LOOP(double);
  return MS_OK;
}

/* Adds rows [rows * t / tt, rows * (t + 1) / tt) of dx_ into row t of acc_,
 * for thread t of a team of tt. */
#define COLUMN_SUMS(T, TID, TCOUNT)                                             \
  {                                                                             \
    int t_ = (TID), tt_ = (TCOUNT);                                             \
    int64_t r0_ = rows * t_ / tt_, r1_ = rows * (t_ + 1) / tt_, r_;             \
    double *a_ = acc_ + (int64_t)t_ * c;                                        \
    for (r_ = r0_; r_ < r1_; ++r_) {                                            \
      const T *row_ = dx_ + r_ * c;                                             \
      int64_t k_;                                                               \
      for (k_ = 0; k_ < c; ++k_) a_[k_] += (double)row_[k_];                    \
    }                                                                           \
  }

/* dx = dout * (out > 0) in parallel, then dbias = column sums of dx.
 * The column sums use one row block per thread with a private double
 * accumulator, combined in thread order (deterministic for a given thread
 * count).  Small calls never enter OpenMP. */
#define BIAS_ADD_RELU_GRAD(T)                                                   \
  do {                                                                          \
    const T *dout_ = (const T *)params[0];                                      \
    const T *out_ = (const T *)params[1];                                       \
    T *dx_ = (T *)params[2];                                                    \
    T *db_ = (T *)params[3];                                                    \
    int64_t i_, j_;                                                             \
    int nt_ = 1;                                                                \
    double *acc_;                                                               \
    MS_PARALLEL_FOR(n, "omp parallel for", (i_ = 0; i_ < n; ++i_),              \
                    dx_[i_] = out_[i_] > (T)0 ? dout_[i_] : (T)0;);             \
    if (ms_parallel(n)) nt_ = max_threads();                                    \
    if (nt_ > rows) nt_ = (int)(rows > 0 ? rows : 1);                           \
    acc_ = (double *)calloc((size_t)nt_ * (size_t)c, sizeof(double));           \
    if (acc_ == NULL) return MS_ERR_ALLOC;                                      \
    if (nt_ > 1) {                                                              \
      _Pragma("omp parallel num_threads(nt_)")                                  \
      COLUMN_SUMS(T, thread_num(), num_threads())                               \
    } else {                                                                    \
      COLUMN_SUMS(T, 0, 1)                                                      \
    }                                                                           \
    for (j_ = 0; j_ < c; ++j_) {                                                \
      double s_ = 0.0;                                                          \
      int t_;                                                                   \
      for (t_ = 0; t_ < nt_; ++t_) s_ += acc_[(int64_t)t_ * c + j_];            \
      db_[j_] = (T)s_;                                                          \
    }                                                                           \
    free(acc_);                                                                 \
  } while (0)

static int max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static int thread_num(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

static int num_threads(void) {
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

/* params = [dout[..., C], out[..., C], dx[..., C], dbias[C]]. */
int CustomBiasAddReluGrad(int nparam, void **params, int *ndims, int64_t **shapes,
                          const char **dtypes, void *stream, void *extra) {
  int64_t n, c, rows, j;
  (void)stream;
  (void)extra;
  if (nparam != 4) return MS_ERR_ARGS;
  if (!is_float_dtype(dtypes[0]) || !ms_same_dtype(dtypes, 0, 1) ||
      !ms_same_dtype(dtypes, 0, 2) || !ms_same_dtype(dtypes, 0, 3))
    return MS_ERR_DTYPE;
  if (ndims[0] < 1 || !ms_same_shape(ndims, shapes, 0, 1) || !ms_same_shape(ndims, shapes, 0, 2))
    return MS_ERR_SHAPE;
  c = shapes[0][ndims[0] - 1];
  if (ndims[3] != 1 || shapes[3][0] != c) return MS_ERR_SHAPE;
  n = ms_numel(ndims[0], shapes[0]);
  if (c == 0) return MS_OK;
  if (params == NULL || params[3] == NULL) return MS_ERR_ARGS;
  if (n == 0) { /* no rows: dbias is all zeros */
    if (ms_dtype_is(dtypes[0], "float32"))
      for (j = 0; j < c; ++j) ((float *)params[3])[j] = 0.0f;
    else
      for (j = 0; j < c; ++j) ((double *)params[3])[j] = 0.0;
    return MS_OK;
  }
  if (any_null(4, params)) return MS_ERR_ARGS;
  rows = n / c;
  if (ms_dtype_is(dtypes[0], "float32")) BIAS_ADD_RELU_GRAD(float);
  else BIAS_ADD_RELU_GRAD(double);
  return MS_OK;
}

/* ------------------------------------------------------------------------- */
/* Softmax cross-entropy                                                     */
/* ------------------------------------------------------------------------- */

static inline int64_t load_label(const void *labels, int is64, int64_t r) {
  return is64 ? ((const int64_t *)labels)[r] : (int64_t)((const int32_t *)labels)[r];
}

/* Per row: m = max(x), e = exp(x - m), s = sum(e), probs = e / s,
 * loss = log(s) - (x[label] - m).  Sums are accumulated in double. */
#define SOFTMAX_CE_LOOP(T, EXP)                                             \
  do {                                                                      \
    const T *x_ = (const T *)params[0];                                     \
    T *loss_ = (T *)params[2];                                              \
    T *p_ = (T *)params[3];                                                 \
    int64_t r_;                                                             \
    MS_PARALLEL_FOR(n, "omp parallel for reduction(|:bad)",                \
                    (r_ = 0; r_ < rows; ++r_),                              \
      const T *xr = x_ + r_ * c;                                            \
      T *pr = p_ + r_ * c;                                                  \
      int64_t lab = load_label(params[1], lab64, r_), j;                    \
      T m = xr[0];                                                          \
      double s = 0.0, inv;                                                  \
      for (j = 1; j < c; ++j)                                               \
        if (xr[j] > m) m = xr[j];                                           \
      for (j = 0; j < c; ++j) {                                             \
        T e = EXP(xr[j] - m);                                               \
        pr[j] = e;                                                          \
        s += (double)e;                                                     \
      }                                                                     \
      inv = 1.0 / s;                                                        \
      for (j = 0; j < c; ++j) pr[j] = (T)((double)pr[j] * inv);             \
      if (lab < 0 || lab >= c) {                                            \
        bad |= 1;                                                           \
        loss_[r_] = (T)NAN;                                                 \
      } else {                                                              \
        loss_[r_] = (T)(log(s) - (double)(xr[lab] - m));                    \
      }                                                                     \
    );                                                                      \
  } while (0)

/* params = [logits[N, C], labels[N], loss[N], probs[N, C]].
 * Returns MS_ERR_VALUE if a label is outside [0, C) (that row's loss is NaN;
 * its probs are still written). */
int CustomSoftmaxCrossEntropy(int nparam, void **params, int *ndims, int64_t **shapes,
                              const char **dtypes, void *stream, void *extra) {
  int64_t n, c, rows;
  int lab64, bad = 0;
  (void)stream;
  (void)extra;
  if (nparam != 4) return MS_ERR_ARGS;
  if (!is_float_dtype(dtypes[0]) || !ms_same_dtype(dtypes, 0, 2) || !ms_same_dtype(dtypes, 0, 3) ||
      !is_label_dtype(dtypes[1]))
    return MS_ERR_DTYPE;
  if (ndims[0] < 1 || !is_leading_shape(ndims, shapes, 0, 1) ||
      !is_leading_shape(ndims, shapes, 0, 2) || !ms_same_shape(ndims, shapes, 0, 3))
    return MS_ERR_SHAPE;
  c = shapes[0][ndims[0] - 1];
  rows = ms_numel(ndims[1], shapes[1]);
  n = rows * c;
  if (rows == 0) return MS_OK;
  if (c == 0) return MS_ERR_SHAPE; /* softmax over an empty axis is undefined */
  if (any_null(4, params)) return MS_ERR_ARGS;
  lab64 = ms_dtype_is(dtypes[1], "int64");
  if (ms_dtype_is(dtypes[0], "float32")) SOFTMAX_CE_LOOP(float, expf);
  else SOFTMAX_CE_LOOP(double, exp);
  return bad ? MS_ERR_VALUE : MS_OK;
}

#define SOFTMAX_CE_GRAD_LOOP(T)                                             \
  do {                                                                      \
    const T *p_ = (const T *)params[0];                                     \
    const T *dl_ = (const T *)params[2];                                    \
    T *dx_ = (T *)params[3];                                                \
    int64_t r_;                                                             \
    MS_PARALLEL_FOR(n, "omp parallel for reduction(|:bad)",                \
                    (r_ = 0; r_ < rows; ++r_),                              \
      const T *pr = p_ + r_ * c;                                            \
      T *dr = dx_ + r_ * c;                                                 \
      T g = dl_[r_];                                                        \
      int64_t lab = load_label(params[1], lab64, r_), j;                    \
      for (j = 0; j < c; ++j) dr[j] = pr[j] * g;                            \
      if (lab < 0 || lab >= c) bad |= 1;                                    \
      else dr[lab] = (pr[lab] - (T)1) * g;                                  \
    );                                                                      \
  } while (0)

/* params = [probs[N, C], labels[N], dloss[N], dlogits[N, C]].
 * Returns MS_ERR_VALUE if a label is outside [0, C). */
int CustomSoftmaxCrossEntropyGrad(int nparam, void **params, int *ndims, int64_t **shapes,
                                  const char **dtypes, void *stream, void *extra) {
  int64_t n, c, rows;
  int lab64, bad = 0;
  (void)stream;
  (void)extra;
  if (nparam != 4) return MS_ERR_ARGS;
  if (!is_float_dtype(dtypes[0]) || !ms_same_dtype(dtypes, 0, 2) || !ms_same_dtype(dtypes, 0, 3) ||
      !is_label_dtype(dtypes[1]))
    return MS_ERR_DTYPE;
  if (ndims[0] < 1 || !is_leading_shape(ndims, shapes, 0, 1) ||
      !is_leading_shape(ndims, shapes, 0, 2) || !ms_same_shape(ndims, shapes, 0, 3))
    return MS_ERR_SHAPE;
  c = shapes[0][ndims[0] - 1];
  rows = ms_numel(ndims[1], shapes[1]);
  n = rows * c;
  if (n == 0) return MS_OK;
  if (any_null(4, params)) return MS_ERR_ARGS;
  lab64 = ms_dtype_is(dtypes[1], "int64");
  if (ms_dtype_is(dtypes[0], "float32")) SOFTMAX_CE_GRAD_LOOP(float);
  else SOFTMAX_CE_GRAD_LOOP(double);
  return bad ? MS_ERR_VALUE : MS_OK;
}
