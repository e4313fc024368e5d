/*
 * The compiled call path of ops.Custom: a warm call of a custom op in C.
 *
 * ``FastCall`` is installed as ``Custom.__call__``. A call ``op(x, y)`` of Tensors without
 * keywords whose input signature (shape, dtype, format of every input) matches one of the
 * op's armed ``FastPlan``s runs here without a Python frame: take the output buffer (the
 * plan's last one when nothing references it any more), run the kernel, count it, wrap the
 * result in a Tensor. Anything else -- a first call, a keyword, a tape or a graph capture
 * running in this thread, a usage block timing kernels, a non-contiguous input, an unusual
 * pyfunc result, a kernel error -- goes to Python (``dispatch.call_owner``, or the
 * plan's ``after`` / ``fail`` callables), which has the whole logic. So this file only
 * repeats what the Python call path does on its shortest branch; it decides nothing.
 *
 * FastPlans are built from Python (``mscustom/_core/fastcall.py``) once per dispatch Plan and
 * armed on the op's plan cache (``op.plans.fast``, a tuple emptied whenever the plans are).
 *
 * Kernel modes:
 *   RETURNS  target(*inputs) returns the output array (pyfunc);
 *   INTO     target(*inputs, out) writes into the output (a compiled Numba entry point);
 *   AOT      a C function of the aot calling convention, called through its address with the
 *            data pointers of inputs and output (the GIL released, as cffi and Numba do).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define FP_MAX_IN 8        /* inputs of a compiled call; more go through Python */
#define FP_MAX_DIM 8       /* dimensions per input or output */
#define FP_MAX_PARAMS 32   /* aot parameters (inputs, output, scalars) */

enum { MODE_RETURNS = 0, MODE_INTO = 1, MODE_AOT = 2 };

typedef int (*aot_kernel)(int, void **, int *, int64_t **, const char **, void *, void *);

/* ------------------------------------------------------------------ FastPlan */

typedef struct {
    PyObject_HEAD
    int mode;
    int n_in;
    int in_ndim[FP_MAX_IN];
    npy_intp in_dims[FP_MAX_IN][FP_MAX_DIM];
    PyArray_Descr *in_descr[FP_MAX_IN];
    PyObject *in_format[FP_MAX_IN];
    int out_ndim;
    npy_intp out_dims[FP_MAX_DIM];
    PyArray_Descr *out_descr;
    PyObject *spare;       /* list: the output buffer handed out last (INTO, AOT) */
    PyObject *stats;       /* dict with "calls" */
    PyObject *target;      /* RETURNS, INTO: the callable */
    PyObject *fail;        /* fail(exception or return code): raises the op's error */
    PyObject *after;       /* RETURNS: after(result, inputs) -> the checked output array */
    PyObject *keep;        /* what the C side points into (cffi arrays, the runner) */
    aot_kernel kernel;
    int nparam;
    void *base[FP_MAX_PARAMS];
    int in_slot[FP_MAX_IN];
    int out_slot;
    int *ndims_p;
    int64_t **shapes_p;
    const char **dtypes_p;
    void *extra_p;
    PyObject *label;       /* INTO, AOT: bytes naming the kernel for a crash report (the runner's label) */
} FastPlanObject;

/* the kernel guard's per-thread crash label (mscustom/_core/_kernelguard.c), when it is built */
typedef void (*set_label_fn)(const char *);
static set_label_fn kg_set_label;

static int
fp_traverse(FastPlanObject *self, visitproc visit, void *arg)
{
    for (int i = 0; i < self->n_in; i++) {
        Py_VISIT(self->in_descr[i]);
        Py_VISIT(self->in_format[i]);
    }
    Py_VISIT(self->out_descr);
    Py_VISIT(self->spare);
    Py_VISIT(self->stats);
    Py_VISIT(self->target);
    Py_VISIT(self->fail);
    Py_VISIT(self->after);
    Py_VISIT(self->keep);
    Py_VISIT(self->label);
    return 0;
}

static int
fp_clear(FastPlanObject *self)
{
    for (int i = 0; i < self->n_in; i++) {
        Py_CLEAR(self->in_descr[i]);
        Py_CLEAR(self->in_format[i]);
    }
    Py_CLEAR(self->out_descr);
    Py_CLEAR(self->spare);
    Py_CLEAR(self->stats);
    Py_CLEAR(self->target);
    Py_CLEAR(self->fail);
    Py_CLEAR(self->after);
    Py_CLEAR(self->keep);
    Py_CLEAR(self->label);
    return 0;
}

static void
fp_dealloc(FastPlanObject *self)
{
    PyObject_GC_UnTrack(self);
    fp_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* ``shape`` (a sequence of ints) into ``dims``; returns its length, or -1 with an error set. */
static int
read_shape(PyObject *shape, npy_intp *dims, const char *what)
{
    PyObject *seq = PySequence_Fast(shape, what);
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > FP_MAX_DIM) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "FastPlan: %s has %zd dimensions, at most %d are supported",
                     what, n, FP_MAX_DIM);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        dims[k] = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, k));
        if (dims[k] == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return (int)n;
}

static void *
read_address(PyObject *value)
{
    return value == Py_None ? NULL : PyLong_AsVoidPtr(value);
}

/* FastPlan(mode, inputs, out_shape, out_dtype, spare, stats, target, fail, after, keep, aot)
 *   inputs: a tuple of (shape, dtype, format) per input;
 *   aot: None, or (kernel address, nparam, ndims address, shapes address, dtypes address,
 *        extra address, base pointers (nparam ints), input slots, output slot). */
static int
fp_init(FastPlanObject *self, PyObject *args, PyObject *kwds)
{
    int mode;
    PyObject *inputs, *out_shape, *out_dtype, *spare, *stats, *target, *fail, *after, *keep, *aot;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "FastPlan takes positional arguments only");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "iO!OOO!O!OOOOO:FastPlan", &mode, &PyTuple_Type, &inputs, &out_shape,
                          &out_dtype, &PyList_Type, &spare, &PyDict_Type, &stats, &target, &fail, &after,
                          &keep, &aot))
        return -1;
    if (mode < MODE_RETURNS || mode > MODE_AOT) {
        PyErr_Format(PyExc_ValueError, "FastPlan: unknown mode %d", mode);
        return -1;
    }
    Py_ssize_t n_in = PyTuple_GET_SIZE(inputs);
    if (n_in > FP_MAX_IN) {
        PyErr_Format(PyExc_ValueError, "FastPlan: %zd inputs, at most %d are supported", n_in, FP_MAX_IN);
        return -1;
    }
    fp_clear(self);
    self->mode = mode;
    self->n_in = 0;
    for (Py_ssize_t i = 0; i < n_in; i++) {
        PyObject *item = PyTuple_GET_ITEM(inputs, i);
        PyObject *shape, *dtype, *format;
        PyArray_Descr *descr = NULL;
        if (!PyArg_ParseTuple(item, "OOO:FastPlan input", &shape, &dtype, &format))
            return -1;
        int nd = read_shape(shape, self->in_dims[i], "an input shape");
        if (nd < 0)
            return -1;
        if (!PyArray_DescrCheck(dtype)) {
            PyErr_SetString(PyExc_TypeError, "FastPlan: input dtypes must be numpy.dtype objects");
            return -1;
        }
        descr = (PyArray_Descr *)dtype;
        Py_INCREF(descr);
        Py_INCREF(format);
        self->in_ndim[i] = nd;
        self->in_descr[i] = descr;
        self->in_format[i] = format;
        self->n_in = (int)i + 1;
    }
    int nd = read_shape(out_shape, self->out_dims, "the output shape");
    if (nd < 0)
        return -1;
    self->out_ndim = nd;
    if (!PyArray_DescrCheck(out_dtype)) {
        PyErr_SetString(PyExc_TypeError, "FastPlan: the output dtype must be a numpy.dtype object");
        return -1;
    }
    Py_INCREF(out_dtype);
    self->out_descr = (PyArray_Descr *)out_dtype;
    Py_INCREF(spare);
    self->spare = spare;
    Py_INCREF(stats);
    self->stats = stats;
    Py_INCREF(target);
    self->target = target;
    Py_INCREF(fail);
    self->fail = fail;
    Py_INCREF(after);
    self->after = after;
    Py_INCREF(keep);
    self->keep = keep;
    PyObject *label = PyObject_GetAttrString(keep, "label");     /* the runner's crash label, if any */
    if (label == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    } else if (!PyBytes_Check(label)) {
        Py_DECREF(label);
    } else {
        self->label = label;
    }
    self->kernel = NULL;
    if (mode == MODE_AOT) {
        PyObject *kaddr, *ndims, *shapes, *dtypes, *extra, *base, *slots;
        int nparam, out_slot;
        if (!PyArg_ParseTuple(aot, "OiOOOOO!O!i:FastPlan aot", &kaddr, &nparam, &ndims, &shapes, &dtypes,
                              &extra, &PyTuple_Type, &base, &PyTuple_Type, &slots, &out_slot))
            return -1;
        if (nparam < 1 || nparam > FP_MAX_PARAMS || PyTuple_GET_SIZE(base) != nparam ||
                PyTuple_GET_SIZE(slots) != n_in || out_slot < 0 || out_slot >= nparam) {
            PyErr_SetString(PyExc_ValueError, "FastPlan: inconsistent aot parameters");
            return -1;
        }
        self->kernel = (aot_kernel)read_address(kaddr);
        self->nparam = nparam;
        self->ndims_p = (int *)read_address(ndims);
        self->shapes_p = (int64_t **)read_address(shapes);
        self->dtypes_p = (const char **)read_address(dtypes);
        self->extra_p = read_address(extra);
        for (int k = 0; k < nparam; k++)
            self->base[k] = read_address(PyTuple_GET_ITEM(base, k));
        for (Py_ssize_t i = 0; i < n_in; i++) {
            long s = PyLong_AsLong(PyTuple_GET_ITEM(slots, i));
            if (s < 0 || s >= nparam) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "FastPlan: an aot input slot is out of range");
                return -1;
            }
            self->in_slot[i] = (int)s;
        }
        self->out_slot = out_slot;
        if (PyErr_Occurred())
            return -1;
        if (self->kernel == NULL) {
            PyErr_SetString(PyExc_ValueError, "FastPlan: the aot kernel address is NULL");
            return -1;
        }
    }
    return 0;
}

static PyTypeObject FastPlanType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mscustom._core._fastcall.FastPlan",
    .tp_basicsize = sizeof(FastPlanObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One signature of one custom op, ready to run from C (built by mscustom._core.fastcall).",
    .tp_traverse = (traverseproc)fp_traverse,
    .tp_clear = (inquiry)fp_clear,
    .tp_dealloc = (destructor)fp_dealloc,
    .tp_init = (initproc)fp_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------ what FastCall and CoreCall share */

/* The head of both call objects: the Python path every call this file does not finish takes
 * (``slow``), how to make a Tensor (its type, its slots' offsets, the default format), the
 * per-thread tape/capture state, and the name the object reports. */
#define CALL_HEAD \
    PyObject_HEAD \
    vectorcallfunc vectorcall; \
    PyObject *slow; \
    PyTypeObject *tensor; \
    Py_ssize_t off_data, off_format, off_node, off_oidx; \
    PyObject *default_format; \
    PyObject *state; \
    PyObject *zero; \
    const char *name;

typedef struct {
    CALL_HEAD
} CallBase;

static PyObject *str_op, *str_plans, *str_fast, *str_depth, *str_capture, *str_calls;

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static Py_ssize_t slot_offset(PyTypeObject *type, const char *name);

/* Fill the head of a new call object (references are taken); -1 with an exception on failure. */
static int
call_base_init(CallBase *self, vectorcallfunc vectorcall, const char *name, PyObject *slow, PyObject *tensor,
               PyObject *default_format, PyObject *state)
{
    PyTypeObject *tt = (PyTypeObject *)tensor;
    if ((self->off_data = slot_offset(tt, "_data")) < 0 || (self->off_format = slot_offset(tt, "_format")) < 0 ||
            (self->off_node = slot_offset(tt, "_node")) < 0 || (self->off_oidx = slot_offset(tt, "_oidx")) < 0)
        return -1;
    self->vectorcall = vectorcall;
    self->name = name;
    Py_INCREF(slow);
    self->slow = slow;
    Py_INCREF(tensor);
    self->tensor = tt;
    PyUnicode_InternInPlace(&default_format);
    Py_INCREF(default_format);
    self->default_format = default_format;
    Py_INCREF(state);
    self->state = state;
    self->zero = PyLong_FromLong(0);
    return self->zero == NULL ? -1 : 0;
}

static int
call_base_traverse(CallBase *self, visitproc visit, void *arg)
{
    Py_VISIT(self->slow);
    Py_VISIT(self->tensor);
    Py_VISIT(self->default_format);
    Py_VISIT(self->state);
    return 0;
}

static void
call_base_clear(CallBase *self)
{
    Py_CLEAR(self->slow);
    Py_CLEAR(self->tensor);
    Py_CLEAR(self->default_format);
    Py_CLEAR(self->state);
    Py_CLEAR(self->zero);
}

static void
call_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    Py_TYPE(self)->tp_clear(self);
    Py_TYPE(self)->tp_free(self);
}

/* A new plain Tensor holding ``data`` (the reference is stolen): object.__new__ and four slots. */
static PyObject *
wrap_tensor(CallBase *self, PyObject *data)
{
    PyObject *t = self->tensor->tp_alloc(self->tensor, 0);
    if (t == NULL) {
        Py_DECREF(data);
        return NULL;
    }
    SLOT(t, self->off_data) = data;
    Py_INCREF(self->default_format);
    SLOT(t, self->off_format) = self->default_format;
    Py_INCREF(Py_None);
    SLOT(t, self->off_node) = Py_None;
    Py_INCREF(self->zero);
    SLOT(t, self->off_oidx) = self->zero;
    return t;
}

static PyObject *
call_get_slow(CallBase *self, void *closure)
{
    Py_INCREF(self->slow);
    return self->slow;
}

static PyObject *
call_get_name(CallBase *self, void *closure)
{
    return PyUnicode_FromString(self->name);
}

static PyGetSetDef call_getset[] = {
    {"slow", (getter)call_get_slow, NULL, "The Python path every other call takes.", NULL},
    {"__wrapped__", (getter)call_get_slow, NULL, "The same (inspect.signature follows it).", NULL},
    {"__name__", (getter)call_get_name, NULL, NULL, NULL},
    {"__qualname__", (getter)call_get_name, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ------------------------------------------------------------------ FastCall */

typedef struct {
    CALL_HEAD
    PyObject *timing;          /* dispatch.TIMING: [open timing requests] */
    PyObject *one;
    unsigned long long hits, misses;
} FastCallObject;

static int
fc_traverse(FastCallObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->timing);
    return call_base_traverse((CallBase *)self, visit, arg);
}

static int
fc_clear(FastCallObject *self)
{
    call_base_clear((CallBase *)self);
    Py_CLEAR(self->timing);
    Py_CLEAR(self->one);
    return 0;
}

/* The offset of a __slots__ member (a member descriptor of ``type``). */
static Py_ssize_t
slot_offset(PyTypeObject *type, const char *name)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name);
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "FastCall: %s.%s is not a __slots__ member", type->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "FastCall: %s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    return m->offset;
}

/* True when the input Tensors ``args`` fit ``fp``; their arrays land in ``arrays``. */
static inline int
matches(FastCallObject *self, FastPlanObject *fp, PyObject *const *args, PyArrayObject **arrays)
{
    for (int i = 0; i < fp->n_in; i++) {
        PyObject *t = args[i];
        if (Py_TYPE(t) != self->tensor)
            return 0;
        PyObject *data = SLOT(t, self->off_data);
        if (data == NULL || !PyArray_Check(data))
            return 0;
        PyArrayObject *a = (PyArrayObject *)data;
        int nd = PyArray_NDIM(a);
        if (nd != fp->in_ndim[i] || PyArray_DESCR(a) != fp->in_descr[i])
            return 0;
        PyObject *format = SLOT(t, self->off_format);
        if (format != fp->in_format[i])
            return 0;
        npy_intp *dims = PyArray_DIMS(a);
        for (int k = 0; k < nd; k++)
            if (dims[k] != fp->in_dims[i][k])
                return 0;
        if (fp->mode != MODE_RETURNS && !PyArray_IS_C_CONTIGUOUS(a))
            return 0;                       /* Python passes a contiguous copy */
        arrays[i] = a;
    }
    return 1;
}

/* No usage block times calls and this thread records no gradient: checked before the signature,
 * so a call under a tape reaches Python after one read of the thread's state. */
static inline int
untaped(FastCallObject *self)
{
    if (PyList_GET_ITEM(self->timing, 0) != self->zero)
        return 0;
    PyObject *depth = PyObject_GetAttr(self->state, str_depth);
    if (depth == NULL) {
        PyErr_Clear();
        return 0;
    }
    int idle = depth == self->zero;
    Py_DECREF(depth);
    return idle;
}

/* No graph capture records this thread's calls. */
static inline int
uncaptured(FastCallObject *self)
{
    int idle;
    PyObject *capture = PyObject_GetAttr(self->state, str_capture);
    if (capture == NULL) {
        PyErr_Clear();
        return 0;
    }
    idle = capture == Py_None;
    Py_DECREF(capture);
    return idle;
}

/* The error raised in a kernel, handed to the plan's ``fail``, which raises the op's error.
 * BaseExceptions that are not Exceptions (KeyboardInterrupt, SystemExit) pass through. */
static PyObject *
kernel_raised(FastPlanObject *fp)
{
    if (!PyErr_ExceptionMatches(PyExc_Exception))
        return NULL;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL)
        PyException_SetTraceback(value, tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyObject *r = PyObject_CallOneArg(fp->fail, value);
    Py_DECREF(value);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_SystemError, "mscustom: a kernel's fail() returned instead of raising");
    }
    return NULL;
}

/* An output buffer: the plan's last one when nothing else references it, else a new one.
 * As in dispatch._reuse, the buffer goes back on the spare list before the kernel runs. */
static PyObject *
take_buffer(FastPlanObject *fp)
{
    PyListObject *spare = (PyListObject *)fp->spare;
    PyObject *buf = NULL;
    Py_ssize_t n = Py_SIZE(spare);
    if (n > 0) {
        buf = spare->ob_item[n - 1];       /* list.pop(): the list's reference is now ours */
        Py_SET_SIZE(spare, n - 1);
        if (Py_REFCNT(buf) != 1) {         /* a Tensor, a view or a tape still holds it */
            Py_DECREF(buf);
            buf = NULL;
        }
    }
    if (buf == NULL) {
        Py_INCREF(fp->out_descr);
        buf = PyArray_Empty(fp->out_ndim, fp->out_dims, fp->out_descr, 0);
        if (buf == NULL)
            return NULL;
    }
    if (PyList_Append(fp->spare, buf) < 0) {
        Py_DECREF(buf);
        return NULL;
    }
    return buf;
}

/* ``res`` is an output we can take as it is: a fresh array of the plan's shape and dtype that
 * is none of the inputs and no input's base (dispatch.call_owner and the pyfunc runner check
 * the same; anything else goes through ``after``). */
static inline int
plain_result(FastPlanObject *fp, PyObject *res, PyArrayObject **arrays)
{
    if (!PyArray_CheckExact(res))
        return 0;
    PyArrayObject *r = (PyArrayObject *)res;
    if (PyArray_BASE(r) != NULL || PyArray_NDIM(r) != fp->out_ndim || PyArray_DESCR(r) != fp->out_descr)
        return 0;
    npy_intp *dims = PyArray_DIMS(r);
    for (int k = 0; k < fp->out_ndim; k++)
        if (dims[k] != fp->out_dims[k])
            return 0;
    for (int i = 0; i < fp->n_in; i++)
        if ((PyObject *)arrays[i] == res || PyArray_BASE(arrays[i]) == res)
            return 0;
    return 1;
}

static PyObject *
run_plan(FastCallObject *self, FastPlanObject *fp, PyArrayObject **arrays)
{
    PyObject *out;
    PyObject *stack[FP_MAX_IN + 1];
    int n_in = fp->n_in;
    for (int i = 0; i < n_in; i++)
        stack[i] = (PyObject *)arrays[i];
    if (fp->mode == MODE_RETURNS) {
        PyObject *res = PyObject_Vectorcall(fp->target, stack, n_in, NULL);
        if (res == NULL)
            return kernel_raised(fp);
        if (plain_result(fp, res, arrays)) {
            out = res;
        } else {
            PyObject *ins = PyTuple_New(n_in);
            if (ins == NULL) {
                Py_DECREF(res);
                return NULL;
            }
            for (int i = 0; i < n_in; i++) {
                Py_INCREF(stack[i]);
                PyTuple_SET_ITEM(ins, i, stack[i]);
            }
            out = PyObject_CallFunctionObjArgs(fp->after, res, ins, NULL);
            Py_DECREF(res);
            Py_DECREF(ins);
            if (out == NULL)
                return NULL;
        }
    } else {
        out = take_buffer(fp);
        if (out == NULL)
            return NULL;
        if (fp->mode == MODE_INTO) {
            stack[n_in] = out;
            if (kg_set_label != NULL && fp->label != NULL)
                kg_set_label(PyBytes_AS_STRING(fp->label));
            PyObject *res = PyObject_Vectorcall(fp->target, stack, n_in + 1, NULL);
            if (kg_set_label != NULL && fp->label != NULL)
                kg_set_label(NULL);
            if (res == NULL) {
                Py_DECREF(out);
                return kernel_raised(fp);
            }
            Py_DECREF(res);
        } else {
            void *params[FP_MAX_PARAMS];
            memcpy(params, fp->base, sizeof(void *) * fp->nparam);
            for (int i = 0; i < n_in; i++)
                params[fp->in_slot[i]] = PyArray_DATA(arrays[i]);
            params[fp->out_slot] = PyArray_DATA((PyArrayObject *)out);
            int rc;
            const char *label = fp->label != NULL ? PyBytes_AS_STRING(fp->label) : NULL;
            Py_BEGIN_ALLOW_THREADS
            if (kg_set_label != NULL && label != NULL)
                kg_set_label(label);
            rc = fp->kernel(fp->nparam, params, fp->ndims_p, fp->shapes_p, fp->dtypes_p, NULL, fp->extra_p);
            if (kg_set_label != NULL && label != NULL)
                kg_set_label(NULL);
            Py_END_ALLOW_THREADS
            if (rc != 0) {
                Py_DECREF(out);
                PyObject *code = PyLong_FromLong(rc);
                if (code == NULL)
                    return NULL;
                PyObject *r = PyObject_CallOneArg(fp->fail, code);
                Py_DECREF(code);
                if (r != NULL) {
                    Py_DECREF(r);
                    PyErr_SetString(PyExc_SystemError, "mscustom: an aot kernel's fail() returned");
                }
                return NULL;
            }
        }
    }
    /* stats["calls"] += 1 */
    PyObject *calls = PyDict_GetItemWithError(fp->stats, str_calls);
    if (calls == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_KeyError, "calls");
        Py_DECREF(out);
        return NULL;
    }
    PyObject *more = PyNumber_Add(calls, self->one);
    if (more == NULL || PyDict_SetItem(fp->stats, str_calls, more) < 0) {
        Py_XDECREF(more);
        Py_DECREF(out);
        return NULL;
    }
    Py_DECREF(more);
    return wrap_tensor((CallBase *)self, out);
}

static PyObject *
fc_vectorcall(FastCallObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyArrayObject *arrays[FP_MAX_IN];
    if (nargs < 2 || nargs - 1 > FP_MAX_IN || (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) || !untaped(self))
        goto slow;
    PyObject *op = PyObject_GetAttr(args[0], str_op);
    if (op == NULL) {
        PyErr_Clear();
        goto slow;
    }
    PyObject *plans = PyObject_GetAttr(op, str_plans);
    Py_DECREF(op);
    if (plans == NULL) {
        PyErr_Clear();
        goto slow;
    }
    PyObject *fast = PyObject_GetAttr(plans, str_fast);
    Py_DECREF(plans);
    if (fast == NULL) {
        PyErr_Clear();
        goto slow;
    }
    FastPlanObject *fp = NULL;
    if (PyTuple_CheckExact(fast)) {
        Py_ssize_t n = PyTuple_GET_SIZE(fast);
        for (Py_ssize_t j = 0; j < n; j++) {
            FastPlanObject *cand = (FastPlanObject *)PyTuple_GET_ITEM(fast, j);
            if (Py_TYPE(cand) == &FastPlanType && cand->n_in == nargs - 1 &&
                    matches(self, cand, args + 1, arrays)) {
                fp = cand;
                break;
            }
        }
    }
    if (fp == NULL) {
        Py_DECREF(fast);
        goto slow;
    }
    /* Own everything the kernel reads before any Python code can run: a pyfunc, a GC callback
     * or another thread (while an aot kernel runs without the GIL) may rebind the inputs'
     * Tensors (``assign_value``) or replace the op's plans, freeing what was only borrowed. */
    Py_INCREF(fp);
    Py_DECREF(fast);
    for (int i = 0; i < fp->n_in; i++)
        Py_INCREF(arrays[i]);
    PyObject *res;
    if (!uncaptured(self)) {
        res = NULL;
    } else {
        self->hits++;
        res = run_plan(self, fp, arrays);
    }
    for (int i = 0; i < fp->n_in; i++)
        Py_DECREF(arrays[i]);
    Py_DECREF(fp);
    if (res == NULL && !PyErr_Occurred())
        goto slow;
    return res;
slow:
    self->misses++;
    return PyObject_Vectorcall(self->slow, args, nargsf, kwnames);
}

static PyObject *
fc_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

/* Looked up on an instance (``op.__call__``), the FastCall binds like a function. */
static PyObject *
fc_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None) {
        Py_INCREF(self);
        return self;
    }
    return PyMethod_New(self, obj);
}

/* FastCall(slow, tensor_type, default_format, state, timing) */
static PyObject *
fc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *slow, *tensor, *default_format, *state, *timing;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "FastCall takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!UOO!:FastCall", &slow, &PyType_Type, &tensor, &default_format, &state,
                          &PyList_Type, &timing))
        return NULL;
    if (PyList_GET_SIZE(timing) != 1) {
        PyErr_SetString(PyExc_ValueError, "FastCall: timing must be a one-item list");
        return NULL;
    }
    FastCallObject *self = (FastCallObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(timing);
    self->timing = timing;
    self->one = PyLong_FromLong(1);
    if (self->one == NULL || call_base_init((CallBase *)self, (vectorcallfunc)fc_vectorcall, "__call__", slow,
                                            tensor, default_format, state) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyObject *
fc_counts(FastCallObject *self, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("(KK)", self->hits, self->misses);
}

static PyMethodDef fc_methods[] = {
    {"counts", (PyCFunction)fc_counts, METH_NOARGS,
     "(calls finished in C, calls handed to Python) since this FastCall was made."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FastCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mscustom._core._fastcall.FastCall",
    .tp_basicsize = sizeof(FastCallObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "The __call__ of ops.Custom: warm calls in C, every other call through Python.",
    .tp_vectorcall_offset = offsetof(FastCallObject, vectorcall),
    .tp_call = fc_call,
    .tp_descr_get = fc_descr_get,
    .tp_traverse = (traverseproc)fc_traverse,
    .tp_clear = (inquiry)fc_clear,
    .tp_dealloc = call_dealloc,
    .tp_new = fc_new,
    .tp_methods = fc_methods,
    .tp_getset = call_getset,
};

/* ------------------------------------------------------------------ built-in op calls */

/* CoreCall(slow, tensor_type, default_format, state, check, after, timing): ``dispatch.call(op, args, attrs)``
 * for the common built-in case -- one to four plain Tensors, hashable attributes, a cached ``simple`` plan
 * (one output the kernel allocates) -- without a Python frame of ours: the plan key, the lookup, the
 * kernel call, the Tensor. ``check(op, plan, result)`` fixes a result that is not a fresh array of
 * the plan's shape and dtype (or raises); ``after(op, plan, attrs, args, tensor)`` tapes or captures
 * the call while this thread records. Every other call goes to ``slow`` (the Python ``call``). */
typedef struct {
    CALL_HEAD
    PyObject *check, *after;
    PyObject *timing;          /* dispatch.TIMING: while not 0, every call goes to Python (profiling) */
} CoreCallObject;

static PyObject *str_simple, *str_runner, *str_shape0, *str_dtype0;

static int
cc_traverse(CoreCallObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->check);
    Py_VISIT(self->after);
    Py_VISIT(self->timing);
    return call_base_traverse((CallBase *)self, visit, arg);
}

static int
cc_clear(CoreCallObject *self)
{
    call_base_clear((CallBase *)self);
    Py_CLEAR(self->check);
    Py_CLEAR(self->after);
    Py_CLEAR(self->timing);
    return 0;
}

/* ``array.shape`` as a new tuple. */
static PyObject *
shape_of(PyArrayObject *a)
{
    int nd = PyArray_NDIM(a);
    npy_intp *dims = PyArray_DIMS(a);
    PyObject *shape = PyTuple_New(nd);
    if (shape == NULL)
        return NULL;
    for (int d = 0; d < nd; d++) {
        PyObject *v = PyLong_FromSsize_t(dims[d]);
        if (v == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
        PyTuple_SET_ITEM(shape, d, v);
    }
    return shape;
}

/* Whether ``r`` is an array of ``shape0`` (a tuple of ints) and of dtype ``dtype0``. */
static int
fits_plan(PyObject *r, PyObject *shape0, PyObject *dtype0)
{
    if (!PyArray_CheckExact(r) || !PyTuple_CheckExact(shape0))
        return 0;
    PyArrayObject *a = (PyArrayObject *)r;
    int nd = PyArray_NDIM(a);
    if (PyTuple_GET_SIZE(shape0) != nd)
        return 0;
    npy_intp *dims = PyArray_DIMS(a);
    for (int d = 0; d < nd; d++) {
        PyObject *v = PyTuple_GET_ITEM(shape0, d);
        if (!PyLong_CheckExact(v))
            return 0;
        Py_ssize_t n = PyLong_AsSsize_t(v);
        if (n == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (n != dims[d])
            return 0;
    }
    PyObject *dt = (PyObject *)PyArray_DESCR(a);
    if (dt == dtype0)
        return 1;
    int eq = PyObject_RichCompareBool(dt, dtype0, Py_EQ);
    if (eq < 0) {
        PyErr_Clear();
        return 0;
    }
    return eq;
}

static PyObject *
cc_vectorcall(CoreCallObject *self, PyObject *const *argv, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 3 || kwnames != NULL || PyList_GET_ITEM(self->timing, 0) != self->zero)
        goto slow;
    PyObject *op = argv[0], *args = argv[1], *attrs = argv[2];
    if (!PyTuple_CheckExact(args) || !PyDict_CheckExact(attrs))
        goto slow;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < 1 || n > 4)
        goto slow;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GET_ITEM(args, i);
        if (Py_TYPE(t) != self->tensor)
            goto slow;
        PyObject *d = SLOT(t, self->off_data);
        if (d == NULL || !PyArray_CheckExact(d) || SLOT(t, self->off_format) == NULL)
            goto slow;
    }
    /* The arrays are owned (a list the runner gets) before anything can run Python code: the
     * allocations below may start a GC pass, and hashing the key may call an attribute's
     * __hash__, either of which may rebind an input Tensor and free the array it held. */
    PyObject *arrays = PyList_New(n);
    if (arrays == NULL)
        return NULL;
    PyObject *datas[4];
    for (Py_ssize_t i = 0; i < n; i++) {
        datas[i] = SLOT(PyTuple_GET_ITEM(args, i), self->off_data);
        Py_INCREF(datas[i]);
        PyList_SET_ITEM(arrays, i, datas[i]);
    }
    /* the key dispatch.call builds: (shape, dtype, format) of each input, flat for one or two
     * inputs, one tuple per input for more; with attributes, (that, tuple(attrs.items())) */
    PyObject *key = PyTuple_New(n <= 2 ? 3 * n : n);
    if (key == NULL) {
        Py_DECREF(arrays);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *shape = shape_of((PyArrayObject *)datas[i]);
        if (shape == NULL) {
            Py_DECREF(key);
            Py_DECREF(arrays);
            return NULL;
        }
        PyObject *descr = (PyObject *)PyArray_DESCR((PyArrayObject *)datas[i]);
        PyObject *fmt = SLOT(PyTuple_GET_ITEM(args, i), self->off_format);
        Py_INCREF(descr);
        Py_INCREF(fmt);
        if (n <= 2) {
            PyTuple_SET_ITEM(key, 3 * i, shape);
            PyTuple_SET_ITEM(key, 3 * i + 1, descr);
            PyTuple_SET_ITEM(key, 3 * i + 2, fmt);
        } else {
            PyObject *part = PyTuple_New(3);
            if (part == NULL) {
                Py_DECREF(shape);
                Py_DECREF(descr);
                Py_DECREF(fmt);
                Py_DECREF(key);
                Py_DECREF(arrays);
                return NULL;
            }
            PyTuple_SET_ITEM(part, 0, shape);
            PyTuple_SET_ITEM(part, 1, descr);
            PyTuple_SET_ITEM(part, 2, fmt);
            PyTuple_SET_ITEM(key, i, part);
        }
    }
    if (PyDict_GET_SIZE(attrs) != 0) {
        PyObject *items = PyDict_Items(attrs);
        PyObject *itup = items == NULL ? NULL : PyList_AsTuple(items);
        Py_XDECREF(items);
        PyObject *outer = itup == NULL ? NULL : PyTuple_Pack(2, key, itup);
        Py_XDECREF(itup);
        Py_DECREF(key);
        if (outer == NULL) {
            Py_DECREF(arrays);
            return NULL;
        }
        key = outer;
    }
    PyObject *plans = PyObject_GetAttr(op, str_plans);
    if (plans == NULL) {
        PyErr_Clear();
        Py_DECREF(key);
        Py_DECREF(arrays);
        goto slow;
    }
    /* an unhashable attribute value raises TypeError here: the Python path freezes it */
    PyObject *plan = PyDict_Check(plans) ? PyDict_GetItemWithError(plans, key) : NULL;
    Py_DECREF(key);
    if (plan == NULL) {
        PyErr_Clear();
        Py_DECREF(plans);
        Py_DECREF(arrays);
        goto slow;
    }
    Py_INCREF(plan);
    Py_DECREF(plans);
    PyObject *simple = PyObject_GetAttr(plan, str_simple);
    if (simple != Py_True) {
        Py_XDECREF(simple);
        PyErr_Clear();
        Py_DECREF(plan);
        Py_DECREF(arrays);
        goto slow;
    }
    Py_DECREF(simple);
    PyObject *runner = PyObject_GetAttr(plan, str_runner);
    if (runner == NULL) {
        Py_DECREF(arrays);
        Py_DECREF(plan);
        return NULL;
    }
    PyObject *stack[2] = {attrs, arrays};
    PyObject *r = PyObject_Vectorcall(runner, stack, 2, NULL);
    Py_DECREF(runner);
    Py_DECREF(arrays);
    if (r == NULL) {                        /* raised as the Python path raises it: unchanged */
        Py_DECREF(plan);
        return NULL;
    }
    PyObject *shape0 = PyObject_GetAttr(plan, str_shape0);
    PyObject *dtype0 = PyObject_GetAttr(plan, str_dtype0);
    if (shape0 == NULL || dtype0 == NULL) {
        Py_XDECREF(shape0);
        Py_XDECREF(dtype0);
        Py_DECREF(r);
        Py_DECREF(plan);
        return NULL;
    }
    int plain = fits_plan(r, shape0, dtype0);
    Py_DECREF(shape0);
    Py_DECREF(dtype0);
    if (!plain) {
        PyObject *fixed = PyObject_CallFunctionObjArgs(self->check, op, plan, r, NULL);
        Py_DECREF(r);
        if (fixed == NULL) {
            Py_DECREF(plan);
            return NULL;
        }
        r = fixed;
    }
    PyObject *t = wrap_tensor((CallBase *)self, r);
    if (t == NULL) {
        Py_DECREF(plan);
        return NULL;
    }
    /* a gradient tape or a graph capture on this thread: Python records the call */
    PyObject *depth = PyObject_GetAttr(self->state, str_depth);
    PyObject *capture = depth == NULL ? NULL : PyObject_GetAttr(self->state, str_capture);
    if (capture == NULL) {
        Py_XDECREF(depth);
        Py_DECREF(t);
        Py_DECREF(plan);
        return NULL;
    }
    int capture_none = capture == Py_None;
    int quiet = depth == self->zero && capture_none;
    Py_DECREF(depth);
    Py_DECREF(capture);
    if (!quiet) {
        /* with no capture only the tape can want the call: say so (``taping``), saving two reads */
        PyObject *res = capture_none
            ? PyObject_CallFunctionObjArgs(self->after, op, plan, attrs, args, t, Py_True, NULL)
            : PyObject_CallFunctionObjArgs(self->after, op, plan, attrs, args, t, NULL);
        if (res == NULL) {
            Py_DECREF(t);
            Py_DECREF(plan);
            return NULL;
        }
        Py_DECREF(res);
    }
    Py_DECREF(plan);
    return t;
slow:
    return PyObject_Vectorcall(self->slow, argv, nargsf, kwnames);
}

static PyObject *
cc_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

static PyObject *
cc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *slow, *tensor, *default_format, *state, *check, *after, *timing;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "CoreCall takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OO!UOOOO!:CoreCall", &slow, &PyType_Type, &tensor, &default_format, &state,
                          &check, &after, &PyList_Type, &timing))
        return NULL;
    if (PyList_GET_SIZE(timing) != 1) {
        PyErr_SetString(PyExc_ValueError, "CoreCall: timing must be a one-item list");
        return NULL;
    }
    CoreCallObject *self = (CoreCallObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    Py_INCREF(check);
    self->check = check;
    Py_INCREF(after);
    self->after = after;
    Py_INCREF(timing);
    self->timing = timing;
    if (call_base_init((CallBase *)self, (vectorcallfunc)cc_vectorcall, "call", slow, tensor, default_format,
                       state) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyTypeObject CoreCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mscustom._core._fastcall.CoreCall",
    .tp_basicsize = sizeof(CoreCallObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "dispatch.call: built-in calls on cached simple plans in C, every other call through Python.",
    .tp_vectorcall_offset = offsetof(CoreCallObject, vectorcall),
    .tp_call = cc_call,
    .tp_traverse = (traverseproc)cc_traverse,
    .tp_clear = (inquiry)cc_clear,
    .tp_dealloc = call_dealloc,
    .tp_new = cc_new,
    .tp_getset = call_getset,
};

/* ------------------------------------------------------------------ graph-mode signatures */

static PyObject *str_data, *str_format;

#define SIG_MAX_ARGS 32    /* more tensor arguments: graph.py builds the key in Python */

/* signature_key(args, tensor_type, device): ((shape, dtype, format), ..., device) when every item
   of the tuple ``args`` is exactly ``tensor_type`` holding a NumPy array, else None (graph.py). */
static PyObject *
signature_key(PyObject *Py_UNUSED(module), PyObject *const *argv, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_Check(argv[0]) || !PyType_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "signature_key(args: tuple, tensor_type: type, device)");
        return NULL;
    }
    PyObject *args = argv[0];
    PyTypeObject *tensor = (PyTypeObject *)argv[1];
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *seen[SIG_MAX_ARGS];
    if (n > SIG_MAX_ARGS)
        Py_RETURN_NONE;
    PyObject *key = PyTuple_New(n + 1);
    if (key == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (Py_TYPE(a) != tensor)
            goto not_plain;
        PyObject *data = PyObject_GetAttr(a, str_data);
        if (data == NULL)
            goto fail;
        if (!PyArray_CheckExact(data)) {
            Py_DECREF(data);
            goto not_plain;
        }
        for (Py_ssize_t j = 0; j < i; j++) {
            if (seen[j] == data) {          /* one array passed twice: graph.py's key says which */
                Py_DECREF(data);
                goto not_plain;
            }
        }
        seen[i] = data;                     /* compared by address only */
        PyArrayObject *arr = (PyArrayObject *)data;
        int nd = PyArray_NDIM(arr);
        npy_intp *dims = PyArray_DIMS(arr);
        PyObject *shape = PyTuple_New(nd);
        PyObject *fmt = PyObject_GetAttr(a, str_format);
        PyObject *part = PyTuple_New(3);
        if (shape == NULL || fmt == NULL || part == NULL) {
            Py_XDECREF(shape);
            Py_XDECREF(fmt);
            Py_XDECREF(part);
            Py_DECREF(data);
            goto fail;
        }
        for (int d = 0; d < nd; d++) {
            PyObject *v = PyLong_FromSsize_t(dims[d]);
            if (v == NULL) {
                Py_DECREF(shape);
                Py_DECREF(fmt);
                Py_DECREF(part);
                Py_DECREF(data);
                goto fail;
            }
            PyTuple_SET_ITEM(shape, d, v);
        }
        PyArray_Descr *descr = PyArray_DESCR(arr);
        Py_INCREF(descr);
        PyTuple_SET_ITEM(part, 0, shape);
        PyTuple_SET_ITEM(part, 1, (PyObject *)descr);
        PyTuple_SET_ITEM(part, 2, fmt);
        PyTuple_SET_ITEM(key, i, part);
        Py_DECREF(data);
    }
    Py_INCREF(argv[2]);
    PyTuple_SET_ITEM(key, n, argv[2]);
    return key;
not_plain:
    Py_DECREF(key);
    Py_RETURN_NONE;
fail:
    Py_DECREF(key);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"signature_key", (PyCFunction)(void (*)(void))signature_key, METH_FASTCALL,
     "signature_key(args, tensor_type, device): a graph-mode record key for plain Tensor arguments, or None."},
    {NULL, NULL, 0, NULL},
};

/* ------------------------------------------------------------------ module */

static struct PyModuleDef fastcall_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mscustom._core._fastcall",
    .m_doc = "The compiled call path of ops.Custom (see mscustom/_core/fastcall.py).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__fastcall(void)
{
    import_array();
    if (PyType_Ready(&FastPlanType) < 0 || PyType_Ready(&FastCallType) < 0 || PyType_Ready(&CoreCallType) < 0)
        return NULL;
    if (!(str_op = PyUnicode_InternFromString("_op")) || !(str_plans = PyUnicode_InternFromString("plans")) ||
            !(str_fast = PyUnicode_InternFromString("fast")) ||
            !(str_depth = PyUnicode_InternFromString("depth")) ||
            !(str_capture = PyUnicode_InternFromString("capture")) ||
            !(str_calls = PyUnicode_InternFromString("calls")) ||
            !(str_data = PyUnicode_InternFromString("_data")) ||
            !(str_format = PyUnicode_InternFromString("_format")) ||
            !(str_simple = PyUnicode_InternFromString("simple")) ||
            !(str_runner = PyUnicode_InternFromString("runner")) ||
            !(str_shape0 = PyUnicode_InternFromString("shape0")) ||
            !(str_dtype0 = PyUnicode_InternFromString("dtype0")))
        return NULL;
    PyObject *m = PyModule_Create(&fastcall_module);
    if (m == NULL)
        return NULL;
    /* optional: the kernel guard's crash labels (not built, or turned off: no labels from C) */
    PyObject *kg = PyImport_ImportModule("mscustom._core.kernelguard");
    if (kg != NULL) {
        PyObject *available = PyObject_GetAttrString(kg, "AVAILABLE");
        if (available != NULL && PyObject_IsTrue(available) == 1)
            kg_set_label = (set_label_fn)PyCapsule_Import("mscustom._core._kernelguard._C_API", 0);
        Py_XDECREF(available);
        Py_DECREF(kg);
    }
    PyErr_Clear();
    Py_INCREF(&FastPlanType);
    Py_INCREF(&FastCallType);
    Py_INCREF(&CoreCallType);
    if (PyModule_AddObject(m, "FastPlan", (PyObject *)&FastPlanType) < 0 ||
            PyModule_AddObject(m, "FastCall", (PyObject *)&FastCallType) < 0 ||
            PyModule_AddObject(m, "CoreCall", (PyObject *)&CoreCallType) < 0 ||
            PyModule_AddIntConstant(m, "RETURNS", MODE_RETURNS) < 0 ||
            PyModule_AddIntConstant(m, "INTO", MODE_INTO) < 0 ||
            PyModule_AddIntConstant(m, "AOT", MODE_AOT) < 0 ||
            PyModule_AddIntConstant(m, "MAX_INPUTS", FP_MAX_IN) < 0 ||
            PyModule_AddIntConstant(m, "MAX_DIMS", FP_MAX_DIM) < 0 ||
            PyModule_AddIntConstant(m, "MAX_PARAMS", FP_MAX_PARAMS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
