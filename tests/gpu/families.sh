# The kernel families of the memory-bound workloads on the GPU:
# for each workload, a few points of its space.json, chosen to take every
# path of every variant (registers and streamed rows, split rows, float4
# and scalar tiles), run as candidates of one iteration on every case,
# hidden ones included; each must pass (outputs within tolerance, the same
# bits on every launch). Fewer timed launches than a real run. For
# reduce_sum and transpose also the vendor baseline the run makes
# (cko-baseline: CUB, cuBLAS geam): timed and checked on every performance
# case.
. "$(dirname "$0")/../lib.sh"
if ! have_gpu; then skip gpu/families "no GPU"; finish; fi
WL=$CKO_TOP/workloads
points() {
	case $1 in
	reduce_sum) cat <<'P' ;;
rowsplit THREADS=256 UNROLL=4 TARGET=2048
rowsplit THREADS=1024 UNROLL=1 TARGET=512
rowsplit THREADS=128 UNROLL=8 TARGET=4096
rowgroup WPR=1 ROWS=8 UNROLL=2
rowgroup WPR=4 ROWS=2 UNROLL=4
rowgroup WPR=8 ROWS=1 UNROLL=1
P
	softmax | layernorm) cat <<'P' ;;
rowcache WPR=4 ROWS=2 VPT=8
rowcache WPR=16 ROWS=1 VPT=16
rowcache WPR=1 ROWS=4 VPT=0
rowcache WPR=2 ROWS=2 VPT=1
adaptive VPT=8 MAXW=32
adaptive VPT=4 MAXW=16
rowcache WPR=8 ROWS=1 VPT=16
rowcache WPR=32 ROWS=1 VPT=8
adaptive VPT=16 MAXW=8
adaptive VPT=16 MAXW=16
P
	transpose) cat <<'P' ;;
tiled TILE=32 NT=256 GROUP=8
tiled TILE=64 NT=256 GROUP=32
tiled TILE=64 NT=1024 GROUP=1
tiled TILE=32 NT=128 GROUP=8 VEC=1
tiled TILE=64 NT=64 GROUP=32 VEC=1
P
	esac
}
for w in ${CKO_WORKLOADS:-reduce_sum softmax transpose layernorm}; do
	S=$WL/$w/space.json P=$T/$w-proposals
	j=0
	points $w >"$T/$w.points"
	while read -r v defs; do
		d=$P/iter-001/c$j
		mkdir -p "$d"
		set -- $defs
		dj=$(for kv in "$@"; do echo "${kv%%=*} ${kv#*=}"; done | jq -Rn '[inputs | split(" ") | {(.[0]): (.[1] | tonumber)}] | add')
		jq --arg v "$v" --argjson d "$dj" '.variants[] | select(.name == $v) |
			{defines: ((.defines // {}) + $d), grid, block, smem}' "$S" >"$d/launch.json"
		cp "$WL/$w/$(jq -r --arg v "$v" '.variants[] | select(.name == $v) | .source' "$S")" "$d/kernel.cu"
		echo "$v $defs" >"$d/note.txt"
		j=$((j + 1))
	done <"$T/$w.points"
	run=$(cko-init --workload "$w" --proposals "$P" --max-iterations 1 --candidates $j --results "$T/$w") ||
		{ fail "gpu/families-$w" "cko-init failed"; continue; }
	start=$(date +%s)
	timeout "${CKO_FAMILIES_TIMEOUT:-240}" make -C "$run" -f run.mk WARMUP=${CKO_FAMILIES_WARMUP:-1} TIMED=${CKO_FAMILIES_TIMED:-3} >"$T/$w.log" 2>&1 ||
		fail "gpu/families-$w-make" "after $(( $(date +%s) - start )) s: $(tail -8 "$T/$w.log")"
	echo "info gpu/families-$w: $(( $(date +%s) - start )) s"
	jq -r '.candidates[] | select(.iteration == 1) | "info gpu/families-'$w': \(.id) \(.status) \(.note) \(.geomean_ms // "-") ms [\([.cases[] | select(.kind == "performance") | "\(.case) \(.median_ms)"] | join(", "))] \(.stage // "") \((.reason // "") | .[0:160])"' \
		"$run/history.json" 2>/dev/null
	expect_jq "gpu/families-$w-all-pass" '[.candidates[] | select(.iteration == 1 and .status == "ok" and
		([.cases[] | select(.hidden)] | length > 0))] | length == '$j "$run/history.json"
	# The vendor baselines (run.mk's baseline.json): a positive median and
	# a passing check (outputs within the case's tolerance of the
	# reference's, guards, inputs) for every performance case, shown in
	# summary.json.
	case $w in
	reduce_sum | transpose)
		[ $w = reduce_sum ] && v=CUB || v=cuBLAS
		perf=$(jq -c '[.[] | select(.kind == "performance") | .name] | sort' "$run/cases/index.json")
		jq -r '.cases[] | "info gpu/families-'$w'-baseline: \(.case) \(.method) \(.median_ms) ms \(.gbps // "-") GB/s \(.check) \(.reason // "")"' \
			"$run/baseline.json" 2>/dev/null
		expect_jq "gpu/families-$w-baseline" '.status == "ok" and .vendor == "'$v'" and
			([.cases[] | select(.status == "ok" and .check == "ok" and .median_ms > 0) | .case] | sort) == '"$perf" \
			"$run/baseline.json"
		expect_jq "gpu/families-$w-baseline-summary" '.baseline == "'$v'" and
			([.cases[] | select(.baseline_ms > 0 and .fraction_of_baseline > 0) | .case] | sort) == '"$perf" \
			"$run/summary.json"
		;;
	esac
	[ -n "$CKO_KEEP_LOGS" ] && cp "$T/$w.log" "$CKO_KEEP_LOGS/families-$w.log" && cp "$run/history.json" "$CKO_KEEP_LOGS/families-$w-history.json"
	rm -rf "$run" # gigabytes of inputs and outputs
done
finish
