/* llm_config.c: cko-llm's run config, the API key from the environment or
 * a .env file, and masking that key in everything saved or shown. */
#include "llm.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char *const config_keys[] = {
	"base_url", "model", "reasoning_effort", "max_completion_tokens", "temperature", "timeout_s",
	"connect_timeout_s", "max_retries", "retry_base_s", "retry_max_s", "structured", "prices", "tool_rounds",
	"tool_calls_per_round", "tool_timeout_s", "tool_output_max", "response_max_bytes", "answer_max_bytes",
	"extra_body", "allow_insecure_http", "server", "context_max_chars", "comment", NULL,
};

/* Server families, only where their protocol differs from OpenAI's
 * (docs/model.md): which field bounds the reply, whether reasoning_effort
 * goes by default, and the first response_format to ask for. */
static const struct {
	const char *name;
	int token_fields;      /* LLM_F_MAX_COMPLETION and/or LLM_F_MAX_TOKENS */
	int reasoning_default; /* send reasoning_effort "medium" when unset */
	int json_object;       /* ask for json_object + schema, not json_schema */
} servers[] = {
	/* OpenAI's reasoning models reject max_tokens. */
	{"openai", LLM_F_MAX_COMPLETION, 1, 0},
	{"vllm", LLM_F_MAX_COMPLETION | LLM_F_MAX_TOKENS, 0, 0},
	/* llama-server reads max_tokens (n_predict) only. */
	{"llama-server", LLM_F_MAX_TOKENS, 0, 0},
	/* llama-cpp-python ignores max_completion_tokens and takes a schema
	 * only under json_object. */
	{"llama-cpp-python", LLM_F_MAX_TOKENS, 0, 1},
	{"ollama", LLM_F_MAX_TOKENS, 0, 0},
};

static double num_in(const cJSON *o, const char *key, double dflt, double lo, double hi, const char *file,
		     const char *field)
{
	const cJSON *v = cko_jget(o, key);
	if (!v)
		return dflt;
	if (!cJSON_IsNumber(v))
		cko_jfail(file, cko_field(field, key), "expected a number");
	if (v->valuedouble < lo || v->valuedouble > hi)
		cko_jfail(file, cko_field(field, key), "%g is outside %g..%g", v->valuedouble, lo, hi);
	return v->valuedouble;
}

static int64_t int_in(const cJSON *o, const char *key, int64_t dflt, int64_t lo, int64_t hi, const char *file,
		      const char *field)
{
	int64_t v = cko_jint_opt(o, key, dflt, file, field);
	if (v < lo || v > hi)
		cko_jfail(file, cko_field(field, key), "%lld is outside %lld..%lld", (long long)v, (long long)lo,
			  (long long)hi);
	return v;
}

void llm_config_load(const char *path, llm_config *c)
{
	memset(c, 0, sizeof *c);
	cJSON *root = path ? cko_json_load(path) : cJSON_CreateObject();
	const char *file = path ? path : "(defaults)";
	c->file = xstrdup(file);
	/* A run's config.json (cko-init's, or the file given to cko-init
	 * --config) keeps the settings under "model_settings" and may name the
	 * model at the top; any other file is the settings themselves. */
	const cJSON *o = root, *top_model = NULL;
	const char *field = "";
	cJSON *empty = NULL;
	if (cko_jget(root, "model_settings") || !strcmp(cko_jstr_opt(root, "tool", ""), "cko-init")) {
		o = cko_jget(root, "model_settings");
		if (!o)
			o = empty = cJSON_CreateObject();
		field = "model_settings";
		top_model = cko_jget(root, "model");
		if (top_model && !cJSON_IsString(top_model))
			cko_jfail(file, "model", "expected a model name");
	}
	/* Before the unknown-key check, so an api_key gets the real reason. */
	cko_jno_secrets(root, file);
	cko_jkeys(o, file, field, config_keys);
	c->field = xstrdup(field);

	const char *s = cko_jstr_opt(o, "base_url", "https://api.openai.com/v1");
	if (cko_jget(o, "base_url") && !cJSON_IsString(cko_jget(o, "base_url")))
		cko_jfail(file, cko_field(field, "base_url"), "expected a string");
	if (strncmp(s, "http://", 7) && strncmp(s, "https://", 8))
		cko_jfail(file, cko_field(field, "base_url"), "'%s' is not an http:// or https:// URL", s);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			cko_jfail(file, cko_field(field, "base_url"), "contains a space or a control character");
	const char *auth = strchr(s, '/') + 2;
	const char *at = memchr(auth, '@', strcspn(auth, "/?#"));
	if (at)
		cko_jfail(file, cko_field(field, "base_url"),
			  "holds a user name or password (user@host): keys are never stored in a config");
	c->base_url = xstrdup(s);
	size_t n = strlen(c->base_url);
	while (n && c->base_url[n - 1] == '/')
		c->base_url[--n] = 0;
	const cJSON *ih = cko_jget(o, "allow_insecure_http");
	if (ih && !cJSON_IsBool(ih))
		cko_jfail(file, cko_field(field, "allow_insecure_http"), "expected true or false");
	c->allow_insecure_http = cJSON_IsTrue(ih);

	const cJSON *m = top_model ? top_model : cko_jget(o, "model");
	if (m && (!cJSON_IsString(m) || !*m->valuestring || strlen(m->valuestring) > 200))
		cko_jfail(file, cko_field(field, "model"), "expected a model name");
	c->model = xstrdup(m ? m->valuestring : "gpt-5-mini");

	const char *sv = cko_jstr_opt(o, "server", "openai");
	if (cko_jget(o, "server") && !cJSON_IsString(cko_jget(o, "server")))
		cko_jfail(file, cko_field(field, "server"), "expected a string");
	size_t si = 0;
	while (si < sizeof servers / sizeof *servers && strcmp(servers[si].name, sv))
		si++;
	if (si == sizeof servers / sizeof *servers)
		cko_jfail(file, cko_field(field, "server"),
			  "expected openai, vllm, llama-server, llama-cpp-python or ollama, not '%s'", sv);
	c->server = xstrdup(sv);
	c->token_fields = servers[si].token_fields;
	c->json_object = servers[si].json_object;

	/* null (or "") turns the field off for servers that reject it. */
	const cJSON *r = cko_jget(o, "reasoning_effort");
	if (r && !cJSON_IsNull(r) && !cJSON_IsString(r))
		cko_jfail(file, cko_field(field, "reasoning_effort"), "expected a string or null");
	if (!r && servers[si].reasoning_default)
		c->reasoning_effort = xstrdup("medium");
	else if (cJSON_IsString(r) && *r->valuestring) {
		if (strlen(r->valuestring) > 32 || strspn(r->valuestring, "abcdefghijklmnopqrstuvwxyz_") !=
							   strlen(r->valuestring))
			cko_jfail(file, cko_field(field, "reasoning_effort"), "expected e.g. minimal, low, medium or high");
		c->reasoning_effort = xstrdup(r->valuestring);
	}

	c->max_completion_tokens = int_in(o, "max_completion_tokens", 0, 0, 10000000, file, field);
	const cJSON *t = cko_jget(o, "temperature");
	if (t && !cJSON_IsNull(t)) {
		c->has_temperature = 1;
		c->temperature = num_in(o, "temperature", 1, 0, 2, file, field);
	}
	c->timeout_s = num_in(o, "timeout_s", 600, 0.001, 86400, file, field);
	c->connect_timeout_s = num_in(o, "connect_timeout_s", 30, 0.001, 3600, file, field);
	c->max_retries = (int)int_in(o, "max_retries", 6, 0, 100, file, field);
	c->retry_base_s = num_in(o, "retry_base_s", 2, 0, 3600, file, field);
	c->retry_max_s = num_in(o, "retry_max_s", 120, 0, 3600, file, field);

	s = cko_jstr_opt(o, "structured", "auto");
	if (strcmp(s, "auto") && strcmp(s, "json_schema") && strcmp(s, "fenced"))
		cko_jfail(file, cko_field(field, "structured"), "expected auto, json_schema or fenced, not '%s'", s);
	c->structured = xstrdup(s);

	const cJSON *p = cko_jget(o, "prices");
	if (p && !cJSON_IsNull(p)) {
		static const char *const pk[] = {"prompt", "cached", "completion", "comment", NULL};
		const char *pf = cko_field(field, "prices");
		char pfb[128];
		snprintf(pfb, sizeof pfb, "%s", pf);
		cko_jkeys(p, file, pfb, pk);
		c->has_prices = 1;
		c->price_prompt = num_in(p, "prompt", 0, 0, 1e6, file, pfb);
		c->price_completion = num_in(p, "completion", 0, 0, 1e6, file, pfb);
		c->price_cached = num_in(p, "cached", c->price_prompt, 0, 1e6, file, pfb);
	}
	c->tool_rounds = (int)int_in(o, "tool_rounds", 8, 0, 100, file, field);
	c->tool_calls_per_round = (int)int_in(o, "tool_calls_per_round", 8, 1, 64, file, field);
	c->tool_timeout_s = num_in(o, "tool_timeout_s", 120, 0.01, 3600, file, field);
	c->tool_output_max = (size_t)int_in(o, "tool_output_max", 32768, 256, 1 << 22, file, field);
	c->response_max = (size_t)int_in(o, "response_max_bytes", 8 << 20, 4096, 256 << 20, file, field);
	c->answer_max = (size_t)int_in(o, "answer_max_bytes", 2 << 20, 1024, 64 << 20, file, field);
	c->context_max_chars = (size_t)int_in(o, "context_max_chars", 0, 0, 1 << 30, file, field);
	if (c->context_max_chars && c->context_max_chars < LLM_CONTEXT_MIN)
		cko_jfail(file, cko_field(field, "context_max_chars"), "%zu is below %d (0: no limit)",
			  c->context_max_chars, LLM_CONTEXT_MIN);

	const cJSON *x = cko_jget(o, "extra_body");
	if (x) {
		static const char *const reserved[] = {"model", "messages", "tools", "tool_choice", "response_format",
						       "stream", NULL};
		if (!cJSON_IsObject(x))
			cko_jfail(file, cko_field(field, "extra_body"), "expected an object");
		for (const cJSON *e = x->child; e; e = e->next)
			for (const char *const *k = reserved; *k; k++)
				if (!strcmp(*k, e->string))
					cko_jfail(file, cko_field(cko_field(field, "extra_body"), e->string),
						  "cko-llm sets this field itself");
		c->extra_body = cJSON_Duplicate(x, 1);
	}
	cJSON_Delete(empty);
	cJSON_Delete(root);
}

void llm_config_free(llm_config *c)
{
	free(c->file);
	free(c->field);
	free(c->base_url);
	free(c->model);
	free(c->reasoning_effort);
	free(c->structured);
	free(c->server);
	cJSON_Delete(c->extra_body);
	memset(c, 0, sizeof *c);
}

/* ---- the key ---- */

/* OPENAI_API_KEY's value in a .env text, or NULL. Lines are KEY=VALUE,
 * optionally after "export ", with optional quotes; # starts a comment. */
static char *dotenv_key(const char *text)
{
	char *found = NULL;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, n);
		p = nl ? nl + 1 : p + n;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!strncmp(s, "export", 6) && isspace((unsigned char)s[6]))
			for (s += 6; isspace((unsigned char)*s); s++)
				;
		if (strncmp(s, "OPENAI_API_KEY", 14)) {
			free(line);
			continue;
		}
		s += 14;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s != '=') {
			free(line);
			continue;
		}
		s++;
		while (*s == ' ' || *s == '\t')
			s++;
		char *e;
		if (*s == '"' || *s == '\'') {
			char q = *s++;
			e = strchr(s, q);
			if (!e)
				e = s + strlen(s);
		} else {
			e = s + strcspn(s, "#");
			while (e > s && isspace((unsigned char)e[-1]))
				e--;
		}
		*e = 0;
		free(found);
		found = xstrdup(s); /* the last assignment wins, as in a shell */
		free(line);
	}
	return found;
}

static char *read_dotenv(const char *path)
{
	char err[512];
	char *text = cko_try_read_file(path, 1 << 20, NULL, err, sizeof err);
	if (!text)
		return NULL;
	char *k = dotenv_key(text);
	/* Scrub the file's text before freeing: it held the key. */
	memset(text, 0, strlen(text));
	free(text);
	return k;
}

/* The top of the git work tree holding dir (the nearest folder with a
 * .git, a folder or a worktree's file), or NULL. Only .git is looked at on
 * the way up: no other file of a parent is read. */
static char *git_top(const char *dir)
{
	char *d = xstrdup(dir);
	for (;;) {
		char *g = xasprintf("%s/.git", d);
		int top = cko_exists(g);
		free(g);
		if (top)
			return d;
		char *slash = strrchr(d, '/');
		if (!slash || slash == d) {
			free(d);
			return NULL;
		}
		*slash = 0;
	}
}

/* $CKO_DOTENV, else ./.env, else .env at the repository root (the top of
 * the git work tree the current folder is in): a run's folder is
 * results/run-NNN/ inside it. Never a folder in between or above. */
static char *find_dotenv_key(void)
{
	const char *env = getenv("CKO_DOTENV");
	if (env)
		return *env ? read_dotenv(env) : NULL;
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return NULL;
	char *k = read_dotenv(".env");
	if (k)
		return k;
	char *top = git_top(cwd);
	if (top && strcmp(top, cwd)) {
		char *f = xasprintf("%s/.env", top);
		k = read_dotenv(f);
		free(f);
	}
	free(top);
	return k;
}

char *llm_api_key(void)
{
	const char *e = getenv("OPENAI_API_KEY");
	char *k = e && *e ? xstrdup(e) : find_dotenv_key();
	if (k && !*k) {
		free(k);
		return NULL;
	}
	if (k)
		for (const char *p = k; *p; p++)
			if ((unsigned char)*p < 0x21 || *p == 0x7f) {
				/* Name no part of the key: it may be a real one. */
				memset(k, 0, strlen(k));
				free(k);
				cko_die(CKO_BADINPUT, "OPENAI_API_KEY holds a space or a control character");
			}
	if (k)
		llm_secret(k);
	return k;
}

/* ---- where the key may go ---- */

int llm_url_loopback(const char *url)
{
	const char *h = !strncmp(url, "http://", 7) ? url + 7 : !strncmp(url, "https://", 8) ? url + 8 : NULL;
	if (!h)
		return 0;
	size_t n = strcspn(h, "/?#");
	if (memchr(h, '@', n))
		return 0; /* the host is after the user name; refused in a config anyway */
	if (n >= 5 && !strncmp(h, "[::1]", 5))
		return n == 5 || h[5] == ':';
	size_t hl = strcspn(h, ":/?#");
	if (hl == 9 && !strncasecmp(h, "localhost", 9))
		return 1;
	/* 127.a.b.c, four decimal parts of at most 3 digits, each <= 255. */
	if (hl < 7 || strncmp(h, "127.", 4))
		return 0;
	int parts = 0;
	for (size_t i = 0; i < hl;) {
		size_t d = 0;
		int v = 0;
		while (i + d < hl && h[i + d] >= '0' && h[i + d] <= '9' && d < 4)
			v = v * 10 + (h[i + d++] - '0');
		if (!d || d > 3 || v > 255)
			return 0;
		parts++;
		i += d;
		if (i < hl && (h[i] != '.' || ++i == hl))
			return 0;
	}
	return parts == 4;
}

void llm_key_url_check(const llm_config *c, const char *key)
{
	if (!key || !strncmp(c->base_url, "https://", 8) || llm_url_loopback(c->base_url))
		return;
	if (c->allow_insecure_http) {
		cko_warn("%s: sending the API key over plain http (allow_insecure_http)", c->base_url);
		return;
	}
	char f[128];
	snprintf(f, sizeof f, "%s", cko_field(c->field, "base_url"));
	cko_jfail(c->file, f,
		  "%s is plain http to another machine: the API key would travel unencrypted; use https, or set "
		  "%s: true to send it anyway",
		  c->base_url, cko_field(c->field, "allow_insecure_http"));
}

/* ---- scrubbing ---- */

/* The key and the set of its SCRUB_RUN-character pieces. A piece packs
 * into 48 bits, so the set holds the pieces themselves: a hit is exact. */
#define SCRUB_RUN 6
#define PIECE_MASK ((UINT64_C(1) << (8 * SCRUB_RUN)) - 1)
static char *secret;
static uint64_t *pieces; /* open addressing; 0 is empty (no piece is six NULs) */
static size_t npieces_cap;

static size_t piece_slot(uint64_t v)
{
	return (size_t)((v * UINT64_C(0x9e3779b97f4a7c15)) >> 40) & (npieces_cap - 1);
}

static int piece_in(uint64_t v)
{
	for (size_t i = piece_slot(v);; i = (i + 1) & (npieces_cap - 1)) {
		if (pieces[i] == v)
			return 1;
		if (!pieces[i])
			return 0;
	}
}

void llm_secret(const char *key)
{
	if (secret)
		memset(secret, 0, strlen(secret));
	free(secret);
	if (pieces)
		memset(pieces, 0, npieces_cap * sizeof *pieces);
	free(pieces);
	secret = NULL;
	pieces = NULL;
	npieces_cap = 0;
	if (!key || !*key)
		return;
	secret = xstrdup(key);
	size_t k = strlen(key);
	if (k < SCRUB_RUN)
		return;
	for (npieces_cap = 16; npieces_cap < 2 * k; npieces_cap *= 2)
		;
	pieces = xcalloc(npieces_cap, sizeof *pieces);
	uint64_t v = 0;
	for (size_t i = 0; i < k; i++) {
		v = ((v << 8) | (unsigned char)key[i]) & PIECE_MASK;
		if (i + 1 < SCRUB_RUN || piece_in(v))
			continue;
		size_t s = piece_slot(v);
		while (pieces[s])
			s = (s + 1) & (npieces_cap - 1);
		pieces[s] = v;
	}
}

/* Masks the key and every piece of it of SCRUB_RUN or more characters:
 * servers echo keys partly masked, and a compiler quotes what it read one
 * identifier at a time. One pass: each window of SCRUB_RUN characters that
 * is a piece of the key is masked, so overlapping windows mask a whole
 * run. A window is read before any of it is masked. */
char *llm_scrub(char *s)
{
	if (!s || !secret)
		return s;
	size_t k = strlen(secret);
	if (k < SCRUB_RUN) {
		for (char *p = s; (p = strstr(p, secret)); p += k)
			memset(p, '*', k);
		return s;
	}
	uint64_t v = 0;
	size_t masked = 0; /* s[..masked) is done */
	for (size_t i = 0; s[i]; i++) {
		v = ((v << 8) | (unsigned char)s[i]) & PIECE_MASK;
		if (i + 1 < SCRUB_RUN || !piece_in(v))
			continue;
		size_t from = i + 1 - SCRUB_RUN;
		if (from < masked)
			from = masked;
		memset(s + from, '*', i + 1 - from);
		masked = i + 1;
	}
	return s;
}

void llm_scrub_json(cJSON *j)
{
	for (; j; j = j->next) {
		if (cJSON_IsString(j) && j->valuestring)
			llm_scrub(j->valuestring);
		if (j->string)
			llm_scrub(j->string);
		if (j->child)
			llm_scrub_json(j->child);
	}
}
