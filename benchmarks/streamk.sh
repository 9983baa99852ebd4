#!/bin/sh
# benchmarks/streamk.sh LOGDIR [BEFORE.cu]: the sgemm stream-K variant side
# by side with the data-parallel multistage kernel, in one run of the
# built-in tuner (one iteration whose candidates are the points below, as
# the space's starts; every candidate checked on every case, hidden ones
# included, and timed by cko-bench on the three performance cases, cuBLAS
# timed by cko-baseline in the same run). BEFORE.cu, an earlier
# multistage.cu, becomes the variants "before" and "streamk-before" (the
# "before" of a change to the kernel file); without STREAMK_POINTS the
# best multistage point is timed as "before" too. Prints one line per
# candidate: status, variant, defines, the median ms of each performance case and its
# fraction of cuBLAS, and the geomean fraction; LOGDIR gets history.json,
# summary.json and baseline.json. STREAMK_PROFILE="CASE cJ..." then
# profiles those candidates on CASE with cko-profile (Nsight Compute, at its
# locked base clock) into LOGDIR/profile-cJ.json and .txt.
# STREAMK_POINTS=FILE (a JSON list of {variant, defines}) replaces the points
# below; STREAMK_CASES=FILE replaces the workload's cases.json (e.g.
# benchmarks/shapes-cases.json: more performance shapes); STREAMK_MAKE_ARGS
# goes to make (e.g. -j4: compiles beside the GPU steps, which run.mk keeps
# one at a time).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
log=${1:?usage: benchmarks/streamk.sh LOGDIR [BEFORE.cu]}
before=${2:-}
W=$top/workloads/sgemm
S=${STREAMK_DIR:-/dev/shm/streamk}
rm -rf "$S" && mkdir -p "$S/space/kernels" "$log" || exit 3
cp "$W"/kernels/*.cu "$S/space/kernels/"
best='"TM": 8, "TN": 16, "LM": 8, "WARPS_M": 2, "WARPS_N": 4, "BK": 16, "STAGES": 4, "MINB": 1'
starts=$(cat <<EOF
[{"variant": "multistage", "defines": {$best}},
 {"variant": "multistage", "defines": {"TM": 8, "TN": 16, "LM": 4, "WARPS_M": 4, "WARPS_N": 2, "BK": 16, "STAGES": 3, "MINB": 1}},
 {"variant": "streamk", "defines": {"TM": 8, "TN": 16, "LM": 4, "WARPS_M": 4, "WARPS_N": 2, "BK": 16, "STAGES": 3, "MINB": 1, "CTAS": 132, "KSYNC": 0}},
 {"variant": "streamk", "defines": {"TM": 8, "TN": 16, "LM": 4, "WARPS_M": 4, "WARPS_N": 2, "BK": 16, "STAGES": 3, "MINB": 1, "CTAS": 132, "KSYNC": 1}},
 {"variant": "streamk", "defines": {$best, "CTAS": 132, "KSYNC": 0}},
 {"variant": "streamk", "defines": {$best, "CTAS": 132, "KSYNC": 1}},
 {"variant": "streamk", "defines": {"TM": 8, "TN": 16, "LM": 8, "WARPS_M": 2, "WARPS_N": 4, "BK": 16, "STAGES": 3, "MINB": 1, "CTAS": 132, "KSYNC": 0}},
 {"variant": "streamk", "defines": {"TM": 8, "TN": 16, "LM": 8, "WARPS_M": 2, "WARPS_N": 4, "BK": 16, "STAGES": 3, "MINB": 1, "CTAS": 132, "KSYNC": 1}},
 {"variant": "streamk", "defines": {"TM": 8, "TN": 8, "LM": 4, "WARPS_M": 4, "WARPS_N": 2, "BK": 8, "STAGES": 3, "MINB": 1, "CTAS": 264, "KSYNC": 1}}]
EOF
)
if [ -n "${STREAMK_POINTS:-}" ]; then
	starts=$(jq -c . "$STREAMK_POINTS") || exit 3
fi
if [ -n "$before" ]; then
	cp "$before" "$S/space/kernels/multistage-before.cu" || exit 3
	[ -n "${STREAMK_POINTS:-}" ] ||
		starts=$(echo "$starts" | jq --argjson d "{$best}" '[{variant: "before", defines: $d}] + .')
fi
jq --argjson starts "$starts" --arg before "$before" '
	.starts = $starts |
	if $before != "" then .variants += [.variants[] | select(.name == "multistage" or .name == "streamk") |
		.name = (if .name == "multistage" then "before" else "streamk-before" end) |
		.source = "kernels/multistage-before.cu"] else . end' \
	"$W/space.json" >"$S/space/space.json" || exit 3
k=$(echo "$starts" | jq length)
run=$(cko-init --workload sgemm --space "$S/space/space.json" ${STREAMK_CASES:+--input-cases "$STREAMK_CASES"} \
	--max-iterations 1 --candidates "$k" --sol-stop 0 --patience 0 --no-memory --run-dir "$S/run") || exit 3
s0=$(date +%s)
make -C "$run" -f run.mk ${STREAMK_MAKE_ARGS:-} >"$log/make.log" 2>&1
echo "make: $?, $(($(date +%s) - s0)) s" >&2
cp "$run/history.json" "$run/summary.json" "$run/baseline.json" "$log/" 2>/dev/null
jq -r --slurpfile b "$run/baseline.json" '
	($b[0].cases | map({(.case): .median_ms}) | add) as $base |
	.candidates[] | select(.iteration == 1) |
	[.status, .variant, (.defines | to_entries | map("\(.key)=\(.value)") | join(" "))] +
	[.cases[]? | select(.kind == "performance") | "\(.case) \(.median_ms) ms \(($base[.case] / .median_ms * 1000 | round) / 10)%"] +
	(if .status == "ok" then [[.cases[] | select(.kind == "performance") | $base[.case] / .median_ms] |
		"geomean \((((map(log) | add / length) | exp) * 1000 | round) / 10)% of cuBLAS"] else [.reason // ""] end) |
	join("\t")' "$run/history.json"
set -- ${STREAMK_PROFILE:-}
if [ $# -gt 1 ]; then
	case=$1
	shift
	for c in "$@"; do
		timeout 120 cko-profile -o "$log/profile-$c.json" --summary "$log/profile-$c.txt" \
			"$run/iter-001/$c/requests/$case.json" >/dev/null 2>"$log/profile-$c.err" ||
			echo "cko-profile $c: $(tail -3 "$log/profile-$c.err")" >&2
		jq -r --arg c "$c" '"\($c) " + ([.metrics | to_entries[] | select(.key | test("duration|issue_active|sm__throughput|hit_rate|dram__bytes|long_scoreboard|barrier|not_selected|wait|mio")) |
			"\(.key | sub("smsp__average_warps_issue_stalled_"; "stall_") | sub("_per_issue_active.ratio"; "") | sub(".avg.pct_of_peak_sustained_"; "%")) \(.value.value)"] | join(" "))' \
			"$log/profile-$c.json" 2>/dev/null
	done
fi
