# cko-llm ask's retries: 429 with Retry-After (seconds and HTTP date), 5xx,
# lost connections, garbled and cut bodies, timeouts; no retry on quota,
# auth or other client errors; giving up with exit 3 and the server's words.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o" # outputs go into existing folders
if ! have_python; then skip llm-retry "no python3"; finish; fi

cko-llm render -t propose -s context="x" -o "$T/prompt.json" 2>/dev/null
answer_json >"$T/answer.json"
OK=$(jq -c '{json: .}' "$T/answer.json")
export OPENAI_API_KEY=$FAKE_KEY

# run NAME STATUS 'SCRIPT ENTRIES' [CONFIG FIELDS]: one ask against a script.
run() {
	printf "[%s]\n" "$3" >"$T/script.json"
	fake_start "$T/script.json"
	fake_config "$4"
	rm -rf "$T/o" && mkdir "$T/o"
	expect_status "$1" "$2" cko-llm ask -c "$T/config.json" --transcript "$T/o/transcript.json" \
		--usage "$T/o/usage.json" -o "$T/o/response.json" "$T/prompt.json"
	fake_stop
}

run llm-retry-429 0 '{"status": 429, "headers": {"Retry-After": "1"}, "error": {"message": "Rate limit reached", "code": "rate_limit_exceeded"}}, '"$OK"
expect_eq llm-retry-429-requests "$(nreq)" 2
expect_jq llm-retry-429-waited '[.events[] | select(.type == "retry")] | length == 1 and .[0].retry_after_s == 1 and .[0].wait_s >= 1' "$T/o/transcript.json"
expect_jq llm-retry-429-answer '.answer.kernel != null' "$T/o/response.json"
# Only the successful response carries usage.
expect_jq llm-retry-429-usage '.requests == 2 and .prompt_tokens == 1000' "$T/o/usage.json"

run llm-retry-date 0 '{"status": 503, "retry_after_date": 1, "error": {"message": "busy"}}, '"$OK"
expect_jq llm-retry-date-parsed '[.events[] | select(.type == "retry")][0] | .retry_after_s >= 0 and .retry_after_s <= 2' "$T/o/transcript.json"

run llm-retry-5xx 0 '{"status": 500, "error": {"message": "oops"}}, {"status": 502, "raw": "<html>bad gateway</html>"}, '"$OK"
expect_eq llm-retry-5xx-requests "$(nreq)" 3

run llm-retry-408-409 0 '{"status": 408}, {"status": 409}, '"$OK"
expect_eq llm-retry-408-409-requests "$(nreq)" 3

run llm-retry-malformed 0 '{"raw": "{\"choices\": [ this is not json"}, '"$OK"
expect_eq llm-retry-malformed-requests "$(nreq)" 2
expect_jq llm-retry-malformed-recorded '.events[1].body_text | test("not json")' "$T/o/transcript.json"

run llm-retry-truncated 0 "$(printf "%s" "$OK" | jq -c '. + {truncate: true}'), $OK"
expect_eq llm-retry-truncated-requests "$(nreq)" 2

run llm-retry-closed 0 '{"close": true}, '"$OK"
expect_eq llm-retry-closed-requests "$(nreq)" 2

run llm-retry-timeout 0 '{"delay": 3, "content": "late"}, '"$OK" '{"timeout_s": 1}'
expect_eq llm-retry-timeout-requests "$(nreq)" 2
expect_jq llm-retry-timeout-recorded '.events[1].error | test("[Tt]imeout|timed out")' "$T/o/transcript.json"

run llm-retry-no-choices 0 '{"raw": "{\"id\": \"x\"}"}, '"$OK"
expect_eq llm-retry-no-choices-requests "$(nreq)" 2

# Never retried.
run llm-retry-quota 3 '{"status": 429, "error": {"message": "You exceeded your current quota", "code": "insufficient_quota", "type": "insufficient_quota"}}, '"$OK"
expect_eq llm-retry-quota-once "$(nreq)" 1
expect_grep llm-retry-quota-message 'exceeded your current quota' "$T/last.err"
expect_eq llm-retry-quota-no-response "$(test -e "$T/o/response.json" && echo yes || echo no)" no
expect_jq llm-retry-quota-transcript '.status == "error" and (.error | test("quota"))' "$T/o/transcript.json"
expect_jq llm-retry-quota-usage '.requests == 1 and .prompt_tokens == 0' "$T/o/usage.json"

for s in 401 403 404; do
	run llm-retry-$s 3 '{"status": '$s', "error": {"message": "refused '$s'"}}, '"$OK"
	expect_eq llm-retry-$s-once "$(nreq)" 1
	expect_grep llm-retry-$s-message "refused $s" "$T/last.err"
done
run llm-retry-400 3 '{"status": 400, "error": {"message": "messages: too long"}}, '"$OK"
expect_eq llm-retry-400-once "$(nreq)" 1

# Giving up after max_retries, with the server's message.
run llm-retry-give-up 3 '{"status": 500, "error": {"message": "first"}}, {"status": 500, "error": {"message": "second"}}, {"status": 500, "error": {"message": "third"}}, '"$OK" '{"max_retries": 2}'
expect_eq llm-retry-give-up-requests "$(nreq)" 3
expect_grep llm-retry-give-up-message 'giving up after 3 attempts: HTTP 500: third' "$T/last.err"

# Nothing listening: a connection error, retried, then exit 3.
fake_start "$T/script.json"; fake_stop
fake_config '{"max_retries": 1}'
expect_status llm-retry-refused 3 cko-llm ask -c "$T/config.json" -o "$T/o/response.json" "$T/prompt.json"
expect_grep llm-retry-refused-message 'connect|Connection refused|Couldn' "$T/last.err"

# A server that echoes the key in its error: scrubbed from every file and message.
run llm-retry-echo 3 '{"status": 401, "echo_auth": true, "error": {"message": "x", "code": "invalid_api_key"}}'
expect_grep llm-retry-echo-masked 'Incorrect API key provided: \*{12}' "$T/last.err"
CHECK=llm-retry-echo-scrubbed no_key_in "$T/o" "$T/last.err" "$T/last.out" "$REQ"
finish
