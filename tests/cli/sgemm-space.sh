#!/bin/sh
# sgemm-space: workloads/sgemm/space.json is a sound search space.  Its points
# (enumerated by tests/cli/sgemm-space.py with cko's expression rules, and
# cross-checked against cko-tune --list when it is built) have launch values
# in range for odd and large sizes, include the configurations predicted
# fastest, and compile for sm_90 without spills or local memory, within the
# register file.  Compiles a deterministic sample of 40 points; CKO_FULL=1
# compiles every point (CKO_SGEMM_SAMPLE=N for another sample size).
. "$(dirname "$0")/../lib.sh"

SP=$CKO_TOP/workloads/sgemm/space.json
PY=$CKO_TOP/tests/cli/sgemm-space.py
if ! command -v python3 >/dev/null 2>&1; then
	skip sgemm-space "no python3"
	finish
fi

# The space parses, every constraint evaluates, the size is a few hundred to
# a few thousand points, and no variant is empty.
if python3 "$PY" count "$SP" >"$T/count" 2>"$T/count.err"; then
	total=$(awk '$1 == "total" { print $2 }' "$T/count")
	small=$(awk '$1 != "total" && $2 < 20 { print $1 }' "$T/count")
	if [ "$total" -ge 200 ] && [ "$total" -le 3000 ] && [ -z "$small" ]; then
		ok sgemm-space-size
	else
		fail sgemm-space-size "$(tr '\n' ' ' <"$T/count")"
	fi
else
	fail sgemm-space-size "$(head -c 300 "$T/count.err")"
fi
python3 "$PY" list "$SP" >"$T/all" || fail sgemm-space-list "list failed"

# cko-tune sees exactly the same points.
if command -v cko-tune >/dev/null 2>&1 && cko-tune -s "$SP" --list >"$T/tune.list" 2>"$T/tune.err"; then
	python3 - "$T/tune.list" "$T/all" >"$T/tune.diff" <<'EOF'
import json, sys
a = {(o["variant"], tuple(sorted((k, str(v)) for k, v in o["defines"].items())))
     for o in map(json.loads, open(sys.argv[1]))}
b = set()
for line in open(sys.argv[2]):
    v, _, d = line.rstrip("\n").split("\t")
    b.add((v, tuple(sorted(tuple(x.split("=", 1)) for x in d.split()))))
for x in sorted(a - b)[:3]:
    print("only cko-tune:", x)
for x in sorted(b - a)[:3]:
    print("only sgemm-space.py:", x)
EOF
	if [ -s "$T/tune.diff" ]; then fail sgemm-space-tune "$(head -c 400 "$T/tune.diff")"; else ok sgemm-space-tune; fi
else
	skip sgemm-space-tune "cko-tune not built"
fi

# The configurations predicted fastest (kernels/README.md) are in the space.
cat >"$T/fast" <<'EOF'
multistage TM=8 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=8 STAGES=3 MINB=1
multistage TM=8 TN=8 LM=8 WARPS_M=2 WARPS_N=4 BK=8 STAGES=3 MINB=2
multistage TM=8 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=16 STAGES=3 MINB=2
multistage TM=8 TN=16 LM=8 WARPS_M=2 WARPS_N=4 BK=8 STAGES=3 MINB=1
multistage TM=8 TN=16 LM=8 WARPS_M=2 WARPS_N=2 BK=16 STAGES=3 MINB=1
multistage TM=16 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=8 STAGES=3 MINB=1
streamk STREAMK=1 TM=8 TN=16 LM=8 WARPS_M=2 WARPS_N=4 BK=16 STAGES=4 MINB=1 CTAS=132 KSYNC=1
streamk STREAMK=1 TM=8 TN=16 LM=4 WARPS_M=4 WARPS_N=2 BK=16 STAGES=3 MINB=1 CTAS=132 KSYNC=0
warptile TM=8 TN=8 LM=4 WARPS_M=4 WARPS_N=2 BK=8 MINB=2
warptile TM=8 TN=8 LM=8 WARPS_M=2 WARPS_N=4 BK=16 MINB=1
warptile TM=8 TN=16 LM=8 WARPS_M=2 WARPS_N=4 BK=8 MINB=1
blocktile BM=128 BN=128 BK=8 TM=8 TN=8
EOF
while read -r want; do
	if awk -F'\t' -v w="$want" '$1 " " $3 == w { f = 1 } END { exit !f }' "$T/all"; then
		ok "sgemm-space-has/$want"
	else
		fail "sgemm-space-has/$want" "not a valid point of $SP"
	fi
done <"$T/fast"

# Launch values of every point, for tiny, odd and large sizes: the grid
# covers C exactly with the kernel's block tile, the block is whole warps
# within 1024 threads, shared memory within 227 KiB per block.
python3 - "$PY" "$SP" >"$T/launch.bad" <<'EOF'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("sp", sys.argv[1])
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
space = json.load(open(sys.argv[2]))
tiles = {"multistage": ("WARPS_M*LM*TM", "WARPS_N*(32/LM)*TN", "32*WARPS_M*WARPS_N"),
         "streamk": ("WARPS_M*LM*TM", "WARPS_N*(32/LM)*TN", "32*WARPS_M*WARPS_N"),
         "warptile": ("WARPS_M*LM*TM", "WARPS_N*(32/LM)*TN", "32*WARPS_M*WARPS_N"),
         "blocktile": ("BM", "BN", "(BM/TM)*(BN/TN)")}
bad = 0
for v, d in sp.all_points(space):
    for M, N, K in ((1, 1, 1), (127, 65, 33), (4096, 4096, 4096), (8192, 1024, 8192)):
        env = dict(M=M, N=N, K=K)
        env.update(sp.int_defines(d))
        ev = lambda e: sp.evaluate(e, env)
        grid = [ev(e) for e in v["grid"]] + [1] * (3 - len(v["grid"]))
        block = [ev(e) for e in v["block"]] + [1] * (3 - len(v["block"]))
        smem = ev(v.get("smem", 0))
        bm, bn, nt = (ev(e) for e in tiles[v["name"]])
        why = []
        if v["name"] == "streamk":  # CTAS blocks share the tiles' k-slabs, never more blocks than slabs
            slabs = -(-N // bn) * -(-M // bm) * -(-K // ev("BK"))
            if grid != [min(ev("CTAS"), slabs), 1, 1]:
                why.append("grid %s is not min(CTAS, %d slabs)" % (grid, slabs))
        elif grid != [-(-N // bn), -(-M // bm), 1]:
            why.append("grid %s does not tile %dx%d by %dx%d" % (grid, M, N, bm, bn))
        if block != [nt, 1, 1] or nt % 32 or not 32 <= nt <= 1024:
            why.append("block %s" % block)
        if not 0 <= smem <= 232448:
            why.append("smem %d" % smem)
        if why and bad < 5:
            print("%s %s at %dx%dx%d: %s" % (v["name"], sp.fmt(d), M, N, K, "; ".join(why)))
        bad += bool(why)
EOF
if [ -s "$T/launch.bad" ]; then fail sgemm-space-launch "$(head -c 600 "$T/launch.bad")"; else ok sgemm-space-launch; fi

# Compile the sample (or everything), and the fast list, for sm_90.
if [ -n "$CKO_FULL" ]; then n=${CKO_SGEMM_SAMPLE:-0}; else n=${CKO_SGEMM_SAMPLE:-40}; fi
python3 "$PY" sweep "$SP" "$T/sweep" --sample "$n" --include "$T/fast" >"$T/sweep.out" 2>"$T/sweep.err"
if [ ! -s "$T/sweep.out" ]; then
	fail sgemm-space-compile "no results: $(head -c 400 "$T/sweep.err")"
fi
while IFS='	' read -r verdict point info; do
	if [ "$verdict" = ok ]; then ok "sgemm-space-compile/$point"; else fail "sgemm-space-compile/$point" "$info"; fi
done <"$T/sweep.out"
finish
