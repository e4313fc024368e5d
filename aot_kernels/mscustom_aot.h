/*
 * mscustom_aot.h -- public header for ahead-of-time (AOT) compiled kernels
 * used by mscustom's Custom operator (func_type="aot").
 *
 * The ABI is compatible with MindSpore's AOT custom operators, so a kernel
 * written against this header also builds for MindSpore and vice versa.
 *
 * ---------------------------------------------------------------------------
 * Kernel entry point
 * ---------------------------------------------------------------------------
 *
 *   int Func(int nparam, void **params, int *ndims, int64_t **shapes,
 *            const char **dtypes, void *stream, void *extra);
 *
 *   nparam   number of entries in params/ndims/shapes/dtypes: the inputs
 *            first, then the outputs, in declaration order.
 *   params   data pointers.  On CPU these are host pointers to C-contiguous
 *            (row-major) buffers; on GPU they are device pointers.
 *            Outputs are preallocated by the framework with the shapes and
 *            dtypes the op's infer function produced.
 *   ndims    ndims[i] is the rank of params[i] (0 for a scalar).
 *   shapes   shapes[i][0 .. ndims[i]-1] are the dimensions of params[i]
 *            (always host memory, also on GPU).
 *   dtypes   dtypes[i] names the element type of params[i]: one of
 *            "float16" "float32" "float64" "int8" "int16" "int32" "int64"
 *            "uint8" "uint16" "uint32" "uint64" "bool".
 *   stream   the cudaStream_t to launch on for GPU kernels; NULL on CPU.
 *   extra    a pointer to an MsAttrs (below) carrying the op's attributes,
 *            or NULL when the op has none.  Use the ms_attr_* helpers to
 *            read it; they all accept NULL.
 *
 *   Return 0 (MS_OK) on success.  Any other value is an error code that the
 *   framework reports to the user together with the kernel name.
 *
 * ---------------------------------------------------------------------------
 * Optional init entry point
 * ---------------------------------------------------------------------------
 *
 *   int FuncInit(int *ndims, int64_t **shapes, const char **dtypes,
 *                void *extra);
 *
 *   If a symbol named <Func>Init exists next to <Func>, the framework calls
 *   it once per new input signature (shapes + dtypes), before the first
 *   call of <Func> with that signature.  Return 0 to accept the signature,
 *   non-zero to reject it (the value is reported as the error code).
 *
 * ---------------------------------------------------------------------------
 * Building
 * ---------------------------------------------------------------------------
 *
 *   gcc -O3 -fopenmp -fPIC -shared -o libmykernels.so my_kernels.c
 *   nvcc -O3 -Xcompiler -fPIC -shared -o libmykernels_cuda.so my_kernels.cu
 *
 * and reference a kernel from Python as "path/to/libmykernels.so:Func".
 * The header is plain C99 and also valid C++ (the declarations have C
 * linkage); kernels written in C++ or CUDA must be declared extern "C" so
 * the symbol name is not mangled.
 */
#ifndef MSCUSTOM_AOT_H_
#define MSCUSTOM_AOT_H_

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Error codes                                                               */
/* ------------------------------------------------------------------------- */

#define MS_OK 0        /* success                                             */
#define MS_ERR_DTYPE 1 /* unsupported or mismatched dtype                     */
#define MS_ERR_SHAPE 2 /* unsupported or mismatched shape / rank              */
#define MS_ERR_ARGS 3  /* wrong nparam, NULL pointer, bad or missing attribute*/
#define MS_ERR_VALUE 4 /* invalid data value (e.g. a label out of range)      */
#define MS_ERR_ALLOC 5 /* memory allocation failed                            */
#define MS_ERR_CUDA 6  /* a CUDA runtime call or kernel launch failed         */
/* Kernels may return any other non-zero value for their own errors.         */

/* ------------------------------------------------------------------------- */
/* Attributes                                                                */
/* ------------------------------------------------------------------------- */

/* Values of MsAttr.kind. */
#define MS_ATTR_INT 0    /* value in .i                                      */
#define MS_ATTR_FLOAT 1  /* value in .f                                      */
#define MS_ATTR_BOOL 2   /* value in .i (0 or 1)                             */
#define MS_ATTR_STR 3    /* NUL-terminated string in .s                      */
#define MS_ATTR_INTS 4   /* .len int64 values at .ints                       */
#define MS_ATTR_FLOATS 5 /* .len double values at .floats                    */

/* One named attribute.  Only the field(s) selected by .kind are meaningful.
 * All pointers are owned by the framework and stay valid for the duration
 * of the call (do not keep them). */
typedef struct MsAttr {
  const char *name;
  int kind;             /* MS_ATTR_INT=0, MS_ATTR_FLOAT=1, MS_ATTR_BOOL=2, MS_ATTR_STR=3, MS_ATTR_INTS=4, MS_ATTR_FLOATS=5 */
  int64_t i;            /* INT and BOOL */
  double f;             /* FLOAT */
  const char *s;        /* STR */
  const int64_t *ints;  /* INTS */
  const double *floats; /* FLOATS */
  int64_t len;          /* number of elements for INTS / FLOATS */
} MsAttr;

/* What `extra` points to: `count` attributes stored contiguously. */
typedef struct MsAttrs {
  int64_t count;
  const MsAttr *attrs;
} MsAttrs;

/* Look up attribute `name` in `extra` (an MsAttrs*, may be NULL).
 * Returns NULL when extra is NULL or the attribute is absent. */
static inline const MsAttr *ms_attr_find(const void *extra, const char *name) {
  const MsAttrs *a = (const MsAttrs *)extra;
  int64_t k;
  if (a == NULL || name == NULL || a->attrs == NULL) return NULL;
  for (k = 0; k < a->count; ++k) {
    const MsAttr *at = &a->attrs[k];
    if (at->name != NULL && strcmp(at->name, name) == 0) return at;
  }
  return NULL;
}

/* Integer attribute; a FLOAT attribute is truncated, BOOL gives 0/1.
 * Returns `def` when absent or of another kind. */
static inline int64_t ms_attr_int(const void *extra, const char *name, int64_t def) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL) return def;
  switch (at->kind) {
    case MS_ATTR_INT:
    case MS_ATTR_BOOL: return at->i;
    case MS_ATTR_FLOAT: return (int64_t)at->f;
    default: return def;
  }
}

/* Floating-point attribute; INT and BOOL attributes are converted.
 * Returns `def` when absent or of another kind. */
static inline double ms_attr_float(const void *extra, const char *name, double def) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL) return def;
  switch (at->kind) {
    case MS_ATTR_FLOAT: return at->f;
    case MS_ATTR_INT:
    case MS_ATTR_BOOL: return (double)at->i;
    default: return def;
  }
}

/* Boolean attribute as 0/1; INT is true when non-zero.
 * Returns `def` when absent or of another kind. */
static inline int ms_attr_bool(const void *extra, const char *name, int def) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL) return def;
  if (at->kind == MS_ATTR_BOOL || at->kind == MS_ATTR_INT) return at->i != 0;
  return def;
}

/* String attribute; returns `def` when absent or of another kind. */
static inline const char *ms_attr_str(const void *extra, const char *name, const char *def) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL || at->kind != MS_ATTR_STR || at->s == NULL) return def;
  return at->s;
}

/* Integer-list attribute.  Returns the values and stores their count in
 * *len_out (if len_out is not NULL); returns NULL with *len_out = 0 when
 * absent or of another kind.  An empty list may also come back as NULL with
 * *len_out = 0: use ms_attr_find to tell "empty" from "absent". */
static inline const int64_t *ms_attr_ints(const void *extra, const char *name, int64_t *len_out) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL || at->kind != MS_ATTR_INTS) {
    if (len_out != NULL) *len_out = 0;
    return NULL;
  }
  if (len_out != NULL) *len_out = at->len;
  return at->ints;
}

/* Float-list attribute; same conventions as ms_attr_ints. */
static inline const double *ms_attr_floats(const void *extra, const char *name, int64_t *len_out) {
  const MsAttr *at = ms_attr_find(extra, name);
  if (at == NULL || at->kind != MS_ATTR_FLOATS) {
    if (len_out != NULL) *len_out = 0;
    return NULL;
  }
  if (len_out != NULL) *len_out = at->len;
  return at->floats;
}

/* ------------------------------------------------------------------------- */
/* Shape / dtype helpers                                                     */
/* ------------------------------------------------------------------------- */

/* Number of elements of a tensor of rank `ndim` (1 for a scalar). */
static inline int64_t ms_numel(int ndim, const int64_t *shape) {
  int64_t n = 1;
  int d;
  for (d = 0; d < ndim; ++d) n *= shape[d];
  return n;
}

/* Non-zero when dtype string `dtype` equals `name`, e.g.
 * ms_dtype_is(dtypes[0], "float32"). */
static inline int ms_dtype_is(const char *dtype, const char *name) {
  return dtype != NULL && name != NULL && strcmp(dtype, name) == 0;
}

/* Non-zero when params a and b have the same rank and dimensions. */
static inline int ms_same_shape(const int *ndims, int64_t *const *shapes, int a, int b) {
  int d;
  if (ndims[a] != ndims[b]) return 0;
  for (d = 0; d < ndims[a]; ++d)
    if (shapes[a][d] != shapes[b][d]) return 0;
  return 1;
}

/* Non-zero when params a and b have the same dtype string. */
static inline int ms_same_dtype(const char **dtypes, int a, int b) {
  return dtypes[a] != NULL && dtypes[b] != NULL && strcmp(dtypes[a], dtypes[b]) == 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MSCUSTOM_AOT_H_ */
