/* fuzz-expr.c: libFuzzer harness for the expression evaluator. Any text
 * must evaluate or fail with a message, without undefined behaviour (the
 * bindings include the 64-bit extremes to reach the overflow checks); what
 * evaluates must also pass the syntax check, and what fails the syntax
 * check must not evaluate. */
#include "cko.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static cko_env env;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!env.n) {
		cko_env_set(&env, "N", 0);
		cko_env_set(&env, "M", 7);
		cko_env_set(&env, "K", -3);
		cko_env_set(&env, "BIG", INT64_MAX);
		cko_env_set(&env, "SMALL", INT64_MIN);
		cko_env_set(&env, "BM", 128);
	}
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = 0;
	int64_t v = 0;
	char err[256] = "", cerr[256] = "";
	int e = cko_expr_eval(src, &env, &v, err, sizeof err);
	int c = cko_expr_check(src, cerr, sizeof cerr);
	if ((e && !err[0]) || (c && !cerr[0]))
		abort(); /* failures carry a message */
	if (e == 0 && c != 0)
		abort(); /* evaluated but not well formed? */
	/* The same text through the JSON entry point gives the same answer. */
	cJSON *s = cJSON_CreateString(src);
	int64_t w = 0;
	if (s && (cko_expr_json(s, &env, &w, err, sizeof err) != e || (e == 0 && w != v)))
		abort();
	cJSON_Delete(s);
	/* Numbers: the first 8 bytes as a double. */
	if (size >= 8) {
		double d;
		memcpy(&d, data, 8);
		cJSON *n = cJSON_CreateNumber(d);
		if (n && cko_expr_json(n, &env, &w, err, sizeof err) == 0 && (double)w != d)
			abort();
		cJSON_Delete(n);
	}
	free(src);
	return 0;
}
