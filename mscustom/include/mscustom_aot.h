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
 *            "uint8" "uint16" "uint32" "uint64" "bool".  float16 elements
 *            are mscustom_half values (see "float16" below).
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
 *
 * ---------------------------------------------------------------------------
 * Parallel loops (OpenMP) and fork()
 * ---------------------------------------------------------------------------
 *
 *   MS_PARALLEL_FOR(work, "omp parallel for", (i = 0; i < n; ++i), body);
 *
 * runs the loop on an OpenMP team when ms_parallel(work) says it pays and
 * serially otherwise, without entering the OpenMP runtime at all for small
 * calls (a `#pragma omp parallel for if(...)` still calls into it, which
 * costs more than a 4-element loop).  See ms_parallel below for the
 * threshold and for what the header does so that a process that has used
 * OpenMP can fork() and its child can use the kernels again.
 */
#ifndef MSCUSTOM_AOT_H_
#define MSCUSTOM_AOT_H_

#include <stdint.h>
#include <string.h>

/* OpenMP fork guard (see "Parallel loops and fork safety" below). */
#if defined(_OPENMP) && (defined(__unix__) || defined(__APPLE__)) && defined(__GNUC__)
#define MS_OMP_FORK_GUARD 1
#include <omp.h>
#include <pthread.h>
#if _OPENMP >= 201811 || (!defined(__clang__) && __GNUC__ >= 9)
#define MS_HAVE_OMP_PAUSE 1 /* omp_pause_resource_all: OpenMP 5.0, GCC 9+ */
#endif
#endif

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
/* Parallel loops and fork safety                                            */
/* ------------------------------------------------------------------------- */

/* Loops doing at most this many element operations run serially: starting an
 * OpenMP team costs a few microseconds.  Define it before including the
 * header to change it for a file. */
#ifndef MS_PARALLEL_MIN_WORK
#define MS_PARALLEL_MIN_WORK 32768
#endif

/* fork() and GNU OpenMP.  libgomp keeps a pool of worker threads per thread
 * that started a parallel region.  fork() copies only the calling thread, so
 * in the child that pool describes threads that no longer exist, and the
 * child's first parallel region waits for them forever.  OpenMP 5.0 has the
 * remedy: omp_pause_resource_all() ends the pool's threads (libgomp joins
 * them), and the next parallel region starts a fresh pool.  Every file that
 * includes this header (when built with OpenMP on a POSIX system) registers
 * a pthread_atfork "prepare" handler when its library is loaded that pauses
 * the runtime just before any fork() of the process: the parent starts new
 * threads on its next large call (tens of microseconds, once per fork) and
 * the child runs its parallel regions on its own fresh threads at full
 * speed.  Where the pause is not available or fails (an OpenMP older than
 * 5.0, or a fork() from inside a parallel region), the child handler marks
 * the child instead and ms_parallel() keeps its loops serial: slower, never
 * hung.  glibc drops the handlers of a library when it is dlclose()d.
 * Other OpenMP runtimes (LLVM/Intel libomp) handle fork() themselves; the
 * pause is harmless there. */
#ifdef MS_OMP_FORK_GUARD
static int ms_omp_paused_ = 0;     /* the last prepare handler's pause worked */
static int ms_omp_child_serial_ = 0; /* this is a forked child: stay serial  */

static void ms_omp_before_fork_(void) {
#ifdef MS_HAVE_OMP_PAUSE
  ms_omp_paused_ = omp_pause_resource_all(omp_pause_hard) == 0;
#else
  ms_omp_paused_ = 0;
#endif
}

static void ms_omp_in_child_(void) {
  if (!ms_omp_paused_) ms_omp_child_serial_ = 1;
}

__attribute__((constructor)) static void ms_omp_register_fork_handlers_(void) {
  pthread_atfork(ms_omp_before_fork_, NULL, ms_omp_in_child_);
}
#endif /* MS_OMP_FORK_GUARD */

/* Non-zero when a loop doing `work` element operations should run on an
 * OpenMP team: OpenMP is compiled in, the work exceeds MS_PARALLEL_MIN_WORK,
 * and this is not a forked child whose runtime could not be reset (see
 * above).  Small calls decide this without calling into OpenMP. */
static inline int ms_parallel(int64_t work) {
#ifdef MS_OMP_FORK_GUARD
  return work > MS_PARALLEL_MIN_WORK && !ms_omp_child_serial_;
#elif defined(_OPENMP)
  return work > MS_PARALLEL_MIN_WORK;
#else
  (void)work;
  return 0;
#endif
}

/* `for header { body }` on an OpenMP team when ms_parallel(work), serially
 * otherwise.  `omp_pragma` is the whole pragma as a string, clauses included:
 *
 *   int64_t i;
 *   MS_PARALLEL_FOR(n, "omp parallel for", (i = 0; i < n; ++i), out[i] = x[i] * x[i];);
 *   MS_PARALLEL_FOR(n, "omp parallel for reduction(|:bad)", (i = 0; i < n; ++i),
 *                   if (lab[i] < 0) bad |= 1;);
 *
 * The body may contain commas. */
#define MS_PARALLEL_FOR(work, omp_pragma, header, ...) \
  do {                                                 \
    if (ms_parallel(work)) {                           \
      _Pragma(omp_pragma) for header { __VA_ARGS__ }   \
    } else {                                           \
      for header { __VA_ARGS__ }                       \
    }                                                  \
  } while (0)

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

/* ------------------------------------------------------------------------- */
/* float16                                                                   */
/* ------------------------------------------------------------------------- */

/* A "float16" param holds IEEE 754 binary16 values: 1 sign bit, 5 exponent
 * bits, 10 mantissa bits, the layout of NumPy's float16.  C has no portable
 * half type (GCC's _Float16 exists on some targets only), so read and write
 * them as mscustom_half, their 16 bits, and compute in float:
 *
 *   const mscustom_half *x = (const mscustom_half *)params[0];
 *   mscustom_half *out = (mscustom_half *)params[1];
 *   out[i] = mscustom_float_to_half(2.0f * mscustom_half_to_float(x[i]));
 *
 * mscustom_half_to_float is exact (every half is a float).
 * mscustom_float_to_half rounds to nearest, ties to even, as NumPy's
 * astype(np.float16) does: magnitudes from 65520 up become infinity, those
 * below 2^-14 become subnormal halves (down to 2^-24) or zero; the sign of
 * zero and of infinity is kept; a NaN stays a NaN of the same sign, keeping
 * the top 10 bits of its payload (both directions).  The functions are
 * plain integer code, so they also compile as CUDA __host__ __device__. */
typedef uint16_t mscustom_half;

#if defined(__CUDACC__)
#define MSCUSTOM_HD __host__ __device__
#else
#define MSCUSTOM_HD
#endif

/* The float value of half `h` (exact). */
static inline MSCUSTOM_HD float mscustom_half_to_float(mscustom_half h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exp = ((uint32_t)h >> 10) & 0x1fu;
  uint32_t man = (uint32_t)h & 0x3ffu;
  uint32_t bits;
  float f;
  if (exp == 0x1fu) {
    bits = sign | 0x7f800000u | (man << 13);          /* infinity, or NaN with its payload */
  } else if (exp != 0) {
    bits = sign | ((exp + 112u) << 23) | (man << 13); /* normal: exponent bias 15 -> 127 */
  } else if (man == 0) {
    bits = sign;                                      /* +0 or -0 */
  } else {                                            /* subnormal, man * 2^-24: normalize */
    exp = 113u;
    while ((man & 0x400u) == 0) {
      man <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
  }
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* The half nearest to `f` (ties to even); see above for overflow, subnormals and NaN. */
static inline MSCUSTOM_HD mscustom_half mscustom_float_to_half(float f) {
  uint32_t bits, abs_bits, exp, man, shift, rest, halfway, h;
  uint16_t sign;
  memcpy(&bits, &f, sizeof bits);
  sign = (uint16_t)((bits >> 16) & 0x8000u);
  abs_bits = bits & 0x7fffffffu;
  if (abs_bits >= 0x7f800000u) {                      /* infinity or NaN */
    man = (abs_bits & 0x7fffffu) >> 13;
    if (abs_bits != 0x7f800000u && man == 0) man = 1; /* a NaN whose payload is all in the low bits */
    return (mscustom_half)(sign | 0x7c00u | man);
  }
  if (abs_bits >= 0x477ff000u) return (mscustom_half)(sign | 0x7c00u); /* >= 65520: infinity */
  exp = abs_bits >> 23;
  man = abs_bits & 0x7fffffu;
  if (exp >= 113u) {                                  /* a normal half: drop 13 mantissa bits */
    h = ((exp - 112u) << 10) | (man >> 13);
    rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h; /* a carry may raise the exponent */
    return (mscustom_half)(sign | h);
  }
  if (exp < 102u) return (mscustom_half)sign;          /* below 2^-25: rounds to zero */
  man |= 0x800000u;                                   /* a subnormal half: man * 2^(exp - 126) */
  shift = 126u - exp;                                 /* 14 .. 24 */
  h = man >> shift;
  rest = man & ((1u << shift) - 1u);
  halfway = 1u << (shift - 1u);
  if (rest > halfway || (rest == halfway && (h & 1u))) ++h; /* may become the smallest normal */
  return (mscustom_half)(sign | h);
}

#ifdef __cplusplus
}
#endif

#endif /* MSCUSTOM_AOT_H_ */
