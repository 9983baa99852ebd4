/* export.c: launch rules compiled to C (cko-export).
 *
 * The expression language of expr.c translated to C99 with the same
 * semantics: 64-bit integers, an error (not undefined behaviour) on
 * overflow, division by zero and unbound names, && and || short-circuit
 * (an error in the side not evaluated is no error), one comparison per
 * level. The parser mirrors expr.c's grammar; expressions are checked by
 * cko_expr_check first, so only well-formed text reaches it. */
#include "export.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const char *p;
	const char *pre;
	const cko_env *defs;
	const cko_signature *sig;
} xp;

static void xws(xp *x)
{
	while (isspace((unsigned char)*x->p))
		x->p++;
}

static int xaccept(xp *x, const char *tok)
{
	xws(x);
	size_t n = strlen(tok);
	if (strncmp(x->p, tok, n))
		return 0;
	if (n == 1 && (tok[0] == '<' || tok[0] == '>' || tok[0] == '!' || tok[0] == '=') && x->p[1] == '=')
		return 0;
	x->p += n;
	return 1;
}

static char *xor_(xp *x);

/* s[i]: the index of an integer scalar among the signature's, or -1. */
int cko_export_scalar_index(const cko_signature *sig, const char *name)
{
	int k = 0;
	for (int i = 0; i < sig->nparams; i++) {
		const cko_param *p = &sig->params[i];
		if (p->is_buffer || cko_dtype_is_float(p->dtype))
			continue;
		if (!strcmp(p->name, name))
			return k;
		k++;
	}
	return -1;
}

static char *xname(xp *x, const char *name)
{
	int64_t v;
	/* cko-request binds the scalars first, then the defines: a define wins. */
	if (cko_env_get(x->defs, name, &v))
		return xasprintf("INT64_C(%lld)", (long long)v);
	int i = cko_export_scalar_index(x->sig, name);
	if (i >= 0)
		return xasprintf("s[%d]", i);
	return xasprintf("%s_unbound(&e)", x->pre);
}

static char *xprimary(xp *x)
{
	xws(x);
	if (xaccept(x, "(")) {
		char *v = xor_(x), *r = xasprintf("(%s)", v);
		xaccept(x, ")");
		free(v);
		return r;
	}
	if (isdigit((unsigned char)*x->p)) {
		int64_t v = 0;
		while (isdigit((unsigned char)*x->p))
			v = v * 10 + (*x->p++ - '0');
		return xasprintf("INT64_C(%lld)", (long long)v);
	}
	char name[64];
	size_t n = 0;
	while ((isalnum((unsigned char)*x->p) || *x->p == '_') && n + 1 < sizeof name)
		name[n++] = *x->p++;
	name[n] = 0;
	if (!xaccept(x, "("))
		return xname(x, name);
	char *a = xor_(x);
	xaccept(x, ",");
	char *b = xor_(x);
	xaccept(x, ")");
	char *r = xasprintf("%s_%s(%s, %s%s)", x->pre, name, a, b, strcmp(name, "ceil_div") ? "" : ", &e");
	free(a);
	free(b);
	return r;
}

static char *xunary(xp *x)
{
	char *v, *r;
	if (xaccept(x, "-")) {
		v = xunary(x);
		r = xasprintf("%s_neg(%s, &e)", x->pre, v);
	} else if (xaccept(x, "+")) {
		return xunary(x);
	} else if (xaccept(x, "!")) {
		v = xunary(x);
		r = xasprintf("%s_b(!(%s))", x->pre, v);
	} else {
		return xprimary(x);
	}
	free(v);
	return r;
}

/* A left-associative level: ops[i] is written as pre_names[i](l, r, &e). */
static char *xlevel(xp *x, char *(*next)(xp *), const char *const *ops, const char *const *names)
{
	char *v = next(x);
	for (;;) {
		int i;
		for (i = 0; ops[i] && !xaccept(x, ops[i]); i++)
			;
		if (!ops[i])
			return v;
		char *r = next(x), *t = xasprintf("%s_%s(%s, %s, &e)", x->pre, names[i], v, r);
		free(v);
		free(r);
		v = t;
	}
}

static char *xmul(xp *x)
{
	static const char *const ops[] = {"*", "/", "%", NULL}, *const names[] = {"mul", "div", "mod"};
	return xlevel(x, xunary, ops, names);
}

static char *xadd(xp *x)
{
	static const char *const ops[] = {"+", "-", NULL}, *const names[] = {"add", "sub"};
	return xlevel(x, xmul, ops, names);
}

static char *xcmp(xp *x)
{
	static const char *const ops[] = {"<=", ">=", "==", "!=", "<", ">"};
	char *v = xadd(x);
	for (int i = 0; i < 6; i++) {
		if (!xaccept(x, ops[i]))
			continue;
		char *r = xadd(x), *t = xasprintf("%s_b((%s) %s (%s))", x->pre, v, ops[i], r);
		free(v);
		free(r);
		return t; /* one comparison per level, as in expr.c */
	}
	return v;
}

static char *xand(xp *x)
{
	char *v = xcmp(x);
	while (xaccept(x, "&&")) {
		char *r = xcmp(x), *t = xasprintf("%s_b((%s) ? (%s) != 0 : 0)", x->pre, v, r);
		free(v);
		free(r);
		v = t;
	}
	return v;
}

static char *xor_(xp *x)
{
	char *v = xand(x);
	while (xaccept(x, "||")) {
		char *r = xand(x), *t = xasprintf("%s_b((%s) ? 1 : (%s) != 0)", x->pre, v, r);
		free(v);
		free(r);
		v = t;
	}
	return v;
}

char *cko_export_expr(const cJSON *item, const char *pre, const cko_env *defs, const cko_signature *sig, char *err,
		      size_t errlen)
{
	if (cJSON_IsNumber(item)) {
		double d = item->valuedouble;
		/* as cko_expr_json: a number that is no integer is an error when evaluated */
		if (!(d <= 9.2e18 && d >= -9.2e18) || d != (double)(int64_t)d)
			return xasprintf("%s_unbound(&e)", pre);
		return xasprintf("INT64_C(%lld)", (long long)(int64_t)d);
	}
	if (!cJSON_IsString(item)) {
		snprintf(err, errlen, "expected a number or an expression string");
		return NULL;
	}
	if (cko_expr_check(item->valuestring, err, errlen))
		return NULL;
	xp x = {item->valuestring, pre, defs, sig};
	return xor_(&x);
}

void cko_export_helpers(cko_buf *b, const char *p)
{
	buf_printf(b,
		   "#include <stdint.h>\n\n"
		   "/* Launch dimensions; every value is checked before it is narrowed. */\n"
		   "typedef struct {\n\tint64_t grid[3], block[3], smem;\n} %s_dims;\n\n"
		   "/* cko's expression semantics: 64-bit, overflow and division by zero set *e. */\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_add(int64_t a, int64_t b, int *e)\n{\n"
		   "\tif ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a + b;\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_sub(int64_t a, int64_t b, int *e)\n{\n"
		   "\tif ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a - b;\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_mul(int64_t a, int64_t b, int *e)\n{\n"
		   "\tint bad;\n"
		   "\tif (a > 0)\n\t\tbad = b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;\n"
		   "\telse\n\t\tbad = b > 0 ? a < INT64_MIN / b : a != 0 && b < INT64_MAX / a;\n"
		   "\tif (bad) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a * b;\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_div(int64_t a, int64_t b, int *e)\n{\n"
		   "\tif (b == 0 || (a == INT64_MIN && b == -1)) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a / b;\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_mod(int64_t a, int64_t b, int *e)\n{\n"
		   "\tif (b == 0 || (a == INT64_MIN && b == -1)) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a %% b;\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_ceil_div(int64_t a, int64_t b, int *e)\n{\n"
		   "\tif (b == 0 || (a == INT64_MIN && b == -1)) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n"
		   "\treturn a / b + (a %% b != 0 && ((a %% b > 0) == (b > 0)));\n}\n\n",
		   p);
	buf_printf(b,
		   "static inline int64_t %s_neg(int64_t a, int *e)\n{\n"
		   "\tif (a == INT64_MIN) {\n\t\t*e = 1;\n\t\treturn 0;\n\t}\n\treturn -a;\n}\n\n"
		   "static inline int64_t %s_min(int64_t a, int64_t b) { return a < b ? a : b; }\n"
		   "/* A truth value as 0 or 1 (a call, so compilers see no boolean compared). */\n"
		   "static inline int64_t %s_b(int c) { return c != 0; }\n"
		   "static inline int64_t %s_max(int64_t a, int64_t b) { return a > b ? a : b; }\n"
		   "/* A name the rules use that is neither a scalar nor an integer define. */\n"
		   "static inline int64_t %s_unbound(int *e)\n{\n\t*e = 1;\n\treturn 0;\n}\n\n",
		   p, p, p, p, p);
	buf_printf(b,
		   "/* CUDA's limits, as cko checks them: 0, or 2 when one is broken. */\n"
		   "static inline int %s_limits(const %s_dims *d)\n{\n"
		   "\tstatic const int64_t mg[3] = {2147483647, 65535, 65535}, mb[3] = {1024, 1024, 64};\n"
		   "\tfor (int i = 0; i < 3; i++)\n"
		   "\t\tif (d->grid[i] < 1 || d->grid[i] > mg[i] || d->block[i] < 1 || d->block[i] > mb[i])\n"
		   "\t\t\treturn 2;\n"
		   "\tif (d->block[0] * d->block[1] * d->block[2] > 1024)\n\t\treturn 2;\n"
		   "\tif (d->smem < 0 || d->smem > (INT64_C(1) << 30))\n\t\treturn 2;\n"
		   "\treturn 0;\n}\n\n",
		   p, p);
}

static int emit_dims(cko_buf *b, const cJSON *v, int n, const char *what, const char *p, const cko_env *defs,
		     const cko_signature *sig, char *err, size_t errlen)
{
	const cJSON *e = cJSON_IsArray(v) ? v->child : v;
	for (int i = 0; i < n; i++) {
		char *c = e ? cko_export_expr(e, p, defs, sig, err, errlen) : xstrdup("INT64_C(1)");
		if (!c)
			return -1;
		if (n > 1)
			buf_printf(b, "\td->%s[%d] = %s;\n", what, i, c);
		else
			buf_printf(b, "\td->%s = %s;\n", what, c);
		free(c);
		if (e)
			e = cJSON_IsArray(v) ? e->next : NULL;
	}
	return 0;
}

int cko_export_rule(cko_buf *b, const char *p, const char *fname, const cJSON *launch, const char *case_name,
		    const cko_signature *sig, char *err, size_t errlen)
{
	const cJSON *ov = case_name ? cko_jget(cko_jget(launch, "overrides"), case_name) : NULL;
	const cJSON *grid = cko_jget(ov, "grid") ? cko_jget(ov, "grid") : cko_jget(launch, "grid");
	const cJSON *block = cko_jget(ov, "block") ? cko_jget(ov, "block") : cko_jget(launch, "block");
	const cJSON *smem = cko_jget(ov, "smem") ? cko_jget(ov, "smem") : cko_jget(launch, "smem");
	cko_env defs = {0};
	cko_launch_defines_env(launch, &defs);
	if (case_name)
		buf_printf(b, "/* The override of case \"%s\". */\n", case_name);
	else
		buf_printf(b, "/* The general rule. */\n");
	buf_printf(b,
		   "static inline int %s(const int64_t *s, %s_dims *d)\n{\n\tint e = 0;\n\n\t(void)s;\n", fname, p);
	int r = -1;
	if (!grid || !block)
		snprintf(err, errlen, "launch rule lacks grid or block");
	else if (!emit_dims(b, grid, 3, "grid", p, &defs, sig, err, errlen) &&
		 !emit_dims(b, block, 3, "block", p, &defs, sig, err, errlen)) {
		if (smem)
			r = emit_dims(b, smem, 1, "smem", p, &defs, sig, err, errlen);
		else {
			buf_puts(b, "\td->smem = 0;\n");
			r = 0;
		}
	}
	buf_printf(b, "\tif (e)\n\t\treturn 1;\n\treturn %s_limits(d);\n}\n\n", p);
	cko_env_free(&defs);
	return r;
}

/* The integer scalar values of a case in signature order, into v; the
 * number of them. Dies naming the field on a missing one. */
static int case_scalars(const cJSON *scalars, const cko_signature *sig, int64_t *v, const char *file,
			const char *field)
{
	int k = 0;
	for (int i = 0; i < sig->nparams; i++) {
		const cko_param *q = &sig->params[i];
		if (q->is_buffer || cko_dtype_is_float(q->dtype))
			continue;
		v[k++] = cko_jint(scalars, q->name, file, field);
	}
	return k;
}

static int nscalars(const cko_signature *sig)
{
	int k = 0;
	for (int i = 0; i < sig->nparams; i++)
		k += !sig->params[i].is_buffer && !cko_dtype_is_float(sig->params[i].dtype);
	return k;
}

static const char *scalar_name(const cko_signature *sig, int k)
{
	for (int i = 0; i < sig->nparams; i++)
		if (!sig->params[i].is_buffer && !cko_dtype_is_float(sig->params[i].dtype) && k-- == 0)
			return sig->params[i].name;
	return "?";
}

/* The hidden cases' part of p_which: scalars in their ranges (the others
 * at the first correctness case's values) and every constraint true. */
static int emit_hidden(cko_buf *b, cko_buf *doc, const char *p, const cJSON *cases, const cko_signature *sig,
		       char *err, size_t errlen)
{
	const cJSON *h = cko_jget(cases, "hidden"), *hs = cko_jget(h, "scalars"), *first = NULL;
	if (!h)
		return 0;
	for (const cJSON *c = cko_jget(cases, "cases") ? cko_jget(cases, "cases")->child : NULL; c && !first; c = c->next)
		if (!strcmp(cko_jstr_opt(c, "kind", ""), "correctness"))
			first = c;
	int n = nscalars(sig);
	buf_puts(b, "\tif (1");
	buf_printf(doc, "- the hidden cases' ranges (%d cases were drawn in them):", (int)cko_jnum_opt(h, "count", 0));
	for (int k = 0; k < n; k++) {
		const char *name = scalar_name(sig, k);
		const cJSON *r = cko_jget(hs, name);
		if (cJSON_GetArraySize(r) == 2) {
			int64_t lo = (int64_t)cJSON_GetArrayItem(r, 0)->valuedouble, hi = (int64_t)cJSON_GetArrayItem(r, 1)->valuedouble;
			buf_printf(b, " && s[%d] >= INT64_C(%lld) && s[%d] <= INT64_C(%lld)", k, (long long)lo, k, (long long)hi);
			buf_printf(doc, " %s in [%lld, %lld]", name, (long long)lo, (long long)hi);
		} else {
			if (!first) {
				snprintf(err, errlen, "hidden cases need a correctness case for the scalar %s", name);
				return -1;
			}
			int64_t v = cko_jint(cko_jget(first, "scalars"), name, "cases.json", "scalars");
			buf_printf(b, " && s[%d] == INT64_C(%lld)", k, (long long)v);
			buf_printf(doc, " %s = %lld", name, (long long)v);
		}
	}
	buf_puts(b, ") {\n");
	cko_env none = {0};
	int i = 0;
	for (const cJSON *c = cko_jget(h, "constraints") ? cko_jget(h, "constraints")->child : NULL; c; c = c->next, i++) {
		char *x = cko_export_expr(c, p, &none, sig, err, errlen);
		if (!x)
			return -1;
		buf_printf(b, "\t\tint64_t c%d = %s;\n", i, x);
		buf_printf(doc, "%s %s", i ? "," : "; where", c->valuestring);
		free(x);
	}
	buf_puts(b, "\t\tif (!e");
	for (int j = 0; j < i; j++)
		buf_printf(b, " && c%d != 0", j);
	buf_puts(b, ")\n\t\t\treturn 0;\n\t}\n");
	buf_puts(doc, "\n");
	return 0;
}

int cko_export_config(cko_buf *b, cko_buf *doc, const char *p, const cJSON *launch, const cJSON *cases,
		      const cko_signature *sig, char *err, size_t errlen)
{
	char *fn = xasprintf("%s_rule0", p);
	int r = cko_export_rule(b, p, fn, launch, NULL, sig, err, errlen);
	free(fn);
	if (r)
		return -1;
	const cJSON *list = cko_jget(cases, "cases"), *ov = cko_jget(launch, "overrides");
	int ncases = cJSON_GetArraySize(list), n = nscalars(sig), nrules = 1;
	int *rule = xcalloc((size_t)ncases + 1, sizeof *rule);
	cko_buf names = {0};
	buf_puts(&names, "NULL");
	int i = 0;
	for (const cJSON *c = list ? list->child : NULL; c; c = c->next, i++) {
		const char *name = cko_jstr(c, "name", "cases.json", "cases[].name");
		if (!cko_jget(ov, name))
			continue;
		fn = xasprintf("%s_rule%d", p, nrules);
		r = cko_export_rule(b, p, fn, launch, name, sig, err, errlen);
		free(fn);
		if (r)
			goto out;
		rule[i] = nrules++;
		buf_printf(&names, ", \"%s\"", name);
	}
	buf_printf(b, "/* The case each rule was made for (NULL: the general rule). */\n"
		      "static const char *const %s_rule_case[] = {%s};\n\n", p, names.s);
	buf_printf(b,
		   "/* The rule for scalars s (the integer scalars in signature order), or -1\n"
		   " * for scalars the run did not verify: a case's exact scalars (its\n"
		   " * override if it has one), else the hidden cases' ranges. */\n"
		   "static inline int %s_which(const int64_t *s)\n{\n\tint e = 0;\n\n\t(void)s;\n\t(void)e;\n\t(void)%s_rule_case;\n",
		   p, p);
	if (!cases)
		buf_puts(b, "\treturn 0;\n");
	buf_puts(doc, "- the cases, exactly:\n");
	i = 0;
	for (const cJSON *c = list ? list->child : NULL; c; c = c->next, i++) {
		int64_t v[64];
		const char *name = cko_jstr(c, "name", "cases.json", "cases[].name");
		if (n > 64) {
			snprintf(err, errlen, "more than 64 integer scalars");
			r = -1;
			goto out;
		}
		case_scalars(cko_jget(c, "scalars"), sig, v, "cases.json", cko_field("cases", name));
		buf_puts(b, "\tif (1");
		buf_printf(doc, "  - %s (%s):", name, cko_jstr_opt(c, "kind", "?"));
		for (int k = 0; k < n; k++) {
			buf_printf(b, " && s[%d] == INT64_C(%lld)", k, (long long)v[k]);
			buf_printf(doc, " %s=%lld", scalar_name(sig, k), (long long)v[k]);
		}
		buf_printf(b, ")\n\t\treturn %d; /* case \"%s\" */\n", rule[i], name);
		buf_printf(doc, "%s\n", rule[i] ? " (its own launch override)" : "");
	}
	if (cases && (r = emit_hidden(b, doc, p, cases, sig, err, errlen)))
		goto out;
	buf_puts(b, "\treturn -1;\n}\n\n");
	buf_printf(b,
		   "/* The launch dimensions for scalars s: 0, 1 when a rule is an error (overflow,\n"
		   " * division by zero), 2 beyond CUDA's limits, 3 for scalars not verified. */\n"
		   "static inline int %s_config(const int64_t *s, %s_dims *d)\n{\n\tswitch (%s_which(s)) {\n",
		   p, p, p);
	for (int k = 0; k < nrules; k++)
		buf_printf(b, "\tcase %d:\n\t\treturn %s_rule%d(s, d);\n", k, p, k);
	buf_puts(b, "\tdefault:\n\t\treturn 3;\n\t}\n}\n");
	r = 0;
out:
	free(rule);
	buf_free(&names);
	return r;
}
