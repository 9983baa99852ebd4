# Degrading: a server that rejects response_format (or another optional
# field) gets the request again without it; fenced replies are taken apart
# into kernel, launch and note.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-fenced "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
# A fenced reply: prose, the kernel, the launch (launch.json form).
{
	echo "I tiled the kernel by 32 x 8 threads."
	echo
	echo '```cuda'
	cat "$LLMDATA/kernel.cu"
	echo '```'
	echo
	echo 'And the launch rules:'
	echo
	echo '```json'
	cat "$LLMDATA/launch.json"
	echo '```'
} >"$T/fenced.md"
FENCED=$(jq -n -c --rawfile c "$T/fenced.md" '{content: $c}')

run() { # NAME STATUS 'ENTRIES' [CONFIG]
	printf '[%s]\n' "$3" >"$T/script.json"
	fake_start "$T/script.json" || return
	fake_config "$4"
	rm -rf "$T/o" && mkdir "$T/o"
	expect_status "$1" "$2" cko-llm ask -c "$T/config.json" --transcript "$T/o/transcript.json" \
		-o "$T/o/response.json" "$T/prompt.json"
	fake_stop
}
R=$T/o/response.json

run llm-fenced-fallback 0 '{"status": 400, "error": {"message": "Invalid parameter: response_format of type json_schema is not supported with this model", "param": "response_format", "code": null}}, '"$FENCED"
expect_eq llm-fenced-two-requests "$(nreq)" 2
expect_eq llm-fenced-first-structured "$(req 0 '.body.response_format.type')" '"json_schema"'
expect_eq llm-fenced-second-plain "$(req 1 '.body | has("response_format")')" false
expect_eq llm-fenced-instructions "$(req 1 '.body.messages[-1].content | test("```cuda")')" true
expect_eq llm-fenced-rest-kept "$(req 1 '.body.reasoning_effort')" '"medium"'
expect_jq llm-fenced-mode '.mode == "fenced" and .extracted_from == "fenced"' "$R"
expect_jq llm-fenced-kernel '.answer.kernel | test("extern \"C\" __global__ void __launch_bounds__\\(1024\\) scale2d")' "$R"
expect_jq llm-fenced-launch '.answer.launch.defines == {"BX": 32, "BY": 8} and .answer.launch.block == ["BX", "BY"]' "$R"
expect_jq llm-fenced-note '.answer.note | test("^I tiled the kernel") and test("launch rules") and (test("```") | not)' "$R"
expect_jq llm-fenced-degrade-event '[.events[] | select(.type == "degrade")][0].dropped == ["response_format"]' "$T/o/transcript.json"

# structured: json_schema insists: no fallback.
run llm-fenced-insist 3 '{"status": 400, "error": {"message": "response_format is not supported"}}, '"$FENCED" '{"structured": "json_schema"}'
expect_eq llm-fenced-insist-once "$(nreq)" 1
expect_grep llm-fenced-insist-why 'not falling back' "$T/last.err"

# A 400 without the field's name is final.
run llm-fenced-400-other 3 '{"status": 400, "error": {"message": "context length exceeded"}}, '"$FENCED"
expect_eq llm-fenced-400-other-once "$(nreq)" 1

# structured: fenced never asks for a schema.
run llm-fenced-config 0 "$FENCED" '{"structured": "fenced"}'
expect_eq llm-fenced-config-plain "$(req 0 '.body | has("response_format")')" false
expect_jq llm-fenced-config-answer '.mode == "fenced" and (.answer.kernel | test("scale2d"))' "$R"

# reasoning_effort named in the message (no param): dropped, nothing else.
run llm-fenced-reasoning 0 '{"status": 400, "error": {"message": "Unrecognized request argument supplied: reasoning_effort"}}, '"$FENCED" '{"structured": "fenced"}'
expect_eq llm-fenced-reasoning-dropped "$(req 1 '.body | has("reasoning_effort")')" false
expect_eq llm-fenced-reasoning-model-kept "$(req 1 '.body.model')" '"fake-model"'

# max_completion_tokens unknown to an older server: max_tokens instead.
run llm-fenced-max-tokens 0 '{"status": 400, "error": {"message": "unknown field `max_completion_tokens`"}}, '"$FENCED" '{"structured": "fenced", "max_completion_tokens": 777}'
expect_eq llm-fenced-max-tokens-swapped "$(req 1 '[.body.max_tokens, (.body | has("max_completion_tokens"))]')" '[777,false]'

# A structured request answered in fences anyway: still read.
run llm-fenced-unasked 0 "$FENCED"
expect_jq llm-fenced-unasked-read '.mode == "json_schema" and .extracted_from == "fenced" and (.answer.launch.grid | length) == 3' "$R"

# A whole answer object inside a ```json fence.
jq -n -c --rawfile k "$LLMDATA/kernel.cu" --slurpfile l "$LLMDATA/launch.json" \
	'{content: ("Here it is:\n```json\n" + ({note: "n", kernel: $k, launch: $l[0]} | tostring) + "\n```\n")}' >"$T/e.json"
run llm-fenced-json-object 0 "$(cat "$T/e.json")" '{"structured": "fenced"}'
expect_jq llm-fenced-json-object-read '.answer.note == "n" and (.answer.kernel | test("scale2d"))' "$R"

# No kernel in the reply: the call is made (exit 0), the answer is null.
run llm-fenced-no-kernel 0 '{"content": "Sorry, I cannot help with that."}' '{"structured": "fenced"}'
expect_jq llm-fenced-no-kernel-recorded '.answer == null and (.answer_error | test("no ```cuda block"))' "$R"

# Cut at the token limit: said so.
run llm-fenced-cut 0 '{"content": "{\"note\": \"a\", \"kernel\": \"exte", "finish_reason": "length"}'
expect_jq llm-fenced-cut-recorded '.answer == null and .finish_reason == "length" and (.answer_error | test("token limit"))' "$R"

# A refusal.
run llm-fenced-refusal 0 '{"refusal": "I will not do that."}'
expect_jq llm-fenced-refusal-recorded '.answer == null and (.answer_error | test("refused: I will not"))' "$R"

# A signature answer, fenced.
printf 'Task\n' >"$T/d.txt"
cko-llm render -t generate-signature -v description="$T/d.txt" -o "$T/prompt.json" 2>/dev/null
jq -n -c --rawfile s "$LLMDATA/signature.json" '{content: ("A 2-D scale.\n\n```json\n" + $s + "```\n")}' >"$T/e.json"
run llm-fenced-signature 0 "$(cat "$T/e.json")" '{"structured": "fenced"}'
expect_jq llm-fenced-signature-read '.answer_kind == "signature" and .answer.signature.entry == "scale2d" and .answer.note == "A 2-D scale."' "$R"
expect_eq llm-fenced-signature-instructions "$(req 0 '.body.messages[-1].content | test("signature.json in one")')" true
finish
