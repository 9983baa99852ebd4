#!/bin/sh
# cko-gen: the generated values follow their distributions (mean, standard
# deviation, range), read back with od and awk; with numpy, also np.load.
. "$(dirname "$0")/../lib.sh"
SIG=$DATA/gen/signature.json CASES=$DATA/gen/cases.json
cko-gen -o "$T/c" "$SIG" "$CASES" 2>"$T/err" || { fail gen-dist-run "$(cat "$T/err")"; finish; }

# values FILE TYPE: one value a line (od type f4, f8, d4).
values() {
	hlen=$(od -An -j8 -N2 -tu2 "$1" | tr -d ' ')
	od -An -v -j$((10 + hlen)) -t"$2" -w"${2#?}" "$1"
}
# stats FILE TYPE: "n mean std min max".
stats() {
	values "$1" "$2" | awk '{ x = $1 + 0; n++; s += x; ss += x * x; if (n == 1 || x < lo) lo = x; if (n == 1 || x > hi) hi = x }
		END { m = s / n; printf "%d %.6f %.6f %.6f %.6f\n", n, m, sqrt(ss / n - m * m), lo, hi }'
}
# check NAME "n mean std min max" AWK-CONDITION
check() {
	if echo "$2" | awk "{ n = \$1; mean = \$2; std = \$3; lo = \$4; hi = \$5 } END { exit !($3) }"; then ok "$1"
	else fail "$1" "stats (n mean std min max) $2 fail: $3"; fi
}

# uniform(-1, 1): 1.1M values, two chunks; mean 0, std 1/sqrt(3) = 0.5774.
s=$(stats "$T/c/big/in/0/a.npy" f4)
check gen-uniform "$s" 'n == 1100000 && mean > -0.005 && mean < 0.005 && std > 0.572 && std < 0.583 && lo >= -1 && lo < -0.999 && hi <= 1 && hi > 0.999'
# normal(0, 1): 1000 values.
s=$(stats "$T/c/big/in/0/b.npy" f4)
check gen-normal "$s" 'n == 1000 && mean > -0.15 && mean < 0.15 && std > 0.9 && std < 1.1 && lo < -2 && hi > 2'
# int(0, 9) on i32: integers, both ends reached.
s=$(stats "$T/c/big/in/0/idx.npy" d4)
check gen-int "$s" 'n == 300 && lo == 0 && hi == 9 && mean > 3.5 && mean < 5.5'
nonint=$(values "$T/c/big/in/0/idx.npy" d4 | awk '$1 != int($1)' | wc -l)
expect_eq gen-int-integral "$nonint" 0
# arange(0, 1) on f64: exactly 0, 1, 2, ...
bad=$(values "$T/c/big/in/0/acc.npy" f8 | awk '$1 + 0 != NR - 1' | wc -l)
expect_eq gen-arange "$bad" 0

# The chunks are independent streams: the second chunk does not repeat the first.
values "$T/c/big/in/0/a.npy" f4 | sed -n '1,20p' >"$T/c0"
values "$T/c/big/in/0/a.npy" f4 | sed -n '1048577,1048596p' >"$T/c1"
cmp -s "$T/c0" "$T/c1" && fail gen-chunks-differ "chunk 1 repeats chunk 0" || ok gen-chunks-differ

if have_numpy; then
	python3 - "$T/c" <<'PY' && ok gen-numpy || fail gen-numpy "numpy checks failed"
import sys, numpy as np
d = sys.argv[1]
a = np.load(d + "/big/in/0/a.npy"); b = np.load(d + "/big/in/0/b.npy")
i = np.load(d + "/big/in/0/idx.npy"); acc = np.load(d + "/big/in/0/acc.npy")
assert a.dtype == np.float32 and a.shape == (1100, 1000)
assert abs(a.mean()) < 0.005 and abs(a.std() - 0.5774) < 0.005 and a.min() >= -1 and a.max() <= 1
assert b.dtype == np.float32 and abs(b.mean()) < 0.15 and abs(b.std() - 1) < 0.1
assert i.dtype == np.int32 and i.min() == 0 and i.max() == 9
assert acc.dtype == np.float64 and (acc == np.arange(1100)).all()
PY
else
	skip gen-numpy "python3 with numpy is not installed (the od/awk checks above ran)"
fi
finish
