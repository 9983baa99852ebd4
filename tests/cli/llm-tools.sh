# The tool-call loop: tools offered from a manifest, calls run as argv
# (arguments as whole elements, checked), results sent back, rounds bounded.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-tools "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
OK=$(answer_json | jq -c '{json: .}')
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
TR=$T/o/transcript.json

run llm-tools-loop 0 '{"tool_calls": [{"name": "echo", "arguments": {"text": "hi there"}}, {"name": "show_file", "arguments": {"kernel": "__global__ void k() {} // {{x}}"}}]}, '"$OK" '' --tools "$M"
expect_eq llm-tools-offered "$(req 0 '[.body.tools[].function.name]')" '["echo","show_file"]'
expect_eq llm-tools-choice "$(req 0 .body.tool_choice)" '"auto"'
expect_eq llm-tools-type "$(req 0 '.body.tools[0].type')" '"function"'
expect_eq llm-tools-sent-back "$(req 1 '[.body.messages[] | .role]')" '["system","user","assistant","tool","tool"]'
expect_eq llm-tools-assistant-calls "$(req 1 '.body.messages[2].tool_calls | map(.function.name)')" '["echo","show_file"]'
expect_eq llm-tools-ids "$(req 1 '[.body.messages[3,4].tool_call_id]')" '["call_0_0","call_0_1"]'
expect_eq llm-tools-echo-result "$(req 1 '.body.messages[3].content | fromjson | [.exit, .output]')" '[0,"[hi there]"]'
# The text went to a file, whole and unexpanded, and came back through cat.
expect_eq llm-tools-file-result "$(req 1 '.body.messages[4].content | fromjson | .output')" '"__global__ void k() {} // {{x}}"'
expect_jq llm-tools-transcript '[.events[] | select(.type == "tool_call")] | length == 2 and .[0].argv == ["printf", "[%s]", "hi there"]
	and .[0].exit == 0 and (.[1].argv[1] | test("kernel_file.cu$"))' "$TR"
expect_jq llm-tools-temp-removed '[.events[] | select(.type == "tool_call")][1].argv[1] as $f | ($f | length) > 0' "$TR"
f=$(jq -r '[.events[] | select(.type == "tool_call")][1].argv[1]' "$TR")
expect_eq llm-tools-temp-gone "$(test -e "$f" && echo present || echo gone)" gone
expect_jq llm-tools-usage '.rounds == 2 and .requests == 2 and .prompt_tokens == 2000' "$T/o/usage.json"
expect_jq llm-tools-answer '.answer.kernel != null and .rounds == 2' "$T/o/response.json"

# Tools do not inherit the key.
printf '{"tools": {"env": {"description": "d", "parameters": {"type": "object"}, "argv": ["env"], "default": true}}}\n' >"$T/envm.json"
OPENAI_API_KEY=$FAKE_KEY run llm-tools-env 0 '{"tool_calls": [{"name": "env", "arguments": {}}]}, '"$OK" '' --tools "$T/envm.json"
expect_eq llm-tools-env-keyed "$(req 0 .auth)" '"ok"'
expect_eq llm-tools-env-ran "$(req 1 '.body.messages[3].content | fromjson | .output | test("PATH=")')" true
expect_eq llm-tools-env-no-key "$(req 1 '.body.messages[3].content | fromjson | .output | test("OPENAI_API_KEY")')" false

# Enabled by name, with --var and --allow; optional argv groups.
echo '{"case": "big"}' >"$T/req-big.json"
run llm-tools-enable 0 '{"tool_calls": [{"name": "fixed", "arguments": {}}, {"name": "fixed", "arguments": {"n": 3}},
	{"name": "read_request", "arguments": {"request": "'"$T/req-big.json"'"}},
	{"name": "read_request", "arguments": {"request": "/etc/passwd"}}]}, '"$OK" '' \
	--tools "$M" --enable fixed,read_request --var arch=sm_90 --allow "$T/req-big.json"
expect_eq llm-tools-enable-offered "$(req 0 '[.body.tools[].function.name]')" '["fixed","read_request"]'
expect_eq llm-tools-allow-enum "$(req 0 '.body.tools[1].function.parameters.properties.request.enum')" "[\"$T/req-big.json\"]"
expect_eq llm-tools-var "$(req 1 '.body.messages[3].content | fromjson | .output')" '"sm_90;"'
expect_eq llm-tools-optional-group "$(req 1 '.body.messages[4].content | fromjson | .output')" '"sm_90;-n;3;"'
expect_eq llm-tools-allowed "$(req 1 '.body.messages[5].content | fromjson | .output')" '"{\"case\": \"big\"}\n"'
expect_eq llm-tools-not-allowed "$(req 1 '.body.messages[6].content | fromjson | .error')" '"argument request: not one of the allowed values"'

# Bad calls are answered with an error; nothing runs.
run llm-tools-bad-args 0 '{"tool_calls": [{"name": "echo", "arguments": {"text": "-rf"}}, {"name": "echo", "arguments": {"text": "0123456789012345678901234567890123456789x"}},
	{"name": "echo", "arguments": {}}, {"name": "echo", "arguments": {"text": "a", "extra": 1}}, {"name": "nosuch", "arguments": {}},
	{"name": "echo", "arguments": "{not json"}, {"name": "fixed", "arguments": {}}, {"name": "echo", "arguments": {"text": 5}}]}, '"$OK" '' --tools "$M"
expect_eq llm-tools-dash "$(req 1 '.body.messages[3].content | fromjson | .error')" '"argument text: may not start with '"'-'"'"'
expect_eq llm-tools-too-long "$(req 1 '.body.messages[4].content | fromjson | .error')" '"argument text: longer than 40 characters"'
expect_eq llm-tools-missing "$(req 1 '.body.messages[5].content | fromjson | .error')" "\"missing argument 'text'\""
expect_eq llm-tools-unknown-arg "$(req 1 '.body.messages[6].content | fromjson | .error')" "\"unknown argument 'extra'\""
expect_eq llm-tools-unknown-tool "$(req 1 '.body.messages[7].content | fromjson | .error')" '"there is no such tool"'
expect_eq llm-tools-not-json "$(req 1 '.body.messages[8].content | fromjson | .error | test("not JSON")')" true
expect_eq llm-tools-not-enabled "$(req 1 '.body.messages[9].content | fromjson | .error')" '"there is no such tool"'
expect_eq llm-tools-wrong-type "$(req 1 '.body.messages[10].content | fromjson | .error')" '"argument text: expected a string"'
expect_jq llm-tools-nothing-ran '[.events[] | select(.type == "tool_call") | select(.argv)] | length == 0' "$TR"

# Rounds are bounded: after tool_rounds the tools are closed (tool_choice none).
CALL='{"tool_calls": [{"name": "echo", "arguments": {"text": "again"}}]}'
run llm-tools-rounds 0 "$CALL, $CALL, $CALL, $OK" '{"tool_rounds": 2}' --tools "$M"
expect_eq llm-tools-rounds-requests "$(nreq)" 4
expect_eq llm-tools-rounds-open "$(req 1 .body.tool_choice)" '"auto"'
expect_eq llm-tools-rounds-closed "$(req 2 .body.tool_choice)" '"none"'
expect_eq llm-tools-rounds-told "$(req 2 '.body.messages[-1] | [.role, (.content | test("tool budget is spent"))]')" '["user",true]'
expect_eq llm-tools-rounds-refused "$(req 3 '.body.messages[-1].content | fromjson | .error | test("no more tool calls")')" true
expect_jq llm-tools-rounds-answer '.answer.kernel != null' "$T/o/response.json"

# tool_rounds 0: no tools are offered at all, and the answer comes as usual.
run llm-tools-rounds-zero 0 "$OK" '{"tool_rounds": 0}' --tools "$M"
expect_eq llm-tools-rounds-zero-none "$(req 0 '.body | [has("tools"), has("tool_choice")]')" '[false,false]'
expect_jq llm-tools-rounds-zero-answer '.answer.kernel != null and .rounds == 1' "$T/o/response.json"

# Too many calls in one round.
run llm-tools-per-round 0 '{"tool_calls": [{"name": "echo", "arguments": {"text": "1"}}, {"name": "echo", "arguments": {"text": "2"}}]}, '"$OK" '{"tool_calls_per_round": 1}' --tools "$M"
expect_eq llm-tools-per-round-cut "$(req 1 '.body.messages[4].content | fromjson | .error')" '"at most 1 tool calls per turn"'

# A tool that runs too long is stopped.
run llm-tools-timeout 0 '{"tool_calls": [{"name": "sleepy", "arguments": {}}]}, '"$OK" '{"tool_timeout_s": 0.5}' --tools "$M" --enable sleepy
expect_eq llm-tools-timeout-note "$(req 1 '.body.messages[3].content | fromjson | .note')" '"the tool ran out of time and was stopped"'

# Usage errors.
expect_status llm-tools-enable-unknown 2 cko-llm ask --tools "$M" --enable nosuch -o "$T/x.json" "$T/prompt.json"
expect_status llm-tools-enable-without 2 cko-llm ask --enable echo -o "$T/x.json" "$T/prompt.json"
echo '{"tools": {"t": {"description": "d", "parameters": {"type": "object"}, "argv": ["echo", "pre{x}"]}}}' >"$T/badm.json"
expect_status llm-tools-partial-placeholder 2 cko-llm ask --tools "$T/badm.json" -o "$T/x.json" "$T/prompt.json"

# compile_check from the real manifest, compiled by cko-compile (NVRTC needs no GPU).
if command -v cko-compile >/dev/null 2>&1; then
	k=$(jq -c -n --rawfile k "$LLMDATA/kernel.cu" --slurpfile l "$LLMDATA/launch.json" \
		'{tool_calls: [{name: "compile_check", arguments: {kernel: $k, launch: $l[0]}},
			{name: "compile_check", arguments: {kernel: "extern \"C\" __global__ void scale2d(int M) { undefined_thing; }"}}]}')
	run llm-tools-compile 0 "$k, $OK" '' --tools "$CKO_TOP/prompts/tools.json" --enable compile_check \
		--var arch=sm_90 --var signature="$LLMDATA/signature.json"
	expect_eq llm-tools-compile-ok "$(req 1 '.body.messages[3].content | fromjson | [.exit, (.output | fromjson | .status, (.registers > 0))]')" '[0,"ok",true]'
	expect_eq llm-tools-compile-defines "$(req 1 '.body.messages[3].content | fromjson | .output | fromjson | .defines')" '["BX=32","BY=8"]'
	expect_eq llm-tools-compile-error "$(req 1 '.body.messages[4].content | fromjson | [.exit, (.output | test("undefined_thing"))]')" '[1,true]'
else
	skip llm-tools-compile "cko-compile is not built"
fi
finish
