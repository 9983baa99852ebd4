#!/bin/sh
# benchmarks/candidate-cost.sh [-B BIN] [WORKLOAD...]: what one candidate
# costs, compile to result.json, on each built-in workload (default: all
# five) with all its cases. For each workload: a run folder (cko-init
# --max-iterations 0), everything the candidate needs made first (GPU
# properties, cases, the reference run and timing), then the initial
# kernel's iter-000/c0/result.json made and timed alone, without -j. With
# -B BIN the candidate is first made with the tools in BIN (an older build:
# before and after in one session, on the same prepared folder), then
# removed and made again with the tools on PATH (which always prepare).
# Prints one line per workload and build: wall seconds of the candidate, each
# step's seconds from its JSON, the host phases of cko-run and cko-bench,
# the kernels' own time (cko-run's launches, cko-bench's warm-up and timed
# launches at their mean), the rest (host_s), the candidate folder's size. The run folder is
# removed afterwards unless KEEP=1 (memory-bound cases are gigabytes).
set -u
bin=
if [ "${1:-}" = -B ]; then bin=$2; shift 2; fi
R=${RESULTS:-${TMPDIR:-/tmp}/candidate-cost}
mkdir -p "$R"
printf 'workload\ttools\twall_s\tcompile\trun\tcompare\tbench\tkernels_s\thost_s\tdisk_kb\trun_phases\tbench_phases\n'
for w in ${@:-sgemm reduce_sum softmax transpose layernorm}; do
	run=$(cko-init --workload "$w" --max-iterations 0 --results "$R") || exit 3
	make -C "$run" -f run.mk props.json cases/index.json reference/bench.json >"$run/prepare.log" 2>&1 ||
		{ echo "$w: preparing failed (see $run/prepare.log)" >&2; tail -5 "$run/prepare.log" >&2; exit 1; }
	c=$run/iter-000/c0
	for tools in $bin PATH; do
		[ "$tools" = PATH ] && tools=
		rm -rf "$c/compile.json" "$c/kernel.cubin" "$c/requests" "$c/run.json" "$c/out" "$c/compare.json" \
			"$c/bench.json" "$c/result.json"
		sync
		s0=$(date +%s.%N)
		make -C "$run" -f run.mk ${tools:+CKO_BIN=$tools} iter-000/c0/result.json >"$run/candidate.log" 2>&1 ||
			{ echo "$w: the candidate failed (see $run/candidate.log)" >&2; tail -5 "$run/candidate.log" >&2; }
		s1=$(date +%s.%N)
		kr=$(jq '[.cases[].sets[]?.time_ms // 0] | add * (if .double then 2 else 1 end) / 1000' "$c/run.json" 2>/dev/null)
		kb=$(jq '(.warmup + .iterations) as $n | [.cases[] | (.mean_ms // 0) * $n] | add / 1000' "$c/bench.json" 2>/dev/null)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "${tools:-PATH}" \
			"$(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.2f", b - a }')" \
			"$(jq '.time_s // 0 | . * 100 | round / 100' "$c/compile.json" 2>/dev/null)" \
			"$(jq '.seconds // 0 | . * 100 | round / 100' "$c/run.json" 2>/dev/null)" \
			"$(jq '.seconds // 0 | . * 100 | round / 100' "$c/compare.json" 2>/dev/null)" \
			"$(jq '.seconds // 0 | . * 100 | round / 100' "$c/bench.json" 2>/dev/null)" \
			"$(awk -v a="${kr:-0}" -v b="${kb:-0}" 'BEGIN { printf "%.2f", a + b }')" \
			"$(awk -v a="$s0" -v b="$s1" -v r="${kr:-0}" -v k="${kb:-0}" 'BEGIN { printf "%.2f", b - a - r - k }')" \
			"$(du -sk "$c" | cut -f1)" \
			"$(jq -c '.phase_seconds // {} | map_values(. * 100 | round / 100)' "$c/run.json" 2>/dev/null)" \
			"$(jq -c '.phase_seconds // {} | map_values(. * 100 | round / 100)' "$c/bench.json" 2>/dev/null)"
		jq -r '.status' "$c/result.json" 2>/dev/null | grep -qx ok ||
			echo "$w: result.json status: $(jq -c '{status, stage, reason}' "$c/result.json" 2>/dev/null)" >&2
	done
	[ "${KEEP:-0}" = 1 ] || rm -rf "$run"
done
