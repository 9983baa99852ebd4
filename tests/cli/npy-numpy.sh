#!/bin/sh
# npy-numpy: the .npy files cko writes load in NumPy with the right dtype,
# shape and values, and their headers keep NumPy's layout. Needs python3
# with numpy (skips without); the files come from test-npy --write.
. "$(dirname "$0")/../lib.sh"
units=${CKO_UNITS:-$CKO_TOP/build/rel/tests}

if ! have_numpy; then
	skip npy-numpy "python3 has no numpy"
	finish
fi
if [ ! -x "$units/test-npy" ]; then
	skip npy-numpy "no $units/test-npy (make units)"
	finish
fi
mkdir -p "$T/npy"
expect_status npy-numpy-write 0 "$units/test-npy" --write "$T/npy"
python3 - "$T/npy" >"$T/check.out" 2>&1 <<'END'
import sys, glob, os
import numpy as np
d = sys.argv[1]
names = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16",
         "i32": "int32", "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}
shapes = {0: (), 1: (5,), 3: (2, 3, 4)}
files = sorted(glob.glob(os.path.join(d, "*.npy")))
if len(files) != 33:
    print("FAIL npy-numpy-files: %d files, want 33" % len(files))
for f in files:
    base = os.path.basename(f)[:-4]
    t, rank = base.split("-")
    rank = int(rank[:-1])
    a = np.load(f)
    n = int(np.prod(shapes[rank]))
    i = np.arange(n)
    want = (i % 7 - 3) if t[0] in "fi" else i % 7
    ok = a.dtype == np.dtype(names[t]) and a.shape == shapes[rank] and a.flags.c_contiguous
    ok = ok and np.array_equal(a.reshape(-1).astype(np.float64), want.astype(np.float64))
    with open(f, "rb") as fh:
        head = fh.read(10)
        hlen = head[8] | head[9] << 8
    ok = ok and head[6] == 1 and (10 + hlen) % 64 == 0
    print(("ok" if ok else "FAIL") + " npy-numpy-load-" + base + ("" if ok else ": dtype %s shape %s" % (a.dtype, a.shape)))
END
cat "$T/check.out"
grep -q '^FAIL' "$T/check.out" && _failed=1
grep -q '^ok' "$T/check.out" || fail npy-numpy-load "$(head -c 300 "$T/check.out")"
finish
