/* test-export.c: the launch rules cko-export compiles to C give, compiled
 * with cc and run, what cko's evaluator gives: the same grid, block and
 * smem, or an error where it errs (expression error or CUDA limit). On
 * every built-in workload's launch.json and space.json variants (every
 * case, every corner of the hidden ranges, the verified-scalars guard)
 * and on random rules drawn from the expression grammar with random
 * scalars, overflow and division by zero included. */
#include "export.h"
#include "test.h"

#include <stdlib.h>

static cko_rng R;
static cko_buf prog, want;
static int npoints;

static int rnd(int n) { return (int)(cko_rng_next(&R) % (uint64_t)n); }

static char *lit(int64_t v)
{
	if (v == INT64_MIN)
		return xstrdup("(-INT64_C(9223372036854775807) - 1)");
	return xasprintf("INT64_C(%lld)", (long long)v);
}

/* The evaluator's verdict: 0 ok, 1 an expression error, 2 a CUDA limit. */
static void expect(const cJSON *launch, const char *case_name, int hidden, const cko_env *scal, int unverified)
{
	cko_env env = {0};
	for (int i = 0; i < scal->n; i++)
		cko_env_set(&env, scal->v[i].name, scal->v[i].value);
	cko_launch_defines_env(launch, &env);
	cko_launch l;
	char err[512];
	int st = 0;
	if (unverified)
		st = 3;
	else if (cko_launch_eval(launch, case_name ? case_name : "-", hidden, &env, &l, err, sizeof err)) {
		const char *br = strchr(err, ']');
		st = br && br[1] == ':' ? 1 : 2;
	}
	if (st)
		buf_printf(&want, "%d\n", st);
	else
		buf_printf(&want, "0 %lld %lld %lld %lld %lld %lld %lld\n", (long long)l.grid[0], (long long)l.grid[1],
			   (long long)l.grid[2], (long long)l.block[0], (long long)l.block[1], (long long)l.block[2],
			   (long long)l.smem);
	cko_env_free(&env);
	npoints++;
}

/* A call of the generated fn on the scalars, printing as expect does:
 * a row of the table main runs (wrapper number, scalars). */
static cko_buf table;
static int nwrap;
static char lastfn[64];

static void call(const char *pre, const char *fn, const cko_env *scal)
{
	if (strcmp(fn, lastfn)) {
		buf_printf(&prog,
			   "static int x%d(const int64_t *s, int64_t *o)\n{\n\t%s_dims d = {{0}, {0}, 0};\n"
			   "\tint r = %s(s, &d);\n\tmemcpy(o, d.grid, 3 * sizeof *o);\n"
			   "\tmemcpy(o + 3, d.block, 3 * sizeof *o);\n\to[6] = d.smem;\n\treturn r;\n}\n\n",
			   nwrap++, pre, fn);
		snprintf(lastfn, sizeof lastfn, "%s", fn);
	}
	buf_printf(&table, "\t{%d", nwrap - 1);
	for (int i = 0; i < 8; i++) {
		char *v = lit(i < scal->n ? scal->v[i].value : 0);
		buf_printf(&table, ", %s", v);
		free(v);
	}
	buf_puts(&table, "},\n");
}

/* Compiles and runs the program; its output must be want's. */
static void run_all(const char *name)
{
	const char *tmp = getenv("TEST_TMP") ? getenv("TEST_TMP") : "/tmp";
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	char *src = xasprintf("%s/%s.c", tmp, name), *exe = xasprintf("%s/%s", tmp, name);
	char *got = xasprintf("%s/%s.out", tmp, name), *wantf = xasprintf("%s/%s.want", tmp, name);
	cko_buf b = {0};
	buf_puts(&b, "#include <stdio.h>\n#include <stdint.h>\n#include <string.h>\n\n"
		     "static void out(int r, const int64_t *g, const int64_t *b, int64_t sm)\n{\n"
		     "\tif (r)\n\t\tprintf(\"%d\\n\", r);\n\telse\n"
		     "\t\tprintf(\"0 %lld %lld %lld %lld %lld %lld %lld\\n\", (long long)g[0], (long long)g[1],\n"
		     "\t\t       (long long)g[2], (long long)b[0], (long long)b[1], (long long)b[2], (long long)sm);\n}\n\n");
	buf_add(&b, prog.s, prog.len);
	buf_puts(&b, "typedef int (*wrap)(const int64_t *, int64_t *);\nstatic const wrap wraps[] = {");
	for (int i = 0; i < nwrap; i++)
		buf_printf(&b, "%sx%d", i ? ", " : "", i);
	buf_puts(&b, "};\nstatic const int64_t rows[][9] = {\n");
	buf_add(&b, table.s, table.len);
	buf_puts(&b, "};\n\nint main(void)\n{\n\tfor (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {\n"
		     "\t\tint64_t o[7];\n\t\tint r = wraps[rows[i][0]](rows[i] + 1, o);\n"
		     "\t\tout(r, o, o + 3, o[6]);\n\t}\n\treturn 0;\n}\n");
	cko_write_file(src, b.s, b.len);
	cko_write_file(wantf, want.s, want.len);
	char *cmd = xasprintf("%s -std=c99 -O0 -Wall -Werror -Wno-unused-function -o %s %s >%s.log 2>&1 && %s >%s && "
			      "cmp -s %s %s", cc, exe, src, exe, exe, got, got, wantf);
	char n[128];
	snprintf(n, sizeof n, "export %s: %d points, generated C = evaluator", name, npoints);
	int rc = system(cmd);
	CHECK(n, rc == 0);
	if (rc)
		printf("# differs: diff %s %s (program %s)\n", got, wantf, src);
	free(cmd), free(src), free(exe), free(got), free(wantf);
	buf_free(&b);
}

/* ---- random rules from the grammar ---- */
static void g_or(cko_buf *b, int d);

static void sp(cko_buf *b)
{
	if (!rnd(3))
		buf_puts(b, " ");
}

static void g_prim(cko_buf *b, int d)
{
	static const char *const nums[] = {"0", "1", "2", "3", "7", "32", "1024", "65535", "4294967296", "3037000499",
					   "3037000500", "9223372036854775807", "9223372036854775806", "00"};
	static const char *const names[] = {"M", "N", "K", "BX", "BY", "Q", "HUGE", "S"};
	static const char *const fns[] = {"min", "max", "ceil_div", "ceil_div"};
	switch (d <= 0 ? rnd(2) : rnd(6)) {
	case 0:
		if (rnd(6))
			buf_printf(b, "%d", 1 + rnd(100));
		else
			buf_puts(b, nums[rnd(14)]);
		break;
	case 1:
		buf_puts(b, names[rnd(30) ? rnd(5) : 5 + rnd(3)]);
		break;
	case 2:
	case 5:
		buf_puts(b, "(");
		g_or(b, d - 1);
		buf_puts(b, ")");
		break;
	default:
		buf_printf(b, "%s%s(", fns[rnd(4)], rnd(4) ? "" : " ");
		g_or(b, d - 1);
		buf_puts(b, ",");
		sp(b);
		g_or(b, d - 1);
		buf_puts(b, ")");
	}
}

static void g_unary(cko_buf *b, int d)
{
	switch (rnd(8)) {
	case 0: buf_puts(b, "-"); sp(b); g_unary(b, d - 1); break;
	case 1: buf_puts(b, "!"); g_unary(b, d - 1); break;
	case 2: buf_puts(b, "+"); g_unary(b, d - 1); break;
	default: g_prim(b, d);
	}
}

static int reps(void) { int r = rnd(20); return r < 13 ? 0 : r < 19 ? 1 : 2; }

static void g_mul(cko_buf *b, int d)
{
	g_unary(b, d);
	for (int n = reps(); n > 0; n--) {
		sp(b), buf_puts(b, (const char *[]){"*", "/", "%", "/"}[rnd(4)]), sp(b);
		g_unary(b, d);
	}
}

static void g_add(cko_buf *b, int d)
{
	g_mul(b, d);
	for (int n = reps(); n > 0; n--) {
		sp(b), buf_puts(b, rnd(2) ? "+" : "-"), sp(b);
		g_mul(b, d);
	}
}

static void g_cmp(cko_buf *b, int d)
{
	g_add(b, d);
	if (!rnd(6)) {
		sp(b), buf_puts(b, (const char *[]){"<", "<=", ">", ">=", "==", "!="}[rnd(6)]), sp(b);
		g_add(b, d);
	}
}

static void g_and(cko_buf *b, int d)
{
	g_cmp(b, d);
	for (int n = rnd(8) ? 0 : 1; n > 0; n--) {
		sp(b), buf_puts(b, "&&"), sp(b);
		g_cmp(b, d);
	}
}

static void g_or(cko_buf *b, int d)
{
	g_and(b, d);
	for (int n = rnd(8) ? 0 : 1; n > 0; n--) {
		sp(b), buf_puts(b, "||"), sp(b);
		g_and(b, d);
	}
}

/* A well-formed random expression; half of them clamped to a small
 * positive range so that many rules give launchable dimensions. */
static cJSON *g_expr(void)
{
	for (;;) {
		cko_buf b = {0};
		int clamp = rnd(4) != 0;
		if (clamp)
			buf_puts(&b, "max(1, min(64, ");
		g_or(&b, 1 + rnd(4));
		if (clamp)
			buf_puts(&b, "))");
		char err[256];
		if (!cko_expr_check(b.s, err, sizeof err)) {
			cJSON *s = cJSON_CreateString(b.s);
			buf_free(&b);
			return s;
		}
		buf_free(&b);
	}
}

static cJSON *g_dims(int n)
{
	cJSON *a = cJSON_CreateArray();
	for (int i = 0, k = 1 + rnd(n); i < k; i++)
		cJSON_AddItemToArray(a, rnd(3) ? g_expr() : cJSON_CreateNumber(rnd(4)));
	return a;
}

static int64_t g_value(void)
{
	static const int64_t v[] = {0, 1, -1, 2, 3, 31, 32, 33, 127, 4096, 65535, 65536, 2147483647, -2147483647 - 1,
				    3037000499, 3037000500, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
	switch (rnd(8)) {
	case 0: return v[rnd(20)];
	case 1:
	case 2: return (int64_t)cko_rng_next(&R);
	case 3: return rnd(1000) - 100;
	default: return 1 + rnd(5000);
	}
}

static void fuzz(int nrules, int npts)
{
	cko_signature sig;
	cJSON *sj = cJSON_Parse("{\"entry\": \"f\", \"params\": [{\"name\": \"M\", \"kind\": \"scalar\", \"dtype\": \"i64\"},"
				"{\"name\": \"alpha\", \"kind\": \"scalar\", \"dtype\": \"f32\"},"
				"{\"name\": \"N\", \"kind\": \"scalar\", \"dtype\": \"i64\"},"
				"{\"name\": \"x\", \"kind\": \"buffer\", \"dtype\": \"f32\", \"role\": \"out\", \"shape\": [\"M\"]},"
				"{\"name\": \"K\", \"kind\": \"scalar\", \"dtype\": \"i64\"}]}");
	cko_signature_from_json(sj, "fuzz-signature.json", &sig);
	cJSON *cases = cJSON_Parse("{\"cases\": [{\"name\": \"c1\", \"kind\": \"correctness\", \"seed\": 1,"
				   "\"scalars\": {\"M\": 1, \"N\": 2, \"K\": 3, \"alpha\": 0.5}}]}");
	for (int r = 0; r < nrules; r++) {
		cJSON *l = cJSON_CreateObject(), *defs = cJSON_AddObjectToObject(l, "defines");
		cJSON_AddNumberToObject(defs, "BX", rnd(3) ? 1 + rnd(64) : (double)(g_value() % 1000000000000000));
		cJSON_AddNumberToObject(defs, "BY", rnd(300) - 10);
		cJSON_AddNumberToObject(defs, "HUGE", 1e16); /* too large to be bound */
		cJSON_AddStringToObject(defs, "S", "abc");
		cJSON_AddItemToObject(l, "grid", g_dims(3));
		cJSON_AddItemToObject(l, "block", g_dims(3));
		if (rnd(3))
			cJSON_AddItemToObject(l, "smem", rnd(2) ? g_expr() : g_dims(1));
		int ov = rnd(2);
		if (ov) {
			cJSON *o = cJSON_AddObjectToObject(cJSON_AddObjectToObject(l, "overrides"), "c1");
			if (rnd(2))
				cJSON_AddItemToObject(o, "grid", g_dims(3));
			if (rnd(2))
				cJSON_AddItemToObject(o, "block", g_dims(3));
			if (rnd(2))
				cJSON_AddItemToObject(o, "smem", g_expr());
		}
		char pre[32], fn[64], err[512];
		snprintf(pre, sizeof pre, "f%d", r);
		cko_buf doc = {0};
		cko_export_helpers(&prog, pre);
		int rc = cko_export_config(&prog, &doc, pre, l, cases, &sig, err, sizeof err);
		if (rc) {
			CHECK("export fuzz: rule compiles", rc == 0);
			printf("# %s\n", err);
		}
		buf_free(&doc);
		for (int i = 0; i < npts; i++) {
			cko_env e = {0};
			cko_env_set(&e, "M", g_value());
			cko_env_set(&e, "N", g_value());
			cko_env_set(&e, "K", g_value());
			int use_ov = ov && rnd(2);
			snprintf(fn, sizeof fn, "%s_rule%d", pre, use_ov);
			call(pre, fn, &e);
			expect(l, use_ov ? "c1" : NULL, !use_ov, &e, 0);
			cko_env_free(&e);
		}
		cJSON_Delete(l);
	}
	cJSON_Delete(cases);
	cJSON_Delete(sj);
	cko_signature_free(&sig);
}

/* ---- the built-in workloads ---- */
static int nsets;

static void scal_env(const cko_signature *sig, const cJSON *scalars, cko_env *e)
{
	for (int i = 0; i < sig->nparams; i++)
		if (!sig->params[i].is_buffer && !cko_dtype_is_float(sig->params[i].dtype))
			cko_env_set(e, sig->params[i].name, cko_jint(scalars, sig->params[i].name, "cases.json", "scalars"));
}

static int same_as_case(const cko_env *e, const cJSON *cases, const cko_signature *sig)
{
	for (const cJSON *c = cko_jget(cases, "cases")->child; c; c = c->next) {
		cko_env v = {0};
		scal_env(sig, cko_jget(c, "scalars"), &v);
		int same = v.n == e->n;
		for (int i = 0; same && i < v.n; i++)
			same = v.v[i].value == e->v[i].value;
		cko_env_free(&v);
		if (same)
			return 1;
	}
	return 0;
}

static int constraints_hold(const cJSON *cases, const cko_env *e)
{
	const cJSON *cs = cko_jget(cko_jget(cases, "hidden"), "constraints");
	for (const cJSON *c = cs ? cs->child : NULL; c; c = c->next) {
		int64_t v;
		char err[256];
		if (cko_expr_eval(c->valuestring, e, &v, err, sizeof err) || !v)
			return 0;
	}
	return 1;
}

/* Every case, and every corner of the hidden ranges (and one point past
 * them), through PRE_config and PRE_rule0. */
static void one_set(const cJSON *l, const cJSON *cases, const cko_signature *sig)
{
	char pre[32], fn[64], err[512];
	snprintf(pre, sizeof pre, "w%d", nsets);
	cko_buf doc = {0};
	cko_export_helpers(&prog, pre);
	int rc = cko_export_config(&prog, &doc, pre, l, cases, sig, err, sizeof err);
	CHECK("export workload rules compile to C", rc == 0);
	if (rc)
		printf("# %s\n", err);
	buf_free(&doc);
	nsets++;
	snprintf(fn, sizeof fn, "%s_config", pre);
	const cJSON *first = NULL;
	for (const cJSON *c = cko_jget(cases, "cases")->child; c; c = c->next) {
		cko_env e = {0};
		scal_env(sig, cko_jget(c, "scalars"), &e);
		call(pre, fn, &e);
		expect(l, cko_jstr(c, "name", "cases.json", "name"), 0, &e, 0);
		cko_env_free(&e);
		if (!first && !strcmp(cko_jstr_opt(c, "kind", ""), "correctness"))
			first = c;
	}
	const cJSON *hs = cko_jget(cko_jget(cases, "hidden"), "scalars");
	if (hs && first) {
		int n = cJSON_GetArraySize(hs);
		for (int m = 0; m < (1 << n) + 1 && n <= 8; m++) {
			cko_env e = {0};
			scal_env(sig, cko_jget(first, "scalars"), &e);
			int k = 0;
			for (const cJSON *r = hs->child; r; r = r->next, k++) {
				int64_t lo = (int64_t)cJSON_GetArrayItem(r, 0)->valuedouble;
				int64_t hi = (int64_t)cJSON_GetArrayItem(r, 1)->valuedouble;
				if (cko_export_scalar_index(sig, r->string) < 0)
					continue;
				/* m == 2^n: one past the first range's top */
				cko_env_set(&e, r->string, m == 1 << n ? (k ? lo : hi + 1) : (m >> k) & 1 ? hi : lo);
			}
			snprintf(fn, sizeof fn, "%s_rule0", pre);
			call(pre, fn, &e);
			expect(l, NULL, 1, &e, 0);
			if (!same_as_case(&e, cases, sig)) {
				snprintf(fn, sizeof fn, "%s_config", pre);
				call(pre, fn, &e);
				expect(l, NULL, 1, &e, m == 1 << n || !constraints_hold(cases, &e));
			}
			cko_env_free(&e);
		}
	}
}

/* A variant of space.json with tunable values that meet its constraints. */
static void variant_sets(const cJSON *v, const cJSON *cases, const cko_signature *sig)
{
	const cJSON *tun = cko_jget(v, "tunables");
	int found = 0;
	for (int t = 0; t < 400 && found < 3; t++) {
		cJSON *l = cJSON_Duplicate(v, 1);
		cJSON *defs = cJSON_GetObjectItemCaseSensitive(l, "defines");
		if (!defs)
			defs = cJSON_AddObjectToObject(l, "defines");
		for (const cJSON *c = tun ? tun->child : NULL; c; c = c->next) {
			int n = cJSON_GetArraySize(c), i = t == 0 ? 0 : t == 1 ? n - 1 : rnd(n);
			cJSON_DeleteItemFromObjectCaseSensitive(defs, c->string);
			cJSON_AddNumberToObject(defs, c->string, cJSON_GetArrayItem(c, i)->valuedouble);
		}
		cko_env e = {0};
		cko_launch_defines_env(l, &e);
		int ok = 1;
		const cJSON *cs = cko_jget(v, "constraints");
		for (const cJSON *c = cs ? cs->child : NULL; c && ok; c = c->next) {
			int64_t x;
			char err[256];
			ok = !cko_expr_eval(c->valuestring, &e, &x, err, sizeof err) && x;
		}
		cko_env_free(&e);
		if (ok) {
			one_set(l, cases, sig);
			found++;
		}
		cJSON_Delete(l);
	}
	CHECK("export: a variant has tunable values that meet its constraints", found > 0);
}

static void workloads(void)
{
	const char *top = getenv("CKO_TOP") ? getenv("CKO_TOP") : ".";
	char *wd = xasprintf("%s/workloads", top);
	int n;
	char **names = cko_list_dir(wd, "", &n);
	for (int i = 0; i < n; i++) {
		char *d = xasprintf("%s/%s", wd, names[i]), *sp_ = xasprintf("%s/signature.json", d);
		char *cp = xasprintf("%s/cases.json", d), *lp = xasprintf("%s/launch.json", d);
		char *sj = xasprintf("%s/space.json", d), *rl = xasprintf("%s/reference-launch.json", d);
		if (cko_exists(sp_) && cko_exists(cp)) {
			cko_signature sig;
			cko_signature_load(sp_, &sig);
			cJSON *cases = cko_json_load(cp);
			const char *ls[] = {lp, rl};
			for (int k = 0; k < 2; k++)
				if (cko_exists(ls[k])) {
					cJSON *l = cko_json_load(ls[k]);
					one_set(l, cases, &sig);
					cJSON_Delete(l);
				}
			if (cko_exists(sj)) {
				cJSON *s = cko_json_load(sj);
				for (const cJSON *v = cko_jget(s, "variants")->child; v; v = v->next)
					variant_sets(v, cases, &sig);
				cJSON_Delete(s);
			}
			cJSON_Delete(cases);
			cko_signature_free(&sig);
		}
		free(d), free(sp_), free(cp), free(lp), free(sj), free(rl);
	}
	cko_free_list(names, n);
	free(wd);
}

int main(void)
{
	cko_rng_seed(&R, 20);
	workloads();
	CHECK("export: the built-in workloads have launch rules", nsets >= 5);
	run_all("workloads");
	buf_free(&prog), buf_free(&want), buf_free(&table);
	npoints = nwrap = 0;
	lastfn[0] = 0;
	fuzz(200, 40);
	run_all("fuzz");
	TEST_END();
}
