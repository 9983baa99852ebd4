#!/usr/bin/env python3
"""A fake OpenAI-compatible Chat Completions server for cko-llm's tests.

It listens on 127.0.0.1 at a free port (written to --port-file), answers
POST /v1/chat/completions from a JSON script (a list: one entry per request,
in order) and records every request it got (--log, one JSON object a line).

The log never holds the API key: the Authorization header is replaced by a
verdict ("auth": "none" | "ok" | "wrong", compared with $FAKE_EXPECT_KEY), and
"key_elsewhere" says whether the key appeared anywhere else in the request
(another header, the URL or the body).

Script entries (all optional fields):
  {"content": "text"}                  a completion whose message has this text
  {"json": {...}}                      a completion whose text is this JSON
  {"tool_calls": [{"name": "t", "arguments": {...} or "text"}]}
  {"finish_reason": "length"}          instead of stop / tool_calls
  {"refusal": "text"}                  a structured-output refusal
  {"usage": {...}}                     instead of the default usage
  {"status": 429, "error": {"message": "...", "code": "...", "param": "..."}}
  {"headers": {"Retry-After": "1"}}    extra response headers
  {"retry_after_date": 2}              Retry-After as an HTTP date N s ahead
  {"raw": "text"}                      this body as it is (e.g. malformed JSON)
  {"truncate": true}                   announce more bytes than are sent, close
  {"close": true}                      close the connection without an answer
  {"delay": 3.0}                       wait this long first (for timeouts)
  {"echo_auth": true}                  put the Authorization header's value
                                       in the error message (tests scrubbing)
  {"like": "llama-cpp-python"}        answer as that server does a request it
  {"like": "llama-server"}            refuses, with its own status and error
                                       body, and keep the entry for the next
                                       request; a request it takes gets the
                                       entry's answer (see LIKE below)
When the script runs out, the server answers 500 "script exhausted".

A request for an absolute URL (POST http://192.0.2.1/v1/...), as a client
sends to an http proxy, is answered the same way and logged with its
"proxied_host": with http_proxy pointing here a test can name a base_url on
another machine without any packet leaving this one.
Python 3 standard library only.
"""
import argparse
import email.utils
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_USAGE = {
    "prompt_tokens": 1000,
    "completion_tokens": 200,
    "total_tokens": 1200,
    "prompt_tokens_details": {"cached_tokens": 400},
    "completion_tokens_details": {"reasoning_tokens": 50},
}


class State:
    def __init__(self, script, log_path, expect_key):
        self.script = script
        self.next = 0
        self.log_path = log_path
        self.expect_key = expect_key
        self.lock = threading.Lock()
        self.last = time.time()

    def peek(self):
        with self.lock:
            return self.script[self.next] if self.next < len(self.script) else None

    def take(self):
        with self.lock:
            self.last = time.time()
            i = self.next
            self.next += 1
            return i, (self.script[i] if i < len(self.script) else None)

    def record(self, entry):
        with self.lock:
            with open(self.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry, sort_keys=True) + "\n")


# What real servers answered to requests they refuse (docs/model.md), as
# llama-cpp-python 0.3.36 said it (its venv's path shortened to /venv).
S1_SCHEMA = '1 validation error:\n  {\'type\': \'literal_error\', \'loc\': (\'body\', \'response_format\', \'type\'), \'msg\': "Input should be \'text\' or \'json_object\'", \'input\': \'json_schema\', \'ctx\': {\'expected\': "\'text\' or \'json_object\'"}}\n\n  File "/venv/lib/python3.11/site-packages/llama_cpp/server/app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'
S1_NULL_CONTENT = '7 validation errors:\n  {\'type\': \'literal_error\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestSystemMessage\', \'role\'), \'msg\': "Input should be \'system\'", \'input\': \'assistant\', \'ctx\': {\'expected\': "\'system\'"}}\n  {\'type\': \'literal_error\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestUserMessage\', \'role\'), \'msg\': "Input should be \'user\'", \'input\': \'assistant\', \'ctx\': {\'expected\': "\'user\'"}}\n  {\'type\': \'string_type\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestAssistantMessage\', \'content\'), \'msg\': \'Input should be a valid string\', \'input\': None}\n  {\'type\': \'literal_error\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestToolMessage\', \'role\'), \'msg\': "Input should be \'tool\'", \'input\': \'assistant\', \'ctx\': {\'expected\': "\'tool\'"}}\n  {\'type\': \'missing\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestToolMessage\', \'tool_call_id\'), \'msg\': \'Field required\', \'input\': {\'role\': \'assistant\', \'content\': None, \'tool_calls\': [{\'id\': \'c1\', \'type\': \'function\', \'function\': {\'name\': \'f\', \'arguments\': \'{}\'}}]}}\n  {\'type\': \'literal_error\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestFunctionMessage\', \'role\'), \'msg\': "Input should be \'function\'", \'input\': \'assistant\', \'ctx\': {\'expected\': "\'function\'"}}\n  {\'type\': \'missing\', \'loc\': (\'body\', \'messages\', 1, \'ChatCompletionRequestFunctionMessage\', \'name\'), \'msg\': \'Field required\', \'input\': {\'role\': \'assistant\', \'content\': None, \'tool_calls\': [{\'id\': \'c1\', \'type\': \'function\', \'function\': {\'name\': \'f\', \'arguments\': \'{}\'}}]}}\n\n  File "/venv/lib/python3.11/site-packages/llama_cpp/server/app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions'


def _s1_refuses(body):
    rf = body.get("response_format") or {}
    if rf.get("type") not in (None, "text", "json_object"):
        return S1_SCHEMA
    for m in body.get("messages", []):
        if m.get("role") == "assistant" and m.get("tool_calls") and not isinstance(m.get("content"), str):
            return S1_NULL_CONTENT
    return None


def _s2_refuses(body):
    if body.get("tools"):
        return "tools param requires --jinja flag"
    if body.get("tool_choice"):
        return "tool_choice param requires --jinja flag"
    return None


LIKE = {
    # llama-cpp-python 0.3.36 (python -m llama_cpp.server): its
    # RouteErrorHandler wraps any exception as a 500.
    "llama-cpp-python": lambda b: (lambda m: m and (500, {"error": {
        "message": m, "type": "internal_server_error", "param": None, "code": None}}))(_s1_refuses(b)),
    # llama.cpp's llama-server without --jinja.
    "llama-server": lambda b: (lambda m: m and (500, {"error": {
        "code": 500, "message": m, "type": "server_error"}}))(_s2_refuses(b)),
}


def completion(spec, model, n):
    msg = {"role": "assistant", "content": None}
    finish = "stop"
    if "json" in spec:
        msg["content"] = json.dumps(spec["json"])
    if "content" in spec:
        msg["content"] = spec["content"]
    if "refusal" in spec:
        msg["refusal"] = spec["refusal"]
    if "tool_calls" in spec:
        calls = []
        for k, c in enumerate(spec["tool_calls"]):
            args = c.get("arguments", {})
            calls.append({
                "id": c.get("id", "call_%d_%d" % (n, k)),
                "type": "function",
                "function": {"name": c["name"],
                             "arguments": args if isinstance(args, str) else json.dumps(args)},
            })
        msg["tool_calls"] = calls
        finish = "tool_calls"
    finish = spec.get("finish_reason", finish)
    return {
        "id": "chatcmpl-fake-%d" % n,
        "object": "chat.completion",
        "created": 1700000000,
        "model": spec.get("model", model or "fake-model"),
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": spec.get("usage", DEFAULT_USAGE),
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-openai/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def reply(self, status, body, headers=(), truncate=False):
        data = body if isinstance(body, bytes) else body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data) + (100 if truncate else 0)))
        if truncate:
            self.send_header("Connection", "close")
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        if truncate:
            self.close_connection = True

    def do_POST(self):
        st = self.server.state
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        text = raw.decode("utf-8", "replace")
        auth = self.headers.get("Authorization")
        key = st.expect_key
        verdict = "none" if auth is None else ("ok" if key and auth == "Bearer " + key else "wrong")
        others = "".join("%s: %s\n" % (k, v) for k, v in self.headers.items() if k.lower() != "authorization")
        elsewhere = bool(key) and (key in text or key in others or key in self.path)
        try:
            body = json.loads(text)
        except ValueError:
            body = None
        like = (st.peek() or {}).get("like")
        refused = LIKE[like](body if isinstance(body, dict) else {}) if like else None
        if refused:
            i, spec = st.next, None
        else:
            i, spec = st.take()
        path, host = self.path, None
        if path.startswith("http://") or path.startswith("https://"):
            u = urllib.parse.urlsplit(path)
            path, host = u.path, u.netloc
        entry = {"n": i, "method": "POST", "path": path, "auth": verdict, "key_elsewhere": elsewhere,
                 "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"},
                 "body": body if body is not None else text}
        if host is not None:
            entry["proxied_host"] = host
        st.record(entry)
        if path.rstrip("/") != "/v1/chat/completions":
            self.reply(404, json.dumps({"error": {"message": "no route " + self.path, "code": "not_found"}}))
            return
        if refused:
            self.reply(refused[0], json.dumps(refused[1]))
            return
        if spec is None:
            self.reply(500, json.dumps({"error": {"message": "script exhausted", "type": "server_error"}}))
            return
        if spec.get("delay"):
            time.sleep(float(spec["delay"]))
        if spec.get("close"):
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        headers = list(spec.get("headers", {}).items())
        if "retry_after_date" in spec:
            when = time.time() + float(spec["retry_after_date"])
            headers.append(("Retry-After", email.utils.formatdate(when, usegmt=True)))
        status = int(spec.get("status", 200))
        try:
            if "raw" in spec:
                self.reply(status, spec["raw"], headers, spec.get("truncate", False))
            elif status != 200 or "error" in spec:
                err = dict(spec.get("error", {"message": "error %d" % status}))
                if spec.get("echo_auth"):
                    err["message"] = "Incorrect API key provided: %s" % ((auth or "")[7:])
                self.reply(status, json.dumps({"error": err}), headers)
            else:
                model = body.get("model") if isinstance(body, dict) else None
                self.reply(200, json.dumps(completion(spec, model, i)), headers, spec.get("truncate", False))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self.server.state.take()
        self.reply(404, json.dumps({"error": {"message": "GET is not served", "code": "not_found"}}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--script", required=True, help="JSON list of responses")
    ap.add_argument("--port-file", required=True, help="where the port number goes")
    ap.add_argument("--log", required=True, help="requests, one JSON object a line")
    ap.add_argument("--idle-exit", type=float, default=120, help="exit after this many idle seconds")
    a = ap.parse_args()
    with open(a.script, encoding="utf-8") as f:
        script = json.load(f)
    if not isinstance(script, list):
        sys.exit("fake_openai: the script must be a JSON list")
    open(a.log, "w").close()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.state = State(script, a.log, os.environ.get("FAKE_EXPECT_KEY", ""))
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        while time.time() - srv.state.last < a.idle_exit:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    srv.shutdown()


if __name__ == "__main__":
    main()
