# mscustom -- build, test and demo entry points (GNU make).
#
#   make kernels   build the example AOT kernels into aot_kernels/build/
#   make fastcall  build ops.Custom's compiled call path (mscustom/_core/_fastcall*.so) and the
#                  compiled backward walk (mscustom/_core/_fastwalk*.so)
#   make venv      create .venv and install mscustom in editable mode (extras test, dist: mpi4py +
#                  the MPICH wheel, so .venv/bin/mpiexec exists; gpu where it installs)
#   make test      run the test suite (PYTEST_ARGS="-k foo" to filter)
#   make demo      install the demo extra (scikit-learn, matplotlib), then run examples/demo.py
#                  (options through ARGS, e.g. ARGS="--kind builtin --epochs 3")
#   make bench     run bench/run.py
#   make reliability  run the ops.Custom fuzz and the stress runs (bench/reliability.py)
#   make clean     remove aot_kernels/build

PYTHON ?= python3
VENV := .venv
VENV_PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEMO_STAMP := $(VENV)/.demo-installed
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

$(STAMP): pyproject.toml
	@test -x $(VENV_PY) || $(PYTHON) -m venv $(VENV)
	@if $(VENV_PY) -m pip install $(PIP_FLAGS) -e '.[test,dist,gpu]'; then :; else \
	  echo "note: installing the 'gpu' extra failed; installing '.[test,dist]' without it"; \
	  $(VENV_PY) -m pip install $(PIP_FLAGS) -e '.[test,dist]'; \
	fi
	@touch $@

venv: $(STAMP)

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

fastcall: $(FASTCALL_SO) $(FASTWALK_SO)

# --- Entry points ----------------------------------------------------------

test: $(STAMP) kernels fastcall
	MSCUSTOM_REQUIRE_FASTCALL=1 $(VENV_PY) -m pytest $(PYTEST_ARGS)

# The demo's own needs (the 'demo' extra) are installed once, on top of the test environment.
$(DEMO_STAMP): $(STAMP) pyproject.toml
	$(VENV_PY) -m pip install $(PIP_FLAGS) -e '.[demo]'
	@touch $@

demo: $(DEMO_STAMP) kernels fastcall
	$(VENV_PY) examples/demo.py $(ARGS)

bench: $(STAMP) kernels fastcall
	$(VENV_PY) bench/run.py

reliability: $(STAMP) kernels fastcall
	$(VENV_PY) bench/reliability.py

clean:
	rm -rf $(KBUILD) $(FASTCALL_SO) $(FASTWALK_SO)
