#!/usr/bin/env python3
"""Writes the .npy fixtures of tests/unit/test-npy.c with NumPy itself, so
the parser is checked against files NumPy wrote, not only our own.

The outputs are committed; run this again only to change them:
    python3 tests/data/npy/make-fixtures.py tests/data/npy
test-npy.c holds the values these arrays must contain."""
import sys
import numpy as np
from numpy.lib import format as npf

out = sys.argv[1] if len(sys.argv) > 1 else "."


def save(name, a, version=None):
    with open(f"{out}/{name}.npy", "wb") as f:
        if version is None:
            np.save(f, a)
        else:
            npf.write_array(f, a, version=version)


# One (2, 3) array per dtype: zero, one, a negative (or two), the type's
# extremes, and 42. Floats: values exact in every float type.
ints = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
for t, dt in ints.items():
    info = np.iinfo(dt)
    third = -1 if info.min < 0 else 2
    save(t, np.array([[0, 1, third], [info.min, info.max, 42]], dtype=dt))
for t, dt in [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)]:
    save(t, np.array([[0.0, 1.0, -2.5], [0.5, -0.0, 65504.0]], dtype=dt))

save("scalar-f64", np.array(3.25))                                   # 0-d
save("vec-i32", np.arange(7, dtype=np.int32))                        # 1-d
save("cube-f32", np.arange(24, dtype=np.float32).reshape(2, 3, 4))   # 3-d
save("empty-f32", np.zeros((2, 0), dtype=np.float32))                # no elements
save("v2-f32", np.arange(6, dtype=np.float32).reshape(2, 3), (2, 0))
save("v3-f32", np.arange(6, dtype=np.float32).reshape(2, 3), (3, 0))

# Files the parser must refuse, each with a clear message.
save("fortran-f32", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
save("bigendian-f32", np.arange(6, dtype=">f4").reshape(2, 3))
save("bool", np.array([True, False]))
save("unicode", np.array(["ab", "c"]))
save("dims9-f32", np.zeros((1,) * 9, dtype=np.float32))
