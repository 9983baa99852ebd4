# cko-llm against what real servers answer (tests/fake_openai.py's "like"
# entries repeat llama-cpp-python's and llama-server's refusals word for
# word): fallbacks keyed on the error's words whatever the status, a 500
# that repeats is not retried, tool-call turns sent back with content "",
# the token-limit field per server profile, cut replies reported as cut.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-servers "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
ANS=$(answer_json | jq -c .)
M=$LLMDATA/tools.json
run() { # NAME STATUS 'ENTRIES' CONFIG ask-options...
	name=$1 st=$2
	printf '[%s]\n' "$3" >"$T/script.json"
	cfg=$4
	shift 4
	fake_start "$T/script.json" || return
	fake_config "$cfg"
	rm -rf "$T/o" && mkdir "$T/o"
	expect_status "$name" "$st" cko-llm ask -c "$T/config.json" --transcript "$T/o/transcript.json" \
		--usage "$T/o/usage.json" -o "$T/o/response.json" "$@" "$T/prompt.json"
	fake_stop
}
R=$T/o/response.json
TR=$T/o/transcript.json

# llama-cpp-python answers json_schema with a 500 naming json_object: the
# same turn asks for json_object with the schema, once.
run llm-servers-s1-schema 0 '{"like": "llama-cpp-python", "json": '"$ANS"'}' ''
expect_eq llm-servers-s1-schema-requests "$(nreq)" 2
expect_eq llm-servers-s1-schema-first "$(req 0 '.body.response_format.type')" '"json_schema"'
expect_eq llm-servers-s1-schema-object "$(req 1 '.body.response_format | [.type, (.schema.type)]')" '["json_object","object"]'
expect_jq llm-servers-s1-schema-mode '.mode == "json_object" and .extracted_from == "json" and .answer.kernel != null' "$R"
expect_jq llm-servers-s1-schema-event '[.events[] | select(.type == "degrade")][0] | .response_format == "json_object" and .dropped == []' "$TR"
expect_grep llm-servers-s1-schema-warned 'json_object with the schema' "$T/last.err"

# A 500 naming a field that json_object is refused too: fenced text.
{
	echo "The kernel:"
	echo '```cuda'
	cat "$LLMDATA/kernel.cu"
	echo '```'
} >"$T/fenced.md"
FENCED=$(jq -n -c --rawfile c "$T/fenced.md" '{content: $c}')
run llm-servers-500-fenced 0 '{"status": 500, "error": {"message": "response_format.type must be text or json_object", "type": "internal_server_error", "param": null, "code": null}}, {"status": 500, "error": {"message": "json_object is not supported", "type": "internal_server_error"}}, '"$FENCED" ''
expect_eq llm-servers-500-fenced-requests "$(nreq)" 3
expect_eq llm-servers-500-fenced-plain "$(req 2 '.body | has("response_format")')" false
expect_jq llm-servers-500-fenced-mode '.mode == "fenced" and .answer.kernel != null' "$R"

# The llama-cpp-python profile: json_object from the start, the limit as
# max_tokens (it ignores max_completion_tokens), no reasoning_effort.
run llm-servers-s1-profile 0 '{"like": "llama-cpp-python", "json": '"$ANS"'}' '{"server": "llama-cpp-python", "max_completion_tokens": 300}'
expect_eq llm-servers-s1-profile-once "$(nreq)" 1
expect_eq llm-servers-s1-profile-fields "$(req 0 '.body | [.response_format.type, .max_tokens, has("max_completion_tokens"), has("reasoning_effort")]')" '["json_object",300,false,false]'

# OpenAI (the default) gets max_completion_tokens alone; vLLM both.
run llm-servers-openai-limit 0 '{"json": '"$ANS"'}' '{"max_completion_tokens": 300}'
expect_eq llm-servers-openai-limit-fields "$(req 0 '.body | [.max_completion_tokens, has("max_tokens"), .reasoning_effort]')" '[300,false,"medium"]'
run llm-servers-vllm-limit 0 '{"json": '"$ANS"'}' '{"server": "vllm", "max_completion_tokens": 300}'
expect_eq llm-servers-vllm-limit-fields "$(req 0 '.body | [.max_completion_tokens, .max_tokens, has("reasoning_effort")]')" '[300,300,false]'
cat >"$T/bad.json" <<EOF
{"server": "tgi"}
EOF
expect_status llm-servers-unknown 2 cko-llm ask -c "$T/bad.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-servers-unknown-why 'server: expected openai, vllm, llama-server, llama-cpp-python or ollama' "$T/last.err"

# The warning names the field that bounded the reply.
run llm-servers-limit-warning 0 '{"json": '"$ANS"', "finish_reason": "length"}' '{"server": "llama-server", "max_completion_tokens": 5}'
expect_grep llm-servers-limit-warning-field 'cut at the token limit \(max_tokens\)' "$T/last.err"

# llama-server without --jinja refuses tools with a 500: sent again without.
run llm-servers-s2-tools 0 '{"like": "llama-server", "json": '"$ANS"'}' '' --tools "$M"
expect_eq llm-servers-s2-tools-requests "$(nreq)" 2
expect_eq llm-servers-s2-tools-dropped "$(req 1 '.body | [has("tools"), has("tool_choice")]')" '[false,false]'
expect_jq llm-servers-s2-tools-event '[.events[] | select(.type == "degrade")][0].dropped == ["tools"]' "$TR"

# After a tool call the assistant turn goes back with content "", which
# llama-cpp-python takes (null and a missing content are a 500 there).
run llm-servers-s1-tools 0 '{"like": "llama-cpp-python", "tool_calls": [{"name": "echo", "arguments": {"text": "hi"}}]}, {"like": "llama-cpp-python", "json": '"$ANS"'}' '{"server": "llama-cpp-python"}' --tools "$M"
expect_eq llm-servers-s1-tools-requests "$(nreq)" 2
expect_eq llm-servers-s1-tools-content "$(req 1 '.body.messages[2] | [.role, .content]')" '["assistant",""]'
expect_jq llm-servers-s1-tools-answer '.answer.kernel != null and .rounds == 2' "$R"

# A 500 that says the same twice is not transient: exit 3 after two
# requests, with the server's message.
run llm-servers-same-500 3 '{"status": 500, "error": {"message": "Internal error: llama_decode failed"}}, {"status": 500, "error": {"message": "Internal error: llama_decode failed"}}, {"status": 500, "error": {"message": "Internal error: llama_decode failed"}}, {"json": '"$ANS"'}' ''
expect_eq llm-servers-same-500-requests "$(nreq)" 2
expect_grep llm-servers-same-500-message 'same error twice, not retrying: HTTP 500: Internal error: llama_decode failed' "$T/last.err"
expect_jq llm-servers-same-500-rounds '.rounds == 0 and .requests == 2' "$T/o/usage.json"

# A repeated message (a traceback, say) is shown once, then "the same".
TB='Traceback (most recent call last): File \"app.py\", line 1, in handler'
CKO_QUIET= run llm-servers-shown-once 0 '{"status": 503, "error": {"message": "'"$TB"'"}}, {"status": 503, "error": {"message": "'"$TB"'"}}, {"json": '"$ANS"'}' ''
expect_eq llm-servers-shown-once-count "$(grep -c 'Traceback' "$T/last.err")" 1
expect_grep llm-servers-shown-once-same 'the same error again' "$T/last.err"

# No response at all: usage says 0 rounds.
run llm-servers-no-rounds 3 '{"status": 401, "error": {"message": "Incorrect API key"}}' ''
expect_jq llm-servers-no-rounds-usage '.rounds == 0 and .requests == 1' "$T/o/usage.json"

# A structured reply cut at the token limit is cut JSON, not a missing block.
CUT=$(printf '%s' "$ANS" | cut -c1-120)
run llm-servers-cut-json 0 "$(jq -n -c --arg c "$CUT" '{content: $c, finish_reason: "length"}')" ''
expect_jq llm-servers-cut-json-reason '.answer == null and (.answer_error | startswith("the JSON answer is incomplete (cut at the token limit"))' "$R"

# A fenced reply cut inside its ```cuda block: no kernel taken from it.
run llm-servers-cut-fence 0 "$(jq -n -c '{content: "The kernel:\n\n```cuda\nextern \"C\" __global__ void scale2d(float *x) {\n  x[0] = 1", finish_reason: "length"}')" '{"structured": "fenced"}'
expect_jq llm-servers-cut-fence-none '.answer == null and (.answer_error | test("not closed")) and (.answer_error | test("cut at the token limit"))' "$R"
finish
