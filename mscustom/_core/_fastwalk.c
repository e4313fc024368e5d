/*
 * The compiled tape: ``backward.backward``'s general path in C (``Walker``), and the recording
 * of a built-in call on the tape for the compiled call path (``Recorder``, at the end).
 *
 * ``Walker(tensor_type, node_type, helpers)`` gives a callable
 * ``walker(roots, targets, release, leaves)`` that does what the Python walk in
 * ``mscustom/_core/backward.py`` does, step for step and in the same order (so
 * gradients are summed in the same order and results are bit-identical): the
 * depth-first order of the nodes reachable from the roots, the set of those on a
 * path to a target, then each needed node's FGradient called on its summed output
 * gradients, the input gradients conformed and summed per node, the targets'
 * gradients returned, and the recorded calls' outputs released when asked.
 *
 * Everything that is not the common case is handed to the Python helpers (given
 * as a tuple): a gradient that needs conforming (``fit``), the sum of two
 * gradients (``add``), zeros for an output nobody differentiated (``zeros``), and
 * every error (``no_gradient``, ``failed``, ``wrong_count``), so errors read as the
 * Python walk's. No Python code of ours runs between the lookups of the walk; the
 * nodes and tensors it visits are held by the roots (and ``order``) throughout.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define SLOT(obj, off) (*(PyObject **)((char *)(obj) + (off)))

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *tensor, *node;
    /* helpers: fit(op, i, inp, g), add(a, b), zeros(shape, dtype, fmt), no_gradient(op),
     * failed(op, exc), wrong_count(op, n_grads, n_inputs) */
    PyObject *fit, *add, *zeros, *no_gradient, *failed, *wrong_count;
    Py_ssize_t t_data, t_node, t_oidx, t_format;
    Py_ssize_t n_op, n_attrs, n_inputs, n_outputs, n_out_meta;
} WalkerObject;

static PyObject *str_attrs, *str_fgradient, *str_needs, *str_default_format, *int_zero;

static Py_ssize_t
slot_offset(PyTypeObject *type, const char *name)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name);
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "Walker: %s.%s is not a __slots__ member", type->tp_name, name);
        return -1;
    }
    PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
    if (m->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "Walker: %s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    return m->offset;
}

/* A slot of a Node, or NULL with AttributeError when it was never set. */
static inline PyObject *
node_slot(PyObject *node, Py_ssize_t off, const char *name)
{
    PyObject *v = SLOT(node, off);
    if (v == NULL)
        PyErr_Format(PyExc_AttributeError, "Node has no attribute '%s'", name);
    return v;
}

/* ``node_of(t)`` (borrowed): the tensor's own node, else its thread leaf; Py_None when neither.
 * NULL with an error set only for a value that is not a Tensor. */
static PyObject *
node_of(WalkerObject *self, PyObject *t, PyObject *leaves)
{
    if (!PyObject_TypeCheck(t, self->tensor)) {
        PyErr_Format(PyExc_TypeError, "backward: a recorded input is a %s, not a Tensor", Py_TYPE(t)->tp_name);
        return NULL;
    }
    PyObject *n = SLOT(t, self->t_node);
    if (n == NULL)
        n = Py_None;
    if (n == Py_None && leaves != NULL) {
        PyObject *key = PyLong_FromVoidPtr(t);
        if (key == NULL)
            return NULL;
        PyObject *got = PyDict_GetItemWithError(leaves, key);
        Py_DECREF(key);
        if (got == NULL && PyErr_Occurred())
            return NULL;
        if (got != NULL)
            n = got;
    }
    if (n != Py_None && !PyObject_TypeCheck(n, self->node)) {   /* its slots are read by offset below */
        PyErr_Format(PyExc_TypeError, "backward: a tensor's tape node is a %s, not a Node", Py_TYPE(n)->tp_name);
        return NULL;
    }
    return n;
}

/* ``t._oidx if t._node is not None else 0`` as a C index; -1 with an error set. */
static Py_ssize_t
out_index(WalkerObject *self, PyObject *t)
{
    PyObject *own = SLOT(t, self->t_node);
    if (own == NULL || own == Py_None)
        return 0;
    PyObject *o = SLOT(t, self->t_oidx);
    if (o == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_oidx");
        return -1;
    }
    return PyLong_AsSsize_t(o);
}

/* ``a + b`` for two gradient Tensors of one shape and dtype, computed here on their arrays (``np.add``,
 * as ``primitives.accumulate`` does when nothing records the backward), as a new plain Tensor.
 * NULL with no error set: not this case (a 0-d sum, which NumPy gives as a scalar, other types,
 * shapes or dtypes), left to ``add``; NULL with an error set: NumPy failed. */
static PyObject *
add_arrays(WalkerObject *self, PyObject *a, PyObject *b)
{
    if (Py_TYPE(a) != self->tensor || Py_TYPE(b) != self->tensor)
        return NULL;
    PyObject *da = SLOT(a, self->t_data), *db = SLOT(b, self->t_data);
    if (da == NULL || db == NULL || !PyArray_CheckExact(da) || !PyArray_CheckExact(db))
        return NULL;
    PyArrayObject *x = (PyArrayObject *)da, *y = (PyArrayObject *)db;
    int nd = PyArray_NDIM(x);
    if (nd == 0 || PyArray_NDIM(y) != nd || !PyArray_EquivTypes(PyArray_DESCR(x), PyArray_DESCR(y)))
        return NULL;
    npy_intp *sx = PyArray_DIMS(x), *sy = PyArray_DIMS(y);
    for (int k = 0; k < nd; k++)
        if (sx[k] != sy[k])
            return NULL;
    Py_INCREF(da);                      /* owned: the addition allocates, so a GC pass may run */
    Py_INCREF(db);
    PyObject *sum = PyNumber_Add(da, db);
    Py_DECREF(da);
    Py_DECREF(db);
    if (sum == NULL)
        return NULL;
    if (!PyArray_CheckExact(sum)) {     /* not what np.add gives two such arrays: leave it to add */
        Py_DECREF(sum);
        return NULL;
    }
    PyObject *t = self->tensor->tp_alloc(self->tensor, 0);
    if (t == NULL) {
        Py_DECREF(sum);
        return NULL;
    }
    SLOT(t, self->t_data) = sum;        /* Tensor._wrap(sum): a plain Tensor off the tape */
    Py_INCREF(str_default_format);
    SLOT(t, self->t_format) = str_default_format;
    Py_INCREF(Py_None);
    SLOT(t, self->t_node) = Py_None;
    Py_INCREF(int_zero);
    SLOT(t, self->t_oidx) = int_zero;
    return t;
}

/* ``slot[idx] = g if slot[idx] is None else add(slot[idx], g)`` for ``grads[node]`` (made on first use).
 * ``arrays``: nothing records this backward, so two plain Tensors may be summed by ``add_arrays``. */
static int
accumulate_into(WalkerObject *self, PyObject *grads, PyObject *node, Py_ssize_t idx, PyObject *g, int arrays)
{
    PyObject *slot = PyDict_GetItemWithError(grads, node);
    if (slot == NULL) {
        if (PyErr_Occurred())
            return -1;
        PyObject *meta = node_slot(node, self->n_out_meta, "out_meta");
        if (meta == NULL)
            return -1;
        Py_ssize_t n = PyObject_Length(meta);
        if (n < 0)
            return -1;
        slot = PyList_New(n);
        if (slot == NULL)
            return -1;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_INCREF(Py_None);
            PyList_SET_ITEM(slot, i, Py_None);
        }
        int rc = PyDict_SetItem(grads, node, slot);
        Py_DECREF(slot);                /* the dict holds it */
        if (rc < 0)
            return -1;
    }
    if (idx < 0 || idx >= PyList_GET_SIZE(slot)) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    PyObject *prev = PyList_GET_ITEM(slot, idx);
    if (prev == Py_None) {
        Py_INCREF(g);
        PyList_SetItem(slot, idx, g);
        return 0;
    }
    Py_INCREF(prev);                    /* add may run anything: hold both */
    Py_INCREF(slot);
    PyObject *sum = arrays ? add_arrays(self, prev, g) : NULL;
    if (sum == NULL && !PyErr_Occurred())
        sum = PyObject_CallFunctionObjArgs(self->add, prev, g, NULL);
    Py_DECREF(prev);
    if (sum == NULL) {
        Py_DECREF(slot);
        return -1;
    }
    int rc;
    if (idx < PyList_GET_SIZE(slot)) {
        rc = PyList_SetItem(slot, idx, sum);
    } else {
        Py_DECREF(sum);
        PyErr_SetString(PyExc_IndexError, "backward: a node's gradient list shrank while summing");
        rc = -1;
    }
    Py_DECREF(slot);
    return rc;
}

/* The depth-first order and the needed set, exactly as ``backward._walk``. */
static int
walk_order(WalkerObject *self, PyObject *root_nodes, PyObject *leaves, PyObject *order, PyObject *needed)
{
    PyObject *seen = PySet_New(NULL);
    if (seen == NULL)
        return -1;
    Py_ssize_t cap = 64, top = 0;
    PyObject **st_node = PyMem_Malloc(cap * sizeof(PyObject *));
    char *st_done = PyMem_Malloc(cap);
    int rc = -1;
    if (st_node == NULL || st_done == NULL) {
        PyErr_NoMemory();
        goto done;
    }
#define PUSH(n, d) do { \
        if (top == cap) { \
            cap *= 2; \
            PyObject **nn = PyMem_Realloc(st_node, cap * sizeof(PyObject *)); \
            if (nn == NULL) { PyErr_NoMemory(); goto done; } \
            st_node = nn; \
            char *nd = PyMem_Realloc(st_done, cap); \
            if (nd == NULL) { PyErr_NoMemory(); goto done; } \
            st_done = nd; \
        } \
        st_node[top] = (n); st_done[top] = (d); top++; \
    } while (0)
    /* nodes on the stack are borrowed: each is held by a root or by an input tensor of a node in
     * ``seen`` (all of them alive while the caller holds the roots) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(root_nodes); i++) {
        PyObject *n = PyList_GET_ITEM(root_nodes, i);
        if (n != Py_None)
            PUSH(n, 0);
    }
    while (top > 0) {
        top--;
        PyObject *node = st_node[top];
        int is_done = st_done[top];
        if (is_done) {
            if (PyList_Append(order, node) < 0)
                goto done;
            int has = PySet_Contains(needed, node);
            if (has < 0)
                goto done;
            if (!has) {
                PyObject *inputs = node_slot(node, self->n_inputs, "inputs");
                if (inputs == NULL)
                    goto done;
                PyObject *fast = PySequence_Fast(inputs, "Node.inputs must be a sequence");
                if (fast == NULL)
                    goto done;
                Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
                for (Py_ssize_t j = 0; j < m; j++) {
                    PyObject *tn = node_of(self, PySequence_Fast_GET_ITEM(fast, j), leaves);
                    if (tn == NULL) {
                        Py_DECREF(fast);
                        goto done;
                    }
                    if (tn == Py_None)
                        continue;
                    int in = PySet_Contains(needed, tn);
                    if (in < 0) {
                        Py_DECREF(fast);
                        goto done;
                    }
                    if (in) {
                        if (PySet_Add(needed, node) < 0) {
                            Py_DECREF(fast);
                            goto done;
                        }
                        break;
                    }
                }
                Py_DECREF(fast);
            }
            continue;
        }
        int was = PySet_Contains(seen, node);
        if (was < 0)
            goto done;
        if (was)
            continue;
        if (PySet_Add(seen, node) < 0)
            goto done;
        PUSH(node, 1);
        PyObject *inputs = node_slot(node, self->n_inputs, "inputs");
        if (inputs == NULL)
            goto done;
        PyObject *fast = PySequence_Fast(inputs, "Node.inputs must be a sequence");
        if (fast == NULL)
            goto done;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
        for (Py_ssize_t j = 0; j < m; j++) {
            PyObject *tn = node_of(self, PySequence_Fast_GET_ITEM(fast, j), leaves);
            if (tn == NULL) {
                Py_DECREF(fast);
                goto done;
            }
            if (tn == Py_None)
                continue;
            int in = PySet_Contains(seen, tn);
            if (in < 0) {
                Py_DECREF(fast);
                goto done;
            }
            if (!in) {
                if (top == cap) {
                    cap *= 2;
                    PyObject **nn = PyMem_Realloc(st_node, cap * sizeof(PyObject *));
                    char *nd = nn == NULL ? NULL : PyMem_Realloc(st_done, cap);
                    if (nn != NULL)
                        st_node = nn;
                    if (nd == NULL) {
                        Py_DECREF(fast);
                        PyErr_NoMemory();
                        goto done;
                    }
                    st_done = nd;
                }
                st_node[top] = tn;
                st_done[top] = 0;
                top++;
            }
        }
        Py_DECREF(fast);
    }
#undef PUSH
    rc = 0;
done:
    PyMem_Free(st_node);
    PyMem_Free(st_done);
    Py_DECREF(seen);
    return rc;
}

/* ``_run_fgradient(node, ograds, needed, node_of)``: a new reference to the list/tuple of input
 * gradients (one per input), or NULL with the Python walk's error. */
static PyObject *
run_fgradient(WalkerObject *self, PyObject *node, PyObject *op, PyObject *inputs, PyObject *ograds,
              PyObject *needed, PyObject *leaves)
{
    PyObject *op_attrs = PyObject_GetAttr(op, str_attrs);
    if (op_attrs == NULL)
        return NULL;
    PyObject *fgrad = NULL, *in_grads = NULL, *ins = NULL, *outs = NULL, *needs = NULL;
    PyObject *outputs = NULL, *call_attrs = NULL;
    if (PyDict_Check(op_attrs)) {
        fgrad = PyDict_GetItemWithError(op_attrs, str_fgradient);
        Py_XINCREF(fgrad);
    } else {
        fgrad = PyObject_CallMethod(op_attrs, "get", "O", str_fgradient);
    }
    if (fgrad == NULL && PyErr_Occurred())
        goto done;
    if (fgrad == NULL || fgrad == Py_None) {
        PyObject *r = PyObject_CallFunctionObjArgs(self->no_gradient, op, NULL);  /* raises */
        Py_XDECREF(r);
        if (r != NULL)
            PyErr_SetString(PyExc_RuntimeError, "backward: no_gradient returned");
        goto done;
    }
    outputs = node_slot(node, self->n_outputs, "outputs");
    Py_XINCREF(outputs);                /* owned: allocations below may run a GC pass, hence finalizers */
    call_attrs = outputs == NULL ? NULL : node_slot(node, self->n_attrs, "attrs");
    Py_XINCREF(call_attrs);
    if (call_attrs == NULL)
        goto done;
    int with_needs = PySequence_Contains(op_attrs, str_needs);
    if (with_needs < 0)
        goto done;
    ins = PySequence_List(inputs);
    outs = ins == NULL ? NULL : PySequence_List(outputs);
    if (outs == NULL)
        goto done;
    if (with_needs) {
        Py_ssize_t m = PyList_GET_SIZE(ins);
        needs = PyList_New(m);
        if (needs == NULL)
            goto done;
        for (Py_ssize_t j = 0; j < m; j++) {
            PyObject *tn = node_of(self, PyList_GET_ITEM(ins, j), leaves);
            int in = tn == NULL ? -1 : PySet_Contains(needed, tn);
            if (in < 0)
                goto done;
            PyObject *b = in ? Py_True : Py_False;
            Py_INCREF(b);
            PyList_SET_ITEM(needs, j, b);
        }
    }
    PyObject *argv[5] = {ins, outs, ograds, call_attrs, needs};
    in_grads = PyObject_Vectorcall(fgrad, argv, with_needs ? 5 : 4, NULL);
    if (in_grads == NULL) {
        /* ``except Exception``: the Python walk adds a note naming the op, then re-raises the same
         * exception; KeyboardInterrupt and other BaseExceptions pass through as they are */
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            goto done;
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (value == NULL) {
            PyErr_Restore(type, value, tb);
            goto done;
        }
        if (tb != NULL)
            PyException_SetTraceback(value, tb);
        PyObject *r = PyObject_CallFunctionObjArgs(self->failed, op, value, NULL);
        if (r == NULL) {                /* the note could not be added: that error replaces it, chained */
            PyObject *t2, *v2, *tb2;
            PyErr_Fetch(&t2, &v2, &tb2);
            PyErr_NormalizeException(&t2, &v2, &tb2);
            if (v2 != NULL) {
                Py_INCREF(value);
                PyException_SetContext(v2, value);      /* steals the new reference */
            }
            PyErr_Restore(t2, v2, tb2);
            Py_XDECREF(type);
            Py_DECREF(value);
            Py_XDECREF(tb);
        } else {
            Py_DECREF(r);
            PyErr_Restore(type, value, tb);
        }
        goto done;
    }
    if (!PyList_CheckExact(in_grads) && !PyTuple_CheckExact(in_grads)) {
        PyObject *one = PyList_New(1);
        if (one == NULL) {
            Py_CLEAR(in_grads);
            goto done;
        }
        PyList_SET_ITEM(one, 0, in_grads);
        in_grads = one;
    }
done:
    Py_DECREF(op_attrs);
    Py_XDECREF(outputs);
    Py_XDECREF(call_attrs);
    Py_XDECREF(fgrad);
    Py_XDECREF(ins);
    Py_XDECREF(outs);
    Py_XDECREF(needs);
    return in_grads;
}

/* ``_fit(op, i, inp, g)``'s common case in C (new reference, Py_None for "no gradient"). */
static PyObject *
fit(WalkerObject *self, PyObject *op, Py_ssize_t i, PyObject *inp, PyObject *g)
{
    PyObject *d = Py_TYPE(inp) == self->tensor ? SLOT(inp, self->t_data) : NULL;
    if (d != NULL && PyArray_CheckExact(d)) {
        PyArray_Descr *dd = PyArray_DESCR((PyArrayObject *)d);
        char kind = dd->kind;
        if (kind == 'i' || kind == 'u' || kind == 'b') {
            Py_INCREF(Py_None);
            return Py_None;
        }
        if (Py_TYPE(g) == self->tensor) {
            PyObject *gd = SLOT(g, self->t_data);
            if (gd != NULL && PyArray_CheckExact(gd) && PyArray_DESCR((PyArrayObject *)gd) == dd) {
                PyArrayObject *a = (PyArrayObject *)d, *b = (PyArrayObject *)gd;
                int nd = PyArray_NDIM(a);
                if (PyArray_NDIM(b) == nd) {
                    npy_intp *da = PyArray_DIMS(a), *db = PyArray_DIMS(b);
                    int same = 1;
                    for (int k = 0; k < nd; k++)
                        if (da[k] != db[k]) {
                            same = 0;
                            break;
                        }
                    if (same) {
                        Py_INCREF(g);
                        return g;
                    }
                }
            }
        }
    }
    return PyObject_CallFunction(self->fit, "OnOO", op, i, inp, g);
}

/* The gradients of a node's outputs, any None made zeros (a new list), as the Python walk does. */
static PyObject *
filled(WalkerObject *self, PyObject *node, PyObject *ograds)
{
    PyObject *meta = node_slot(node, self->n_out_meta, "out_meta");
    if (meta == NULL)
        return NULL;
    PyObject *fast = PySequence_Tuple(meta);        /* owned: zeros() runs Python code */
    if (fast == NULL)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(ograds);
    if (PyTuple_GET_SIZE(fast) < n)
        n = PyTuple_GET_SIZE(fast);
    PyObject *out = PyList_New(0);
    for (Py_ssize_t i = 0; out != NULL && i < n && i < PyList_GET_SIZE(ograds); i++) {
        PyObject *g = PyList_GET_ITEM(ograds, i);
        if (g != Py_None) {
            if (PyList_Append(out, g) < 0)
                Py_CLEAR(out);
            continue;
        }
        PyObject *entry = PySequence_Tuple(PyTuple_GET_ITEM(fast, i));     /* (shape, dtype, fmt) */
        PyObject *z = entry == NULL ? NULL : PyObject_Call(self->zeros, entry, NULL);
        Py_XDECREF(entry);
        if (z == NULL || PyList_Append(out, z) < 0)
            Py_CLEAR(out);
        Py_XDECREF(z);
    }
    Py_DECREF(fast);
    return out;
}

static PyObject *
walker_run(WalkerObject *self, PyObject *roots, PyObject *targets, int release, PyObject *leaves, int arrays)
{
    PyObject *order = NULL, *needed = NULL, *target_set = NULL, *grads = NULL, *root_nodes = NULL;
    PyObject *result = NULL;
    /* anything but a list of (Tensor, sensitivity) tuples and a list of targets: the Python walk */
    if (!PyList_CheckExact(roots) || !PyList_CheckExact(targets))
        Py_RETURN_NOTIMPLEMENTED;
    Py_ssize_t n_roots = PyList_GET_SIZE(roots);
    for (Py_ssize_t i = 0; i < n_roots; i++) {
        PyObject *pair = PyList_GET_ITEM(roots, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
                !PyObject_TypeCheck(PyTuple_GET_ITEM(pair, 0), self->tensor))
            Py_RETURN_NOTIMPLEMENTED;
    }
    /* private copies: the caller's lists could change while gradient functions run (a list only the
     * caller's argument holds, as ``[(out, seed)]`` written in the call, is private already) */
    roots = Py_REFCNT(roots) == 1 ? Py_NewRef(roots) : PyList_GetSlice(roots, 0, n_roots);
    if (roots == NULL)
        return NULL;
    targets = Py_REFCNT(targets) == 1 ? Py_NewRef(targets) : PyList_GetSlice(targets, 0, PyList_GET_SIZE(targets));
    if (targets == NULL) {
        Py_DECREF(roots);
        return NULL;
    }
    root_nodes = PyList_New(n_roots);
    if (root_nodes == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n_roots; i++) {
        PyObject *pair = PyList_GET_ITEM(roots, i);
        PyObject *n = node_of(self, PyTuple_GET_ITEM(pair, 0), leaves);
        if (n == NULL)
            goto done;
        Py_INCREF(n);
        PyList_SET_ITEM(root_nodes, i, n);
    }
    order = PyList_New(0);
    needed = PySet_New(targets);
    /* one target (the common case) is compared by identity, as the set compares Nodes */
    PyObject *only_target = PyList_GET_SIZE(targets) == 1 ? PyList_GET_ITEM(targets, 0) : NULL;
    target_set = only_target != NULL ? Py_NewRef(Py_None) : PySet_New(targets);
    grads = PyDict_New();
    if (order == NULL || needed == NULL || target_set == NULL || grads == NULL)
        goto done;
    if (walk_order(self, root_nodes, leaves, order, needed) < 0)
        goto done;

    for (Py_ssize_t i = 0; i < n_roots; i++) {
        PyObject *pair = PyList_GET_ITEM(roots, i);
        PyObject *t = PyTuple_GET_ITEM(pair, 0), *sens = PyTuple_GET_ITEM(pair, 1);
        PyObject *node = PyList_GET_ITEM(root_nodes, i);
        if (node == Py_None)
            continue;
        int in = PySet_Contains(needed, node);
        if (in < 0)
            goto done;
        if (!in)
            continue;
        Py_ssize_t idx = out_index(self, t);
        if (idx == -1 && PyErr_Occurred())
            goto done;
        if (accumulate_into(self, grads, node, idx, sens, arrays) < 0)
            goto done;
    }

    for (Py_ssize_t k = PyList_GET_SIZE(order) - 1; k >= 0; k--) {
        PyObject *node = PyList_GET_ITEM(order, k);
        int is_target = only_target != NULL ? node == only_target : PySet_Contains(target_set, node);
        if (is_target < 0)
            goto done;
        PyObject *op = node_slot(node, self->n_op, "op");
        if (op == NULL)
            goto done;
        if (is_target || op == Py_None)
            continue;
        int in = PySet_Contains(needed, node);
        if (in < 0)
            goto done;
        if (!in)
            continue;
        PyObject *ograds = PyDict_GetItemWithError(grads, node);
        if (ograds == NULL) {
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        Py_INCREF(op);                  /* owned from here: filled() and the gradient run Python code */
        Py_INCREF(ograds);              /* grads.pop(node) */
        if (PyDict_DelItem(grads, node) < 0) {
            Py_DECREF(ograds);
            Py_DECREF(op);
            goto done;
        }
        int any_none = 0;
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(ograds); j++)
            if (PyList_GET_ITEM(ograds, j) == Py_None) {
                any_none = 1;
                break;
            }
        if (any_none) {
            PyObject *f = filled(self, node, ograds);
            Py_DECREF(ograds);
            if (f == NULL) {
                Py_DECREF(op);
                goto done;
            }
            ograds = f;
        }
        PyObject *inputs = node_slot(node, self->n_inputs, "inputs");
        PyObject *in_fast = inputs == NULL ? NULL : PySequence_Tuple(inputs);
        if (in_fast == NULL) {
            Py_DECREF(op);
            Py_DECREF(ograds);
            goto done;
        }
        PyObject *in_grads = run_fgradient(self, node, op, in_fast, ograds, needed, leaves);
        Py_DECREF(ograds);
        Py_DECREF(in_fast);
        if (in_grads == NULL) {
            Py_DECREF(op);
            goto done;
        }
        /* node.inputs read again after the gradient function, as the Python walk reads it (an
         * in-place write inside a gradient may have rewired it), on owned tuples */
        inputs = node_slot(node, self->n_inputs, "inputs");
        in_fast = inputs == NULL ? NULL : PySequence_Tuple(inputs);
        PyObject *grads_t = in_fast == NULL ? NULL : PySequence_Tuple(in_grads);
        Py_DECREF(in_grads);
        if (grads_t == NULL) {
            Py_XDECREF(in_fast);
            Py_DECREF(op);
            goto done;
        }
        in_grads = grads_t;
        Py_ssize_t m = PyTuple_GET_SIZE(in_fast);
        if (PyTuple_GET_SIZE(in_grads) != m) {
            PyObject *r = PyObject_CallFunction(self->wrong_count, "Onn", op, PyTuple_GET_SIZE(in_grads), m);
            Py_XDECREF(r);              /* raises */
            if (r != NULL)
                PyErr_SetString(PyExc_RuntimeError, "backward: wrong_count returned");
            Py_DECREF(in_grads);
            Py_DECREF(in_fast);
            Py_DECREF(op);
            goto done;
        }
        int bad = 0;
        for (Py_ssize_t j = 0; j < m; j++) {
            PyObject *g = PyTuple_GET_ITEM(in_grads, j);
            if (g == Py_None)
                continue;
            PyObject *inp = PyTuple_GET_ITEM(in_fast, j);
            PyObject *inode = node_of(self, inp, leaves);
            if (inode == NULL) {
                bad = 1;
                break;
            }
            if (inode == Py_None)
                continue;
            int need = PySet_Contains(needed, inode);
            if (need < 0) {
                bad = 1;
                break;
            }
            if (!need)
                continue;
            Py_INCREF(inode);
            PyObject *fg = fit(self, op, j, inp, g);
            if (fg == NULL) {
                Py_DECREF(inode);
                bad = 1;
                break;
            }
            if (fg != Py_None) {
                Py_ssize_t idx = out_index(self, inp);
                if ((idx == -1 && PyErr_Occurred()) || accumulate_into(self, grads, inode, idx, fg, arrays) < 0)
                    bad = 1;
            }
            Py_DECREF(fg);
            Py_DECREF(inode);
            if (bad)
                break;
        }
        Py_DECREF(in_grads);
        Py_DECREF(in_fast);
        Py_DECREF(op);
        if (bad)
            goto done;
    }

    Py_ssize_t n_t = PyList_GET_SIZE(targets);
    result = PyList_New(n_t);
    if (result == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n_t; i++) {
        PyObject *slot = PyDict_GetItemWithError(grads, PyList_GET_ITEM(targets, i));
        PyObject *g;
        if (slot == NULL) {
            if (PyErr_Occurred()) {
                Py_CLEAR(result);
                goto done;
            }
            g = Py_None;
        } else if (PyList_Check(slot) && PyList_GET_SIZE(slot) > 0) {
            g = PyList_GET_ITEM(slot, 0);
        } else {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            Py_CLEAR(result);
            goto done;
        }
        Py_INCREF(g);
        PyList_SET_ITEM(result, i, g);
    }
    if (release) {
        for (Py_ssize_t k = 0; k < PyList_GET_SIZE(order); k++) {
            PyObject *node = PyList_GET_ITEM(order, k);
            PyObject *op = SLOT(node, self->n_op);
            if (op == NULL || op == Py_None)
                continue;               /* leaves may be persistent (make_leaf): kept */
            PyObject *outputs = node_slot(node, self->n_outputs, "outputs");
            PyObject *fast = outputs == NULL ? NULL : PySequence_Fast(outputs, "Node.outputs must be a sequence");
            if (fast == NULL) {
                Py_CLEAR(result);
                goto done;
            }
            for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(fast); j++) {
                PyObject *t = PySequence_Fast_GET_ITEM(fast, j);
                if (PyObject_TypeCheck(t, self->tensor)) {
                    PyObject *old = SLOT(t, self->t_node);
                    Py_INCREF(Py_None);
                    SLOT(t, self->t_node) = Py_None;
                    Py_XDECREF(old);
                } else if (PyObject_SetAttrString(t, "_node", Py_None) < 0) {
                    Py_DECREF(fast);
                    Py_CLEAR(result);
                    goto done;
                }
            }
            Py_DECREF(fast);
        }
    }
done:
    Py_DECREF(roots);
    Py_DECREF(targets);
    Py_XDECREF(root_nodes);
    Py_XDECREF(order);
    Py_XDECREF(needed);
    Py_XDECREF(target_set);
    Py_XDECREF(grads);
    return result;
}

static PyObject *
walker_vectorcall(WalkerObject *self, PyObject *const *argv, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if ((nargs != 4 && nargs != 5) || kwnames != NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "walker(roots, targets, release, leaves[, arrays]) takes 4 or 5 positional arguments");
        return NULL;
    }
    int release = PyObject_IsTrue(argv[2]);
    if (release < 0)
        return NULL;
    int arrays = nargs == 5 ? PyObject_IsTrue(argv[4]) : 0;
    if (arrays < 0)
        return NULL;
    PyObject *leaves = argv[3];
    if (leaves == Py_None || (PyDict_Check(leaves) && PyDict_GET_SIZE(leaves) == 0))
        leaves = NULL;
    else if (!PyDict_Check(leaves)) {
        PyErr_SetString(PyExc_TypeError, "walker: leaves must be a dict or None");
        return NULL;
    }
    return walker_run(self, argv[0], argv[1], release, leaves, arrays);
}

static PyObject *
walker_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

static int
walker_traverse(WalkerObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->tensor);
    Py_VISIT(self->node);
    Py_VISIT(self->fit);
    Py_VISIT(self->add);
    Py_VISIT(self->zeros);
    Py_VISIT(self->no_gradient);
    Py_VISIT(self->failed);
    Py_VISIT(self->wrong_count);
    return 0;
}

static int
walker_clear(WalkerObject *self)
{
    Py_CLEAR(self->tensor);
    Py_CLEAR(self->node);
    Py_CLEAR(self->fit);
    Py_CLEAR(self->add);
    Py_CLEAR(self->zeros);
    Py_CLEAR(self->no_gradient);
    Py_CLEAR(self->failed);
    Py_CLEAR(self->wrong_count);
    return 0;
}

static void
walker_dealloc(WalkerObject *self)
{
    PyObject_GC_UnTrack(self);
    walker_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Walker(tensor_type, node_type, (fit, add, zeros, no_gradient, failed, wrong_count)) */
static PyObject *
walker_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyTypeObject *tensor, *node;
    PyObject *fit_, *add, *zeros, *no_gradient, *failed, *wrong_count;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Walker takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O!(OOOOOO):Walker", &PyType_Type, &tensor, &PyType_Type, &node,
                          &fit_, &add, &zeros, &no_gradient, &failed, &wrong_count))
        return NULL;
    Py_ssize_t offs[9] = {
        slot_offset(tensor, "_data"), slot_offset(tensor, "_node"), slot_offset(tensor, "_oidx"),
        slot_offset(node, "op"), slot_offset(node, "attrs"), slot_offset(node, "inputs"),
        slot_offset(node, "outputs"), slot_offset(node, "out_meta"), slot_offset(tensor, "_format"),
    };
    for (int i = 0; i < 9; i++)
        if (offs[i] < 0)
            return NULL;
    WalkerObject *self = (WalkerObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = (vectorcallfunc)walker_vectorcall;
    Py_INCREF(tensor);
    self->tensor = tensor;
    Py_INCREF(node);
    self->node = node;
    PyObject **fns[6] = {&self->fit, &self->add, &self->zeros, &self->no_gradient, &self->failed,
                         &self->wrong_count};
    PyObject *given[6] = {fit_, add, zeros, no_gradient, failed, wrong_count};
    for (int i = 0; i < 6; i++) {
        Py_INCREF(given[i]);
        *fns[i] = given[i];
    }
    self->t_data = offs[0];
    self->t_node = offs[1];
    self->t_oidx = offs[2];
    self->n_op = offs[3];
    self->n_attrs = offs[4];
    self->n_inputs = offs[5];
    self->n_outputs = offs[6];
    self->n_out_meta = offs[7];
    self->t_format = offs[8];
    return (PyObject *)self;
}

static PyTypeObject WalkerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mscustom._core._fastwalk.Walker",
    .tp_basicsize = sizeof(WalkerObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(WalkerObject, vectorcall),
    .tp_call = walker_call,
    .tp_new = walker_new,
    .tp_dealloc = (destructor)walker_dealloc,
    .tp_traverse = (traverseproc)walker_traverse,
    .tp_clear = (inquiry)walker_clear,
    .tp_doc = "backward's general walk in C: walker(roots, targets, release, leaves) -> gradients.",
};

/* ------------------------------------------------------------------ recording a built-in call */

/* ``Recorder(tensor_type, node_type, state, after)``: ``dispatch._after_simple(op, plan, attrs, args, t)``
 * for the compiled built-in call path, without a Python frame on its common branch: while this
 * thread records a gradient (``state.depth``) and no graph capture runs, a call with an input on
 * the tape gets its Node as ``tape.record`` makes it (one output). A capture: ``after`` itself. */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyTypeObject *tensor, *node;
    PyObject *state, *after;
    Py_ssize_t t_data, t_node, t_oidx, t_format;
    Py_ssize_t n_op, n_attrs, n_inputs, n_outputs, n_out_meta;
} RecorderObject;

static PyObject *str_depth, *str_leaves, *str_capture, *str_shape, *str_dtype;

static inline void
set_slot(PyObject *obj, Py_ssize_t off, PyObject *value)   /* steals ``value`` */
{
    PyObject *old = SLOT(obj, off);
    SLOT(obj, off) = value;
    Py_XDECREF(old);
}

static PyObject *
recorder_vectorcall(RecorderObject *self, PyObject *const *argv, size_t nargsf, PyObject *kwnames)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if ((nargs != 5 && nargs != 6) || kwnames != NULL)
        return PyObject_Vectorcall(self->after, argv, nargsf, kwnames);
    PyObject *op = argv[0], *attrs = argv[2], *args = argv[3], *t = argv[4];
    /* ``taping`` (the 6th argument) True: the caller saw a tape and no capture on this thread */
    int taping = nargs == 6 && argv[5] == Py_True;
    if (!taping) {
        PyObject *capture = PyObject_GetAttr(self->state, str_capture);
        if (capture == NULL)
            return NULL;
        int quiet = capture == Py_None;
        Py_DECREF(capture);
        if (!quiet)
            return PyObject_Vectorcall(self->after, argv, nargsf, kwnames);
    }
    if (!PyTuple_CheckExact(args) || Py_TYPE(t) != self->tensor)
        return PyObject_Vectorcall(self->after, argv, nargsf, kwnames);
    if (!taping) {
        PyObject *depth = PyObject_GetAttr(self->state, str_depth);
        if (depth == NULL)
            return NULL;
        int rec = PyObject_IsTrue(depth);
        Py_DECREF(depth);
        if (rec <= 0)
            return rec < 0 ? NULL : Py_NewRef(Py_None);
    }
    /* tape.on_tape(args) */
    PyObject *leaves = NULL;
    int taped = 0;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n && !taped; i++) {
        PyObject *x = PyTuple_GET_ITEM(args, i);
        if (!PyObject_TypeCheck(x, self->tensor)) {
            Py_XDECREF(leaves);
            return PyObject_Vectorcall(self->after, argv, nargsf, kwnames);
        }
        PyObject *xn = SLOT(x, self->t_node);
        if (xn == NULL) {
            Py_XDECREF(leaves);
            PyErr_SetString(PyExc_AttributeError, "_node");
            return NULL;
        }
        if (xn != Py_None) {
            taped = 1;
            break;
        }
        if (leaves == NULL) {
            leaves = PyObject_GetAttr(self->state, str_leaves);
            if (leaves == NULL)
                return NULL;
            if (!PyDict_CheckExact(leaves)) {
                Py_DECREF(leaves);
                return PyObject_Vectorcall(self->after, argv, nargsf, kwnames);
            }
        }
        if (PyDict_GET_SIZE(leaves) == 0)
            continue;
        PyObject *key = PyLong_FromVoidPtr(x);
        if (key == NULL) {
            Py_DECREF(leaves);
            return NULL;
        }
        taped = PyDict_Contains(leaves, key);
        Py_DECREF(key);
        if (taped < 0) {
            Py_DECREF(leaves);
            return NULL;
        }
    }
    Py_XDECREF(leaves);
    if (!taped)
        return Py_NewRef(Py_None);
    /* tape.record(op, args, (t,), attrs), one output */
    PyObject *d = SLOT(t, self->t_data), *fmt = SLOT(t, self->t_format);
    if (d == NULL || fmt == NULL) {
        PyErr_SetString(PyExc_AttributeError, "Tensor without _data or _format");
        return NULL;
    }
    Py_INCREF(d);                       /* owned: the allocations below may run a GC pass */
    Py_INCREF(fmt);
    PyObject *shape = PyObject_GetAttr(d, str_shape);
    PyObject *dtype = shape == NULL ? NULL : PyObject_GetAttr(d, str_dtype);
    PyObject *meta1 = dtype == NULL ? NULL : PyTuple_Pack(3, shape, dtype, fmt);
    Py_XDECREF(shape);
    Py_XDECREF(dtype);
    Py_DECREF(d);
    Py_DECREF(fmt);
    PyObject *meta = meta1 == NULL ? NULL : PyList_New(1);
    if (meta == NULL) {
        Py_XDECREF(meta1);
        return NULL;
    }
    PyList_SET_ITEM(meta, 0, meta1);
    PyObject *outs = PyTuple_Pack(1, t);
    if (outs == NULL) {
        Py_DECREF(meta);
        return NULL;
    }
    PyObject *node = self->node->tp_alloc(self->node, 0);     /* object.__new__(Node) */
    if (node == NULL) {
        Py_DECREF(meta);
        Py_DECREF(outs);
        return NULL;
    }
    set_slot(node, self->n_op, Py_NewRef(op));
    set_slot(node, self->n_attrs, Py_NewRef(attrs));
    set_slot(node, self->n_inputs, Py_NewRef(args));
    set_slot(node, self->n_outputs, outs);
    set_slot(node, self->n_out_meta, meta);
    set_slot(t, self->t_node, node);                          /* the tensor holds the node */
    PyObject *zero = PyLong_FromLong(0);
    if (zero == NULL)
        return NULL;
    set_slot(t, self->t_oidx, zero);
    return Py_NewRef(Py_None);
}

static PyObject *
recorder_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return PyVectorcall_Call(self, args, kwargs);
}

static int
recorder_traverse(RecorderObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->tensor);
    Py_VISIT(self->node);
    Py_VISIT(self->state);
    Py_VISIT(self->after);
    return 0;
}

static int
recorder_clear(RecorderObject *self)
{
    Py_CLEAR(self->tensor);
    Py_CLEAR(self->node);
    Py_CLEAR(self->state);
    Py_CLEAR(self->after);
    return 0;
}

static void
recorder_dealloc(RecorderObject *self)
{
    PyObject_GC_UnTrack(self);
    recorder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
recorder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyTypeObject *tensor, *node;
    PyObject *state, *after;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "Recorder takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O!OO:Recorder", &PyType_Type, &tensor, &PyType_Type, &node, &state, &after))
        return NULL;
    Py_ssize_t offs[9] = {
        slot_offset(tensor, "_data"), slot_offset(tensor, "_node"), slot_offset(tensor, "_oidx"),
        slot_offset(tensor, "_format"), slot_offset(node, "op"), slot_offset(node, "attrs"),
        slot_offset(node, "inputs"), slot_offset(node, "outputs"), slot_offset(node, "out_meta"),
    };
    for (int i = 0; i < 9; i++)
        if (offs[i] < 0)
            return NULL;
    RecorderObject *self = (RecorderObject *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = (vectorcallfunc)recorder_vectorcall;
    self->tensor = (PyTypeObject *)Py_NewRef(tensor);
    self->node = (PyTypeObject *)Py_NewRef(node);
    self->state = Py_NewRef(state);
    self->after = Py_NewRef(after);
    self->t_data = offs[0];
    self->t_node = offs[1];
    self->t_oidx = offs[2];
    self->t_format = offs[3];
    self->n_op = offs[4];
    self->n_attrs = offs[5];
    self->n_inputs = offs[6];
    self->n_outputs = offs[7];
    self->n_out_meta = offs[8];
    return (PyObject *)self;
}

static PyTypeObject RecorderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "mscustom._core._fastwalk.Recorder",
    .tp_basicsize = sizeof(RecorderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(RecorderObject, vectorcall),
    .tp_call = recorder_call,
    .tp_new = recorder_new,
    .tp_dealloc = (destructor)recorder_dealloc,
    .tp_traverse = (traverseproc)recorder_traverse,
    .tp_clear = (inquiry)recorder_clear,
    .tp_doc = "dispatch's recording of a built-in call on the tape: recorder(op, plan, attrs, args, tensor).",
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_fastwalk", "The compiled backward walk (see backward.py).", -1, NULL,
};

PyMODINIT_FUNC
PyInit__fastwalk(void)
{
    import_array();
    str_attrs = PyUnicode_InternFromString("attrs");
    str_fgradient = PyUnicode_InternFromString("FGradient");
    str_needs = PyUnicode_InternFromString("FGradientNeeds");
    str_depth = PyUnicode_InternFromString("depth");
    str_leaves = PyUnicode_InternFromString("leaves");
    str_capture = PyUnicode_InternFromString("capture");
    str_shape = PyUnicode_InternFromString("shape");
    str_dtype = PyUnicode_InternFromString("dtype");
    str_default_format = PyUnicode_InternFromString("DefaultFormat");
    int_zero = PyLong_FromLong(0);
    if (str_attrs == NULL || str_fgradient == NULL || str_needs == NULL || str_depth == NULL ||
            str_leaves == NULL || str_capture == NULL || str_shape == NULL || str_dtype == NULL ||
            str_default_format == NULL || int_zero == NULL)
        return NULL;
    if (PyType_Ready(&WalkerType) < 0 || PyType_Ready(&RecorderType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moduledef);
    if (m == NULL)
        return NULL;
    Py_INCREF(&WalkerType);
    if (PyModule_AddObject(m, "Walker", (PyObject *)&WalkerType) < 0) {
        Py_DECREF(&WalkerType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&RecorderType);
    if (PyModule_AddObject(m, "Recorder", (PyObject *)&RecorderType) < 0) {
        Py_DECREF(&RecorderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
