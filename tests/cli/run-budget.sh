# The speed-of-light headroom and the budget, through the run
# makefile with fake GPU tools and the fake model server. The workload
# (tests/data/sol) has two performance cases: big, compute-bound (4.096e9
# FLOP at the fake GPU's measured 60 TFLOP/s: 0.0682667 ms) and big2,
# memory-bound (5.24288e8 bytes at its measured 4250 GB/s: 0.123362 ms).
# The model improves slowly: 0.5 ms, 0.2 ms, then 0.072 / 0.13 ms (94.8% and
# 94.9% of the speed of light), so iteration 4 on is stopped ("sol"). The
# tuner on the copy workload runs out of gains and stops ("no_gain").
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
have_python || { skip run-budget "no python3"; finish; }
D=$DATA/run
cd "$T" || exit 1
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks OPENAI_API_KEY=$FAKE_KEY CKO_MEMORY_DIR=$T/memory
mk() { d=$1; shift; make -C "$d" -f run.mk CKO_BIN="$T/bin" "$@"; }
# near A B: the numbers differ by less than 1e-6 of B
near() { jq -n --argjson a "$1" --argjson b "$2" '($a - $b) * ($a - $b) < 1e-12 * $b * $b'; }

kern() { printf '// FAKE: ok %s\nextern "C" __global__ void copy(const float *x, float *y, int n)\n{\n\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\ty[i] = x[i];\n}\n' "$1"; }
wire='{"defines": [{"name": "BLOCK", "value": 256}], "grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"], "smem": null, "overrides": null, "tunables": null, "constraints": null}'
jq -n -c --arg a "$(kern time=0.5)" --arg b "$(kern time=0.2)" --arg c "$(kern 'time=0.072 time.big2=0.13')" \
	--arg d "$(kern 'time=0.07 time.big2=0.125')" --argjson l "$wire" '[
	{json: {note: "first", kernel: $a, launch: $l}},
	{json: {note: "second", kernel: $b, launch: $l}},
	{json: {note: "third: near the speed of light", kernel: $c, launch: $l}},
	{json: {note: "asked after STOP=off", kernel: $d, launch: $l}}]' >script.json
fake_start "$T/script.json" || finish
fake_config
jq '{max_iterations: 6, model_settings: .}' "$T/config.json" >cfg.json
run=$(init_test_run --config cfg.json --input-cases "$DATA/sol/cases.json" --hidden-seed 3 --results "$T/r")
expect_jq run-budget/config '.budget == {sol_stop: 0.9, patience: 3, min_gain: 0.01}' "$run/config.json"
expect_grep run-budget/run-mk '^SOL_STOP    := 0.9$' "$run/run.mk"
expect_status run-budget/make 0 mk "$run"

# Headroom after iteration 1 (best 0.5 ms on both cases), most headroom first.
H2=$run/iter-002/history.json
expect_jq run-budget/sol-order '[.sol.cases[].case] == ["big", "big2"] and .sol.candidate == "iter-001/c0"' "$H2"
expect_jq run-budget/sol-bounds '[.sol.cases[].bound] == ["compute", "memory"] and .sol.fp32_tflops == 60 and .sol.memory_gbps == 4250' "$H2"
expect_eq run-budget/sol-big "$(near "$(jq .sol.cases[0].sol_ms "$H2")" 0.068266666667)" true
expect_eq run-budget/sol-big-fraction "$(near "$(jq .sol.cases[0].fraction "$H2")" 0.136533333333)" true
expect_eq run-budget/sol-big2 "$(near "$(jq .sol.cases[1].sol_ms "$H2")" 0.123361882353)" true
expect_eq run-budget/sol-big2-fraction "$(near "$(jq .sol.cases[1].fraction "$H2")" 0.246723764706)" true
expect_eq run-budget/sol-min "$(near "$(jq .sol.min_fraction "$H2")" 0.136533333333)" true
expect_jq run-budget/not-stopped-yet '.stop == null' "$H2"
jq -r '.messages[-1].content' "$run/iter-002/prompt.json" >prompt2.txt
expect_grep run-budget/context-headroom '^\| big \| 0\.5 \| 0\.06827 \| compute \| 13\.7% \|$' prompt2.txt
expect_grep run-budget/context-headroom2 '^\| big2 \| 0\.5 \| 0\.1234 \| memory \| 24\.7% \|$' prompt2.txt
expect_grep run-budget/prompt-says-headroom "the cases with the most headroom \\(lowest achieved\\)" prompt2.txt

# The stop: iteration 4 and later asked nothing and say why.
H4=$run/iter-004/history.json
expect_jq run-budget/stop-sol '.stop.ended == "sol" and .stop.iteration == 4 and (.stop.reason | test("speed-of-light"))' "$H4"
expect_jq run-budget/stop-sticky '.stop.ended == "sol" and .stop.iteration == 4' "$run/iter-006/history.json"
expect_eq run-budget/three-requests "$(nreq)" 3
expect_jq run-budget/stopped-proposal '.status == "stopped" and .ended == "sol" and .proposer == "budget"' "$run/iter-005/c0/proposal.json"
expect_jq run-budget/stopped-result '.status == "skipped" and .stage == "budget" and .stopped == "sol"' "$run/iter-006/c0/result.json"
[ ! -e "$run/iter-004/usage-0.json" ] && ok run-budget/no-usage-when-stopped || fail run-budget/no-usage-when-stopped "iter-004/usage-0.json"
S=$run/summary.json
expect_jq run-budget/summary-ended '.ended == "sol" and .budget.iterations == 6 and .budget.iterations_run == 3 and .budget.iterations_stopped == 3' "$S"
expect_jq run-budget/summary-tokens '.budget.tokens == 3600 and .budget.tokens_saved == 3600 and .budget.gpu_seconds > 0' "$S"
expect_jq run-budget/summary-sol '.best == "iter-003/c0" and .sol.candidate == "iter-003/c0" and .sol.min_fraction >= 0.9 and (.sol.cases | length) == 2' "$S"
expect_status run-budget/complete 0 mk "$run" -q
# A vendor baseline faster than the best on one case proves headroom: the
# speed-of-light stop does not fire (the measured rates may be a few
# percent off); one slower than the best does not hold it back.
(cd "$run" && jq -n '{cases: [{case: "big", status: "ok", check: "ok", median_ms: 0.07}]}' >baseline.json &&
	cko-rank --run . --upto 3 --sol-stop 0.9 --patience 3 -o "$T/h-behind.json" 2>/dev/null &&
	jq -n '{cases: [{case: "big", status: "ok", check: "ok", median_ms: 0.08}]}' >baseline.json &&
	cko-rank --run . --upto 3 --sol-stop 0.9 --patience 3 -o "$T/h-ahead.json" 2>/dev/null; rm -f baseline.json)
expect_jq run-budget/sol-behind-baseline '.stop == null and .sol.min_fraction >= 0.9 and .sol.cases[0].baseline_ms == 0.07' "$T/h-behind.json"
expect_jq run-budget/sol-ahead-of-baseline '.stop.ended == "sol" and .stop.iteration == 4' "$T/h-ahead.json"

# A larger ITER after the stop stays stopped; STOP=off runs on.
expect_status run-budget/iter7 0 mk "$run" ITER=7
expect_eq run-budget/still-three "$(nreq)" 3
expect_jq run-budget/iter7-stopped '.status == "stopped"' "$run/iter-007/c0/proposal.json"
expect_status run-budget/resume 0 mk "$run" ITER=8 STOP=off
expect_eq run-budget/resume-asks "$(nreq)" 4
expect_jq run-budget/resume-ran '.status == "ok" and .geomean_ms > 0' "$run/iter-008/c0/result.json"
expect_jq run-budget/resume-summary '.best == "iter-008/c0" and .ended == "sol" and .budget.iterations_stopped == 4' "$S"
expect_status run-budget/resume-complete 0 mk "$run" -q ITER=8 STOP=off
fake_stop

# The tuner: the best geomean goes 5, 2.5, 2, 1.5, 1, then 1.5 and 2 bring
# nothing; with --patience 2 iterations 7 and 8 are stopped ("no_gain").
tune_run() {
	r=$1; shift
	cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--space "$D/space.json" --max-iterations 8 --seed 7 --hidden-seed 11 --no-memory "$@" --results "$r"
}
# The tuner's default patience is 5 (its gains come in jumps), a model's 3
# (above); --patience sets either.
dr=$(tune_run "$T/d")
expect_jq run-budget/tune-default-patience '.budget == {sol_stop: 0.9, patience: 5, min_gain: 0.01}' "$dr/config.json"
expect_grep run-budget/tune-default-mk '^PATIENCE    := 5$' "$dr/run.mk"
expect_grep run-budget/tune-given-mk '^PATIENCE    := 3$' "$(tune_run "$T/e" --patience 3)/run.mk"
tune_run() {
	cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--space "$D/space.json" --max-iterations 8 --seed 7 --hidden-seed 11 --no-memory --patience 2 --results "$1"
}
tr=$(tune_run "$T/t")
expect_status run-budget/tune-make 0 mk "$tr"
expect_jq run-budget/tune-geomeans '[.candidates[] | .geomean_ms] == [5, 2.5, 2, 1.5, 1, 1.5, 2, null, null]' "$tr/history.json"
expect_jq run-budget/tune-stop '.stop.ended == "no_gain" and .stop.iteration == 7 and (.stop.reason | test("2 iterations in a row"))' "$tr/iter-007/history.json"
expect_jq run-budget/tune-stopped '[.candidates[-2:][] | .stopped] == ["no_gain", "no_gain"]' "$tr/history.json"
expect_jq run-budget/tune-summary '.ended == "no_gain" and .budget.iterations_stopped == 2 and .budget.tokens_saved == 0 and .best == "iter-004/c0"' "$tr/summary.json"
expect_status run-budget/tune-complete 0 mk "$tr" -q

# Killed with -9 while running and made again: the same history as the
# uninterrupted run (wall-clock fields aside).
kr=$(tune_run "$T/k")
files() { find "$1" -name '*.json' ! -name '*.tmp*' | wc -l; }
total=$(files "$tr") landed=0
for i in 1 2 3 4 5; do
	FAKE_GPU_SLEEP=0.2 setsid make -C "$kr" -f run.mk CKO_BIN="$T/bin" >/dev/null 2>&1 &
	pid=$!
	while [ "$(files "$kr")" -lt $((total * i / 6)) ] && kill -0 $pid 2>/dev/null; do sleep 0.05; done
	kill -9 -$pid 2>/dev/null
	wait $pid 2>/dev/null
	[ $? -eq 137 ] && landed=$((landed + 1))
done
echo "info run-budget: $landed of 5 kills landed"
expect_status run-budget/kill-resume 0 mk "$kr"
strip() { jq -S 'del(.. | .seconds?) | del(.. | .gpu_seconds?)' "$1"; }
strip "$tr/history.json" >h1.json
strip "$kr/history.json" >h2.json
cmp -s h1.json h2.json && ok run-budget/kill-same-history ||
	fail run-budget/kill-same-history "$(diff h1.json h2.json | head -c 400)"
expect_jq run-budget/kill-summary '.ended == "no_gain" and .budget.iterations_stopped == 2' "$kr/summary.json"
finish
