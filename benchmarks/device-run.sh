#!/bin/sh
# benchmarks/device-run.sh STEP...: what a session on the GPU machine runs,
# in one call (see ../shared/device/README.md). Builds, then each step:
#   tests       the GPU tests (tests/gpu/*.sh) and the whole suite
#   core adversarial profile workloads interrupt sanitize families export
#               one GPU test each
#   overhead    per-candidate overhead: a sgemm run on 6 cases
#               (benchmarks/overhead-cases.json), 3 tuner candidates, no -j
#   sweep [TAR] every point of the sgemm space timed on square_4096
#               (benchmarks/sweep.sh; TAR: cubins compiled beforehand)
#   tune N K    a sgemm run with the built-in tuner, N iterations of K candidates
#   streamk     sgemm stream-K points beside the data-parallel best
#               (benchmarks/streamk.sh; with .device/multistage-before.cu,
#               an earlier kernel file, its best point too)
#   shapes      the same on more shapes (benchmarks/shapes-cases.json), the
#               best points of each kernel (benchmarks/shapes-points.json)
#   pipeline    a real sgemm run (3 iterations x 4), extended to 4 while being
#               killed with -9 twice, then resumed; history checked
#   cost [W...] one candidate, compile to result.json, on each workload
#               (benchmarks/candidate-cost.sh); with .device/before.tar (a
#               git archive of an earlier commit) that build first, then this
#   demo-stop   a 12-iteration sgemm tuner run with the budget's stop, then
#               the same run made to the end with STOP=off (issue 19)
#   memory      two sgemm tuner runs on a fresh memory store (3 x 4, then 1 x 4)
#   llm         tests/cli/run-llm.sh with the real GPU tools (fake model server)
#   demo        make demo
# Logs and run summaries are packed into $OUT/device-logs.tar.gz.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 3
. .device/setup.sh >/dev/null
OUT=${OUT:-/tmp/out}
L=/tmp/device-logs
# Inputs of the memory-bound workloads are gigabytes: keep them in memory.
export TMPDIR=/dev/shm
mkdir -p "$OUT" "$L"
start=$(date +%s)
make -j16 >"$L/build.log" 2>&1 || { tail -40 "$L/build.log"; exit 1; }
export PATH="$top/bin:$PATH" VERBOSE=1 CKO_KEEP_LOGS=$L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader
pack() { tar czf "$OUT/device-logs.tar.gz" -C /tmp device-logs 2>/dev/null; }
trap pack EXIT
t() { echo "== $1 at $(( $(date +%s) - start )) s"; }
while [ $# -gt 0 ]; do
	step=$1; shift
	pack
	t "$step"
	case $step in
	tests) timeout 500 sh tests/run 2>&1 | tee "$L/tests.log" | grep -v '^ok ' | tail -60 ;;
	core|adversarial|profile|workloads|interrupt|sanitize|families|export) timeout "${STEP_TIMEOUT:-500}" sh tests/run "gpu/$step" 2>&1 | tee "$L/$step.log" | grep -v '^ok ' ;;
	tune)
		n=$1 k=$2; shift 2
		run=$(cko-init --workload sgemm --max-iterations "$n" --candidates "$k" --strategy "${STRATEGY:-auto}" --results /tmp/results)
		timeout 560 make -C "$run" -f run.mk -j4 >"$L/tune.log" 2>&1; echo "make: $?"
		tail -12 "$L/tune.log"
		mkdir -p "$L/tune"
		cp "$run/history.json" "$run/summary.json" "$L/tune/" 2>/dev/null
		for c in "$run"/iter-*/c*; do
			id=$(echo "$c" | sed 's|.*/\(iter-[0-9]*\)/\(c[0-9]*\)|\1-\2|')
			cp "$c/compile.json" "$L/tune/$id-compile.json" 2>/dev/null
			cp "$c/run.json" "$L/tune/$id-run.json" 2>/dev/null
		done
		jq -r '.candidates[] | [.id, .status, (.stage // "-"), (.geomean_ms // 0), ((.defines // {}) | tostring), ((.reason // "") | .[0:120])] | @tsv' "$run/history.json"
		;;
	pipeline)
		R=/dev/shm/results; rm -rf "$R"
		run=$(cko-init --workload sgemm --max-iterations 3 --candidates 4 --results "$R")
		s0=$(date +%s)
		timeout 150 make -C "$run" -f run.mk -j4 >"$L/pipeline.log" 2>&1; echo "complete run: make $?, $(( $(date +%s) - s0 )) s"
		cko-rank --print "$run/summary.json"
		cat "$run"/iter-00[0-3]/c*/result.json | md5sum >"$L/before.md5"
		for d in 5 9; do
			setsid make -C "$run" -f run.mk -j4 ITER=4 >>"$L/pipeline.log" 2>&1 &
			p=$!; sleep $d; kill -9 -$p 2>/dev/null; wait $p 2>/dev/null
			echo "killed make -9 after $d s: $(ls -d "$run"/iter-004/c*/result.json 2>/dev/null | wc -l) of 4 new results"
		done
		timeout 60 make -C "$run" -f run.mk -j4 ITER=4 >>"$L/pipeline.log" 2>&1; echo "resumed ITER=4: make $?"
		cat "$run"/iter-00[0-3]/c*/result.json | md5sum | cmp -s - "$L/before.md5" && echo "earlier results unchanged" || echo "EARLIER RESULTS CHANGED"
		make -C "$run" -f run.mk -q ITER=4; echo "make -q: $?"
		jq -r '.candidates[] | [.id, .status, (.stage // "-"), (.geomean_ms // 0), ((.defines // {}) | tostring)] | @tsv' "$run/history.json"
		cko-rank --print "$run/summary.json"
		mkdir -p "$L/pipeline"
		cp "$run/history.json" "$run/summary.json" "$run/baseline.json" "$run/props.json" "$run/reference/bench.json" "$L/pipeline/" 2>/dev/null
		for c in "$run"/iter-*/c*; do
			id=$(echo "$c" | sed 's|.*/\(iter-[0-9]*\)/\(c[0-9]*\)|\1-\2|')
			for f in compile run compare bench; do cp "$c/$f.json" "$L/pipeline/$id-$f.json" 2>/dev/null; done
		done
		;;
	overhead)
		R=/dev/shm/overhead; rm -rf "$R"
		run=$(cko-init --workload sgemm --input-cases benchmarks/overhead-cases.json --max-iterations 1 --candidates 3 \
			--strategy random --seed 3 --results "$R")
		s0=$(date +%s)
		timeout 400 make -C "$run" -f run.mk >"$L/overhead.log" 2>&1; echo "make: $?, $(( $(date +%s) - s0 )) s"
		sh benchmarks/overhead.sh "$run" | tee "$L/overhead.tsv"
		mkdir -p "$L/overhead"
		for c in "$run"/iter-*/c*; do
			id=$(echo "$c" | sed 's|.*/\(iter-[0-9]*\)/\(c[0-9]*\)|\1-\2|')
			for f in compile run compare bench; do cp "$c/$f.json" "$L/overhead/$id-$f.json" 2>/dev/null; done
		done
		cp "$run/history.json" "$run/summary.json" "$L/overhead/" 2>/dev/null
		rm -rf "$R"
		;;
	sweep) d=${1:-}; [ $# -gt 0 ] && shift; timeout 560 sh benchmarks/sweep.sh "$L/sweep" "$d" ;;
	cost)
		ws=
		while [ $# -gt 0 ] && [ -d "workloads/$1" ]; do ws="$ws $1"; shift; done
		before=
		if [ -f .device/before.tar ]; then
			rm -rf /tmp/before && mkdir -p /tmp/before && tar xf .device/before.tar -C /tmp/before &&
				make -C /tmp/before -j16 >"$L/before-build.log" 2>&1 && before=/tmp/before/bin ||
				{ echo "the earlier build failed"; tail -20 "$L/before-build.log"; }
		fi
		RESULTS=/dev/shm/cost timeout "${STEP_TIMEOUT:-560}" sh benchmarks/candidate-cost.sh ${before:+-B $before} $ws |
			tee "$L/cost.tsv"
		;;
	demo-stop)
		# The budget's stop on the demo's workload (issue 19): a run of
		# DEMO_STOP_ITER iterations with the default stop (the tuner's
		# patience 5, 1% gain); then its stopped iterations removed and made
		# again with STOP=off, so the same run goes on to the whole budget.
		# Both: why it ended, the best, the GPU seconds (run + bench).
		R=/dev/shm/demo-stop; rm -rf "$R"
		n=${DEMO_STOP_ITER:-12}
		run=$(cko-init --workload sgemm --max-iterations "$n" --candidates 4 --no-memory --run-dir "$R")
		s0=$(date +%s)
		timeout 300 make -C "$run" -f run.mk >"$L/demo-stop-a.log" 2>&1; echo "with the stop: make $?, $(( $(date +%s) - s0 )) s"
		jq -c '{ended, best, best_geomean_ms, fraction_of_baseline, budget}' "$run/summary.json"
		mkdir -p "$L/demo-stop"; cp "$run/summary.json" "$L/demo-stop/summary-stop.json"; cp "$run/history.json" "$L/demo-stop/history-stop.json"
		ran=$(jq '.budget.iterations_run' "$run/summary.json")
		i=$((ran + 1))
		while [ "$i" -le "$n" ]; do rm -rf "$run/$(printf 'iter-%03d' "$i")"; i=$((i + 1)); done
		s0=$(date +%s)
		timeout 300 make -C "$run" -f run.mk STOP=off >"$L/demo-stop-b.log" 2>&1; echo "then STOP=off: make $?, $(( $(date +%s) - s0 )) s"
		jq -c '{ended, best, best_geomean_ms, fraction_of_baseline, budget}' "$run/summary.json"
		cp "$run/summary.json" "$L/demo-stop/summary-full.json"; cp "$run/history.json" "$L/demo-stop/history-full.json"
		jq -r '[.candidates[] | select(.status == "ok")] | group_by(.iteration) | map("\(.[0].iteration): \(map(.geomean_ms) | min)") | join(", ")' "$run/history.json"
		rm -rf "$R"
		;;
	memory)
		# Two sgemm tuner runs on a fresh store: the second starts from the
		# first's best (iteration 1's c0, proposer memory).
		export CKO_MEMORY_DIR=/dev/shm/mem-store; rm -rf "$CKO_MEMORY_DIR" /dev/shm/mem-a /dev/shm/mem-b
		for r in a:3 b:1; do
			run=$(cko-init --workload sgemm --max-iterations "${r#*:}" --candidates 4 --run-dir "/dev/shm/mem-${r%%:*}")
			s0=$(date +%s)
			timeout 200 make -C "$run" -f run.mk >"$L/memory-${r%%:*}.log" 2>&1; echo "run ${r%%:*}: make $?, $(( $(date +%s) - s0 )) s"
		done
		jq -c '{best, best_geomean_ms, ended}' /dev/shm/mem-a/summary.json /dev/shm/mem-b/summary.json
		jq -c '.candidates[] | select(.iteration == 1) | [.id, .proposer, .memory, .status, .geomean_ms]' /dev/shm/mem-b/history.json
		cmp /dev/shm/mem-a/best.cu /dev/shm/mem-b/iter-001/c0/kernel.cu && echo "mem-b c0 is mem-a's best.cu"
		jq -c . /dev/shm/mem-b/memory-seed.json | cut -c1-300
		mkdir -p "$L/memory"; cp /dev/shm/mem-a/summary.json "$L/memory/a-summary.json"; cp /dev/shm/mem-b/summary.json "$L/memory/b-summary.json"
		cp /dev/shm/mem-b/history.json "$L/memory/b-history.json"; unset CKO_MEMORY_DIR
		;;
	llm) CKO_REAL_GPU=1 timeout 60 sh tests/run run-llm 2>&1 | tee "$L/llm.log" | grep -v '^ok ' ;;
	streamk)
		b=; [ -f .device/multistage-before.cu ] && b=.device/multistage-before.cu
		timeout "${STEP_TIMEOUT:-300}" sh benchmarks/streamk.sh "$L/streamk" $b ;;
	shapes)
		STREAMK_CASES=benchmarks/shapes-cases.json STREAMK_POINTS=benchmarks/shapes-points.json STREAMK_MAKE_ARGS=-j4 \
			STREAMK_DIR=/dev/shm/shapes timeout "${STEP_TIMEOUT:-400}" sh benchmarks/streamk.sh "$L/shapes" ;;
	demo)
		timeout 560 make demo 2>&1 | tee "$L/demo.log" | tail -25
		mkdir -p "$L/demo" && cp results/demo-run/history.json results/demo-run/summary.json "$L/demo/" 2>/dev/null ;;
	*) echo "unknown step $step" ;;
	esac
done
t done
