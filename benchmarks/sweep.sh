#!/bin/sh
# benchmarks/sweep.sh LOGDIR [cubins.tar.xz]: the exhaustive search that
# cko-tune's strategies are measured against. Every point of
# workloads/sgemm/space.json, as `cko-tune --strategy exhaustive` proposes
# it, is compiled (cubins made beforehand, named HASH/kernel.cubin in the
# tar, are used as they are; the rest are compiled here, one job per core)
# and timed by cko-bench on square_4096 (benchmarks/sweep-cases.json), in
# chunks of 100 requests per cko-bench (one context per chunk).
# Writes LOGDIR/table.csv (hash,variant,defines,ms; ms empty where the
# point failed), the input of `benchmarks/tune-sim.sh --table`, then
# re-times the 10 fastest with cko-bench --check (outputs against the
# reference) into LOGDIR/top10.json.
# Environment: SWEEP_DIR (work folder, default /dev/shm/sweep),
# SWEEP_WARMUP / SWEEP_TIMED (default 1 / 5 launches per point),
# SWEEP_LIMIT (only the first N points, for a trial), SWEEP_MAKE_ARGS,
# SWEEP_COMPILE_ONLY=ARCH (no GPU: compile every point for ARCH into
# LOGDIR/cubins.tar.xz, the tar of a later run on the GPU machine; NVRTC
# needs no GPU, and 1919 compiles take ~30 min on 2 cores).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=${1:?usage: benchmarks/sweep.sh LOGDIR [cubins.tar.xz]}
pre=${2:-}
W=$top/workloads/sgemm
S=${SWEEP_DIR:-/dev/shm/sweep}
say() { echo "sweep: $* ($(( $(date +%s) - t0 )) s)" >&2; }
t0=$(date +%s)
rm -rf "$S" && mkdir -p "$S/pts" "$log" || exit 3

# 1. the points, in two batches (cko-tune proposes at most 1024 at a time)
echo '{"candidates": []}' >"$S/h0.json"
cko-tune -s "$W/space.json" -H "$S/h0.json" -i 1 -k 1000 --strategy exhaustive -o "$S/p1" || exit 3
jq -s '{candidates: [.[] | {hash, status: "ok"}]}' "$S"/p1/c*/proposal.json >"$S/h1.json"
cko-tune -s "$W/space.json" -H "$S/h1.json" -i 2 -k 1000 --strategy exhaustive -o "$S/p2" || exit 3
# (past the end of the space cko-tune fills the batch with "exhausted"
# placeholders, which have no hash)
jq -r 'select(.hash) | [input_filename, .hash] | @tsv' "$S"/p1/c*/proposal.json "$S"/p2/c*/proposal.json |
	while IFS='	' read -r f h; do mv "${f%/proposal.json}" "$S/pts/$h"; done
rm -rf "$S/p1" "$S/p2"
if [ -n "${SWEEP_LIMIT:-}" ]; then # a trial on fewer points
	ls "$S/pts" | tail -n +"$((SWEEP_LIMIT + 1))" | while read -r h; do rm -rf "${S:?}/pts/$h"; done
fi
n=$(ls "$S/pts" | wc -l)
say "$n points"

# Without a GPU (SWEEP_COMPILE_ONLY=ARCH): only the cubins, for the tar
if [ -n "${SWEEP_COMPILE_ONLY:-}" ]; then
	export arch=$SWEEP_COMPILE_ONLY SIG="$W/signature.json"
	ls "$S/pts" | xargs -P "$(nproc)" -I{} sh -c 'cd "$0/{}" && cko-compile --arch "$arch" -s "$SIG" -l launch.json \
		-o kernel.cubin -j compile.json kernel.cu >/dev/null 2>&1' "$S/pts"
	(cd "$S/pts" && ls */kernel.cubin */compile.json | tar cf - -T - | xz -T0 >"$log/cubins.tar.xz") || exit 3
	say "$(ls "$S"/pts/*/kernel.cubin | wc -l) cubins in $log/cubins.tar.xz"
	exit 0
fi

# 2. the run folder: GPU properties, cases, the reference's outputs
run=$(cko-init --workload sgemm --input-cases "$top/benchmarks/sweep-cases.json" --max-iterations 0 --results "$S/r") || exit 3
make -C "$run" -f run.mk ${SWEEP_MAKE_ARGS:-} props.json reference/run.json >"$log/setup.log" 2>&1 || { tail -20 "$log/setup.log"; exit 3; }
arch=$(jq -r .arch "$run/props.json")

# 3. cubins
[ -n "$pre" ] && tar xJf "$pre" -C "$S/pts" 2>/dev/null
have=$(ls "$S"/pts/*/kernel.cubin 2>/dev/null | wc -l)
say "$have cubins made beforehand; compiling the rest for $arch"
export arch SIG="$W/signature.json"
ls "$S/pts" | xargs -P "$(nproc)" -I{} sh -c 'cd "$0/{}" && { [ -f kernel.cubin ] && [ -f compile.json ] ||
	cko-compile --arch "$arch" -s "$SIG" -l launch.json -o kernel.cubin -j compile.json kernel.cu >/dev/null 2>&1; } &&
	cko-request -s "$SIG" -l launch.json -b kernel.cubin -c "$1/cases" -C square_4096 -o requests >/dev/null 2>&1' "$S/pts" "$run"
say "compiled; $(ls "$S"/pts/*/requests/square_4096.json 2>/dev/null | wc -l) requests"

# 4. timing, 100 points per cko-bench
ls "$S"/pts/*/requests/square_4096.json >"$S/reqs"
split -l 100 -d "$S/reqs" "$S/chunk."
for c in "$S"/chunk.*; do
	# shellcheck disable=SC2046
	cko-bench -w "${SWEEP_WARMUP:-1}" -n "${SWEEP_TIMED:-5}" -t 5 -o "$c.json" $(cat "$c") 2>>"$log/bench.log"
	say "$(basename "$c"): exit $?"
done

# 5. the table
jq -r '.cases[] | select(.status == "ok") | [(.request | split("/") | .[-3]), .median_ms] | @tsv' "$S"/chunk.*.json \
	>"$S/times.tsv" 2>/dev/null
jq -r '[.hash, .variant, (.note | sub("^[a-z]+ "; ""))] | @tsv' "$S"/pts/*/proposal.json >"$S/points.tsv"
awk -F'\t' 'NR == FNR { ms[$1] = $2; next }
	BEGIN { print "hash,variant,defines,ms" }
	{ printf "%s,%s,\"%s\",%s\n", $1, $2, $3, ($1 in ms) ? ms[$1] : "" }' "$S/times.tsv" "$S/points.tsv" >"$log/table.csv"
say "table: $(wc -l <"$S/times.tsv") of $n points timed"

# 6. the ten fastest again, outputs checked
best=$(sort -t "$(printf '\t')" -k2,2g "$S/times.tsv" | head -n 10 | cut -f 1)
# shellcheck disable=SC2046
cko-bench --check -o "$log/top10.json" $(for h in $best; do echo "$S/pts/$h/requests/square_4096.json"; done) 2>>"$log/bench.log"
say "top 10 checked: exit $?"
jq -r '.cases[] | [.request, .status, .check, .median_ms, .tflops] | @tsv' "$log/top10.json"
