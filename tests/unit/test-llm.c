/* test-llm: the model client's pure parts: Retry-After, backoff, the
 * classification of failed attempts, key scrubbing, fenced blocks, answer
 * extraction, launch normalization and the entry-point check. */
#include "llm.h"
#include "http.h"
#include "test.h"

#include <curl/curl.h>
#include <stdlib.h>

static int classify(long status, const char *body, int present, int *drop)
{
	cko_http h = {0};
	h.status = status;
	h.body = (char *)body;
	h.body_len = strlen(body);
	char err[64], msg[512];
	cJSON *j = cko_json_parse(body, strlen(body), err, sizeof err);
	int k = llm_classify(&h, j, present, drop, msg, sizeof msg);
	cJSON_Delete(j);
	return k;
}

int main(void)
{
	double s;
	time_t now = 1700000000;
	CHECK("retry-after-seconds", !llm_retry_after("7", now, &s) && s == 7);
	CHECK("retry-after-fraction", !llm_retry_after(" 1.5 ", now, &s) && s == 1.5);
	CHECK("retry-after-date", !llm_retry_after("Tue, 14 Nov 2023 22:13:30 GMT", now, &s) && s == 10);
	CHECK("retry-after-past", !llm_retry_after("Tue, 14 Nov 2023 22:00:00 GMT", now, &s) && s == 0);
	CHECK("retry-after-bad", llm_retry_after("soon", now, &s) != 0 && llm_retry_after("5x", now, &s) != 0);

	uint64_t rng = 1;
	double b0 = llm_backoff(0, 2, 60, -1, &rng), b3 = llm_backoff(3, 2, 60, -1, &rng);
	double b9 = llm_backoff(9, 2, 60, -1, &rng), ra = llm_backoff(0, 2, 60, 30, &rng);
	CHECK("backoff-jitter-range", b0 >= 1 && b0 < 2 && b3 >= 8 && b3 < 16);
	CHECK("backoff-cap", b9 >= 30 && b9 <= 60);
	CHECK("backoff-retry-after", ra == 30);

	int drop;
	CHECK("classify-ok", classify(200, "{\"choices\": [{\"message\": {\"content\": \"x\"}}]}", 0, &drop) == LLM_DONE);
	CHECK("classify-200-garbled", classify(200, "{\"choices\": [", 0, &drop) == LLM_RETRY);
	CHECK("classify-429", classify(429, "{\"error\": {\"message\": \"slow down\", \"code\": \"rate_limit_exceeded\"}}", 0,
				       &drop) == LLM_RETRY);
	CHECK("classify-quota",
	      classify(429, "{\"error\": {\"message\": \"quota\", \"code\": \"insufficient_quota\"}}", 0, &drop) == LLM_FATAL);
	CHECK("classify-503", classify(503, "busy", 0, &drop) == LLM_RETRY);
	CHECK("classify-401", classify(401, "{\"error\": {\"message\": \"bad key\"}}", 0, &drop) == LLM_FATAL);
	CHECK("classify-degrade-param",
	      classify(400, "{\"error\": {\"message\": \"Unsupported value\", \"param\": \"reasoning_effort\"}}",
		       LLM_F_REASONING | LLM_F_RESPONSE_FORMAT, &drop) == LLM_DEGRADE &&
		      drop == LLM_F_REASONING);
	CHECK("classify-degrade-message",
	      classify(400, "{\"detail\": \"response_format json_schema is not supported\"}", LLM_F_RESPONSE_FORMAT, &drop) ==
			      LLM_DEGRADE &&
		      drop == LLM_F_RESPONSE_FORMAT);
	CHECK("classify-degrade-whole-word",
	      classify(400, "{\"error\": {\"message\": \"max_completion_tokens is too large\"}}", LLM_F_MAX_TOKENS, &drop) ==
		      LLM_FATAL);
	CHECK("classify-degrade-absent-field",
	      classify(400, "{\"error\": {\"message\": \"temperature unsupported\"}}", LLM_F_REASONING, &drop) == LLM_FATAL);
	/* Local servers refuse a field with a 500: the words decide. */
	CHECK("classify-500-names-field",
	      classify(500, "{\"error\": {\"message\": \"response_format.type must be text or json_object\", "
			    "\"type\": \"internal_server_error\", \"param\": null, \"code\": null}}",
		       LLM_F_RESPONSE_FORMAT | LLM_F_TOOLS, &drop) == LLM_DEGRADE &&
		      drop == LLM_F_RESPONSE_FORMAT);
	CHECK("classify-500-jinja",
	      classify(500, "{\"error\": {\"code\": 500, \"message\": \"tools param requires --jinja flag\", "
			    "\"type\": \"server_error\"}}",
		       LLM_F_TOOLS | LLM_F_MAX_TOKENS, &drop) == LLM_DEGRADE &&
		      drop == LLM_F_TOOLS);
	CHECK("classify-500-field-absent",
	      classify(500, "{\"error\": {\"message\": \"tools param requires --jinja flag\"}}", LLM_F_REASONING,
		       &drop) == LLM_RETRY);
	CHECK("classify-401-names-field",
	      classify(401, "{\"error\": {\"message\": \"no access to tools\"}}", LLM_F_TOOLS, &drop) == LLM_FATAL);
	cko_http h = {0};
	h.curl_code = CURLE_OPERATION_TIMEDOUT;
	char msg[256];
	CHECK("classify-timeout", llm_classify(&h, NULL, 0, &drop, msg, sizeof msg) == LLM_RETRY);
	h.curl_code = CURLE_UNSUPPORTED_PROTOCOL;
	CHECK("classify-protocol", llm_classify(&h, NULL, 0, &drop, msg, sizeof msg) == LLM_FATAL);

	llm_secret("sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
	char text[] = "key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ012345, part sk-proj-ABCD...GHIJKLMNOPQRSTUV, short sk-pr";
	llm_scrub(text);
	CHECK("scrub-whole", !strstr(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"));
	CHECK("scrub-part", !strstr(text, "GHIJKLMNOPQRSTUV") && !strstr(text, "ABCD...") && strstr(text, "short sk-pr"));
	llm_secret(NULL);

	const char *md = "note\n```cuda\nA\n```\ntext\n   ````json\nB\n```\nC\n````\n~~~\nD\n";
	llm_block b[4];
	int n = llm_fenced_blocks(md, strlen(md), b, 4);
	CHECK("fences-count", n == 3);
	CHECK("fences-lang", n == 3 && !strcmp(b[0].lang, "cuda") && !strcmp(b[1].lang, "json") && !b[2].lang[0]);
	CHECK("fences-body", n == 3 && b[0].len == 2 && !strncmp(md + b[0].start, "A\n", 2) &&
				     !strncmp(md + b[1].start, "B\n```\nC\n", b[1].len));
	CHECK("fences-unclosed", n == 3 && !strcmp(md + b[2].start, "D\n") && !b[2].closed && b[0].closed);

	const char *how;
	char err[256];
	const char *reply = "Tiled it.\n\n```cuda\nextern \"C\" __global__ void k() {}\n```\n\n```json\n"
			    "{\"grid\": [1], \"block\": [32], \"defines\": {\"T\": 4}}\n```\n";
	cJSON *a = llm_answer_extract(LLM_KERNEL, reply, strlen(reply), 1, &how, err, sizeof err);
	CHECK("extract-fenced", a && !strcmp(how, "fenced") && !strcmp(cko_jstr_opt(a, "note", ""), "Tiled it.") &&
					cko_jint_opt(cko_jget(cko_jget(a, "launch"), "defines"), "T", 0, "", "") == 4);
	cJSON_Delete(a);
	const char *js = "{\"note\": \"n\", \"kernel\": \"k\", \"launch\": {\"grid\": [1], \"block\": [1], \"smem\": null,"
			 " \"defines\": [{\"name\": \"A\", \"value\": 1}], \"tunables\": [], \"overrides\": [],"
			 " \"constraints\": []}}";
	a = llm_answer_extract(LLM_KERNEL, js, strlen(js), 0, &how, err, sizeof err);
	char *p = a ? cJSON_PrintUnformatted(cko_jget(a, "launch")) : NULL;
	CHECK("extract-json-normalized", p && !strcmp(p, "{\"grid\":[1],\"block\":[1],\"defines\":{\"A\":1}}"));
	free(p);
	cJSON_Delete(a);
	a = llm_answer_extract(LLM_KERNEL, "no code here", 12, 1, &how, err, sizeof err);
	CHECK("extract-none", !a && strstr(err, "no ```cuda block"));
	const char *dup = "{\"defines\": [{\"name\": \"A\", \"value\": 1}, {\"name\": \"A\", \"value\": 2}]}";
	cJSON *dj = cJSON_Parse(dup);
	cJSON *nl = llm_launch_normalize(dj, err, sizeof err);
	CHECK("normalize-duplicate", !nl && strstr(err, "appears twice"));
	cJSON_Delete(dj);

	const char *k1 = "extern \"C\" __global__ void __launch_bounds__(256) f(int n) {}";
	const char *k2 = "__global__ void f(int n) {}";
	const char *k3 = "extern \"C\" { namespace { } __global__ void [[maybe_unused]] f(int n) {} }";
	const char *k4 = "extern \"C\" __global__ void g(int n) {}\n#define X extern \"C\" __global__ void f(\n";
	const char *k5 = "extern \"C\" __device__ void f(int n) {} extern \"C\" __global__ void f2(int n) {}";
	CHECK("entry-attrs", !llm_check_entry(k1, strlen(k1), "f", err, sizeof err));
	CHECK("entry-linkage", llm_check_entry(k2, strlen(k2), "f", err, sizeof err) && strstr(err, "C linkage"));
	CHECK("entry-block", !llm_check_entry(k3, strlen(k3), "f", err, sizeof err));
	CHECK("entry-directive", llm_check_entry(k4, strlen(k4), "f", err, sizeof err) != 0);
	CHECK("entry-device", llm_check_entry(k5, strlen(k5), "f", err, sizeof err) != 0);

	/* The context cut to a budget: whole parts, the least needed first; a
	 * heading inside a code block is no part's start. */
	cko_buf cm = {0};
	buf_puts(&cm, "# The workload\n\nCopy x to y.\n\n## The input cases\n\n- `big`\n\n");
	buf_puts(&cm, "### iter-000/c0: kernel.cu\n\n```cuda\n");
	for (int i = 0; i < 20; i++)
		buf_puts(&cm, "## not a heading: inside the block, a line of the kernel's source\n");
	buf_puts(&cm, "```\n\n## All candidates so far\n\n");
	for (int i = 0; i < 30; i++)
		buf_puts(&cm, "| iter-000/c0 | ok | 5 | a note of some length here |\n");
	buf_puts(&cm, "## Research notes\n\nVectorize.\n");
	char *same = llm_context_trim(cm.s, 0), *roomy = llm_context_trim(cm.s, cm.len);
	CHECK("trim-none", !strcmp(same, cm.s) && !strcmp(roomy, cm.s));
	char *t = llm_context_trim(cm.s, 1600);
	CHECK("trim-within", strlen(t) <= 1600);
	CHECK("trim-drops-history-first", !strstr(t, "## All candidates") && !strstr(t, "Vectorize"));
	CHECK("trim-keeps-kernel", strstr(t, "kernel.cu") && strstr(t, "## The input cases") &&
					   strstr(t, "inside the block") && strstr(t, "Copy x to y."));
	CHECK("trim-note", strstr(t, "within 1600 characters: All candidates so far; Research notes.)\n"));
	char *c = llm_context_trim(cm.s, 1000);
	int fences = 0;
	for (const char *q = c; (q = strstr(q, "\n```")); q++)
		fences++;
	CHECK("trim-cut", strlen(c) <= 1000 && strstr(c, "Copy x to y.") && fences % 2 == 0 &&
				  strstr(c, "and the end of the rest.)\n"));
	free(same), free(roomy), free(t), free(c);
	buf_free(&cm);
	TEST_END();
}
