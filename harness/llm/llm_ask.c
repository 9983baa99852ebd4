/* llm_ask.c: one model turn over Chat Completions. Builds the request from
 * prompt.json and the config, sends it with retries (llm_retry.c), drops
 * optional fields a server rejects, runs the tool calls the model makes
 * for a bounded number of rounds, and records every request (without the
 * key), raw response, tool call and wait in the transcript. */
#include "llm_ask.h"
#include "http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void llm_prompt_validate(const cJSON *p, const char *file, llm_kind *kind)
{
	static const char *const keys[] = {"messages", "template", "answer", "schema", "fenced_instructions",
					   "comment", NULL};
	static const char *const mk[] = {"role", "content", NULL};
	cko_jkeys(p, file, "", keys);
	const char *a = cko_jstr_opt(p, "answer", "kernel");
	if (!llm_kind_parse(a, kind))
		cko_jfail(file, "answer", "expected kernel, initial, reference, signature or cases, not '%s'", a);
	const cJSON *m = cko_jreq(p, "messages", file, "");
	if (!cJSON_IsArray(m) || !m->child)
		cko_jfail(file, "messages", "expected a non-empty array");
	int i = 0;
	for (const cJSON *e = m->child; e; e = e->next, i++) {
		const char *f = cko_field_i("messages", i);
		char fb[64];
		snprintf(fb, sizeof fb, "%s", f);
		cko_jkeys(e, file, fb, mk);
		const char *role = cko_jstr(e, "role", file, fb);
		if (strcmp(role, "system") && strcmp(role, "developer") && strcmp(role, "user") && strcmp(role, "assistant"))
			cko_jfail(file, cko_field(fb, "role"), "expected system, developer, user or assistant");
		cko_jstr(e, "content", file, fb);
	}
	const cJSON *s = cko_jget(p, "schema");
	if (s) {
		static const char *const sk[] = {"name", "strict", "schema", "description", NULL};
		cko_jkeys(s, file, "schema", sk);
		const char *nm = cko_jstr(s, "name", file, "schema");
		if (!*nm || strlen(nm) > 64 || strspn(nm, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
							 strlen(nm))
			cko_jfail(file, "schema.name", "1 to 64 letters, digits, _ or -");
		if (!cJSON_IsObject(cko_jreq(s, "schema", file, "schema")))
			cko_jfail(file, "schema.schema", "expected a JSON schema object");
	}
	if (cko_jget(p, "fenced_instructions") && !cJSON_IsString(cko_jget(p, "fenced_instructions")))
		cko_jfail(file, "fenced_instructions", "expected a string");
}

static const char *default_fenced(llm_kind k)
{
	if (llm_kind_is_kernel(k))
		return "Answer in this form: first a short note (a few sentences: what you changed and why), then "
		       "the complete CUDA source in one ```cuda fenced block, then the launch configuration "
		       "(launch.json) in one ```json fenced block.";
	return "Answer in this form: a short note, then the file in one ```json fenced block.";
}

/* The text of a message's content: a string, or a list of text parts. */
static char *content_text(const cJSON *c)
{
	if (cJSON_IsString(c))
		return xstrdup(c->valuestring);
	cko_buf b = {0};
	buf_add(&b, "", 0);
	for (const cJSON *p = cJSON_IsArray(c) ? c->child : NULL; p; p = p->next)
		if (cJSON_IsString(cko_jget(p, "text")))
			buf_puts(&b, cko_jget(p, "text")->valuestring);
	return b.s;
}

static void save_transcript(llm_session *s)
{
	if (!s->transcript_path)
		return;
	llm_scrub_json(s->transcript);
	cko_json_write(s->transcript_path, s->transcript);
}

static cJSON *event(llm_session *s, const char *type)
{
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "type", type);
	cJSON_AddNumberToObject(e, "t_s", cko_now() - cJSON_GetObjectItem(s->transcript, "t0")->valuedouble);
	cJSON_AddItemToArray(cJSON_GetObjectItem(s->transcript, "events"), e);
	return e;
}

typedef struct {
	int present;     /* LLM_F_ fields the next request carries */
	int tools_open;  /* tool_choice auto (else none) */
	int json_object; /* response_format is json_object + schema, not json_schema */
} req_state;

static char *build_body(llm_session *s, const cJSON *messages, const req_state *st)
{
	const llm_config *c = s->cfg;
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "model", c->model);
	cJSON_AddItemToObject(b, "messages", cJSON_Duplicate(messages, 1));
	if (st->present & LLM_F_REASONING)
		cJSON_AddStringToObject(b, "reasoning_effort", c->reasoning_effort);
	if (st->present & LLM_F_MAX_COMPLETION)
		cJSON_AddNumberToObject(b, "max_completion_tokens", (double)c->max_completion_tokens);
	if (st->present & LLM_F_MAX_TOKENS)
		cJSON_AddNumberToObject(b, "max_tokens", (double)c->max_completion_tokens);
	if (st->present & LLM_F_TEMPERATURE)
		cJSON_AddNumberToObject(b, "temperature", c->temperature);
	if (st->present & LLM_F_RESPONSE_FORMAT) {
		cJSON *rf = cJSON_AddObjectToObject(b, "response_format");
		const cJSON *sch = cko_jget(s->prompt, "schema");
		if (st->json_object) {
			/* llama.cpp's servers constrain json_object to a schema. */
			cJSON_AddStringToObject(rf, "type", "json_object");
			cJSON_AddItemToObject(rf, "schema", cJSON_Duplicate(cko_jget(sch, "schema"), 1));
		} else {
			cJSON_AddStringToObject(rf, "type", "json_schema");
			cJSON_AddItemToObject(rf, "json_schema", cJSON_Duplicate(sch, 1));
		}
	}
	if (st->present & LLM_F_TOOLS) {
		cJSON_AddItemToObject(b, "tools", llm_tools_json(s->tools));
		cJSON_AddStringToObject(b, "tool_choice", st->tools_open ? "auto" : "none");
	}
	for (const cJSON *e = c->extra_body ? c->extra_body->child : NULL; e; e = e->next)
		if (!cko_jget(b, e->string))
			cJSON_AddItemToObject(b, e->string, cJSON_Duplicate(e, 1));
	char *text = cJSON_PrintUnformatted(b);
	char *out = xstrdup(text);
	cJSON_free(text);
	cJSON_Delete(b);
	return out;
}

/* Appends the fenced-answer instructions to the last user message. */
static void go_fenced(llm_session *s, cJSON *messages)
{
	s->fenced = 1;
	const char *ins = cko_jstr_opt(s->prompt, "fenced_instructions", default_fenced(s->kind));
	cJSON *last = NULL;
	for (cJSON *m = messages->child; m; m = m->next)
		if (!strcmp(cko_jstr_opt(m, "role", ""), "user"))
			last = m;
	if (!last)
		return;
	const char *old = cko_jstr_opt(last, "content", "");
	char *nc = xasprintf("%s\n\n%s", old, ins);
	cJSON_ReplaceItemInObjectCaseSensitive(last, "content", cJSON_CreateString(nc));
	free(nc);
}

static void sleep_s(double s)
{
	if (s <= 0)
		return;
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void add_usage(llm_session *s, const cJSON *body)
{
	const cJSON *u = cko_jget(body, "usage");
	if (!u)
		return;
	s->prompt_tokens += cko_jnum_opt(u, "prompt_tokens", 0);
	s->completion_tokens += cko_jnum_opt(u, "completion_tokens", 0);
	s->cached_tokens += cko_jnum_opt(cko_jget(u, "prompt_tokens_details"), "cached_tokens", 0);
	s->reasoning_tokens += cko_jnum_opt(cko_jget(u, "completion_tokens_details"), "reasoning_tokens", 0);
}

static void flag_names(cJSON *arr, int flags)
{
	static const struct {
		int f;
		const char *n;
	} t[] = {{LLM_F_RESPONSE_FORMAT, "response_format"}, {LLM_F_REASONING, "reasoning_effort"},
		 {LLM_F_TEMPERATURE, "temperature"},         {LLM_F_MAX_COMPLETION, "max_completion_tokens"},
		 {LLM_F_MAX_TOKENS, "max_tokens"},           {LLM_F_TOOLS, "tools"}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (flags & t[i].f)
			cJSON_AddItemToArray(arr, cJSON_CreateString(t[i].n));
}

/* One request until a usable response: retries, degradations. Returns the
 * parsed body, or NULL having set s->error. */
static cJSON *exchange(llm_session *s, cJSON *messages, req_state *st, int round, uint64_t *rng)
{
	const llm_config *c = s->cfg;
	char *url = xasprintf("%s/chat/completions", c->base_url);
	int attempt = 0, degrades = 0;
	char last[1300] = ""; /* the previous attempt's error */
	cJSON *result = NULL;
	for (;;) {
		char *body = build_body(s, messages, st);
		cJSON *ev = event(s, "request");
		cJSON_AddNumberToObject(ev, "round", round);
		cJSON_AddNumberToObject(ev, "attempt", attempt + 1);
		cJSON_AddStringToObject(ev, "url", url);
		cJSON *hd = cJSON_AddObjectToObject(ev, "headers");
		cJSON_AddStringToObject(hd, "content-type", "application/json");
		if (s->key)
			cJSON_AddStringToObject(hd, "authorization", "Bearer (the API key, not recorded)");
		char perr[64];
		cJSON *bj = cko_json_parse(body, strlen(body), perr, sizeof perr);
		cJSON_AddItemToObject(ev, "body", bj ? bj : cJSON_CreateString(body));
		s->requests++;

		cko_http h;
		int rc = llm_http_post(url, s->key, body, c->timeout_s, c->connect_timeout_s, c->response_max, &h);
		free(body);
		llm_scrub(h.body);
		cJSON *rv = event(s, "response");
		cJSON_AddNumberToObject(rv, "round", round);
		cJSON_AddNumberToObject(rv, "attempt", attempt + 1);
		cJSON_AddNumberToObject(rv, "time_s", h.time_s);
		cJSON *parsed = NULL;
		if (rc) {
			cJSON_AddStringToObject(rv, "error", h.err);
		} else {
			cJSON_AddNumberToObject(rv, "status", (double)h.status);
			cJSON_AddItemToObject(rv, "headers", cJSON_Duplicate(h.headers, 1));
			char jerr[256];
			parsed = cko_json_parse(h.body, h.body_len, jerr, sizeof jerr);
			if (parsed) {
				llm_scrub_json(parsed);
				cJSON_AddItemToObject(rv, "body", cJSON_Duplicate(parsed, 1));
			} else {
				cJSON_AddStringToObject(rv, "body_text", h.body);
				cJSON_AddStringToObject(rv, "body_error", jerr);
			}
		}
		int drop = 0;
		char msg[1300];
		int k = llm_classify(&h, parsed, st->present, &drop, msg, sizeof msg);
		llm_scrub(msg);
		if (k == LLM_DONE) {
			result = parsed;
			cko_http_free(&h);
			break;
		}
		cJSON_AddStringToObject(rv, "problem", msg);
		/* structured: json_schema insists on the schema: no plain-text fallback. */
		if (k == LLM_DEGRADE && (drop & LLM_F_RESPONSE_FORMAT) && !strcmp(c->structured, "json_schema")) {
			snprintf(s->error, sizeof s->error, "%s (structured is json_schema: not falling back to fenced text)",
				 msg);
			cJSON_Delete(parsed);
			cko_http_free(&h);
			break;
		}
		if (k == LLM_DEGRADE && degrades++ < 8) {
			cJSON *dv = event(s, "degrade");
			/* json_schema refused by a server that names json_object
			 * as what it takes (llama-cpp-python): json_object with
			 * the schema next; fenced text when that is refused too. */
			int to_object = (drop & LLM_F_RESPONSE_FORMAT) && !st->json_object && strcasestr(msg, "json_object");
			if (to_object) {
				drop &= ~LLM_F_RESPONSE_FORMAT;
				st->json_object = 1;
				cJSON_AddStringToObject(dv, "response_format", "json_object");
			}
			flag_names(cJSON_AddArrayToObject(dv, "dropped"), drop);
			cJSON_AddStringToObject(dv, "reason", msg);
			if (to_object)
				cko_warn("the server rejected response_format json_schema; asking for json_object with the "
					 "schema: %s", msg);
			else
				cko_warn("the server rejected an optional field; sending again without it: %s", msg);
			if ((drop & LLM_F_MAX_COMPLETION) && !(st->present & LLM_F_MAX_TOKENS))
				st->present |= LLM_F_MAX_TOKENS;
			else if ((drop & LLM_F_MAX_TOKENS) && !(st->present & LLM_F_MAX_COMPLETION) &&
				 s->cfg->max_completion_tokens)
				st->present |= LLM_F_MAX_COMPLETION;
			st->present &= ~drop;
			if (drop & LLM_F_RESPONSE_FORMAT)
				go_fenced(s, messages);
			last[0] = 0;
			cJSON_Delete(parsed);
			cko_http_free(&h);
			save_transcript(s);
			continue;
		}
		/* A 500 that says the same twice is the server's fault, not a
		 * passing one: asking again would only repeat it. */
		int same = !strcmp(msg, last);
		if (k == LLM_RETRY && same && h.status == 500) {
			snprintf(s->error, sizeof s->error, "the server gave the same error twice, not retrying: %s", msg);
			cJSON_Delete(parsed);
			cko_http_free(&h);
			break;
		}
		snprintf(last, sizeof last, "%s", msg);
		if (k == LLM_RETRY && attempt < c->max_retries) {
			double ra = -1, v;
			const char *ms = cko_jstr_opt(h.headers, "retry-after-ms", NULL);
			if (ms && !llm_retry_after(ms, time(NULL), &v))
				ra = v / 1000;
			else if ((ms = cko_jstr_opt(h.headers, "retry-after", NULL)) && !llm_retry_after(ms, time(NULL), &v))
				ra = v;
			if (ra > 3600) {
				snprintf(s->error, sizeof s->error, "%s; the server asks to wait %.0f s (Retry-After)", msg, ra);
				cJSON_Delete(parsed);
				cko_http_free(&h);
				break;
			}
			double wait = llm_backoff(attempt, c->retry_base_s, c->retry_max_s, ra, rng);
			cJSON *wv = event(s, "retry");
			cJSON_AddStringToObject(wv, "reason", msg);
			if (ra >= 0)
				cJSON_AddNumberToObject(wv, "retry_after_s", ra);
			cJSON_AddNumberToObject(wv, "wait_s", wait);
			/* A long message (a server's traceback) is shown once. */
			if (same)
				cko_info("the same error again; trying again in %.1f s (%d of %d)", wait, attempt + 1,
					 c->max_retries);
			else
				cko_info("%s; trying again in %.1f s (%d of %d)", msg, wait, attempt + 1, c->max_retries);
			cJSON_Delete(parsed);
			cko_http_free(&h);
			save_transcript(s);
			sleep_s(wait);
			attempt++;
			continue;
		}
		if (k == LLM_RETRY)
			snprintf(s->error, sizeof s->error, "giving up after %d attempt%s: %s", attempt + 1,
				 attempt ? "s" : "", msg);
		else
			snprintf(s->error, sizeof s->error, "%s", msg);
		cJSON_Delete(parsed);
		cko_http_free(&h);
		break;
	}
	free(url);
	save_transcript(s);
	return result;
}

int llm_ask(llm_session *s)
{
	const llm_config *c = s->cfg;
	/* Here the key meets the URL: refuse before anything is sent. */
	llm_key_url_check(c, s->key);
	s->transcript = cJSON_CreateObject();
	cJSON *t = s->transcript;
	cJSON_AddStringToObject(t, "tool", "cko-llm");
	cJSON_AddStringToObject(t, "version", CKO_VERSION);
	cJSON_AddStringToObject(t, "model", c->model);
	cJSON_AddStringToObject(t, "base_url", c->base_url);
	cJSON_AddStringToObject(t, "answer", llm_kind_name(s->kind));
	cJSON_AddNumberToObject(t, "started_unix", (double)time(NULL));
	cJSON_AddNumberToObject(t, "t0", cko_now());
	cJSON *status = cJSON_AddStringToObject(t, "status", "running");
	cJSON_AddArrayToObject(t, "events");

	req_state st = {0, 1, c->json_object};
	if (c->reasoning_effort)
		st.present |= LLM_F_REASONING;
	if (c->max_completion_tokens)
		st.present |= c->token_fields;
	if (c->has_temperature)
		st.present |= LLM_F_TEMPERATURE;
	/* tool_rounds 0: no turn may call a tool, so none is offered (a
	 * server that has a tool schema constrains the call's arguments
	 * with no token limit: llama-cpp-python's chatml-function-calling). */
	int have_tools = s->tools && llm_tools_count(s->tools) > 0 && c->tool_rounds > 0;
	if (have_tools)
		st.present |= LLM_F_TOOLS;
	cJSON *messages = cJSON_Duplicate(cko_jget(s->prompt, "messages"), 1);
	if (!strcmp(c->structured, "fenced") || !cko_jget(s->prompt, "schema"))
		go_fenced(s, messages);
	else
		st.present |= LLM_F_RESPONSE_FORMAT;
	uint64_t rng = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	int extra = 0; /* requests after tool calls that came when tools were closed */
	int rc = CKO_ENV;
	for (;;) {
		cJSON *body = exchange(s, messages, &st, s->rounds, &rng);
		if (!body)
			break;
		add_usage(s, body);
		cJSON_Delete(s->final);
		s->final = body;
		const cJSON *ch = cko_jget(body, "choices")->child;
		const cJSON *msg = cko_jget(ch, "message");
		s->finish_reason = cko_jstr_opt(ch, "finish_reason", NULL);
		const cJSON *calls = cko_jget(msg, "tool_calls");
		if (cJSON_IsArray(calls) && calls->child && (st.present & LLM_F_TOOLS) && extra < 2) {
			/* The assistant's turn goes back as it came, then one result
			 * per call; no text is "", which every server takes
			 * (llama-cpp-python refuses null and a missing content). */
			cJSON *am = cJSON_CreateObject();
			cJSON_AddStringToObject(am, "role", "assistant");
			const cJSON *ct = cko_jget(msg, "content");
			cJSON_AddStringToObject(am, "content", cJSON_IsString(ct) ? ct->valuestring : "");
			cJSON_AddItemToObject(am, "tool_calls", cJSON_Duplicate(calls, 1));
			cJSON_AddItemToArray(messages, am);
			int i = 0;
			for (const cJSON *call = calls->child; call; call = call->next, i++) {
				const char *id = cko_jstr_opt(call, "id", "");
				const cJSON *fn = cko_jget(call, "function");
				const char *name = cko_jstr_opt(fn, "name", NULL);
				const char *args = cko_jstr_opt(fn, "arguments", "{}");
				cJSON *rec = event(s, "tool_call");
				cJSON_AddNumberToObject(rec, "round", s->rounds);
				cJSON_AddStringToObject(rec, "id", id);
				char *out;
				if (!st.tools_open) {
					cJSON_AddStringToObject(rec, "name", name ? name : "");
					out = xstrdup("{\"error\": \"no more tool calls: give your final answer now\"}");
					cJSON_AddStringToObject(rec, "error", "tools closed");
				} else if (i >= c->tool_calls_per_round) {
					cJSON_AddStringToObject(rec, "name", name ? name : "");
					out = xasprintf("{\"error\": \"at most %d tool calls per turn\"}", c->tool_calls_per_round);
					cJSON_AddStringToObject(rec, "error", "too many calls in one round");
				} else {
					cko_info("tool call: %s %s", name ? name : "?", args);
					out = llm_tool_call(s->tools, name, args, rec);
				}
				cJSON *tm = cJSON_CreateObject();
				cJSON_AddStringToObject(tm, "role", "tool");
				cJSON_AddStringToObject(tm, "tool_call_id", id);
				cJSON_AddStringToObject(tm, "content", out);
				cJSON_AddItemToArray(messages, tm);
				cJSON_AddStringToObject(rec, "result", out);
				free(out);
			}
			if (!st.tools_open)
				extra++;
			s->rounds++;
			if (s->rounds >= c->tool_rounds && st.tools_open) {
				st.tools_open = 0;
				cJSON *um = cJSON_CreateObject();
				cJSON_AddStringToObject(um, "role", "user");
				cJSON_AddStringToObject(um, "content",
							"The tool budget is spent. Give your final answer now, in the required "
							"format.");
				cJSON_AddItemToArray(messages, um);
			}
			save_transcript(s);
			continue;
		}
		free(s->content);
		s->content = content_text(cko_jget(msg, "content"));
		const char *ref = cko_jstr_opt(msg, "refusal", NULL);
		if (ref) {
			free(s->refusal);
			s->refusal = xstrdup(ref);
		}
		rc = 0;
		s->rounds++;
		break;
	}
	cJSON_Delete(messages);
	cJSON_SetValuestring(status, rc ? "error" : "ok");
	if (rc)
		cJSON_AddStringToObject(t, "error", s->error);
	s->json_object = st.json_object;
	int tf = st.present & (LLM_F_MAX_COMPLETION | LLM_F_MAX_TOKENS);
	s->limit_field = tf == (LLM_F_MAX_COMPLETION | LLM_F_MAX_TOKENS) ? "max_completion_tokens and max_tokens"
			 : tf == LLM_F_MAX_TOKENS                         ? "max_tokens"
			 : tf                                             ? "max_completion_tokens"
									  : "the server's own limit: none was sent";
	cJSON_AddStringToObject(t, "mode", s->fenced ? "fenced" : st.json_object ? "json_object" : "json_schema");
	cJSON_AddNumberToObject(t, "rounds", s->rounds);
	cJSON_AddNumberToObject(t, "requests", s->requests);
	cJSON_AddNumberToObject(t, "time_s", cko_now() - cJSON_GetObjectItem(t, "t0")->valuedouble);
	cJSON_DeleteItemFromObject(t, "t0");
	cJSON_AddItemToObject(t, "usage", llm_usage_json(s));
	save_transcript(s);
	return rc;
}

cJSON *llm_usage_json(const llm_session *s)
{
	const llm_config *c = s->cfg;
	cJSON *u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "tool", "cko-llm");
	const char *model = cko_jstr_opt(s->final, "model", c->model);
	cJSON_AddStringToObject(u, "model", model);
	cJSON_AddNumberToObject(u, "rounds", s->rounds);
	cJSON_AddNumberToObject(u, "requests", s->requests);
	cJSON_AddNumberToObject(u, "prompt_tokens", s->prompt_tokens);
	cJSON_AddNumberToObject(u, "completion_tokens", s->completion_tokens);
	cJSON_AddNumberToObject(u, "reasoning_tokens", s->reasoning_tokens);
	cJSON_AddNumberToObject(u, "cached_tokens", s->cached_tokens);
	if (c->has_prices) {
		/* Cached prompt tokens are billed at their own rate; reasoning
		 * tokens are part of the completion tokens. */
		double fresh = s->prompt_tokens - s->cached_tokens;
		double cost = (fresh * c->price_prompt + s->cached_tokens * c->price_cached +
			       s->completion_tokens * c->price_completion) / 1e6;
		cJSON_AddNumberToObject(u, "cost_usd", cost);
		cJSON *p = cJSON_AddObjectToObject(u, "prices_per_1m");
		cJSON_AddNumberToObject(p, "prompt", c->price_prompt);
		cJSON_AddNumberToObject(p, "cached", c->price_cached);
		cJSON_AddNumberToObject(p, "completion", c->price_completion);
	} else {
		cJSON_AddNullToObject(u, "cost_usd");
	}
	return u;
}

void llm_session_free(llm_session *s)
{
	cJSON_Delete(s->transcript);
	cJSON_Delete(s->final);
	free(s->content);
	free(s->refusal);
	s->transcript = s->final = NULL;
	s->content = s->refusal = NULL;
}
