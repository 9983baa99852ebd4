/* expr.c: integer expressions for sizes, launch rules and constraints.
 * Recursive descent over 64-bit integers; overflow, division by zero and
 * unknown names are errors that name the position. */
#include "cko.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEN 4096
#define MAX_DEPTH 64

void cko_env_set(cko_env *e, const char *name, int64_t value)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->v[i].name, name)) {
			e->v[i].value = value;
			return;
		}
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 16;
		e->v = xrealloc(e->v, (size_t)e->cap * sizeof *e->v);
	}
	e->v[e->n].name = xstrdup(name);
	e->v[e->n++].value = value;
}

int cko_env_get(const cko_env *e, const char *name, int64_t *value)
{
	for (int i = 0; e && i < e->n; i++)
		if (!strcmp(e->v[i].name, name)) {
			*value = e->v[i].value;
			return 1;
		}
	return 0;
}

void cko_env_free(cko_env *e)
{
	for (int i = 0; i < e->n; i++)
		free((char *)e->v[i].name);
	free(e->v);
	memset(e, 0, sizeof *e);
}

typedef struct {
	const char *src, *p;
	const cko_env *env;
	int check_only; /* parse without binding names or evaluating */
	int depth;
	char *err;
	size_t errlen;
	int failed;
} parser;

static int64_t fail(parser *ps, const char *msg)
{
	if (!ps->failed)
		snprintf(ps->err, ps->errlen, "%s at column %d of \"%.80s\"", msg, (int)(ps->p - ps->src) + 1, ps->src);
	ps->failed = 1;
	return 0;
}

static void ws(parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static int accept(parser *ps, const char *tok)
{
	ws(ps);
	size_t n = strlen(tok);
	if (strncmp(ps->p, tok, n))
		return 0;
	/* "<" must not match the start of "<=", "!" not "!=" */
	if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && ps->p[1] == '=')
		return 0;
	ps->p += n;
	return 1;
}

static int64_t parse_or(parser *ps);

static int64_t checked(parser *ps, int bad, int64_t v)
{
	if (bad && !ps->check_only)
		return fail(ps, "integer overflow");
	return v;
}

static int64_t call(parser *ps, const char *name)
{
	int64_t a[2];
	int n = 0;
	if (!accept(ps, ")")) {
		for (;;) {
			if (n == 2)
				return fail(ps, "too many arguments");
			a[n++] = parse_or(ps);
			if (ps->failed)
				return 0;
			if (accept(ps, ")"))
				break;
			if (!accept(ps, ","))
				return fail(ps, "expected ',' or ')'");
		}
	}
	if (n != 2)
		return fail(ps, "function takes 2 arguments");
	if (ps->check_only)
		return 1;
	if (!strcmp(name, "min"))
		return a[0] < a[1] ? a[0] : a[1];
	if (!strcmp(name, "max"))
		return a[0] > a[1] ? a[0] : a[1];
	/* ceil_div */
	if (a[1] == 0)
		return fail(ps, "division by zero in ceil_div");
	if (a[0] == INT64_MIN && a[1] == -1)
		return fail(ps, "integer overflow in ceil_div");
	int64_t q = a[0] / a[1], r = a[0] % a[1];
	return q + (r != 0 && ((r > 0) == (a[1] > 0)));
}

static int64_t primary(parser *ps)
{
	ws(ps);
	if (accept(ps, "(")) {
		int64_t v = parse_or(ps);
		if (!accept(ps, ")"))
			return fail(ps, "expected ')'");
		return v;
	}
	if (isdigit((unsigned char)*ps->p)) {
		int64_t v = 0;
		while (isdigit((unsigned char)*ps->p)) {
			int d = *ps->p++ - '0';
			if (v > (INT64_MAX - d) / 10)
				return fail(ps, "number too large");
			v = v * 10 + d;
		}
		if (isalpha((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.')
			return fail(ps, "malformed number");
		return v;
	}
	if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		char name[64];
		size_t n = 0;
		const char *start = ps->p;
		while (isalnum((unsigned char)*ps->p) || *ps->p == '_') {
			if (n + 1 >= sizeof name)
				return fail(ps, "name too long");
			name[n++] = *ps->p++;
		}
		name[n] = 0;
		if (accept(ps, "(")) {
			if (strcmp(name, "min") && strcmp(name, "max") && strcmp(name, "ceil_div"))
				return fail(ps, "unknown function");
			return call(ps, name);
		}
		int64_t v;
		if (ps->check_only)
			return 1;
		if (!cko_env_get(ps->env, name, &v)) {
			ps->p = start; /* accept() above may have skipped white space too */
			char msg[128];
			snprintf(msg, sizeof msg, "unknown name '%s'", name);
			return fail(ps, msg);
		}
		return v;
	}
	return fail(ps, *ps->p ? "unexpected character" : "unexpected end of expression");
}

static int64_t unary(parser *ps)
{
	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "expression nested too deeply");
	int64_t v;
	if (accept(ps, "-")) {
		v = unary(ps);
		/* -INT64_MIN is undefined: test before negating. */
		v = v == INT64_MIN ? checked(ps, 1, v) : -v;
	} else if (accept(ps, "+")) {
		v = unary(ps);
	} else if (accept(ps, "!")) {
		v = !unary(ps);
	} else {
		v = primary(ps);
	}
	ps->depth--;
	return v;
}

static int64_t mul(parser *ps)
{
	int64_t v = unary(ps);
	while (!ps->failed) {
		int op = accept(ps, "*") ? '*' : accept(ps, "/") ? '/' : accept(ps, "%") ? '%' : 0;
		if (!op)
			break;
		int64_t r = unary(ps), out;
		if (ps->failed || ps->check_only)
			continue;
		if (op == '*') {
			int bad = __builtin_mul_overflow(v, r, &out);
			v = checked(ps, bad, out);
		} else {
			if (r == 0)
				return fail(ps, "division by zero");
			if (v == INT64_MIN && r == -1)
				return fail(ps, "integer overflow");
			v = op == '/' ? v / r : v % r;
		}
	}
	return v;
}

static int64_t add(parser *ps)
{
	int64_t v = mul(ps);
	while (!ps->failed) {
		int op = accept(ps, "+") ? '+' : accept(ps, "-") ? '-' : 0;
		if (!op)
			break;
		int64_t r = mul(ps), out;
		if (ps->failed || ps->check_only)
			continue;
		int bad = op == '+' ? __builtin_add_overflow(v, r, &out) : __builtin_sub_overflow(v, r, &out);
		v = checked(ps, bad, out);
	}
	return v;
}

static int64_t cmp(parser *ps)
{
	int64_t v = add(ps);
	static const char *ops[] = {"<=", ">=", "==", "!=", "<", ">"};
	for (int i = 0; i < 6 && !ps->failed; i++) {
		if (!accept(ps, ops[i]))
			continue;
		int64_t r = add(ps);
		switch (i) {
		case 0: return v <= r;
		case 1: return v >= r;
		case 2: return v == r;
		case 3: return v != r;
		case 4: return v < r;
		default: return v > r;
		}
	}
	return v;
}

static int64_t and_(parser *ps)
{
	int64_t v = cmp(ps);
	while (!ps->failed && accept(ps, "&&")) {
		int save = ps->check_only;
		ps->check_only |= !v; /* short-circuit: parse, don't evaluate */
		int64_t r = cmp(ps);
		ps->check_only = save;
		v = v && r;
	}
	return v;
}

static int64_t parse_or(parser *ps)
{
	if (++ps->depth > MAX_DEPTH)
		return fail(ps, "expression nested too deeply");
	int64_t v = and_(ps);
	while (!ps->failed && accept(ps, "||")) {
		int save = ps->check_only;
		ps->check_only |= v != 0;
		int64_t r = and_(ps);
		ps->check_only = save;
		v = v || r;
	}
	ps->depth--;
	return v;
}

static int run(const char *src, const cko_env *env, int check_only, int64_t *out, char *err, size_t errlen)
{
	parser ps = {src, src, env, check_only, 0, err, errlen, 0};
	if (strlen(src) > MAX_LEN) {
		snprintf(err, errlen, "expression longer than %d characters", MAX_LEN);
		return -1;
	}
	int64_t v = parse_or(&ps);
	ws(&ps);
	if (!ps.failed && *ps.p)
		fail(&ps, "unexpected text");
	if (ps.failed)
		return -1;
	if (out)
		*out = v;
	return 0;
}

int cko_expr_eval(const char *src, const cko_env *env, int64_t *out, char *err, size_t errlen)
{
	return run(src, env, 0, out, err, errlen);
}

int cko_expr_check(const char *src, char *err, size_t errlen) { return run(src, NULL, 1, NULL, err, errlen); }

int cko_expr_json(const cJSON *item, const cko_env *env, int64_t *out, char *err, size_t errlen)
{
	if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		/* Range first: converting NaN or a value beyond int64 is undefined. */
		if (!(d <= 9.2e18 && d >= -9.2e18) || d != (double)(int64_t)d) {
			snprintf(err, errlen, "%g is not an integer", d);
			return -1;
		}
		*out = (int64_t)d;
		return 0;
	}
	if (cJSON_IsString(item))
		return cko_expr_eval(item->valuestring, env, out, err, errlen);
	snprintf(err, errlen, "expected a number or an expression string");
	return -1;
}
