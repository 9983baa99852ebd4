# The run makefile's mechanics, with fake GPU tools standing in for
# cko-props, cko-run and cko-bench (tests/fake-gpu/README): a complete run,
# extension with a larger ITER, kill -9 and resume with the same history,
# recorded failures, trouble (exit 3) stopping make, make -j under the GPU
# lock, make -q and make -n.
. "$(dirname "$0")/../lib.sh"
D=$DATA/run
for t in cko-gen cko-tune cko-init cko-rank; do
	command -v $t >/dev/null || { skip run-make "$t is not built"; finish; }
done
cd "$T" || exit 1
mkdir -p bin
for f in "$CKO_BIN"/cko-*; do ln -s "$f" bin/; done
for f in cko-props cko-run cko-bench cko-profile; do rm -f bin/$f; cp "$CKO_TOP/tests/fake-gpu/$f" bin/$f; done
cp "$CKO_TOP/tests/fake-gpu/compute-sanitizer" bin/
export COMPUTE_SANITIZER=$T/bin/compute-sanitizer
cp "$CKO_TOP/tests/fake-gpu/common.sh" bin/
export CKO_LOCK_DIR=$T/locks

new_run() { # results-dir [extra cko-init options]
	r=$1; shift
	cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--space "$D/space.json" --candidates 2 --max-iterations 3 --seed 7 --hidden-seed 11 --results "$r" "$@"
}
mk() { d=$1; shift; make -C "$d" -f run.mk CKO_BIN="$T/bin" "$@"; }
# history without the wall-clock fields, for comparing runs
strip() { jq -S 'del(.. | .seconds?)' "$1"; }

run=$(new_run "$T/a") || { fail run-make/init "cko-init failed"; finish; }
expect_eq run-make/init-first "$run" "$T/a/run-001"
[ -f "$run/run.mk" ] && [ -f "$run/workload/space.json" ] && [ -f "$run/workload/kernels/copy.cu" ] &&
	[ -f "$run/supplied-reference.cu" ] && ok run-make/init-files || fail run-make/init-files "$(ls -R "$run")"
expect_jq run-make/config '.proposer == "tune" and .hidden_seed == 11 and .candidates == 2' "$run/config.json"
grep -q 'api_key\|OPENAI' "$run/config.json" "$run/run.mk" && fail run-make/no-secrets "a key name in the run" || ok run-make/no-secrets

# make -n shows the plan and makes nothing
expect_status run-make/dry-run 0 mk "$run" -n
expect_grep run-make/dry-run-plan 'cko-gen --hidden-seed 11' "$T/last.out"
[ ! -e "$run/cases" ] && [ ! -e "$run/props.json" ] && ok run-make/dry-run-makes-nothing || fail run-make/dry-run-makes-nothing "files appeared"

expect_status run-make/complete 0 mk "$run"
expect_jq run-make/history-count '(.candidates | length) == 7 and .best != null and .gpu == "Fake GPU"' "$run/history.json"
expect_jq run-make/best-is-fastest '[.candidates[] | select(.status == "ok") | .geomean_ms] | min as $m | $m == 1' "$run/history.json"
expect_jq run-make/summary '.counts.candidates == 7 and .speedup_vs_reference > 1 and (.cases | length) == 1' "$run/summary.json"
[ -f "$run/best.cu" ] && [ -f "$run/best-launch.json" ] && [ -f "$run/replay/big.json" ] && [ -f "$run/replay/hidden-1.json" ] &&
	ok run-make/finalize-files || fail run-make/finalize-files "$(ls "$run")"
expect_jq run-make/replay-paths '.out == "out/big" and (.cubin | startswith("../iter-"))' "$run/replay/big.json"
expect_status run-make/question-up-to-date 0 mk "$run" -q

# ITER=5 afterwards: two more iterations, nothing before them remade
cp "$run/iter-001/c0/result.json" r1.json
before=$(stat -c %Y "$run/iter-002/c1/bench.json")
sleep 1
expect_status run-make/extend 0 mk "$run" ITER=5
expect_jq run-make/extend-count '(.candidates | length) == 11' "$run/history.json"
cmp -s r1.json "$run/iter-001/c0/result.json" && [ "$(stat -c %Y "$run/iter-002/c1/bench.json")" = "$before" ] &&
	ok run-make/extend-keeps-earlier || fail run-make/extend-keeps-earlier "earlier results remade"
expect_jq run-make/no-repeats '[.candidates[] | select(.status != "skipped") | .hash] | length == (unique | length)' "$run/history.json"

# An uninterrupted twin, then a run killed with -9 at a few points and resumed
ref=$(new_run "$T/b" --no-memory) # the twins start alike: nothing remembered
mk "$ref" ITER=5 >/dev/null 2>&1
killed=$(new_run "$T/c" --no-memory)
# 20 kills spread over the run: kill i comes a fixed short delay after the
# run has written its k_i-th JSON file, k_i = i/21 of what the twin wrote
# (fixed, so the test is repeatable; by progress, not by the clock, so a
# slow or fast machine does not let the run end before the kills)
files() { find "$1" -name '*.json' ! -name '*.tmp*' | wc -l; }
total=$(files "$ref") i=0 landed=0
for delay in 0.1 0.3 0 0.2 0.05 0.4 0.15 0.25 0 0.35 0.1 0.3 0.05 0.2 0.15 0.4 0 0.25 0.1 0.3; do
	i=$((i + 1))
	FAKE_GPU_SLEEP=0.2 setsid make -C "$killed" -f run.mk CKO_BIN="$T/bin" ITER=5 >/dev/null 2>&1 &
	pid=$!
	while [ "$(files "$killed")" -lt $((total * i / 21)) ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
	sleep $delay
	# (dash's kill takes no --: `kill -9 -- -PID` would kill nothing)
	kill -9 -$pid 2>/dev/null
	wait $pid 2>/dev/null
	[ $? -eq 137 ] && landed=$((landed + 1)) # make died of the SIGKILL, not done before it
done
echo "info run-make: $landed of 20 kills landed in a running make"
if [ $landed -ge 15 ]; then ok run-make/kills-landed
else fail run-make/kills-landed "only $landed of 20 kills landed in a running make"; fi
expect_status run-make/resume 0 mk "$killed" ITER=5
strip "$ref/history.json" >h1.json
strip "$killed/history.json" >h2.json
cmp -s h1.json h2.json && ok run-make/resume-same-history || fail run-make/resume-same-history "$(diff h1.json h2.json | head -20)"
cmp -s "$ref/best.cu" "$killed/best.cu" && ok run-make/resume-same-best || fail run-make/resume-same-best "best.cu differs"
half=$(find "$killed" -name '*.tmp*' | head -n 3)
[ -z "$half" ] || echo "info run-make: temporary files left by kill -9 (never taken as done): $half"
for f in $(find "$killed" -name '*.json' ! -name '*.tmp*'); do jq -e . "$f" >/dev/null 2>&1 || { fail run-make/no-half-files "$f"; break; }; done
ok run-make/no-half-files

# A broken candidate is recorded (status 1) and the run goes on
man=$T/proposals/iter-001/c0
mkdir -p "$man"
printf 'extern "C" __global__ void copy(const float *x, float *y, int n) { y[0] = nope; }\n' >"$man/kernel.cu"
cp "$D/launch.json" "$man/launch.json"
mkdir -p "$T/proposals/iter-002/c0"
cp "$D/kernels/wrong.cu" "$T/proposals/iter-002/c0/kernel.cu"
cp "$D/launch.json" "$T/proposals/iter-002/c0/launch.json"
mrun=$(new_run "$T/m" --proposals "$T/proposals" --candidates 1)
expect_status run-make/recorded-failures 0 mk "$mrun" ITER=3
expect_jq run-make/compile-failure-recorded '.candidates[1].status == "invalid" and .candidates[1].stage == "compile" and (.candidates[1].reason | test("nope"))' "$mrun/history.json"
expect_jq run-make/wrong-output-recorded '.candidates[2].status == "invalid" and .candidates[2].stage == "compare"' "$mrun/history.json"
expect_jq run-make/none-skipped '.candidates[3].status == "skipped"' "$mrun/history.json"

# Trouble (exit 3) stops make and leaves no target; fixed, the run resumes
trun=$(new_run "$T/t")
FAKE_RUN_EXIT=3 mk "$trun" ITER=1 >/dev/null 2>&1
st=$?
[ $st -ne 0 ] && [ ! -e "$trun/reference/run.json" ] && ok run-make/trouble-stops || fail run-make/trouble-stops "make exit $st"
expect_status run-make/trouble-resume 0 mk "$trun" ITER=1

# --use-nsight and --sanitize: profiles for the verified candidates; the
# fastest candidate has a race the sanitizer reports, so the next one is best.
pr=$T/san-proposals
mkdir -p "$pr/iter-001/c0" "$pr/iter-001/c1"
sed 's|// FAKE: ok|// FAKE: ok time=0.3 race|' "$D/kernels/copy.cu" >"$pr/iter-001/c0/kernel.cu"
sed 's|// FAKE: ok|// FAKE: ok time=0.8|' "$D/kernels/copy.cu" >"$pr/iter-001/c1/kernel.cu"
cp "$D/launch.json" "$pr/iter-001/c0/"; cp "$D/launch.json" "$pr/iter-001/c1/"
srun=$(new_run "$T/s" --proposals "$pr" --candidates 2 --use-nsight --sanitize)
expect_status run-make/nsight-sanitize 0 mk "$srun" ITER=1
[ -f "$srun/iter-001/c1/profile.json" ] && [ -f "$srun/iter-000/c0/profile.txt" ] && ok run-make/profiles-made || fail run-make/profiles-made "no profile.json"
expect_jq run-make/sanitizer-rejects-racy '.status == "ok" and .rejected == ["iter-001/c0"] and .passed == "iter-001/c1"' "$srun/sanitize.json"
expect_jq run-make/racy-not-best '.best == "iter-001/c1" and .sanitizer.rejected == ["iter-001/c0"]' "$srun/summary.json"
grep -q 'time=0.8' "$srun/best.cu" && ok run-make/best-cu-is-clean || fail run-make/best-cu-is-clean "best.cu is not iter-001/c1's"

# A pool of two GPUs: GPU steps run two at a time at most, one per slot,
# each seeing only its GPU.
prun=$(new_run "$T/p" --candidates 4)
FAKE_GPU_LOG=$T/pool.log FAKE_GPU_SLEEP=0.2 CUDA_VISIBLE_DEVICES=6,7 mk "$prun" -j6 GPUS=2 ITER=1 >/dev/null 2>&1 && ok run-make/pool || fail run-make/pool "make failed"
awk '$1 == "start" { if (busy[$5]) bad = 1; busy[$5] = 1; seen[$5] = $6 } $1 == "end" { busy[$5] = 0 }
	END { exit bad || seen[0] != 6 || seen[1] != 7 }' "$T/pool.log" &&
	ok run-make/pool-one-step-per-gpu || fail run-make/pool-one-step-per-gpu "$(head -12 "$T/pool.log")"

# make -j: GPU steps never overlap (they hold the lock), the rest runs in parallel
jrun=$(new_run "$T/j" --candidates 3)
FAKE_GPU_LOG=$T/gpu.log FAKE_GPU_SLEEP=0.1 mk "$jrun" -j4 ITER=2 >/dev/null 2>&1 && ok run-make/parallel || fail run-make/parallel "make -j4 failed"
awk '$1 == "start" { if (busy) bad = 1; busy = 1 } $1 == "end" { busy = 0 } END { exit bad }' "$T/gpu.log" &&
	ok run-make/parallel-gpu-serialized || fail run-make/parallel-gpu-serialized "overlapping GPU steps: $(head -20 "$T/gpu.log")"
expect_jq run-make/parallel-count '(.candidates | length) == 7' "$jrun/history.json"
finish
