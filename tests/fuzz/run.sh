#!/bin/sh
# tests/fuzz/run.sh: builds the libFuzzer harnesses tests/fuzz/fuzz-NAME.c
# with clang (-fsanitize=fuzzer,address,undefined) straight from the host
# sources of harness/ (core/ and llm/), and runs each for FUZZ_SECONDS seconds from its seed
# corpus tests/fuzz/corpus/NAME/ (and dictionary NAME.dict, if any).
# Prints "ok fuzz-NAME: ..." or "FAIL fuzz-NAME: ..." per harness (the
# lines tests/run counts) and exits 1 if any harness crashed, leaked, hung
# or tripped a sanitizer; the input that did it is kept in $FUZZ_OUT/NAME/.
#
# Usage: tests/fuzz/run.sh [NAME...]        (default: every harness)
# Environment:
#   FUZZ_SECONDS  run time per harness (default 20)
#   FUZZ_OUT      build and work folder (default ${TMPDIR:-/tmp}/cko-fuzz-N,
#                 N a checksum of this tree's path: two work trees on one
#                 machine never link each other's objects, which are
#                 rebuilt by date alone);
#                 new corpus entries go to $FUZZ_OUT/NAME/corpus, never
#                 into the seed corpus
#   FUZZ_FLAGS    more libFuzzer options (e.g. -jobs=2 -workers=2)
#   CC_FUZZ       the compiler (default clang); the CUDA toolkit is not
#                 needed (the harnesses reach only the host core)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
: "${FUZZ_SECONDS:=20}" "${FUZZ_FLAGS:=}"
: "${FUZZ_OUT:=${TMPDIR:-/tmp}/cko-fuzz-$(printf %s "$top" | cksum | cut -d' ' -f1)}"
: "${CC_FUZZ:=clang}"
# The host core that the harnesses reach (harness/core: no GPU, no NVRTC),
# and the model answer's extraction and checks (harness/llm: no libcurl).
SRC="core/err core/mem core/fs core/json core/dtype core/npy core/expr core/hash core/rng core/stats
	core/compare core/params core/workload core/request llm/llm_answer llm/llm_check"
CFLAGS="-std=c11 -D_GNU_SOURCE -DFUZZING -g -O1 -fno-omit-frame-pointer -I$top/harness/core -I$top/harness/llm
	-fsanitize=address,undefined -fno-sanitize-recover=all"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

mkdir -p "$FUZZ_OUT/obj" || exit 3
if [ $# -eq 0 ]; then
	set --
	for f in "$here"/fuzz-*.c; do
		n=${f##*/fuzz-}
		set -- "$@" "${n%.c}"
	done
fi

# Objects, instrumented for coverage; rebuilt when older than their source,
# cko.h or llm.h.
objs=
for s in $SRC; do
	o=$FUZZ_OUT/obj/${s##*/}.o
	objs="$objs $o"
	if [ ! "$o" -nt "$top/harness/$s.c" ] || [ ! "$o" -nt "$top/harness/core/cko.h" ] ||
		[ ! "$o" -nt "$top/harness/llm/llm.h" ]; then
		# shellcheck disable=SC2086
		$CC_FUZZ $CFLAGS -fsanitize=fuzzer-no-link -c -o "$o" "$top/harness/$s.c" || {
			echo "FAIL fuzz-build: $s.c does not compile with $CC_FUZZ"
			exit 1
		}
	fi
done

status=0
for name in "$@"; do
	src=$here/fuzz-$name.c
	w=$FUZZ_OUT/$name
	mkdir -p "$w/corpus"
	if [ ! -f "$src" ]; then
		echo "FAIL fuzz-$name: no $src"
		status=1
		continue
	fi
	# shellcheck disable=SC2086
	if ! $CC_FUZZ $CFLAGS -fsanitize=fuzzer -o "$w/fuzz-$name" "$src" $objs -lcjson -lm 2>"$w/build.log"; then
		echo "FAIL fuzz-$name: build failed: $(head -c 400 "$w/build.log")"
		status=1
		continue
	fi
	opts="-max_total_time=$FUZZ_SECONDS -timeout=10 -rss_limit_mb=2048 -print_final_stats=1"
	[ -f "$here/$name.dict" ] && opts="$opts -dict=$here/$name.dict"
	# Harnesses that recover from cko_die with cko_try leak what the
	# failed call had allocated (see cko.h): no leak checks there.
	# ASan's own check at exit is turned off with them.
	leaks=1
	grep -q 'cko_try' "$src" && leaks=0 opts="$opts -detect_leaks=0"
	seeds=$here/corpus/$name
	[ -d "$seeds" ] || seeds=
	# shellcheck disable=SC2086
	ASAN_OPTIONS="detect_leaks=$leaks:abort_on_error=0:allocator_may_return_null=1" \
		"$w/fuzz-$name" $opts $FUZZ_FLAGS -artifact_prefix="$w/" "$w/corpus" $seeds >"$w/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$w/log" | tail -n 1)
	secs=$(sed -n 's/^stat::.*//; s/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$w/log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok fuzz-$name: ${runs:-?} runs in ${secs:-$FUZZ_SECONDS} s, corpus $(ls "$w/corpus" | wc -l) inputs"
	else
		art=$(ls "$w"/crash-* "$w"/leak-* "$w"/timeout-* "$w"/oom-* 2>/dev/null | head -n 1)
		why=$(grep -m 1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$w/log")
		echo "FAIL fuzz-$name: exit $rc after ${runs:-?} runs: ${why:-see $w/log}; input kept in ${art:-$w}"
		status=1
	fi
done
exit $status
