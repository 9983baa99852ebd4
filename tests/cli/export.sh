# cko-export on a run made with the fake GPU tools: make -f
# run.mk export writes the files; the generated launch arithmetic, compiled
# with cc, gives every case exactly the launch of its replay request and
# refuses scalars outside what the run verified; overrides and more than
# 48 KiB of shared memory in a hand-made rule; NAME.cu compiles with nvcc
# for sm_90 (and links with the example), NAME_driver.c with cc; bad runs.
# The rules against cko's evaluator on every built-in workload and on
# fuzzed rules: tests/unit/test-export.c.
. "$(dirname "$0")/../lib.sh"
D=$DATA/run
for t in cko-init cko-rank cko-export; do
	command -v $t >/dev/null || { skip export "$t is not built"; finish; }
done
cd "$T" || exit 1
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks
CC=${CC:-cc}
CUDA=${CUDA:-/usr/local/cuda}
run=$(cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
	--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
	--space "$D/space.json" --candidates 1 --max-iterations 1 --seed 7 --hidden-seed 11 --results "$T/r" 2>"$T/init.err") ||
	{ fail export/init "$(cat "$T/init.err")"; finish; }
make -C "$run" -f run.mk CKO_BIN="$T/bin" ITER=1 >"$T/make.out" 2>&1 || { fail export/run "$(tail -5 "$T/make.out")"; finish; }

expect_status export/make-target 0 make -C "$run" -f run.mk CKO_BIN="$T/bin" ITER=1 export
e=$run/export
for f in copy.cu copy.h copy_config.h copy_driver.c copy.cubin README.md example.cu; do
	[ -s "$e/$f" ] || fail export/files "no $f in $(ls "$e")"
done
ok export/files
cmp -s "$e/copy.cubin" "$run/$(jq -r .best "$run/summary.json")/kernel.cubin" && ok export/cubin ||
	fail export/cubin "not the best candidate's"
expect_grep export/defines-fixed '^#define BLOCK [0-9]+$' "$e/copy.cu"
expect_grep export/header-shapes 'float \*y /\* out f32, shape \[n\] \*/' "$e/copy.h"
expect_grep export/readme-verified 'odd \(correctness\): n=37' "$e/README.md"
expect_grep export/readme-hidden 'n in \[1, 200\]' "$e/README.md"
expect_grep export/readme-speedup 'x the reference' "$e/README.md"
expect_grep export/readme-gpu 'Fake GPU' "$e/README.md"
expect_grep export/readme-build 'nvcc -arch=sm_[0-9]+ -O3 -c copy.cu' "$e/README.md"
expect_grep export/config-comment 'n in \[1, 200\]' "$e/copy_config.h"

# probe.c prints copy_config's answer for each n on its command line.
probe() { # dir name
	cat >"$T/probe.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
#include "$1/$2_config.h"
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int64_t s[] = {strtoll(argv[i], 0, 10)};
		$2_dims d;
		int r = $2_config(s, &d);
		if (r)
			printf("%d\n", r);
		else
			printf("0 [%lld,%lld,%lld] [%lld,%lld,%lld] %lld\n", (long long)d.grid[0], (long long)d.grid[1],
			       (long long)d.grid[2], (long long)d.block[0], (long long)d.block[1], (long long)d.block[2],
			       (long long)d.smem);
	}
	return 0;
}
EOF
	$CC -std=c99 -Wall -Wextra -Werror -o "$T/probe" "$T/probe.c"
}
if probe "$e" copy 2>"$T/cc.err"; then
	ok export/config-compiles
	same=1
	for r in "$run"/replay/*.json; do
		c=$(jq -r .case "$r")
		n=$(jq -r .scalars.n "$run/cases/$c/case.json")
		got=$("$T/probe" "$n")
		want=$(jq -r '"0 \(.grid | tostring) \(.block | tostring) \(.smem // 0)"' "$r")
		[ "$got" = "$want" ] || { same=0; fail export/replay-launch "case $c (n=$n): generated '$got', replay '$want'"; }
	done
	[ $same = 1 ] && ok export/replay-launch
	expect_eq export/unverified "$("$T/probe" 0 201 -5 4095 | tr '\n' ' ')" "3 3 3 3 "
	expect_eq export/verified-range "$("$T/probe" 1 200 | cut -c1 | tr '\n' ' ')" "0 0 "
else
	fail export/config-compiles "$(head -c 600 "$T/cc.err")"
fi

# A hand-made rule: an override for case odd, a shared-memory rule above
# 48 KiB, every operator; replay/ removed (it would disagree).
h=$T/hand
cp -r "$run" "$h"
rm -rf "$h/replay" "$h/export"
cat >"$h/best-launch.json" <<'EOF'
{"defines": {"BLOCK": 64, "TAG": "v2"},
 "grid": ["ceil_div(n, BLOCK)", "max(1, min(n % 3, 2)) + (n > 150 || !(n != 7) && n <= 7)", "1 - 0 * (n / 2)"],
 "block": ["BLOCK"], "smem": "49152 + 4 * n - -1 + +0",
 "overrides": {"odd": {"grid": [5, 1, 1], "smem": 0}}}
EOF
expect_status export/hand 0 cko-export -n hand -o "$T/hx" "$h"
if probe "$T/hx" hand 2>"$T/cc.err"; then
	expect_eq export/override "$("$T/probe" 37)" "0 [5,1,1] [64,1,1] 0"
	expect_eq export/general "$("$T/probe" 38 7 151)" "$(printf '%s\n' '0 [1,2,1] [64,1,1] 49305' '0 [1,2,1] [64,1,1] 49181' \
		'0 [3,2,1] [64,1,1] 49757')"
else
	fail export/hand-compiles "$(head -c 600 "$T/cc.err")"
fi
expect_grep export/string-define '^#define TAG v2$' "$T/hx/hand.cu"
expect_grep export/smem-attribute 'cudaFuncAttributeMaxDynamicSharedMemorySize' "$T/hx/hand.cu"

# The generated sources compile: NAME.cu with nvcc for sm_90, the example
# links with it, the driver variant with cc.
if [ -x "$CUDA/bin/nvcc" ]; then
	for x in "$e:copy" "$T/hx:hand"; do
		dir=${x%:*} n=${x#*:}
		if "$CUDA/bin/nvcc" -arch=sm_90 -c -o "$T/$n.o" "$dir/$n.cu" >"$T/nvcc.out" 2>&1; then
			ok "export/nvcc-$n"
		else
			fail "export/nvcc-$n" "$(head -c 800 "$T/nvcc.out")"
		fi
	done
	expect_status export/example-links 0 "$CUDA/bin/nvcc" -arch=sm_90 -I"$e" -o "$T/example" "$e/example.cu" "$T/copy.o"
else
	skip export/nvcc "no nvcc at $CUDA/bin/nvcc"
fi
if [ -f "$CUDA/include/cuda.h" ]; then
	expect_status export/driver-compiles 0 $CC -std=c99 -Wall -Wextra -Werror -I"$CUDA/include" -c -o "$T/drv.o" "$e/copy_driver.c"
else
	skip export/driver-compiles "no $CUDA/include/cuda.h"
fi

# Bad input.
expect_status export/usage 2 cko-export
expect_status export/bad-name 2 cko-export -n 1x -o "$T/bn" "$run"
expect_status export/no-parent 2 cko-export -o "$T/no/such" "$run"
expect_grep export/no-parent-says "folder $T/no does not exist" "$T/last.err"
expect_status export/not-a-run 2 cko-export "$T/bin"
b=$T/nobest
cp -r "$run" "$b"
rm -rf "$b/export"
jq '.best = null' "$run/summary.json" >"$b/summary.json"
expect_status export/no-best 1 cko-export "$b"
m=$T/mismatch
cp -r "$run" "$m"
rm -rf "$m/export"
r1=$(ls "$m"/replay/*.json | head -n 1)
jq '.grid[0] += 1' "$r1" >"$T/r.json" && mv "$T/r.json" "$r1"
expect_status export/replay-disagrees 2 cko-export "$m"
expect_grep export/replay-disagrees-message 'best-launch.json gives case' "$T/last.err"
finish
