# Model-written code is untrusted, so the API key must not reach it or
# anything saved (docs/model.md, "The API key"). No network but 127.0.0.1.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-secrets "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
OK=$(answer_json | jq -c '{json: .}')
# Another made-up secret, never registered for scrubbing: if a child saw
# it, it would show as it is.
OTHER=tok-other-Zq81Lm40Vx7Rc2Nd
mkdir -p "$T/o"

# ---- A tool call's child sees neither the key nor other secrets. ----
printf '{"tools": {"env": {"description": "d", "parameters": {"type": "object"}, "argv": ["env"], "default": true}}}\n' >"$T/envm.json"
printf '[{"tool_calls": [{"name": "env", "arguments": {}}]}, %s]\n' "$OK" >"$T/script.json"
fake_start "$T/script.json" || finish
fake_config
OPENAI_API_KEY=$FAKE_KEY MY_SECRET_TOKEN=$OTHER GH_AUTH=$OTHER CKO_VISIBLE=yes CKO_DOTENV=$T/none \
	expect_status llm-secrets/env-ask 0 cko-llm ask -c "$T/config.json" --tools "$T/envm.json" \
	--transcript "$T/o/env-t.json" -o "$T/o/env-r.json" "$T/prompt.json"
fake_stop
req 1 '.body.messages[3].content | fromjson | .output' >"$T/o/env-out"
expect_eq llm-secrets/env-ran "$(jq -r 'test("\nPATH=") and test("\nCKO_VISIBLE=yes")' "$T/o/env-out")" true
expect_eq llm-secrets/env-keyed "$(req 0 .auth)" '"ok"'
for v in OPENAI_API_KEY MY_SECRET_TOKEN GH_AUTH CKO_DOTENV; do
	expect_eq "llm-secrets/env-no-$v" "$(jq -r --arg v "$v" 'test("(^|\n)" + $v + "=")' "$T/o/env-out")" false
done
# Nor in what cko-llm's own /proc/PID/environ shows (unreadable to a
# non-root child: cko-llm is not dumpable; wiped for root).
printf '{"tools": {"penv": {"description": "d", "parameters": {"type": "object"}, "argv": ["sh", "-c", "cat /proc/$PPID/environ"], "default": true}}}\n' >"$T/penvm.json"
printf '[{"tool_calls": [{"name": "penv", "arguments": {}}]}, %s]\n' "$OK" >"$T/script.json"
fake_start "$T/script.json" || finish
fake_config
OPENAI_API_KEY=$FAKE_KEY expect_status llm-secrets/parent-env-ask 0 cko-llm ask -c "$T/config.json" --tools "$T/penvm.json" \
	--transcript "$T/o/penv-t.json" -o "$T/o/penv-r.json" "$T/prompt.json"
fake_stop
req 1 '.body.messages[3].content | fromjson | .output' >"$T/o/penv-out"
expect_eq llm-secrets/parent-env-read "$(jq -r 'test("PATH=") or test("Permission denied")' "$T/o/penv-out")" true
expect_eq llm-secrets/parent-env-no-key "$(jq -r 'test("OPENAI_API_KEY=[^?]")' "$T/o/penv-out")" false
CHECK=llm-secrets/env-no-key no_key_in "$T/o" "$REQ"
if grep -l -r -F -- "$OTHER" "$T/o" "$REQ" >"$T/leaks" 2>/dev/null; then
	fail llm-secrets/env-no-other-secret "in $(tr '\n' ' ' <"$T/leaks")"
else
	ok llm-secrets/env-no-other-secret
fi

# ---- The key goes over https, or plain http to this machine only. ----
# "Remote" servers are at the unroutable 192.0.2.1, reached through the
# fake server as the http proxy: nothing leaves this machine.
printf '[%s, %s, %s, %s]\n' "$OK" "$OK" "$OK" "$OK" >"$T/script.json"
fake_start "$T/script.json" || finish
ask() { # NAME STATUS BASE_URL [extra config]: asks with the key, through the fake as the proxy.
	x=$4
	[ -n "$x" ] || x='{}'
	jq --arg u "$3" --argjson x "$x" '.base_url = $u | .max_retries = 0 | . + $x' "$T/config.json" >"$T/c.json"
	OPENAI_API_KEY=$FAKE_KEY http_proxy=http://127.0.0.1:$PORT https_proxy=http://127.0.0.1:$PORT \
		expect_status "$1" "$2" cko-llm ask -c "$T/c.json" -o "$T/o/r.json" "$T/prompt.json"
}
fake_config
ask llm-secrets/http-remote-refused 2 http://192.0.2.1/v1
expect_grep llm-secrets/http-remote-message "c\.json: base_url: http://192\.0\.2\.1/v1 is plain http to another machine.*use https, or set allow_insecure_http: true" "$T/last.err"
expect_eq llm-secrets/http-remote-nothing-sent "$(nreq)" 0
# The same under model_settings (a run's config.json): the message names that field.
jq '{tool: "cko-init", model: "fake-model", model_settings: (. + {base_url: "http://192.0.2.1:8000/v1"})}' "$T/config.json" >"$T/run-config.json"
OPENAI_API_KEY=$FAKE_KEY expect_status llm-secrets/http-remote-run-config 2 cko-llm ask -c "$T/run-config.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-secrets/http-remote-run-field 'run-config\.json: model_settings\.base_url: .*model_settings\.allow_insecure_http: true' "$T/last.err"
ask llm-secrets/http-loopback 0 "http://127.0.0.1:$PORT/v1"
expect_eq llm-secrets/http-loopback-keyed "$(req 0 '[.auth, has("proxied_host")]')" '["ok",false]'
ask llm-secrets/http-localhost 0 "http://localhost:$PORT/v1"
expect_eq llm-secrets/http-localhost-keyed "$(req 1 '[.auth, has("proxied_host")]')" '["ok",false]'
# allow_insecure_http sends it (here to the proxy, which answers for 192.0.2.1), with a warning.
ask llm-secrets/http-remote-allowed 0 http://192.0.2.1/v1 '{"allow_insecure_http": true}'
expect_eq llm-secrets/http-remote-allowed-sent "$(req 2 '[.auth, .proxied_host]')" '["ok","192.0.2.1"]'
expect_grep llm-secrets/http-remote-allowed-warns 'plain http \(allow_insecure_http\)' "$T/last.err"
# Without a key nothing secret travels: plain http anywhere is fine.
jq '.base_url = "http://192.0.2.1/v1"' "$T/config.json" >"$T/c.json"
http_proxy=http://127.0.0.1:$PORT expect_status llm-secrets/http-remote-keyless 0 cko-llm ask -c "$T/c.json" -o "$T/o/r.json" "$T/prompt.json"
expect_eq llm-secrets/http-remote-keyless-sent "$(req 3 '[.auth, .proxied_host]')" '["none","192.0.2.1"]'
# https passes the check (the fake refuses the CONNECT tunnel: exit 3, not 2).
ask llm-secrets/https-accepted 3 https://192.0.2.1/v1
if grep -q 'plain http' "$T/last.err"; then fail llm-secrets/https-not-refused "$(head -c 300 "$T/last.err")"; else ok llm-secrets/https-not-refused; fi
jq '.allow_insecure_http = "yes"' "$T/config.json" >"$T/c.json"
expect_status llm-secrets/bad-flag 2 cko-llm ask -c "$T/c.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-secrets/bad-flag-message 'allow_insecure_http: expected true or false' "$T/last.err"
fake_stop

# ---- A config holding a key is refused, by cko-llm and by cko-init. ----
jq --arg k "$FAKE_KEY" '.api_key = $k' "$T/config.json" >"$T/keyed.json"
expect_status llm-secrets/llm-config-key 2 cko-llm ask -c "$T/keyed.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-secrets/llm-config-key-message '^cko-llm: .*keyed\.json: api_key: keys are never stored in a config; set OPENAI_API_KEY or a \.env file$' "$T/last.err"
jq --arg k "$FAKE_KEY" '.extra_body = {"headers": [{"Authorization": ("Bearer " + $k)}]}' "$T/config.json" >"$T/keyed.json"
expect_status llm-secrets/llm-config-nested 2 cko-llm ask -c "$T/keyed.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-secrets/llm-config-nested-field 'keyed\.json: extra_body\.headers\[0\]\.Authorization: keys are never stored' "$T/last.err"
jq '.base_url = "https://user:pw@192.0.2.1/v1"' "$T/config.json" >"$T/keyed.json"
expect_status llm-secrets/llm-config-userinfo 2 cko-llm ask -c "$T/keyed.json" -o "$T/o/r.json" "$T/prompt.json"
expect_grep llm-secrets/llm-config-userinfo-message 'keyed\.json: base_url: holds a user name or password' "$T/last.err"
D=$DATA/run
init() { # NAME CONFIG: cko-init must refuse it (exit 2) and make no run folder.
	rm -rf "$T/r"
	expect_status "$1" 2 cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" --reference "$D/reference.cu" \
		--reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" --launch "$D/launch.json" \
		--config "$2" --results "$T/r"
	expect_eq "$1-no-run" "$(ls "$T/r" 2>/dev/null | wc -l | tr -d ' ')" 0
}
jq --arg k "$FAKE_KEY" '{max_iterations: 1, model_settings: (. + {api_key: $k})}' "$T/config.json" >"$T/init-key.json"
init llm-secrets/init-api-key "$T/init-key.json"
expect_grep llm-secrets/init-api-key-message '^cko-init: .*init-key\.json: model_settings\.api_key: keys are never stored in a config; set OPENAI_API_KEY or a \.env file$' "$T/last.err"
jq --arg k "$FAKE_KEY" '{max_iterations: 1, github: {Token: $k}, model_settings: .}' "$T/config.json" >"$T/init-key.json"
init llm-secrets/init-any-field "$T/init-key.json"
expect_grep llm-secrets/init-any-field-message 'init-key\.json: github\.Token: keys are never stored' "$T/last.err"
jq '{model_settings: (. + {no_such_setting: 1})}' "$T/config.json" >"$T/init-key.json"
init llm-secrets/init-checks-settings "$T/init-key.json"
expect_grep llm-secrets/init-checks-settings-message 'init-key\.json: model_settings\.no_such_setting: unknown key' "$T/last.err"
# A clean config goes through, and the run's config.json holds no secret-looking field.
jq '{max_iterations: 1, model_settings: (. + {extra_body: {max_tokens: 10, stop_token_ids: [1]}})}' "$T/config.json" >"$T/init-ok.json"
rm -rf "$T/r"
expect_status llm-secrets/init-clean 0 cko-init --signature "$D/signature.json" --input-cases "$D/cases.json" \
	--reference "$D/reference.cu" --reference-launch "$D/reference-launch.json" --initial-kernel "$D/initial.cu" \
	--launch "$D/launch.json" --config "$T/init-ok.json" --results "$T/r"
run=$(cat "$T/last.out")
expect_jq llm-secrets/init-clean-settings '.model_settings.extra_body.max_tokens == 10' "$run/config.json"
expect_jq llm-secrets/init-clean-no-secret '[paths | .[-1] | strings | ascii_downcase | select(test("key|secret|password|auth"))] == []' "$run/config.json"

# ---- Saved text is scrubbed of every piece of 6 or more characters. ----
# Every 6-character piece of the key, one a line, for grep -f.
printf '%s\n' "$FAKE_KEY" | awk '{ for (i = 1; i + 5 <= length($0); i++) print substr($0, i, 6) }' >"$T/pieces"
no_piece_in() { # NAME FILES...: no 6-character piece of the key in the files.
	name=$1; shift
	if grep -l -r -F -f "$T/pieces" -- "$@" >"$T/leaks" 2>/dev/null; then
		fail "$name" "a piece of the key is in $(tr '\n' ' ' <"$T/leaks")"
	else
		ok "$name"
	fi
}
# A compiler quotes identifiers one at a time: the key's pieces, apart.
printf '%s\n' "$FAKE_KEY" | awk -F- '{ printf "error: \047%s\047 \047%s\047 \047%s\047 undefined; near \047%s\047\n", $1, $2, $3, $4 }' >"$T/compiler.log"
printf '{"tools": {"log": {"description": "d", "parameters": {"type": "object"}, "argv": ["cat", "%s"], "default": true}}}\n' "$T/compiler.log" >"$T/logm.json"
printf '[{"tool_calls": [{"name": "log", "arguments": {}}]}, {"status": 401, "echo_auth": true, "error": {"message": "x", "code": "invalid_api_key"}}]\n' >"$T/script.json"
fake_start "$T/script.json" || finish
fake_config '{"max_retries": 0}'
rm -rf "$T/o" && mkdir -p "$T/o"
OPENAI_API_KEY=$FAKE_KEY expect_status llm-secrets/scrub-ask 3 cko-llm ask -c "$T/config.json" --tools "$T/logm.json" \
	--transcript "$T/o/t.json" --usage "$T/o/u.json" -o "$T/o/r.json" "$T/prompt.json"
fake_stop
req 1 '.body.messages[3].content | fromjson | .output' | jq -r . >"$T/tool-output"
# sk and test are under 6 characters; FAKEKEY and the 20 after it are masked.
expect_grep llm-secrets/scrub-pieces "^error: 'sk' 'test' '\*{7}' undefined; near '\*{20}'$" "$T/tool-output"
expect_jq llm-secrets/scrub-echoed-masked '[.events[] | select(.type == "response") | .body.error.message // empty] | .[0] | test("^Incorrect API key provided: \\*+$")' "$T/o/t.json"
no_piece_in llm-secrets/scrub-no-piece "$T/o" "$T/last.err" "$T/last.out" "$REQ"
finish
