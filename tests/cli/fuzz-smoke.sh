#!/bin/sh
# fuzz-smoke: every libFuzzer harness of tests/fuzz for a few seconds
# (FUZZ_SECONDS, default 5) where clang can build fuzzers; skip elsewhere.
. "$(dirname "$0")/../lib.sh"

cat >"$T/probe.c" <<'END'
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
END
if ! "${CC_FUZZ:-clang}" -fsanitize=fuzzer,address,undefined -o "$T/probe" "$T/probe.c" >"$T/probe.log" 2>&1; then
	skip fuzz-smoke "no clang with -fsanitize=fuzzer ($(head -c 120 "$T/probe.log"))"
	finish
fi
CUDA=/nonexistent FUZZ_SECONDS=${FUZZ_SECONDS:-5} FUZZ_OUT=${FUZZ_OUT:-$T/fuzz} sh "$CKO_TOP/tests/fuzz/run.sh" || _failed=1
finish
