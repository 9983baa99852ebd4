# cko: build the tools, test, install. `make SAN=1` builds with ASan and
# UBSan into build/san/; `make test` runs what this machine can run.
CUDA     ?= /usr/local/cuda
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc

OPT      ?= -O2 -g
WARN     = -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS   ?= $(OPT)
CFLAGS   += -std=c11 $(WARN) -D_GNU_SOURCE -Iharness -I$(CUDA)/include -MMD -MP
LDFLAGS  += -L$(CUDA)/lib64 -Wl,-rpath,$(CUDA)/lib64
LDLIBS   += -Wl,--as-needed -lcjson -lcurl -lnvrtc -ldl -lm -pthread

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

HARNESS_SRC = $(wildcard harness/*.c)
HARNESS_OBJ = $(HARNESS_SRC:harness/%.c=$(B)/harness/%.o)
TOOL_SRC    = $(wildcard tools/cko-*.c)
TOOLS       = $(TOOL_SRC:tools/%.c=$(BINDIR)/%)
SCRIPTS     = $(wildcard tools/cko-*.sh)
UNIT_SRC    = $(wildcard tests/unit/test-*.c)
UNITS       = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
LIB         = $(B)/libcko.a

all: $(TOOLS) $(SCRIPTS:tools/%.sh=$(BINDIR)/%)

$(B)/harness/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

# The device-side comparison (harness/gpu_compare.cu): built by nvcc (SASS
# for sm_90, PTX for the driver to compile for others) and embedded as bytes.
# -fmad=false: the same rounding as the host's comparison.
$(B)/gen/gpu_compare_fatbin.h: harness/gpu_compare.cu harness/compare_elem.h
	@mkdir -p $(@D)
	$(NVCC) -fatbin -O3 -fmad=false -Iharness -gencode arch=compute_75,code=compute_75 \
		-gencode arch=compute_90,code=sm_90 -o $(@D)/gpu_compare.fatbin $<
	{ echo '_Alignas(8) static const unsigned char cko_compare_fatbin[] = {'; \
	  od -An -v -tx1 $(@D)/gpu_compare.fatbin | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '};'; } >$@.tmp
	mv $@.tmp $@
$(B)/harness/gpu_compare.o: $(B)/gen/gpu_compare_fatbin.h
$(B)/harness/gpu_compare.o: CFLAGS += -I$(B)/gen

$(B)/tools/%.o: tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(B)/tests/%.o: tests/unit/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -c -o $@ $<

$(LIB): $(HARNESS_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BINDIR)/%: $(B)/tools/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

$(B)/tests/%: $(B)/tests/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

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

.PHONY: all units test test-server test-san demo install clean
.SECONDARY:
-include $(wildcard $(B)/*/*.d)
