#!/bin/sh
# benchmarks/overhead.sh RUN: per-candidate time outside the kernels, from a
# finished run's files. For each verified candidate: the
# seconds of each step (history.json), the kernel time inside them (cko-run:
# two launches per input set; cko-bench: warm-up + timed launches at their
# mean), and where cko-run's and cko-bench's host time went (phase_seconds).
# Run it on a run made without -j, so that the steps do not overlap.
run=${1:?usage: benchmarks/overhead.sh RUN}
[ -f "$run/history.json" ] || { echo "overhead.sh: $run/history.json: no such file" >&2; exit 2; }
printf 'candidate\tcompile\trun\tcompare\tbench\ttotal\tkernel\toverhead\n'
for id in $(jq -r '.candidates[] | select(.status == "ok") | .id' "$run/history.json"); do
	c=$run/$id
	kr=$(jq '[.cases[].sets[]?.time_ms // 0] | add * 2 / 1000' "$c/run.json")
	kb=$(jq '[.cases[] | (.mean_ms // 0) * ($w + $n)] | add / 1000' --argjson w "$(jq ".warmup // 0" "$c/bench.json")" \
		--argjson n "$(jq ".iterations // 0" "$c/bench.json")" "$c/bench.json")
	jq -r --arg id "$id" --argjson kr "$kr" --argjson kb "$kb" '.candidates[] | select(.id == $id) | .seconds |
		[$id, .compile, .run, .compare, .bench, (.compile + .run + .compare + .bench), ($kr + $kb),
		 (.compile + .run + .compare + .bench - $kr - $kb)] | map(if type == "number" then (. * 1000 | round / 1000) else . end) | @tsv' \
		"$run/history.json"
done
echo
echo "host seconds by phase (phase_seconds), per tool and candidate:"
for id in $(jq -r '.candidates[] | select(.status == "ok") | .id' "$run/history.json"); do
	for t in run bench; do
		printf '%s\t%s\t%s\n' "$id" "$t" "$(jq -c '.phase_seconds // {} | map_values(. * 1000 | round / 1000)' "$run/$id/$t.json")"
	done
done
