/* Kernel guard: watched guard pages around a kernel's buffers on its checked calls, and the name of
 * the running kernel in a crash report.
 *
 * Guard pages. ``watch(address, length)`` makes a page-aligned range inaccessible (PROT_NONE) and
 * registers it. A fault inside a watched range is not fatal: the handler opens the faulting page
 * (read/write; a fresh page reads as zeros), remembers the lowest and highest faulting addresses,
 * and returns, so the kernel's access runs again and succeeds. After the kernel, ``unwatch``
 * returns what the range saw; the Python side (``kernelguard.py``) then scans the opened pages for
 * bytes that are no longer zero, which tells how far the kernel wrote. Nothing outside the
 * kernel's own buffers is touched, whatever it does within the watched reach. The handler writes
 * nothing into the pages, so two threads faulting on one page cannot undo each other's writes.
 *
 * Crash labels. ``set_label(bytes)`` names the kernel this thread is about to run (``None``
 * clears it). A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) outside a watched range
 * prints that name to stderr, then hands the signal to the handler installed before ours
 * (faulthandler's, which prints the Python stack) or to the default action, so the process still
 * ends with the signal. The compiled call path (_fastcall.c) sets labels through the capsule
 * ``_C_API`` without a Python call.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD_BYTE 0xA5
#define MAX_WATCHED 256

typedef struct {
    volatile uintptr_t lo, hi;          /* [lo, hi) watched; lo == 0: free slot */
    volatile uintptr_t first, last;     /* lowest and highest faulting address seen */
    volatile long faults;
} Watched;

static Watched watched[MAX_WATCHED];
static long page_size;

static __thread const char *thread_label;
static const char *volatile last_label;      /* the most recent label set by any thread */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_FATAL ((int)(sizeof(fatal_signals) / sizeof(fatal_signals[0])))
static struct sigaction previous[N_FATAL];
static int installed;
static volatile sig_atomic_t crashing;

static void
set_label_c(const char *label)
{
    thread_label = label;
    if (label != NULL)
        last_label = label;
}

static void
write_str(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) {
            if (w < 0 && errno == EINTR)
                continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static const char *
signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a fatal signal";
    }
}

static int
slot_of(int sig)
{
    for (int i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig)
            return i;
    return -1;
}

/* A fault inside a watched range: open its page and note the address. 1 when handled. */
static int
open_watched_page(uintptr_t addr)
{
    for (int i = 0; i < MAX_WATCHED; i++) {
        Watched *w = &watched[i];
        uintptr_t lo = w->lo, hi = w->hi;
        if (lo == 0 || addr < lo || addr >= hi)
            continue;
        uintptr_t page = addr & ~((uintptr_t)page_size - 1);
        if (mprotect((void *)page, (size_t)page_size, PROT_READ | PROT_WRITE) != 0)
            return 0;
        __atomic_fetch_add(&w->faults, 1, __ATOMIC_SEQ_CST);
        uintptr_t cur = w->first;
        while ((cur == 0 || addr < cur) && !__atomic_compare_exchange_n(&w->first, &cur, addr, 0,
                                                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            ;
        cur = w->last;
        while (addr > cur && !__atomic_compare_exchange_n(&w->last, &cur, addr, 0,
                                                          __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            ;
        return 1;
    }
    return 0;
}

static void
handler(int sig, siginfo_t *info, void *context)
{
    int saved_errno = errno;
    if ((sig == SIGSEGV || sig == SIGBUS) && info != NULL && !crashing &&
            open_watched_page((uintptr_t)info->si_addr)) {
        errno = saved_errno;
        return;
    }
    int k = slot_of(sig);
    if (crashing || k < 0) {
        /* a second fatal signal while reporting the first: end the process the default way */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    crashing = 1;
    const char *label = thread_label;
    write_str("\nmscustom: fatal ");
    write_str(signal_name(sig));
    if (label != NULL) {
        write_str(" while running ");
        write_str(label);
        write_str("\n");
    } else if (last_label != NULL) {
        write_str(" outside a kernel call of this thread; the kernel started last was ");
        write_str(last_label);
        write_str("\n");
    } else {
        write_str(" (no mscustom kernel was running in this thread)\n");
    }
    write_str("mscustom: the kernel's buffers are checked on the first call of each signature; "
              "run with MSCUSTOM_DEBUG=1 to check every call\n");
    struct sigaction *prev = &previous[k];
    if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction != NULL) {
        crashing = 0;            /* the previous handler may raise the signal again: report once more */
        prev->sa_sigaction(sig, info, context);
        crashing = 1;
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN && prev->sa_handler != NULL) {
        crashing = 0;
        prev->sa_handler(sig);
        crashing = 1;
    }
    /* still alive: end with the signal's default action */
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved_errno;
}

static int
is_ours(int sig)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0)
        return 0;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == handler;
}

/* install(): put our handler in front of whatever handles each fatal signal now (idempotent). */
static PyObject *
kg_install(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    for (int i = 0; i < N_FATAL; i++) {
        int sig = fatal_signals[i];
        if (installed && is_ours(sig))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_sigaction = handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        struct sigaction prev;
        if (sigaction(sig, &sa, &prev) != 0)
            return PyErr_SetFromErrno(PyExc_OSError);
        previous[i] = prev;
    }
    installed = 1;
    Py_RETURN_NONE;
}

static PyObject *
kg_installed(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    for (int i = 0; i < N_FATAL; i++)
        if (!is_ours(fatal_signals[i]))
            Py_RETURN_FALSE;
    Py_RETURN_TRUE;
}

/* set_label(bytes or None): the kernel this thread runs next (the bytes must stay alive meanwhile). */
static PyObject *
kg_set_label(PyObject *self, PyObject *label)
{
    if (label == Py_None) {
        thread_label = NULL;
        Py_RETURN_NONE;
    }
    if (!PyBytes_Check(label)) {
        PyErr_SetString(PyExc_TypeError, "set_label takes bytes or None");
        return NULL;
    }
    set_label_c(PyBytes_AS_STRING(label));
    Py_RETURN_NONE;
}

static PyObject *
kg_label(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    if (thread_label == NULL)
        Py_RETURN_NONE;
    return PyBytes_FromString(thread_label);
}

/* (address, length) from a call's arguments; -1 with an error set. */
static int
parse_range(PyObject *args, void **p, Py_ssize_t *length)
{
    PyObject *addr_obj;
    if (!PyArg_ParseTuple(args, "On", &addr_obj, length))
        return -1;
    *p = PyLong_AsVoidPtr(addr_obj);
    if (*p == NULL && PyErr_Occurred())
        return -1;
    return 0;
}

/* reserve(length): an anonymous read/write mapping (no swap reserved), its address. */
static PyObject *
kg_reserve(PyObject *self, PyObject *arg)
{
    Py_ssize_t length = PyLong_AsSsize_t(arg);
    if (length < 0 && PyErr_Occurred())
        return NULL;
    if (length <= 0 || length % page_size) {
        PyErr_SetString(PyExc_ValueError, "reserve: the length must be a positive multiple of the page size");
        return NULL;
    }
    void *p = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return PyErr_SetFromErrno(PyExc_MemoryError);
    return PyLong_FromVoidPtr(p);
}

static PyObject *
kg_release(PyObject *self, PyObject *args)
{
    void *p;
    Py_ssize_t length;
    if (parse_range(args, &p, &length) < 0)
        return NULL;
    uintptr_t lo = (uintptr_t)p, hi = lo + (uintptr_t)length;
    for (int i = 0; i < MAX_WATCHED; i++)       /* a range still watched inside it: forget it first */
        if (watched[i].lo != 0 && watched[i].lo >= lo && watched[i].hi <= hi)
            watched[i].lo = 0;
    if (munmap(p, (size_t)length) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

/* watch(address, length): make [address, address + length) inaccessible and watched; the slot. */
static PyObject *
kg_watch(PyObject *self, PyObject *args)
{
    void *p;
    Py_ssize_t length;
    if (parse_range(args, &p, &length) < 0)
        return NULL;
    if ((uintptr_t)p % (uintptr_t)page_size || length <= 0 || length % page_size) {
        PyErr_SetString(PyExc_ValueError, "watch: the range must be whole pages");
        return NULL;
    }
    for (int i = 0; i < MAX_WATCHED; i++) {
        uintptr_t expected = 0;
        if (watched[i].lo != 0)
            continue;
        watched[i].first = 0;
        watched[i].last = 0;
        watched[i].faults = 0;
        watched[i].hi = (uintptr_t)p + (uintptr_t)length;   /* hi before lo: no half-made range is seen */
        if (!__atomic_compare_exchange_n(&watched[i].lo, &expected, (uintptr_t)p, 0, __ATOMIC_SEQ_CST,
                                         __ATOMIC_SEQ_CST))
            continue;
        if (mprotect(p, (size_t)length, PROT_NONE) != 0) {
            watched[i].lo = 0;
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        return PyLong_FromLong(i);
    }
    PyErr_SetString(PyExc_RuntimeError, "mscustom: too many guarded buffers at once");
    return NULL;
}

/* unwatch(slot): stop watching; (faults, first address, last address); the pages stay as they are. */
static PyObject *
kg_unwatch(PyObject *self, PyObject *arg)
{
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred())
        return NULL;
    if (i < 0 || i >= MAX_WATCHED || watched[i].lo == 0) {
        PyErr_SetString(PyExc_ValueError, "unwatch: not a watched slot");
        return NULL;
    }
    Watched *w = &watched[i];
    PyObject *res = Py_BuildValue("lNN", (long)w->faults, PyLong_FromVoidPtr((void *)w->first),
                                  PyLong_FromVoidPtr((void *)w->last));
    w->lo = 0;
    return res;
}

/* protect(address, length, writable): set a page range's access (the guard pages' state for a scan). */
static PyObject *
kg_open(PyObject *self, PyObject *args)
{
    void *p;
    Py_ssize_t length;
    if (parse_range(args, &p, &length) < 0)
        return NULL;
    if (mprotect(p, (size_t)length, PROT_READ | PROT_WRITE) != 0)
        return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"install", kg_install, METH_NOARGS, "install(): our handler in front of the fatal signals' handlers."},
    {"installed", kg_installed, METH_NOARGS, "installed(): True while our handler is in front of all of them."},
    {"set_label", kg_set_label, METH_O, "set_label(bytes or None): the kernel this thread runs next."},
    {"label", kg_label, METH_NOARGS, "label(): this thread's label, or None."},
    {"reserve", kg_reserve, METH_O, "reserve(length): an anonymous mapping's address."},
    {"release", kg_release, METH_VARARGS, "release(address, length): unmap."},
    {"watch", kg_watch, METH_VARARGS, "watch(address, length): guard whole pages; the slot."},
    {"unwatch", kg_unwatch, METH_O, "unwatch(slot): (faults, first, last)."},
    {"open", kg_open, METH_VARARGS, "open(address, length): make pages readable and writable."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mscustom._core._kernelguard",
    .m_doc = "Guard pages around a kernel's buffers, and crash reports naming the kernel (kernelguard.py).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC
PyInit__kernelguard(void)
{
    page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0)
        page_size = 4096;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    PyObject *api = PyCapsule_New((void *)set_label_c, "mscustom._core._kernelguard._C_API", NULL);
    if (api == NULL || PyModule_AddObject(m, "_C_API", api) < 0 ||
            PyModule_AddIntConstant(m, "PAGE_SIZE", page_size) < 0 ||
            PyModule_AddIntConstant(m, "GUARD_BYTE", GUARD_BYTE) < 0) {
        Py_XDECREF(api);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
