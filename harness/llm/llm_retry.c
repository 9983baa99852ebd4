/* llm_retry.c: what a failed attempt means. Transient trouble (408, 409,
 * 429, 5xx, lost connections, timeouts, a garbled body) is retried with
 * exponential backoff and jitter, honouring Retry-After; an error (4xx or
 * 5xx, not 429) whose message names an optional field the request carried
 * drops that field, since local servers answer an unsupported field with a
 * 500 as often as with a 400; the rest (quota, auth, unknown model, other
 * client errors) gives up at once. */
#include "llm.h"
#include "http.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *llm_error_message(const cJSON *j, const char *raw, char *msg, size_t n)
{
	const cJSON *e = cko_jget(j, "error");
	const char *code = NULL;
	const char *m = NULL;
	if (cJSON_IsObject(e)) {
		m = cko_jstr_opt(e, "message", NULL);
		code = cko_jstr_opt(e, "code", NULL);
		if (!code)
			code = cko_jstr_opt(e, "type", NULL);
	} else if (cJSON_IsString(e)) {
		m = e->valuestring;
	}
	if (!m)
		m = cko_jstr_opt(j, "message", NULL);
	if (!m)
		m = cko_jstr_opt(j, "detail", NULL);
	if (!m && cJSON_IsArray(cko_jget(j, "detail")))
		m = cko_jstr_opt(cJSON_GetArrayItem(cko_jget(j, "detail"), 0), "msg", NULL);
	if (!m && raw) {
		/* No JSON: the start of the body, on one line. */
		snprintf(msg, n, "%.300s", raw);
		for (char *p = msg; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
	} else {
		snprintf(msg, n, "%.1000s", m ? m : "(no message)");
	}
	llm_scrub(msg);
	return code;
}

/* Optional fields, the names a server's error may use for them. */
static const struct {
	int flag;
	const char *names[4];
} optional_fields[] = {
	{LLM_F_RESPONSE_FORMAT, {"response_format", "json_schema", "json_object", NULL}},
	{LLM_F_REASONING, {"reasoning_effort", NULL}},
	{LLM_F_TEMPERATURE, {"temperature", NULL}},
	{LLM_F_MAX_COMPLETION, {"max_completion_tokens", NULL}},
	{LLM_F_MAX_TOKENS, {"max_tokens", NULL}},
	/* llama-server without --jinja: "tools param requires --jinja flag". */
	{LLM_F_TOOLS, {"tool_choice", "tools", "--jinja", NULL}},
};

static int mentions(const char *text, const char *name)
{
	if (!text)
		return 0;
	size_t n = strlen(name);
	for (const char *p = text; (p = strcasestr(p, name)); p += n) {
		/* A whole word: "max_tokens" must not match "max_completion_tokens"'s tail. */
		int before = p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_' || p[-1] == '-');
		int after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (!before && !after)
			return 1;
	}
	return 0;
}

static int named_fields(const cJSON *parsed, const char *raw, int present)
{
	/* OpenAI names the field in error.param: trust that alone when set. */
	const char *param = cko_jstr_opt(cko_jget(parsed, "error"), "param", NULL);
	int drop = 0;
	for (size_t i = 0; i < sizeof optional_fields / sizeof *optional_fields; i++) {
		if (!(present & optional_fields[i].flag))
			continue;
		for (int k = 0; k < 4 && optional_fields[i].names[k]; k++) {
			const char *nm = optional_fields[i].names[k];
			if (param ? !strncmp(param, nm, strlen(nm)) : mentions(raw, nm))
				drop |= optional_fields[i].flag;
		}
	}
	return drop;
}

static int curl_transient(int code)
{
	switch (code) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_PARTIAL_FILE:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_BAD_CONTENT_ENCODING:
		return 1;
	default:
		return 0;
	}
}

int llm_classify(const cko_http *h, const cJSON *parsed, int present, int *drop, char *msg, size_t n)
{
	*drop = 0;
	if (h->curl_code) {
		if (h->body_truncated) {
			snprintf(msg, n, "%s", h->err);
			return LLM_FATAL;
		}
		snprintf(msg, n, "connection: %s", h->err);
		return curl_transient(h->curl_code) ? LLM_RETRY : LLM_FATAL;
	}
	char em[1100];
	const char *code = NULL;
	if (h->status < 200 || h->status > 299)
		code = llm_error_message(parsed, h->body, em, sizeof em);
	if (h->status >= 200 && h->status <= 299) {
		if (!parsed) {
			snprintf(msg, n, "HTTP %ld with a body that is not JSON", h->status);
			return LLM_RETRY;
		}
		if (cko_jget(parsed, "error")) {
			llm_error_message(parsed, h->body, em, sizeof em);
			snprintf(msg, n, "HTTP %ld with an error: %s", h->status, em);
			return LLM_RETRY;
		}
		const cJSON *ch = cko_jget(parsed, "choices");
		if (!cJSON_IsArray(ch) || !cJSON_IsObject(ch->child) || !cJSON_IsObject(cko_jget(ch->child, "message"))) {
			snprintf(msg, n, "HTTP %ld without choices[0].message", h->status);
			return LLM_RETRY;
		}
		msg[0] = 0;
		return LLM_DONE;
	}
	if (code)
		snprintf(msg, n, "HTTP %ld: %s (%s)", h->status, em, code);
	else
		snprintf(msg, n, "HTTP %ld: %s", h->status, em);
	if (h->status == 429)
		return code && !strcmp(code, "insufficient_quota") ? LLM_FATAL : LLM_RETRY;
	/* What the server says decides, not only the status: llama-cpp-python
	 * and llama-server answer a field they do not take with a 500. */
	if (h->status >= 400 && h->status != 401 && h->status != 403) {
		*drop = named_fields(parsed, h->body, present);
		if (*drop)
			return LLM_DEGRADE;
	}
	if (h->status == 408 || h->status == 409 || h->status >= 500)
		return LLM_RETRY;
	return LLM_FATAL;
}

int llm_retry_after(const char *value, time_t now, double *seconds)
{
	while (isspace((unsigned char)*value))
		value++;
	if (isdigit((unsigned char)*value)) {
		char *end;
		double s = strtod(value, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (*end || !isfinite(s) || s < 0)
			return -1;
		*seconds = s;
		return 0;
	}
	time_t t = curl_getdate(value, NULL);
	if (t == (time_t)-1)
		return -1;
	*seconds = t > now ? (double)(t - now) : 0;
	return 0;
}

double llm_backoff(int attempt, double base, double cap, double retry_after, uint64_t *rng)
{
	double d = base * pow(2, attempt > 30 ? 30 : attempt);
	if (d > cap)
		d = cap;
	/* xorshift64* for the jitter: deterministic tests seed it. */
	uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15ULL;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	double u = (double)((x * 0x2545f4914f6cdd1dULL) >> 11) / 9007199254740992.0;
	d *= 0.5 + 0.5 * u;
	return retry_after > d ? retry_after : d;
}
