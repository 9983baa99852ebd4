# tests/data/llm/fake.sh: helpers for the cko-llm tests (sourced after
# tests/lib.sh). Starts tests/fake_openai.py with a script, writes a config
# that points at it, and stops it.
FAKE_PY=$CKO_TOP/tests/fake_openai.py
LLMDATA=$CKO_TOP/tests/data/llm
# A made-up key: tests grep every file for it.
FAKE_KEY=sk-test-FAKEKEY-0123456789abcdefghij
export CKO_PROMPTS="$CKO_TOP/prompts"
# The fake server is local: no proxy may stand between.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy
export no_proxy=127.0.0.1 NO_PROXY=127.0.0.1
# No key from the environment or a .env unless a test sets one.
unset OPENAI_API_KEY
export CKO_DOTENV=

have_python() { command -v python3 >/dev/null 2>&1; }

# fake_start SCRIPT.json: starts the server; sets PORT, FAKE_PID, REQ (its log).
fake_start() {
	rm -f "$T/port"
	REQ=$T/requests.jsonl
	FAKE_EXPECT_KEY=$FAKE_KEY python3 "$FAKE_PY" --script "$1" --port-file "$T/port" --log "$REQ" \
		--idle-exit 60 &
	FAKE_PID=$!
	i=0
	while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	PORT=$(cat "$T/port" 2>/dev/null)
	[ -n "$PORT" ] && return 0
	fail fake-server "tests/fake_openai.py did not start with $1"
	return 1
}

fake_stop() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null && wait "$FAKE_PID" 2>/dev/null
	FAKE_PID=
}

# fake_config [JQ-OBJECT]: $T/config.json pointing at the server, merged with
# the given fields. Waits are short so the tests run fast.
fake_config() {
	extra=$1
	[ -n "$extra" ] || extra='{}'
	jq -n --arg u "http://127.0.0.1:$PORT/v1" --argjson extra "$extra" \
		'{base_url: $u, model: "fake-model", timeout_s: 5, connect_timeout_s: 2, max_retries: 3,
		  retry_base_s: 0, retry_max_s: 0.05, prices: {prompt: 1.25, cached: 0.125, completion: 10}} + $extra' \
		>"$T/config.json"
}

# answer_json: a structured kernel answer from the test kernel and wire launch.
answer_json() {
	jq -n --rawfile k "$LLMDATA/kernel.cu" --slurpfile l "$LLMDATA/launch-wire.json" \
		'{note: "one thread per element", kernel: $k, launch: $l[0]}'
}

# req N FILTER: the jq filter applied to the N-th request (0-based) the server got.
req() { sed -n "$(($1 + 1))p" "$REQ" | jq -c "$2"; }
nreq() { wc -l <"$REQ" | tr -d ' '; }

# no_key_in FILES...: fails when the fake key is in any of them.
no_key_in() {
	if grep -l -r -F -- "$FAKE_KEY" "$@" >"$T/leaks" 2>/dev/null; then
		fail "$CHECK" "the key is in $(tr '\n' ' ' <"$T/leaks")"
	else
		ok "$CHECK"
	fi
}

# A whole run with the fake server as the model (run-llm.sh, run-edit.sh):
# the test workload's copy kernel, broken (it does not compile) and correct,
# and its launch rules as the model sends them.
RUN_BROKEN='extern "C" __global__ void copy(const float *x, float *y, int n) { y[0] = undefined_name; }'
RUN_COPY='extern "C" __global__ void copy(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i];
}'
RUN_WIRE='{"defines": [{"name": "BLOCK", "value": 256}], "grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"], "smem": null, "overrides": null, "tunables": null, "constraints": null}'

# fake_run_setup NAME [real-gpu]: NAME skips without python3; else the test
# works in $T, with bin/ holding the tools and tests/fake-gpu's GPU tools
# (with real-gpu and CKO_REAL_GPU=1: the real ones, or NAME skips without a
# GPU), and the fake key in the environment.
fake_run_setup() {
	have_python || { skip "$1" "no python3"; finish; }
	cd "$T" || exit 1
	if [ "$2" = real-gpu ] && [ "${CKO_REAL_GPU:-0}" = 1 ]; then
		mkdir -p bin
		for _f in "$CKO_BIN"/cko-*; do ln -s "$_f" bin/; done
		have_gpu || { skip "$1" "CKO_REAL_GPU=1 but no GPU"; finish; }
	else
		fake_gpu_bin bin
	fi
	export CKO_LOCK_DIR=$T/locks OPENAI_API_KEY=$FAKE_KEY
}

# fake_run_init NOTE1 NOTE2 NOTE3: starts the server with three answers
# (the broken kernel, then the correct one twice, 0.5 ms on the fake GPU
# tools, with these notes) and makes the run (2 iterations of the model,
# hidden seed 3) from cfg.json; sets run.
fake_run_init() {
	jq -n -c --arg b "$RUN_BROKEN" --arg f "// FAKE: ok time=0.5
$RUN_COPY" --argjson l "$RUN_WIRE" --arg n1 "$1" --arg n2 "$2" --arg n3 "$3" '[
		{json: {note: $n1, kernel: $b, launch: $l}},
		{json: {note: $n2, kernel: $f, launch: $l}},
		{json: {note: $n3, kernel: $f, launch: $l}}]' >"$T/script.json"
	fake_start "$T/script.json" || finish
	fake_config
	jq '{max_iterations: 2, model_settings: .}' "$T/config.json" >cfg.json
	run=$(init_test_run --config cfg.json --hidden-seed 3 --results "$T/r")
}
