# A whole run with the model as the proposer, through the run
# makefile: the fake Chat Completions server plays the model and fake GPU
# tools stand in for cko-props/cko-run/cko-bench (make mechanics only). The
# first proposal does not compile; the second (a repair prompt that shows
# the compile error) is correct and faster, and wins. Responses are never
# asked for again unless deleted; no key lands in any file.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
fake_run_setup run-llm real-gpu
fake_run_init "vectorized copy" \
	"declared the missing name away: plain copy with 256 threads" \
	"asked again after the response was deleted"
expect_jq run-llm/proposer '.proposer == "llm" and .model_settings.model == "fake-model"' "$run/config.json"
expect_status run-llm/make 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"
H=$run/history.json
expect_jq run-llm/broken-recorded '.candidates[1].id == "iter-001/c0" and .candidates[1].status == "invalid" and .candidates[1].stage == "compile"' "$H"
expect_jq run-llm/repair-template '.template == "repair"' "$run/iter-002/meta.json"
jq -r '.messages[-1].content' "$run/iter-002/prompt.json" >prompt2.txt
expect_grep run-llm/repair-sees-error 'undefined_name' prompt2.txt
expect_jq run-llm/repaired-verified '.candidates[2].id == "iter-002/c0" and .candidates[2].status == "ok" and .candidates[2].proposer == "cko-llm"' "$H"
expect_jq run-llm/best-is-fastest-verified '.best as $b | [.candidates[] | select(.status == "ok")] | min_by(.geomean_ms) | .id == $b' "$H"
[ "${CKO_REAL_GPU:-0}" = 1 ] || expect_jq run-llm/repaired-wins '.best == "iter-002/c0" and .candidates[2].geomean_ms == 0.5' "$H"
echo "info run-llm: $(jq -c '[.candidates[] | {id, status, geomean_ms}]' "$H")"
expect_jq run-llm/tokens-counted '.tokens.prompt_tokens == 2000 and .tokens.cost_usd > 0' "$run/summary.json"
expect_eq run-llm/two-requests "$(nreq)" 2

# Again: nothing is asked or remade.
touch -d '1 hour ago' "$run/iter-002/response-0.json"
before=$(stat -c %Y "$run/iter-002/response-0.json")
expect_status run-llm/idempotent 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"
expect_eq run-llm/no-new-requests "$(nreq)" 2
expect_eq run-llm/response-kept "$(stat -c %Y "$run/iter-002/response-0.json")" "$before"
# A prompt rewritten with the same content does not look newer.
p1=$(stat -c %Y "$run/iter-002/prompt.json")
rm "$run/iter-002/context.md"
make -C "$run" -f run.mk CKO_BIN="$T/bin" >/dev/null 2>&1
expect_eq run-llm/prompt-unchanged "$(stat -c %Y "$run/iter-002/prompt.json")" "$p1"
expect_eq run-llm/still-two-requests "$(nreq)" 2
# Deleting a response asks again.
rm "$run/iter-002/response-0.json"
expect_status run-llm/reask 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"
expect_eq run-llm/three-requests "$(nreq)" 3
fake_stop
CHECK=run-llm/no-key-in-run no_key_in "$run"
finish
