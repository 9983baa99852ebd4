#!/bin/sh
# benchmarks/families.sh [N [K [WORKLOAD...]]]: on the GPU machine, a run of
# the built-in tuner (no model) on each memory-bound workload's kernel
# families (workloads/W/space.json):
#   cko-optimize --workload W --max-iterations N --candidates K
# (defaults N=7, K=4, workloads reduce_sum softmax transpose layernorm),
# then, per performance case, the initial kernel's and the best
# candidate's median time, the speedup, and both rates in TB/s (bytes from
# cases.json) and as a fraction of the measured copy rate (props.json,
# cko-props --measure), and the vendor baseline's time and the best's
# fraction of it (vendor time / best time) where run.mk made one
# (reduce_sum: CUB, transpose: cuBLAS geam). Also the best point (variant and defines) and the
# candidate counts. One workload takes a few minutes; name one per call
# where a call is time-limited. Inputs are gigabytes: runs go to
# /dev/shm/families (FAMILIES_RESULTS) and each run's cases/ and outputs
# are removed afterwards unless FAMILIES_KEEP=1. FAMILIES_MAKE_ARGS (default
# -j4) go to make; FAMILIES_STRATEGY sets cko-init --strategy.
# Prints one table per workload; exit 1 if a run failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$top/bin:$PATH" TMPDIR=${TMPDIR:-/dev/shm}
N=${1:-7} K=${2:-4}
[ $# -ge 1 ] && shift
[ $# -ge 1 ] && shift
[ $# -eq 0 ] && set -- reduce_sum softmax transpose layernorm
R=${FAMILIES_RESULTS:-/dev/shm/families}
rc=0
for w in "$@"; do
	[ -f "$top/workloads/$w/space.json" ] || { echo "families: $w has no space.json" >&2; rc=1; continue; }
	mkdir -p "$R/$w"
	log=$R/$w/optimize.log
	t0=$(date +%s)
	# shellcheck disable=SC2086
	cko-optimize --workload "$w" --max-iterations "$N" --candidates "$K" \
		${FAMILIES_STRATEGY:+--strategy "$FAMILIES_STRATEGY"} --results "$R/$w" -- ${FAMILIES_MAKE_ARGS:--j4} >"$log" 2>&1
	st=$?
	run=$(sed -n 's/^cko-optimize: //p' "$log" | tail -n 1)
	echo "== $w: make exit $st, $(( $(date +%s) - t0 )) s, $run"
	if [ $st != 0 ] || [ ! -f "$run/summary.json" ]; then
		tail -n 20 "$log"
		rc=1
		continue
	fi
	copy=$(jq '.measured.copy_gbps // 0' "$run/props.json")
	vendor=$(jq -r '.baseline // "-"' "$run/summary.json")
	printf '%-26s %10s %10s %8s %8s %8s %8s %8s %10s %9s\n' case initial_ms best_ms speedup init_TB/s best_TB/s init/cp best/cp \
		vendor_ms "of_$vendor"
	jq -r '.cases[] | [.case, .initial_ms, .best_ms, (.baseline_ms // 0)] | @tsv' "$run/summary.json" |
		while IFS='	' read -r c im bm vm; do
			b=$(jq .bytes "$run/cases/$c/case.json")
			awk -v c="$c" -v im="$im" -v bm="$bm" -v vm="$vm" -v b="$b" -v cp="$copy" 'BEGIN {
				ti = b / (im * 1e-3) * 1e-12; tb = b / (bm * 1e-3) * 1e-12;
				printf "%-26s %10.4f %10.4f %7.2fx %8.2f %8.2f %7.1f%% %7.1f%% ", c, im, bm, im / bm, ti, tb,
					(cp > 0 ? 100 * ti * 1000 / cp : 0), (cp > 0 ? 100 * tb * 1000 / cp : 0);
				if (vm > 0) printf "%10.4f %8.1f%%\n", vm, 100 * vm / bm; else printf "%10s %9s\n", "-", "-" }'
		done
	echo "measured copy rate: $(awk -v c="$copy" 'BEGIN { printf "%.2f TB/s", c / 1000 }')"
	jq -r --arg b "$(jq -r .best "$run/summary.json")" '.candidates[] | select(.id == $b) |
		"best: \(.id) \(.variant // "initial") \(.defines // {} | to_entries | map("\(.key)=\(.value)") | join(" "))"' \
		"$run/history.json"
	jq -r '"candidates: \(.counts | to_entries | map("\(.value) \(.key)") | join(", "))"' "$run/summary.json"
	jq -r '.candidates[] | select(.status != "ok") | "  \(.id) \(.status) \(.stage // "") \(.variant // "") \((.reason // "") | .[0:100])"' \
		"$run/history.json" | head -n 12
	[ "${FAMILIES_KEEP:-0}" = 1 ] || rm -rf "$run/cases" "$run"/iter-*/c*/out "$run"/reference/out
done
exit $rc
