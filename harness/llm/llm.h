/* llm.h: the model client behind cko-llm (docs/model.md): its run config
 * and API key, HTTP with retries, the answer's extraction and local
 * validation, the tool-call manifest, prompt templates and the context
 * a propose/repair prompt is rendered from.
 *
 *   llm_config.c   config file, API key (.env), scrubbing the key
 *   llm_http.c     one POST through harness/http: the key, no redirects
 *   llm_retry.c    what to do with a failed attempt: retry, degrade, give up
 *   llm_answer.c   the answer object from a structured or fenced reply
 *   llm_check.c    local validation of a kernel answer (entry, launch rules)
 *   llm_tools.c    tool manifest, argv substitution, running a tool call
 *   llm_render.c   {{name}} templates into prompt.json
 *   llm_context.c  the run folder's history as markdown for the prompts
 *   llm_trim.c     that history cut to a budget of characters */
#ifndef CKO_LLM_H
#define CKO_LLM_H

#include "cko.h"

#include <time.h>

/* ---- llm_config.c ---- */
typedef struct {
	char *file;
	char *field;            /* where the settings are: "model_settings" or "" */
	char *base_url;         /* without a trailing slash */
	int allow_insecure_http; /* the key may go over http to another machine */
	char *model;
	char *server;           /* the server family: openai, vllm, llama-server, ... */
	char *reasoning_effort; /* NULL: not sent */
	int64_t max_completion_tokens; /* 0: not sent */
	int token_fields;       /* LLM_F_MAX_COMPLETION | LLM_F_MAX_TOKENS: which carry it */
	int json_object;        /* response_format json_object + schema first */
	int has_temperature;
	double temperature;
	double timeout_s, connect_timeout_s;
	int max_retries;
	double retry_base_s, retry_max_s;
	char *structured;       /* auto, json_schema or fenced */
	int has_prices;
	double price_prompt, price_cached, price_completion; /* USD per 1M tokens */
	int tool_rounds, tool_calls_per_round;
	double tool_timeout_s;
	size_t tool_output_max;
	size_t response_max;    /* bytes of one response body */
	size_t answer_max;      /* bytes of the answer text */
	cJSON *extra_body;      /* merged into each request; may be NULL */
	size_t context_max_chars; /* cko-llm context's budget; 0: no limit */
} llm_config;

/* Loads path (NULL: defaults only). The settings are the object under the
 * key "model_settings" when there is one (a run's config.json), else the
 * whole file. Dies with status 2 naming the file and field, also when any
 * field of the file is named like a secret (cko_jno_secrets). */
void llm_config_load(const char *path, llm_config *c);
void llm_config_free(llm_config *c);

/* The API key: OPENAI_API_KEY, else OPENAI_API_KEY= in the .env file at
 * $CKO_DOTENV, else in the current folder, else at the top of the git work
 * tree the current folder is in (the repository root); no other folder.
 * NULL when there is none (a local server needs none). Dies with status 2
 * when the key holds characters that cannot go in a header. */
char *llm_api_key(void);
/* 1 if url's host is this machine: localhost, 127.0.0.0/8 or [::1]. */
int llm_url_loopback(const char *url);
/* The key goes over https, or plain http to this machine; other http needs
 * allow_insecure_http. Dies with status 2 naming the config file and the
 * field otherwise. Nothing to check without a key. */
void llm_key_url_check(const llm_config *c, const char *key);
/* Registers a secret: llm_scrub masks it (and any piece of 6 or more of
 * its characters) in text saved or shown afterwards. NULL forgets it. */
void llm_secret(const char *key);
/* Masks the registered secret in s, in place, with '*'. Returns s. Linear
 * in the length of s. */
char *llm_scrub(char *s);
/* Same over every string of a JSON tree. */
void llm_scrub_json(cJSON *j);

/* ---- llm_http.c ---- */
typedef struct cko_http cko_http; /* http.h */
/* POSTs body (JSON) to url with a bearer key unless key is NULL. Returns 0
 * when a complete response arrived (any status), -1 on a transport error
 * (r->curl_code, r->err, the key masked). cko_http_free releases r. */
int llm_http_post(const char *url, const char *key, const char *body, double timeout_s, double connect_timeout_s,
		  size_t max_body, cko_http *r);

/* ---- llm_retry.c ---- */
enum {
	LLM_DONE,    /* a usable response */
	LLM_RETRY,   /* transient: wait and try again */
	LLM_DEGRADE, /* the server rejected an optional field: drop it, send again */
	LLM_FATAL,   /* give up now */
};
/* Optional request fields a server may reject (LLM_DEGRADE). */
enum {
	LLM_F_RESPONSE_FORMAT = 1,
	LLM_F_REASONING = 2,
	LLM_F_TEMPERATURE = 4,
	LLM_F_MAX_COMPLETION = 8, /* falls back to max_tokens */
	LLM_F_TOOLS = 16,
	LLM_F_MAX_TOKENS = 32,
};
/* The server's error message from an error body (OpenAI's
 * {"error": {"message"}}, vLLM's {"message"}, {"detail"}), in msg. Returns
 * the error code string ("insufficient_quota") or NULL; points into j. */
const char *llm_error_message(const cJSON *j, const char *raw, char *msg, size_t n);
/* Classifies an attempt. present: the LLM_F_ fields the request carried;
 * *drop receives those to remove for LLM_DEGRADE. msg: why, for the
 * transcript and the final error. parsed: the body as JSON (or NULL). */
int llm_classify(const cko_http *h, const cJSON *parsed, int present, int *drop, char *msg, size_t n);
/* Parses a Retry-After value: delta seconds or an HTTP date (relative to
 * now). 0 on success. */
int llm_retry_after(const char *value, time_t now, double *seconds);
/* The wait before attempt+1 (attempt counts from 0): exponential from base,
 * capped, with jitter in [0.5, 1) of it; never less than a server's
 * Retry-After (retry_after < 0: none). */
double llm_backoff(int attempt, double base, double cap, double retry_after, uint64_t *rng);

/* ---- llm_answer.c ---- */
/* Answer kinds: what a prompt asks for and how its answer is shaped. */
typedef enum { LLM_KERNEL, LLM_INITIAL, LLM_REFERENCE, LLM_SIGNATURE, LLM_CASES, LLM_NKINDS } llm_kind;
int llm_kind_parse(const char *s, llm_kind *k);
const char *llm_kind_name(llm_kind k);
/* 1 for the kinds whose answer is a kernel (+ launch). */
int llm_kind_is_kernel(llm_kind k);
#define LLM_KERNEL_MAX (1u << 20)
#define LLM_NOTE_MAX 8192
/* The answer object from a reply's message content: a JSON object
 * (structured output) or, when that fails or fenced is set, fenced blocks
 * (```cuda for the kernel, ```json for the launch or the generated file)
 * with the prose as the note. Kernel kinds give {"note", "kernel",
 * "launch"} (launch in launch.json form, or absent); signature gives
 * {"note", "signature"}; cases {"note", "cases"}. NULL with err when no
 * answer can be found. *how receives "json" or "fenced". */
cJSON *llm_answer_extract(llm_kind kind, const char *content, size_t len, int fenced, const char **how, char *err,
			  size_t errlen);
/* The launch object in launch.json form from either form the model may
 * send: launch.json itself, or the structured schema's lists of
 * {"name", "value"} pairs; nulls dropped. A new tree; NULL with err. */
cJSON *llm_launch_normalize(const cJSON *in, char *err, size_t errlen);
/* Drops null members of objects, recursively (the strict schemas send
 * null for an absent optional field). */
void llm_drop_nulls(cJSON *j);
/* Fenced blocks of a markdown text. */
typedef struct {
	char lang[32];
	size_t start, len; /* body within the text */
	int closed;        /* 0: the text ended inside the block */
} llm_block;
int llm_fenced_blocks(const char *text, size_t len, llm_block *out, int max);

/* ---- llm_check.c ---- */
/* 0 if src defines extern "C" __global__ void ENTRY( (attributes such as
 * __launch_bounds__ may stand between, or an extern "C" { } block enclose
 * it), outside comments and strings; else -1 with err. */
int llm_check_entry(const char *src, size_t len, const char *entry, char *err, size_t errlen);
/* Validates launch (launch.json form) for a candidate: structure
 * (cko_launch_validate), tunables (each a define whose value is listed),
 * overrides naming visible cases, and the rules and constraints evaluated
 * for every case of cases_dir/index.json, hidden ones included (whose
 * failures are reported by class only). 0, or -1 with err. */
int llm_check_launch(const cJSON *launch, const cko_signature *sig, const char *cases_dir, char *err, size_t errlen);

/* ---- llm_tools.c ---- */
typedef struct llm_tools llm_tools;
/* Loads a manifest: {"tools": {NAME: {"description", "parameters",
 * "argv", "files", "allowed", "default"}}}. enable: comma-separated names
 * (NULL: those marked "default": true). allow: the paths an "allowed"
 * parameter may take. vars: NAME=VALUE settings for argv placeholders
 * that the model does not choose (e.g. arch=sm_90). */
llm_tools *llm_tools_load(const char *manifest, const char *enable, char *const *allow, int nallow,
			  char *const *vars, int nvars, double timeout_s, size_t max_out);
void llm_tools_free(llm_tools *t);
int llm_tools_count(const llm_tools *t);
/* The request's "tools" array (Chat Completions function tools). */
cJSON *llm_tools_json(const llm_tools *t);
/* Runs one call: validates the arguments (a JSON text from the model),
 * substitutes them as whole argv elements, runs the argv without a shell,
 * with the time limit and output bound. Returns the text to send back
 * (always; errors are explained to the model) and fills record with what
 * happened, for the transcript. */
char *llm_tool_call(llm_tools *t, const char *name, const char *arguments, cJSON *record);

/* ---- llm_render.c ---- */
/* Expands {{name}} placeholders of a template (and {{> partial}} includes
 * from the template's folder). Values are inserted as they are, never
 * expanded again. Dies with status 2 naming the template and the variable
 * when one is missing. */
typedef struct {
	char *name;
	char *value;
} llm_var;
char *llm_template_expand(const char *path, const llm_var *vars, int nvars);
/* Splits an expanded template at a line "--- user ---" (system above,
 * user below; no line: all user). Both allocated; *system may be NULL. */
void llm_template_split(const char *text, char **system, char **user);
/* The prompts folder: $CKO_PROMPTS, else ../prompts or ../share/cko/prompts
 * beside the running program; NULL if none. */
const char *llm_prompts_dir(void);
/* A template argument: a path, or a name looked up as PROMPTS/NAME.md. */
char *llm_template_path(const char *arg);

/* ---- llm_context.c ---- */
typedef struct {
	int mode_repair;   /* the last iteration has no valid candidate */
	char parent[64];   /* the candidate to repair, else the best so far ("" if none) */
	char *markdown;    /* the context document */
} llm_context;
/* Builds the context for iteration iter of the run folder rundir from the
 * iterations before it. Hidden cases appear by class only. */
void llm_context_build(const char *rundir, int iter, llm_context *ctx);
void llm_context_free(llm_context *c);

/* ---- llm_trim.c ---- */
#define LLM_CONTEXT_MIN 1000 /* the smallest budget: room for the note */
/* md within max characters (0: no limit), allocated: whole parts left out
 * at headings, the least needed first (examples, research, profiles, then
 * the history, the last iteration, headroom and the GPU, then the rest but
 * the workload, the signature, the candidate to repair and the kernels),
 * then the end cut at a line; a closing note names what was left out. */
char *llm_context_trim(const char *md, size_t max);

#endif
