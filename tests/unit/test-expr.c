/* test-expr.c: integer expressions: precedence, unary operators, the
 * functions, truncating division, comparisons and short-circuit logic,
 * and every error with its message; cko_expr_check and cko_expr_json. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

static cko_env env;

static void val(const char *src, int64_t want)
{
	int64_t v = 0;
	char err[256] = "", n[160];
	int r = cko_expr_eval(src, &env, &v, err, sizeof err);
	snprintf(n, sizeof n, "expr-value \"%.100s\"", src);
	CHECK(n, r == 0 && v == want);
	if (r || v != want)
		printf("# got %lld (%s), want %lld\n", (long long)v, err, (long long)want);
}

static void bad(const char *src, const char *want)
{
	int64_t v = 12345;
	char err[256] = "", n[160];
	int r = cko_expr_eval(src, &env, &v, err, sizeof err);
	snprintf(n, sizeof n, "expr-error \"%.60s\" (%s)", src, want);
	CHECK(n, r == -1 && v == 12345 && strstr(err, want));
	if (r != -1 || !strstr(err, want))
		printf("# got r=%d v=%lld err='%s'\n", r, (long long)v, err);
}

static void values(void)
{
	val("1 + 2 * 3", 7);
	val("(1 + 2) * 3", 9);
	val("10 - 4 - 3", 3);
	val("100 / 10 / 5", 2);
	val("2 * 3 % 4", 2);
	val("2 + 3 % 2", 3);
	val("-2 * 3", -6);
	val("- -3", 3);
	val("--3", 3);
	val("-(2 + 3)", -5);
	val("+4", 4);
	val("2 - -2", 4);
	val("!0", 1);
	val("!7", 0);
	val("!!7", 1);
	val("-!0", -1);
	val("1 + 2 < 4", 1);
	val("1 + 2 < 3", 0);
	val("3 <= 3", 1);
	val("3 >= 4", 0);
	val("3 > 2", 1);
	val("3 == 3", 1);
	val("3 != 3", 0);
	val("1 || 0 && 0", 1);
	val("0 && 1 || 1", 1);
	val("(1 || 0) && 0", 0);
	val("2 && 3", 1);
	val("0 || 5", 1);
	val("ceil_div(7, 2)", 4);
	val("ceil_div(6, 3)", 2);
	val("ceil_div(0, 5)", 0);
	val("ceil_div(-7, 2)", -3);
	val("ceil_div(7, -2)", -3);
	val("ceil_div(-7, -2)", 4);
	val("ceil_div(-6, -3)", 2);
	val("ceil_div(1, 1024)", 1);
	val("ceil_div(9223372036854775807, 2)", 4611686018427387904LL);
	val("min(3, -4)", -4);
	val("max(3, -4)", 3);
	val("min(max(1, 2), 3)", 2);
	val("max(min(N, 100), M)", 10);
	val("7 / 2", 3);
	val("-7 / 2", -3);
	val("7 / -2", -3);
	val("-7 % 2", -1);
	val("7 % -2", 1);
	val("  N*M  ", 50);
	val("ceil_div(N, BN) * BN", 64);
	val("9223372036854775807", INT64_MAX);
	val("-9223372036854775807 - 1", INT64_MIN);
	val("(-9223372036854775807 - 1) / 1", INT64_MIN);
	/* Short-circuit: the side not taken is parsed, never evaluated. */
	val("Z == 0 || M / Z > 2", 1);
	val("Z != 0 && M / Z > 2", 0);
	val("N == 0 || M / N > 2", 0);
	val("0 && undefined_name", 0);
	val("1 || 9223372036854775807 + 1", 1);
	val("0 && ceil_div(1, 0)", 0);
	val("(Z == 0 || M / Z) + 1", 2);
}

static void errors(void)
{
	bad("foo + 1", "unknown name 'foo'");
	bad("foo + 1", "column 1");
	bad("1 + foo", "column 5");
	bad("1 / 0", "division by zero");
	bad("1 % 0", "division by zero");
	bad("M / (N - N)", "division by zero");
	bad("ceil_div(1, 0)", "division by zero");
	bad("9223372036854775807 + 1", "overflow");
	bad("-9223372036854775807 - 2", "overflow");
	bad("9223372036854775807 * 2", "overflow");
	bad("4611686018427387904 * 2", "overflow");
	bad("-4611686018427387904 * 3", "overflow");
	bad("3037000500 * 3037000500", "overflow");
	bad("(-9223372036854775807 - 1) / -1", "overflow");
	bad("(-9223372036854775807 - 1) % -1", "overflow");
	bad("-(-9223372036854775807 - 1)", "overflow");
	bad("ceil_div(-9223372036854775807 - 1, -1)", "overflow");
	bad("9223372036854775808", "too large");
	bad("99999999999999999999999", "too large");
	bad("(1 + 2", "expected ')'");
	bad("((1)", "expected ')'");
	bad("1 + 2)", "unexpected text");
	bad(")", "unexpected character");
	bad("min(1, 2", "expected ',' or ')'");
	bad("min(1)", "2 arguments");
	bad("min()", "2 arguments");
	bad("min(1, 2, 3)", "too many arguments");
	bad("foo(1, 2)", "unknown function");
	bad("1 2", "unexpected text");
	bad("N M", "unexpected text");
	bad("1 +", "unexpected end");
	bad("", "unexpected end");
	bad("   ", "unexpected end");
	bad("1 = 2", "unexpected text");
	bad("1 & 2", "unexpected text");
	bad("1 | 2", "unexpected text");
	bad("1 ** 2", "unexpected character");
	bad("12abc", "malformed number");
	bad("1.5", "malformed number");
	bad("N @ 2", "unexpected text");
	bad("$", "unexpected character");
	bad("0 && foo(1)", "unknown function");
	bad("0 && (1", "expected ')'");
	bad("a_name_that_is_much_longer_than_sixty_three_characters_in_total_xyz", "name too long");

	cko_buf b = {0};
	for (int i = 0; i < 100; i++)
		buf_puts(&b, "(");
	buf_puts(&b, "1");
	for (int i = 0; i < 100; i++)
		buf_puts(&b, ")");
	bad(b.s, "nested too deeply");
	buf_free(&b);
	for (int i = 0; i < 1000; i++)
		buf_puts(&b, "-");
	buf_puts(&b, "1");
	bad(b.s, "nested too deeply");
	buf_free(&b);
	for (int i = 0; i < 2000; i++)
		buf_puts(&b, "!");
	buf_puts(&b, "1");
	bad(b.s, "nested too deeply");
	buf_free(&b);
	/* 20 levels are fine */
	for (int i = 0; i < 20; i++)
		buf_puts(&b, "(");
	buf_puts(&b, "-1");
	for (int i = 0; i < 20; i++)
		buf_puts(&b, ")");
	val(b.s, -1);
	buf_free(&b);
	for (int i = 0; i < 3000; i++)
		buf_puts(&b, "1+");
	buf_puts(&b, "1");
	bad(b.s, "longer than 4096");
	buf_free(&b);
	/* A long flat sum under the limit evaluates (no recursion per term). */
	for (int i = 0; i < 2000; i++)
		buf_puts(&b, "1+");
	buf_puts(&b, "1");
	val(b.s, 2001);
	buf_free(&b);
	/* The message quotes the expression, truncated. */
	char err[256];
	int64_t v;
	CHECK("expr-error-quotes-source", cko_expr_eval("N + nope", &env, &v, err, sizeof err) == -1 &&
						  strstr(err, "\"N + nope\""));
	/* A tiny error buffer is still NUL-terminated. */
	char small[8];
	memset(small, 'x', sizeof small);
	CHECK("expr-error-small-buffer", cko_expr_eval("nope", &env, &v, small, sizeof small) == -1 && small[7] == 0);
	/* No environment at all: names are unknown, numbers fine. */
	CHECK("expr-null-env", cko_expr_eval("N", NULL, &v, err, sizeof err) == -1 &&
				       cko_expr_eval("2*3", NULL, &v, err, sizeof err) == 0 && v == 6);
}

static void check_only(void)
{
	char err[256];
	CHECK("expr-check-unbound-names", cko_expr_check("ceil_div(N, BN) * (M + K) <= max(A, B_2)", err, sizeof err) == 0);
	CHECK("expr-check-no-evaluation", cko_expr_check("1 / 0 + 9223372036854775807 * 9", err, sizeof err) == 0);
	CHECK("expr-check-syntax-error", cko_expr_check("N +", err, sizeof err) == -1 && strstr(err, "unexpected end"));
	CHECK("expr-check-unknown-function", cko_expr_check("floor(N, 2)", err, sizeof err) == -1 &&
						     strstr(err, "unknown function"));
	CHECK("expr-check-trailing", cko_expr_check("N N", err, sizeof err) == -1);
	CHECK("expr-check-big-literal", cko_expr_check("99999999999999999999", err, sizeof err) == -1);
	CHECK("expr-check-min-INT64", cko_expr_check("-(-9223372036854775807 - 1)", err, sizeof err) == 0);
}

static void json(void)
{
	int64_t v;
	char err[256];
	cJSON *n = cJSON_CreateNumber(5), *neg = cJSON_CreateNumber(-3), *frac = cJSON_CreateNumber(2.5),
	      *huge = cJSON_CreateNumber(1e300), *nan = cJSON_CreateNumber(NAN), *inf = cJSON_CreateNumber(-INFINITY),
	      *s = cJSON_CreateString("N * 2"), *b = cJSON_CreateTrue(), *big = cJSON_CreateNumber(9.3e18),
	      *bad = cJSON_CreateString("N +");
	CHECK("expr-json-number", cko_expr_json(n, &env, &v, err, sizeof err) == 0 && v == 5);
	CHECK("expr-json-negative", cko_expr_json(neg, &env, &v, err, sizeof err) == 0 && v == -3);
	CHECK("expr-json-fraction", cko_expr_json(frac, &env, &v, err, sizeof err) == -1 && strstr(err, "not an integer"));
	CHECK("expr-json-huge", cko_expr_json(huge, &env, &v, err, sizeof err) == -1 && strstr(err, "not an integer"));
	CHECK("expr-json-beyond-int64", cko_expr_json(big, &env, &v, err, sizeof err) == -1);
	CHECK("expr-json-nan", cko_expr_json(nan, &env, &v, err, sizeof err) == -1);
	CHECK("expr-json-inf", cko_expr_json(inf, &env, &v, err, sizeof err) == -1);
	CHECK("expr-json-string", cko_expr_json(s, &env, &v, err, sizeof err) == 0 && v == 10);
	CHECK("expr-json-bad-string", cko_expr_json(bad, &env, &v, err, sizeof err) == -1 && strstr(err, "unexpected end"));
	CHECK("expr-json-bool", cko_expr_json(b, &env, &v, err, sizeof err) == -1 && strstr(err, "expected a number"));
	CHECK("expr-json-null-item", cko_expr_json(NULL, &env, &v, err, sizeof err) == -1);
	cJSON_Delete(n), cJSON_Delete(neg), cJSON_Delete(frac), cJSON_Delete(huge), cJSON_Delete(nan);
	cJSON_Delete(inf), cJSON_Delete(s), cJSON_Delete(b), cJSON_Delete(big), cJSON_Delete(bad);
}

static void environment(void)
{
	cko_env e = {0};
	for (int i = 0; i < 40; i++) {
		char name[16];
		snprintf(name, sizeof name, "V%d", i);
		cko_env_set(&e, name, i * 3);
	}
	cko_env_set(&e, "V7", -1);
	int64_t v = 0;
	CHECK("env-grows-and-replaces", e.n == 40 && cko_env_get(&e, "V39", &v) && v == 117 && cko_env_get(&e, "V7", &v) &&
						v == -1 && !cko_env_get(&e, "v7", &v));
	cko_env_free(&e);
	CHECK("env-free", e.n == 0 && e.v == NULL && !cko_env_get(&e, "V1", &v) && !cko_env_get(NULL, "V1", &v));
}

int main(void)
{
	cko_env_set(&env, "N", 5);
	cko_env_set(&env, "M", 10);
	cko_env_set(&env, "Z", 0);
	cko_env_set(&env, "BN", 64);
	values();
	errors();
	check_only();
	json();
	environment();
	cko_env_free(&env);
	TEST_END();
}
