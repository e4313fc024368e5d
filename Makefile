# mscustom -- build, test and demo entry points (GNU make).
#
#   make kernels   build the example AOT kernels into aot_kernels/build/
#   make fastcall  build ops.Custom's compiled call path (mscustom/_core/_fastcall*.so), the
#                  compiled backward walk (mscustom/_core/_fastwalk*.so) and the kernel guard
#                  (mscustom/_core/_kernelguard*.so)
#   make venv      create .venv with mscustom in editable mode and what the tests need (extras test,
#                  dist: mpi4py + the MPICH wheel, so .venv/bin/mpiexec exists; gpu where it installs)
#   make test      the same environment, then run the test suite (PYTEST_ARGS="-k foo" to filter)
#   make demo      mscustom's runtime dependencies and the demo extra (scikit-learn, matplotlib)
#                  only, then run examples/demo.py (options through ARGS, e.g. ARGS="--kind builtin")
#   Each pip step prints one line; pip's own output goes to .venv/pip.log (printed if it fails).
#   make bench     run bench/run.py
#   make reliability  run the ops.Custom fuzz and the stress runs (bench/reliability.py)
#   make clean     remove aot_kernels/build

PYTHON ?= python3
VENV := .venv
VENV_PY := $(VENV)/bin/python
# STAMP: mscustom (editable) and its runtime dependencies, what the compiled call path builds against;
# TEST_STAMP / DEMO_STAMP: the extras of make test (and venv, bench, reliability) / of make demo on top.
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.test-installed
DEMO_STAMP := $(VENV)/.demo-installed
PIP_LOG := $(VENV)/pip.log
PYTEST_ARGS ?=
ARGS ?=
# Extra pip options, e.g. PIP_FLAGS=--no-build-isolation when offline.
PIP_FLAGS ?=

CC ?= cc
CXX ?= c++
NVCC ?= nvcc
# make predefines CC=cc / CXX=g++; prefer gcc when "cc" is the default.
ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin CXX),default)
CXX := g++
endif

OPT ?= -O3
WARN := -Wall -Wextra
CFLAGS_K := $(OPT) -fopenmp -fPIC -std=c99 $(WARN)
CXXFLAGS_K := $(OPT) -fopenmp -fPIC -std=c++17 $(WARN)
LDFLAGS_K := -fopenmp -shared -Wl,--no-undefined
LDLIBS_K := -lm
NVCC_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90
NVCCFLAGS_K := -O3 -std=c++17 -Xcompiler -fPIC $(NVCC_ARCHS)

KSRC := aot_kernels
KBUILD := $(KSRC)/build
KOBJ := $(KBUILD)/obj
# The ABI headers ship inside the package; aot_kernels/mscustom_aot.h is a thin include of them.
KINC := mscustom/include
KHDR := $(KINC)/mscustom_aot.h $(KINC)/custom_aot_extra.h
KLIB := $(KBUILD)/libkernels.so
KCUDALIB := $(KBUILD)/libkernels_cuda.so

C_SRCS := $(wildcard $(KSRC)/*.c)
CXX_SRCS := $(wildcard $(KSRC)/*.cc)
CU_SRCS := $(wildcard $(KSRC)/cuda/*.cu)
# foo.c -> obj/foo.c.o so that foo.c and foo.cc never collide.
C_OBJS := $(C_SRCS:$(KSRC)/%=$(KOBJ)/%.o)
CXX_OBJS := $(CXX_SRCS:$(KSRC)/%=$(KOBJ)/%.o)
CU_OBJS := $(CU_SRCS:$(KSRC)/%=$(KOBJ)/%.o)

HAVE_NVCC := $(shell command -v $(NVCC) 2>/dev/null)

.PHONY: all kernels fastcall venv test demo bench reliability clean
.DEFAULT_GOAL := kernels
all: kernels

ifeq ($(HAVE_NVCC),)
kernels: $(KLIB)
	@echo "note: nvcc not found; skipping the CUDA library $(KCUDALIB)"
else
kernels: $(KLIB) $(KCUDALIB)
endif

# Objects also depend on the public header explicitly (the generated .d
# files add any other included header after the first build).
$(KOBJ)/%.c.o: $(KSRC)/%.c $(KHDR)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_K) -I$(KINC) -I$(KSRC) -MMD -MP -c $< -o $@

$(KOBJ)/%.cc.o: $(KSRC)/%.cc $(KHDR)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS_K) -I$(KINC) -I$(KSRC) -MMD -MP -c $< -o $@

$(KOBJ)/%.cu.o: $(KSRC)/%.cu $(KHDR)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS_K) -I$(KINC) -I$(KSRC) -MMD -MP -c $< -o $@

# Linked with the C++ driver so C++ objects get libstdc++.
$(KLIB): $(C_OBJS) $(CXX_OBJS)
	$(CXX) $(LDFLAGS_K) -o $@ $^ $(LDLIBS_K)

$(KCUDALIB): $(CU_OBJS)
	$(NVCC) -shared $(NVCC_ARCHS) -o $@ $^

-include $(C_OBJS:.o=.d) $(CXX_OBJS:.o=.d) $(CU_OBJS:.o=.d)

# --- Python environment ----------------------------------------------------

# $(call pip,WHAT,ARGS[,ON_FAILURE]): one line saying what is installed, pip quiet into $(PIP_LOG);
# when pip fails, ON_FAILURE runs (default: show the log and stop).
pip = echo "installing $(1) into $(VENV) (pip's log: $(PIP_LOG))"; \
  $(VENV_PY) -m pip install -q $(PIP_FLAGS) $(2) >$(PIP_LOG) 2>&1 || $(or $(3),{ cat $(PIP_LOG); exit 1; })
# $(call extra,NAME): the requirements of the installed package's extra NAME (read from its metadata,
# so pyproject.toml stays the only list and the editable package is not built again).
extra = $$($(VENV_PY) -I -c 'import importlib.metadata as m, re; print(*(r.split(";")[0].replace(" ", "") \
  for r in m.requires("mscustom") or () if re.search(r"extra *== *.$(1).", r)))')

$(STAMP): pyproject.toml
	@test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	@$(call pip,mscustom (editable) and its runtime dependencies,-e .)
	@touch $@

$(TEST_STAMP): $(STAMP)
	@$(call pip,the test and dist extras ($(call extra,test) $(call extra,dist)),$(call extra,test) $(call extra,dist))
	@$(call pip,the gpu extra ($(call extra,gpu)),$(call extra,gpu),echo "note: installing the 'gpu' extra \
	  failed (see $(PIP_LOG)); the GPU tests will be skipped")
	@touch $@

venv: $(TEST_STAMP)

# --- ops.Custom's compiled call path ---------------------------------------
# A CPython extension (NumPy's C API); without it mscustom runs the same calls in Python.
# The venv is made from $(PYTHON), so its extension suffix is $(PYTHON)'s.
EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))" 2>/dev/null)
FASTCALL_SRC := mscustom/_core/_fastcall.c
FASTCALL_SO := mscustom/_core/_fastcall$(EXT_SUFFIX)
CFLAGS_EXT := -O2 -fPIC -shared -std=c99 -fno-strict-aliasing $(WARN) -Wno-unused-parameter \
              -Wno-missing-field-initializers -Wno-cast-function-type

$(FASTCALL_SO): $(FASTCALL_SRC) $(STAMP)
	$(CC) $(CFLAGS_EXT) -I"$$($(VENV_PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
	  -I"$$($(VENV_PY) -c 'import numpy; print(numpy.get_include())')" -o $@ $(FASTCALL_SRC)

# The compiled backward walk (mscustom/_core/_fastwalk.c); without it backward.py walks in Python.
FASTWALK_SRC := mscustom/_core/_fastwalk.c
FASTWALK_SO := mscustom/_core/_fastwalk$(EXT_SUFFIX)

$(FASTWALK_SO): $(FASTWALK_SRC) $(STAMP)
	$(CC) $(CFLAGS_EXT) -I"$$($(VENV_PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
	  -I"$$($(VENV_PY) -c 'import numpy; print(numpy.get_include())')" -o $@ $(FASTWALK_SRC)

# Guard pages for kernels' checked calls and crash reports naming the kernel (mscustom/_core/_kernelguard.c);
# without it the checked calls use guard zones in plain memory and crashes name no kernel.
KGUARD_SRC := mscustom/_core/_kernelguard.c
KGUARD_SO := mscustom/_core/_kernelguard$(EXT_SUFFIX)

$(KGUARD_SO): $(KGUARD_SRC) $(STAMP)
	$(CC) $(CFLAGS_EXT) -I"$$($(VENV_PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')" \
	  -o $@ $(KGUARD_SRC)

fastcall: $(FASTCALL_SO) $(FASTWALK_SO) $(KGUARD_SO)

# --- Entry points ----------------------------------------------------------

# The built-in loops are compiled into Numba's disk cache beside the tests (mscustom/warmup.py), on the
# core the tests leave idle: on a fresh checkout the suite's first uses then load them.
test: $(TEST_STAMP) kernels fastcall
	@$(VENV_PY) -m mscustom.warmup --quiet > $(VENV)/warmup.log 2>&1 & warm=$$!; \
	MSCUSTOM_REQUIRE_FASTCALL=1 $(VENV_PY) -m pytest $(PYTEST_ARGS); status=$$?; \
	wait $$warm || echo "note: mscustom.warmup failed (see $(VENV)/warmup.log); the tests compiled what they used"; \
	exit $$status

# The demo needs the runtime dependencies and the 'demo' extra only (not the test environment).
$(DEMO_STAMP): $(STAMP)
	@$(call pip,the demo extra ($(call extra,demo)),$(call extra,demo))
	@touch $@

demo: $(DEMO_STAMP) kernels fastcall
	$(VENV_PY) examples/demo.py $(ARGS)

bench: $(TEST_STAMP) kernels fastcall
	$(VENV_PY) bench/run.py

reliability: $(TEST_STAMP) kernels fastcall
	$(VENV_PY) bench/reliability.py

clean:
	rm -rf $(KBUILD) $(FASTCALL_SO) $(FASTWALK_SO) $(KGUARD_SO)
