# cko: build the tools, test, install. `make SAN=1` builds with ASan and
# UBSan into build/san/; `make test` runs what this machine can run;
# `make CUDA=/nonexistent host units` builds what needs no CUDA toolkit.
CUDA     ?= /usr/local/cuda
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc

OPT      ?= -O2 -g
WARN     = -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS   ?= $(OPT)
CFLAGS   += -std=c11 $(WARN) -D_GNU_SOURCE -Iharness/core -MMD -MP
LDLIBS   += -Wl,--as-needed -lcjson -ldl -lm -pthread

ifeq ($(SAN),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
B        ?= build/san
BINDIR   ?= build/san/bin
else
B        ?= build/rel
BINDIR   ?= bin
endif

NVCC     ?= $(CUDA)/bin/nvcc

# harness/: the host core (core/, cko.h), the GPU layer (gpu/, cko_gpu.h)
# and one folder per single-tool subsystem, each its own library. A tool
# links the core and what it names below; only the GPU tools see the CUDA
# toolkit (its headers, libnvrtc), so the rest build without it.
SUBSYS      = http llm tune ncu search gen export
hobjs       = $(patsubst harness/%.c,$(B)/harness/%.o,$(wildcard harness/$(1)/*.c))
lib         = $(B)/libcko-$(1).a
CORE        = $(call lib,core)
GPU         = $(call lib,gpu)
TOOL_SRC    = $(wildcard tools/cko-*.c)
TOOLS       = $(TOOL_SRC:tools/%.c=$(BINDIR)/%)
GPU_TOOLS   = $(patsubst %,$(BINDIR)/%,cko-baseline cko-bench cko-compile cko-props cko-run)
HOST_TOOLS  = $(filter-out $(GPU_TOOLS),$(TOOLS))
SCRIPTS     = $(wildcard tools/cko-*.sh)
UNIT_SRC    = $(wildcard tests/unit/test-*.c)
UNITS       = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
GPU_CFLAGS  = -Iharness/gpu -I$(CUDA)/include
GPU_LDFLAGS = -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64
SUB_CFLAGS  = $(SUBSYS:%=-Iharness/%)

all: $(TOOLS) $(SCRIPTS:tools/%.sh=$(BINDIR)/%)

# The tools that build without the CUDA toolkit (make CUDA=/nonexistent host).
host: $(HOST_TOOLS) $(SCRIPTS:tools/%.sh=$(BINDIR)/%)

$(B)/harness/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/harness/gpu/%.o: CFLAGS += $(GPU_CFLAGS)
# The model client and the documentation fetcher are clients of harness/http.
$(B)/harness/llm/%.o $(B)/harness/search/%.o: CFLAGS += -Iharness/http

# The device-side comparison (harness/gpu/gpu_compare.cu): built by nvcc (SASS
# for sm_90, PTX for the driver to compile for others) and embedded as bytes.
# -fmad=false: the same rounding as the host's comparison.
$(B)/gen/gpu_compare_fatbin.h: harness/gpu/gpu_compare.cu harness/core/compare_elem.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -O3 -fmad=false -Iharness/core -gencode arch=compute_75,code=compute_75 \
		-gencode arch=compute_90,code=sm_90 -o $(@D)/gpu_compare.fatbin $<
	{ echo '_Alignas(8) static const unsigned char cko_compare_fatbin[] = {'; \
	  od -An -v -tx1 $(@D)/gpu_compare.fatbin | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '};'; } >$@.tmp
	mv $@.tmp $@
$(B)/harness/gpu/gpu_compare.o: $(B)/gen/gpu_compare_fatbin.h
$(B)/harness/gpu/gpu_compare.o: CFLAGS += -I$(B)/gen

$(B)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUB_CFLAGS) -c -o $@ $<
$(GPU_TOOLS:$(BINDIR)/%=$(B)/tools/%.o): CFLAGS += $(GPU_CFLAGS)

$(B)/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SUB_CFLAGS) -Itests/unit -c -o $@ $<

$(B)/libcko-%.a:
	@rm -f $@
	ar rcs $@ $^
$(CORE): $(call hobjs,core)
$(GPU): $(call hobjs,gpu)
$(call lib,http): $(call hobjs,http)
$(call lib,llm): $(call hobjs,llm)
$(call lib,tune): $(call hobjs,tune)
$(call lib,ncu): $(call hobjs,ncu)
$(call lib,search): $(call hobjs,search)
$(call lib,gen): $(call hobjs,gen)
$(call lib,export): $(call hobjs,export)

# Libraries in a group: their order does not matter.
LINK = $(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) -Wl,--start-group $(filter %.a,$^) -Wl,--end-group $(LDLIBS)

$(BINDIR)/%: $(B)/tools/%.o $(CORE)
	@mkdir -p $(@D)
	$(LINK)

# What each tool links beyond the core.
$(GPU_TOOLS): $(GPU)
$(GPU_TOOLS): LDFLAGS += $(GPU_LDFLAGS)
$(GPU_TOOLS): LDLIBS += -lnvrtc
$(BINDIR)/cko-llm $(BINDIR)/cko-init: $(call lib,llm)
$(BINDIR)/cko-llm $(BINDIR)/cko-init $(BINDIR)/cko-docs: $(call lib,http)
$(BINDIR)/cko-llm $(BINDIR)/cko-init $(BINDIR)/cko-docs: LDLIBS += -lcurl
$(BINDIR)/cko-tune $(BINDIR)/cko-rank: $(call lib,tune)
$(BINDIR)/cko-profile: $(call lib,ncu)
$(BINDIR)/cko-docs: $(call lib,search)
$(BINDIR)/cko-gen: $(call lib,gen)
$(BINDIR)/cko-export: $(call lib,export)
# cuBLAS and CUB only for the vendor baseline. CUB is C++ headers: its row
# sums (tools/baseline_cub.cu, a C interface) are built by nvcc, SASS for
# sm_90 and PTX for the driver to compile for others, and linked here only.
$(B)/tools/baseline_cub.o: tools/baseline_cub.cu tools/baseline_cub.h
	@mkdir -p $(@D)
	$(NVCC) -c -O3 -std=c++17 -Itools -gencode arch=compute_75,code=compute_75 \
		-gencode arch=compute_90,code=sm_90 -o $@ $<
$(B)/tools/cko-baseline.o: CFLAGS += -Itools
$(BINDIR)/cko-baseline: $(B)/tools/baseline_cub.o
$(BINDIR)/cko-baseline: LDLIBS += -lcublas -lcudart -lstdc++

$(BINDIR)/%: tools/%.sh
	@mkdir -p $(@D)
	cp $< $@ && chmod +x $@

# Unit tests link every host library; none touches the GPU.
$(B)/tests/%: $(B)/tests/%.o $(CORE) $(foreach s,$(SUBSYS),$(call lib,$(s)))
	$(LINK)
$(B)/tests/%: LDLIBS += -lcurl

units: $(UNITS)

# The test runner prints one line per test and ends with "N passed, N failed, N skipped".
test: all units
	@CKO_BIN=$(abspath $(BINDIR)) CKO_UNITS=$(abspath $(B))/tests SAN=$(SAN) sh tests/run $(TESTS)

# cko-llm against a real server (tests/server/): installs llama-cpp-python's
# server and a small model once per machine (~10 min the first time).
test-server: all
	@CKO_BIN=$(abspath $(BINDIR)) CKO_UNITS=/nonexistent CKO_SERVER_TESTS=1 sh tests/run server/

# The whole suite under ASan/UBSan (a separate build in build/san).
test-san:
	$(MAKE) SAN=1 test

demo: all
	CKO_BIN=$(abspath $(BINDIR)) sh tools/demo.sh

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/cko $(DESTDIR)$(PREFIX)/share/man/man1
	cp $(TOOLS) $(SCRIPTS:tools/%.sh=$(BINDIR)/%) $(DESTDIR)$(PREFIX)/bin/
	cp -R mk prompts workloads docs $(DESTDIR)$(PREFIX)/share/cko/
	cp man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build bin

.PHONY: all host units test test-server test-san demo install clean
.SECONDARY:
-include $(wildcard $(B)/*/*.d $(B)/harness/*/*.d)
