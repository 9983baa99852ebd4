#!/bin/sh
# transpose-sim: runs every point of workloads/transpose/space.json (and
# the scalar-only VEC=1 path) on the CPU (tests/cli/transpose-sim.cc: one
# fiber per CUDA thread, threads in index, reversed and shuffled orders,
# ASan/UBSan on), with the launch its rules give (grid and block evaluated
# from space.json as cko-tune reads it), on sizes that take every path:
# single rows and columns, partial tiles, R or C not a multiple of 4 (the
# scalar path), full tiles (the float4 path), and more tile rows than one
# group of the grouped block order; every element of y must be x
# transposed, bit for bit.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/cli/sim-build.subr"

SP=$CKO_TOP/workloads/transpose/space.json
PY=$CKO_TOP/tests/cli/sgemm-space.py
SIM=$CKO_TOP/tests/cli/transpose-sim.cc
sim_setup transpose-sim

python3 "$PY" list "$SP" >"$T/points" || { fail transpose-sim-list "sgemm-space.py list failed"; finish; }
expect_eq transpose-sim-space-size "$(wc -l <"$T/points")" 24
# the scalar path everywhere
printf 'tiled\tkernels/tiled.cu\tVEC=1 TILE=32 NT=128 GROUP=8\ntiled\tkernels/tiled.cu\tVEC=1 TILE=64 NT=256 GROUP=32\n' >>"$T/points"

# launch SIZES DEFINES...: per line "R C" of SIZES,
# "R C gridx gridy gridz blockx blocky blockz smem"
cat >"$T/launch.py" <<'PYEOF'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("space", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
space = json.load(open(sys.argv[2]))
v = m.find_variant(space, "tiled")
d = dict(v.get("defines", {}))
d.update(m.parse_defs(sys.argv[4:]))
for line in open(sys.argv[3]):
    r, c = map(int, line.split())
    env = dict(R=r, C=c)
    env.update(m.int_defines(d))
    dims = lambda key: [m.evaluate(e, env) for e in v[key]] + [1] * (3 - len(v[key]))
    print(" ".join(map(str, [r, c] + dims("grid") + dims("block") + [m.evaluate(v.get("smem", 0), env)])))
PYEOF

# R C: edges, odd sizes, multiples of 4 with partial and full tiles, and
# 35 or 33 tile rows (past one group of 32 at TILE 32 or 64).
sizes="1 1
1 77
1000 1
77 101
64 96
128 192
130 260
260 130
1100 40
2100 68"
echo "$sizes" >"$T/sizes"

i=0
while IFS='	' read -r variant source defs; do
	i=$((i + 1))
	name="transpose-sim/$variant $defs"
	bin="$T/sim$i"
	sim_build "$name" "$bin" "$SIM" "$CKO_TOP/workloads/transpose/$source" "$defs" || continue
	order=$i
	python3 "$T/launch.py" "$PY" "$SP" "$T/sizes" $defs >"$T/launches" ||
		{ fail "$name" "launch rules do not evaluate"; continue; }
	{
		while read -r R C gx gy gz bx by bz smem; do
			set -- "$gx" "$gy" "$gz" "$bx" "$by" "$bz" "$smem"
			if [ "$2" != 1 ] || [ "$3" != 1 ] || [ "$5" != 1 ] || [ "$6" != 1 ] || [ "$7" != 0 ]; then
				echo "${R}x${C}: launch $* is not a 1-D grid of 1-D blocks without dynamic smem"
			elif ! "$bin" "$R" "$C" "$1" "$4" $((order % 4)) 2>"$T/run.err"; then
				echo "${R}x${C} (order $((order % 4))): $(grep -v 'WARNING: ASan' "$T/run.err" | head -c 300)"
			fi
			order=$((order + 1))
		done
	} <"$T/launches" >"$T/bad"
	sim_verdict "$name"
done <"$T/points"
finish
