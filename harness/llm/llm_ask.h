/* llm_ask.h: one model turn (cko-llm ask): the request, its retries and
 * degradations, the tool-call rounds, and the record of all of it. */
#ifndef CKO_LLM_ASK_H
#define CKO_LLM_ASK_H

#include "llm.h"

typedef struct {
	/* in */
	const llm_config *cfg;
	const char *key;         /* NULL: no Authorization header */
	llm_tools *tools;        /* NULL: no tools */
	const cJSON *prompt;     /* prompt.json, validated */
	llm_kind kind;
	const char *transcript_path; /* rewritten as the turn goes; may be NULL */
	/* out */
	cJSON *transcript;       /* {"tool", ..., "events": [...]} */
	cJSON *final;            /* the last response body */
	char *content;           /* its message text (may be empty) */
	char *refusal;
	const char *finish_reason;
	int fenced;              /* the turn ended in fenced mode */
	int json_object;         /* else it asked for json_object + schema */
	const char *limit_field; /* the token limit's field(s) in the last request */
	int rounds, requests;    /* rounds: responses that arrived */
	double prompt_tokens, completion_tokens, reasoning_tokens, cached_tokens;
	char error[1400];        /* why it gave up */
} llm_session;

/* Runs the turn. 0 on a final response, CKO_ENV after giving up (error
 * says why). The transcript is complete either way. */
int llm_ask(llm_session *s);
void llm_session_free(llm_session *s);
/* usage.json for the turn (token sums, cost from the price table). */
cJSON *llm_usage_json(const llm_session *s);
/* Checks prompt.json's structure; dies with status 2 naming the field. */
void llm_prompt_validate(const cJSON *p, const char *file, llm_kind *kind);

#endif
