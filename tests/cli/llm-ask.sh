# cko-llm ask against the fake server: a structured answer, what was sent,
# usage and cost, the transcript, and the key kept out of every file.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/out" "$T/out2" "$T/out3" "$T/out4" # outputs go into existing folders
if ! have_python; then skip llm-ask "no python3"; finish; fi

cko-llm render -t propose -s context="The best kernel so far: none." -o "$T/prompt.json" 2>/dev/null
answer_json >"$T/answer.json"
jq -n --slurpfile a "$T/answer.json" '[{json: $a[0]}]' >"$T/script.json"
fake_start "$T/script.json" || { fail llm-ask-start "the fake server did not start"; finish; }
fake_config '{"max_completion_tokens": 4000, "reasoning_effort": "high"}'
OPENAI_API_KEY=$FAKE_KEY expect_status llm-ask-ok 0 cko-llm ask -c "$T/config.json" --transcript "$T/out/transcript.json" \
	--usage "$T/out/usage.json" -o "$T/out/response.json" "$T/prompt.json"
fake_stop

R=$T/out/response.json
expect_jq llm-ask-response '.tool == "cko-llm" and .status == "ok" and .mode == "json_schema" and .extracted_from == "json"' "$R"
expect_jq llm-ask-answer '.answer.note == "one thread per element" and (.answer.kernel | test("scale2d"))' "$R"
# The structured launch lists become launch.json objects.
expect_jq llm-ask-launch-normalized '.answer.launch.defines == {"BX": 32, "BY": 8} and .answer.launch.tunables.BY == [4, 8]
	and .answer.launch.overrides.odd == {"block": [16, 8]}' "$R"
expect_jq llm-ask-raw-kept '.response.choices[0].message.content | fromjson | .note == "one thread per element"' "$R"

expect_eq llm-ask-one-request "$(nreq)" 1
expect_eq llm-ask-path "$(req 0 .path)" '"/v1/chat/completions"'
expect_eq llm-ask-auth "$(req 0 .auth)" '"ok"'
expect_eq llm-ask-key-nowhere-else "$(req 0 .key_elsewhere)" false
expect_eq llm-ask-model "$(req 0 .body.model)" '"fake-model"'
expect_eq llm-ask-reasoning "$(req 0 .body.reasoning_effort)" '"high"'
expect_eq llm-ask-max-tokens "$(req 0 .body.max_completion_tokens)" 4000
expect_eq llm-ask-no-temperature "$(req 0 '.body | has("temperature")')" false
expect_eq llm-ask-response-format "$(req 0 '.body.response_format | [.type, .json_schema.strict, .json_schema.name]')" \
	'["json_schema",true,"cko_kernel_answer"]'
expect_eq llm-ask-messages "$(req 0 '[.body.messages[].role]')" '["system","user"]'
expect_eq llm-ask-no-tools "$(req 0 '.body | has("tools")')" false

U=$T/out/usage.json
expect_jq llm-ask-usage '.prompt_tokens == 1000 and .completion_tokens == 200 and .reasoning_tokens == 50
	and .cached_tokens == 400 and .rounds == 1 and .requests == 1 and .model == "fake-model"' "$U"
# (600 * 1.25 + 400 * 0.125 + 200 * 10) / 1e6
expect_jq llm-ask-cost '(.cost_usd - 0.0028) | fabs < 1e-12' "$U"
TR=$T/out/transcript.json
expect_jq llm-ask-transcript '[.events[].type] == ["request", "response"] and .status == "ok" and .usage.prompt_tokens == 1000' "$TR"
expect_jq llm-ask-transcript-request '.events[0].body.model == "fake-model" and .events[0].headers.authorization != null
	and (.events[0].headers.authorization | test("not recorded"))' "$TR"
expect_jq llm-ask-transcript-response '.events[1].status == 200 and .events[1].body.id == "chatcmpl-fake-0"' "$TR"
CHECK=llm-ask-no-key-in-files no_key_in "$T/out" "$T/last.out" "$T/last.err" "$REQ"

# No key: no Authorization header at all (a local server).
jq -n --slurpfile a "$T/answer.json" '[{json: $a[0]}]' >"$T/script.json"
fake_start "$T/script.json"
fake_config
expect_status llm-ask-no-key 0 cko-llm ask -c "$T/config.json" -o "$T/out2/response.json" "$T/prompt.json"
expect_eq llm-ask-no-auth-header "$(req 0 .auth)" '"none"'
fake_stop

# Settings for servers that reject fields: reasoning_effort null, temperature set.
fake_start "$T/script.json"
fake_config '{"reasoning_effort": null, "temperature": 0.2, "extra_body": {"seed": 7}}'
expect_status llm-ask-settings 0 cko-llm ask -c "$T/config.json" -o "$T/out3/response.json" "$T/prompt.json"
expect_eq llm-ask-no-reasoning "$(req 0 '.body | has("reasoning_effort")')" false
expect_eq llm-ask-temperature "$(req 0 .body.temperature)" 0.2
expect_eq llm-ask-extra-body "$(req 0 .body.seed)" 7
fake_stop

# A run's config.json: model_settings, and the model named at the top.
fake_start "$T/script.json"
jq -n --arg u "http://127.0.0.1:$PORT/v1" '{tool: "cko-init", model: "run-model", max_iterations: 3,
	model_settings: {base_url: $u, max_retries: 0}}' >"$T/runconfig.json"
expect_status llm-ask-run-config 0 cko-llm ask -c "$T/runconfig.json" -o "$T/out4/response.json" "$T/prompt.json"
expect_eq llm-ask-run-config-model "$(req 0 .body.model)" '"run-model"'
fake_stop

# Bad configs and prompts are bad input.
echo '{"base_url": "ftp://x", "model": "m"}' >"$T/bad.json"
expect_status llm-ask-bad-url 2 cko-llm ask -c "$T/bad.json" -o "$T/x.json" "$T/prompt.json"
echo '{"modle": "m"}' >"$T/bad.json"
expect_status llm-ask-unknown-key 2 cko-llm ask -c "$T/bad.json" -o "$T/x.json" "$T/prompt.json"
expect_grep llm-ask-unknown-key-named 'modle' "$T/last.err"
echo '{"messages": []}' >"$T/badprompt.json"
expect_status llm-ask-bad-prompt 2 cko-llm ask -o "$T/x.json" "$T/badprompt.json"
expect_status llm-ask-usage-error 2 cko-llm ask "$T/prompt.json"
finish
