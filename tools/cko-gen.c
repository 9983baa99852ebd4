/* cko-gen: input cases from a declarative spec. Lints cases.json against the
 * signature, derives the hidden cases from a seed, and writes the case
 * folder (index.json, NAME/case.json, NAME/in/SET/BUF.npy). With
 * --check-expected it rejects degenerate expected outputs instead. It never
 * runs code from a workload; the same spec and seed give the same bytes. */
#include "cko.h"
#include "gen.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-gen [--hidden-seed N] [--lint] [-j threads] [-o cases-dir] signature.json cases.json\n"
		"       cko-gen --check-expected cases-dir\n"
		"      --hidden-seed N     derive and write the hidden cases from the non-negative integer N\n"
		"      --lint              check the spec (including the hidden section) and write nothing\n"
		"  -j, --threads threads   fill buffers with this many threads, 1 to 256 (default: one per online CPU)\n"
		"  -o, --output cases-dir  the case folder (default cases)\n"
		"      --check-expected    check the expected outputs of cases-dir instead of generating\n"
		"  -h, --help              print this help and exit\n");
	exit(status);
}

/* Draws tried per hidden case before giving up on its constraints. */
#define HIDDEN_TRIES 10000
#define MAX_HIDDEN 1000
#define MAX_ROTATIONS 16
/* Largest buffer even with index64 (a case is meant to fit one GPU). */
#define MAX_BUFFER_BYTES ((uint64_t)1 << 36)
#define LIMIT32 ((uint64_t)1 << 31)

typedef struct {
	char *name;
	int perf, hidden, index64, sets;
	uint64_t seed;
	cJSON *scalars; /* name -> value, in signature order */
	cko_env env;
	int64_t (*shape)[CKO_MAXDIM];
	size_t *count;
	cko_gen *gen;   /* in/inout buffers */
	cko_tol *tol;   /* out/inout buffers */
	int has_flops, has_bytes;
	double flops, bytes;
} gcase;

typedef struct {
	const char *file, *dir; /* cases.json and its folder */
	const cJSON *root;
	cko_signature sig;
	int rotations;
	gcase *cases;
	int ncases, nexplicit;
} spec;

static int safe_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 64 || s[0] == '.' || s[0] == '-')
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static int is_output(const cko_param *p) { return p->is_buffer && p->role != CKO_IN; }
static int is_input(const cko_param *p) { return p->is_buffer && p->role != CKO_OUT; }

static int param_index(const cko_signature *sig, const char *name)
{
	for (int i = 0; i < sig->nparams; i++)
		if (!strcmp(sig->params[i].name, name))
			return i;
	return -1;
}

/* ---- tolerance ---- */

static void check_tol_obj(const spec *S, const cJSON *t, const char *field)
{
	static const char *const keys[] = {"rtol", "atol", NULL};
	if (!t)
		return;
	if (!cJSON_IsObject(t))
		cko_jfail(S->file, field, "expected an object of output buffer -> {\"rtol\", \"atol\"}");
	for (const cJSON *b = t->child; b; b = b->next) {
		char f[256];
		snprintf(f, sizeof f, "%s", cko_field(field, b->string));
		int i = param_index(&S->sig, b->string);
		if (i < 0 || !is_output(&S->sig.params[i]))
			cko_jfail(S->file, f, "not an out or inout buffer of %s", S->sig.file);
		cko_jkeys(b, S->file, f, keys);
		for (const char *const *k = keys; *k; k++) {
			const cJSON *v = cko_jget(b, *k);
			if (v && (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0))
				cko_jfail(S->file, cko_field(f, *k), "expected a finite number >= 0");
		}
	}
}

/* Case over top level over the dtype's default, field by field. */
static void resolve_tol(const cko_param *p, const cJSON *top, const cJSON *mine, cko_tol *tol)
{
	cko_tol_default(p->dtype, tol);
	const cJSON *levels[2] = {cko_jget(top, p->name), cko_jget(mine, p->name)};
	for (int l = 0; l < 2; l++) {
		tol->rtol = cko_jnum_opt(levels[l], "rtol", tol->rtol);
		tol->atol = cko_jnum_opt(levels[l], "atol", tol->atol);
	}
}

/* ---- one case ---- */

typedef struct {
	const cJSON *spec;
	const cko_param *p;
	gcase *c;
	int i;
	const char *dir, *file, *field;
} gen_arg;

static void parse_gen_cb(void *arg)
{
	gen_arg *a = arg;
	cko_gen_parse(a->spec, a->p->dtype, a->p->ndim, a->c->shape[a->i], a->c->count[a->i], a->dir, a->file,
		      a->field, &a->c->gen[a->i]);
}

/* Everything about a case but its scalars, which the caller has bound:
 * shapes and sizes, generators, tolerances, flops and bytes. `where` names
 * the case in messages. case_inputs and case_tol may be NULL. */
static void finish_case(spec *S, gcase *c, const cJSON *case_inputs, const char *inputs_field,
			const cJSON *case_tol, const char *where, const char *scalars_field)
{
	const cko_signature *sig = &S->sig;
	int np = sig->nparams;
	char err[1024];
	c->shape = xcalloc((size_t)np, sizeof *c->shape);
	c->count = xcalloc((size_t)np, sizeof *c->count);
	c->gen = xcalloc((size_t)np, sizeof *c->gen);
	c->tol = xcalloc((size_t)np, sizeof *c->tol);
	for (int i = 0; i < np; i++) {
		const cko_param *p = &sig->params[i];
		if (!p->is_buffer)
			continue;
		if (cko_param_shape(p, &c->env, c->shape[i], &c->count[i], err, sizeof err))
			cko_jfail(S->file, scalars_field, "%s%s", err, where);
		uint64_t bytes = (uint64_t)c->count[i] * cko_dtype_size(p->dtype);
		if (bytes > MAX_BUFFER_BYTES)
			cko_jfail(S->file, scalars_field, "buffer %s would be %.1f GB, more than cko-gen makes (%.0f GB)%s",
				  p->name, (double)bytes / 1e9, (double)MAX_BUFFER_BYTES / 1e9, where);
		if (!c->index64 && (c->count[i] >= LIMIT32 || bytes >= LIMIT32))
			cko_jfail(S->file, scalars_field,
				  "buffer %s has %zu elements (%llu bytes), at or past 2^31: kernels that index with "
				  "32-bit integers would overflow; set \"index64\": true in the case if that is "
				  "intended%s",
				  p->name, c->count[i], (unsigned long long)bytes, where);
	}
	for (const cJSON *b = case_inputs ? case_inputs->child : NULL; b; b = b->next) {
		int i = param_index(sig, b->string);
		if (i < 0 || !is_input(&sig->params[i]))
			cko_jfail(S->file, cko_field(inputs_field, b->string), "not an in or inout buffer of %s", sig->file);
	}
	const cJSON *top_inputs = cko_jget(S->root, "inputs");
	for (int i = 0; i < np; i++) {
		const cko_param *p = &sig->params[i];
		if (!is_input(p))
			continue;
		char field[256];
		const cJSON *g = cko_jget(case_inputs, p->name);
		if (g)
			snprintf(field, sizeof field, "%s", cko_field(inputs_field, p->name));
		else if ((g = cko_jget(top_inputs, p->name)))
			snprintf(field, sizeof field, "%s", cko_field("inputs", p->name));
		else
			cko_jfail(S->file, cko_field(inputs_field, p->name),
				  "no generator for input buffer %s (give one in inputs or in the case's inputs)%s", p->name,
				  where);
		gen_arg a = {g, p, c, i, S->dir, S->file, field};
		int st = cko_try(parse_gen_cb, &a, err, sizeof err);
		if (st)
			cko_die(st, "%s%s", err, where);
	}
	for (int i = 0; i < np; i++)
		if (is_output(&sig->params[i]))
			resolve_tol(&sig->params[i], cko_jget(S->root, "tolerance"), case_tol, &c->tol[i]);
	static const char *const work[] = {"flops", "bytes"};
	for (int w = 0; w < 2; w++) {
		const cJSON *e = cko_jget(S->root, work[w]);
		if (!e)
			continue;
		int64_t v;
		if (cko_expr_json(e, &c->env, &v, err, sizeof err))
			cko_jfail(S->file, work[w], "%s%s", err, where);
		if (v < 0)
			cko_jfail(S->file, work[w], "is %lld, must be >= 0%s", (long long)v, where);
		if (w == 0)
			c->has_flops = 1, c->flops = (double)v;
		else
			c->has_bytes = 1, c->bytes = (double)v;
	}
}

/* Binds scalars (checked against the signature) and keeps them in order. */
static void bind_scalars(spec *S, gcase *c, const cJSON *scalars, const char *field)
{
	cko_case_env(&S->sig, scalars, S->file, field, &c->env);
	c->scalars = cJSON_CreateObject();
	for (int i = 0; i < S->sig.nparams; i++) {
		const cko_param *p = &S->sig.params[i];
		if (p->is_buffer)
			continue;
		const cJSON *v = cko_jget(scalars, p->name);
		if (!isfinite(v->valuedouble) || (p->dtype == CKO_F32 && fabs(v->valuedouble) > 3.4028234663852886e38))
			cko_jfail(S->file, cko_field(field, p->name), "%g does not fit %s", v->valuedouble,
				  cko_dtype_name(p->dtype));
		cJSON_AddNumberToObject(c->scalars, p->name, v->valuedouble);
	}
}

static void parse_case(spec *S, const cJSON *cj, int idx)
{
	static const char *const keys[] = {"name", "kind", "seed", "scalars", "inputs", "tolerance", "index64",
					   "comment", NULL};
	char field[64], f2[128], f3[128], f4[128];
	snprintf(field, sizeof field, "cases[%d]", idx);
	cko_jkeys(cj, S->file, field, keys);
	gcase *c = &S->cases[idx];
	const char *name = cko_jstr(cj, "name", S->file, field);
	if (!safe_name(name))
		cko_jfail(S->file, cko_field(field, "name"),
			  "'%s' must be 1 to 64 letters, digits and _ . - (not starting with . or -)", name);
	if (!strncmp(name, "hidden-", 7))
		cko_jfail(S->file, cko_field(field, "name"), "names hidden-* are kept for the hidden cases");
	for (int j = 0; j < idx; j++)
		if (!strcmp(S->cases[j].name, name))
			cko_jfail(S->file, cko_field(field, "name"), "'%s' is also the name of cases[%d]", name, j);
	c->name = xstrdup(name);
	const char *kind = cko_jstr(cj, "kind", S->file, field);
	if (strcmp(kind, "correctness") && strcmp(kind, "performance"))
		cko_jfail(S->file, cko_field(field, "kind"), "expected correctness or performance, not '%s'", kind);
	c->perf = !strcmp(kind, "performance");
	c->sets = c->perf ? S->rotations : 1;
	int64_t seed = cko_jint(cj, "seed", S->file, field);
	if (seed < 0)
		cko_jfail(S->file, cko_field(field, "seed"), "expected an integer >= 0");
	c->seed = (uint64_t)seed;
	const cJSON *i64 = cko_jget(cj, "index64");
	if (i64 && !cJSON_IsBool(i64))
		cko_jfail(S->file, cko_field(field, "index64"), "expected true or false");
	c->index64 = cJSON_IsTrue(i64);
	snprintf(f2, sizeof f2, "%s", cko_field(field, "scalars"));
	bind_scalars(S, c, cko_jreq(cj, "scalars", S->file, field), f2);
	const cJSON *inputs = cko_jget(cj, "inputs");
	snprintf(f3, sizeof f3, "%s", cko_field(field, "inputs"));
	if (inputs && !cJSON_IsObject(inputs))
		cko_jfail(S->file, f3, "expected an object of buffer -> generator");
	snprintf(f4, sizeof f4, "%s", cko_field(field, "tolerance"));
	check_tol_obj(S, cko_jget(cj, "tolerance"), f4);
	char where[128];
	snprintf(where, sizeof where, " (case %s)", name);
	finish_case(S, c, inputs, f3, cko_jget(cj, "tolerance"), where, f2);
}

static void free_case(const spec *S, gcase *c)
{
	for (int i = 0; c->gen && i < S->sig.nparams; i++)
		cko_gen_free(&c->gen[i]);
	free(c->gen);
	free(c->tol);
	free(c->shape);
	free(c->count);
	cko_env_free(&c->env);
	cJSON_Delete(c->scalars);
	free(c->name);
}

/* ---- hidden cases ---- */

/* An odd value in [lo, hi] when there is one (odd sizes are no multiple of
 * any power-of-two tile), else lo. */
static int64_t draw_odd(cko_rng *r, int64_t lo, int64_t hi)
{
	int64_t first = lo % 2 ? lo : lo + 1;
	if (first > hi)
		return lo;
	return first + 2 * cko_rng_range(r, 0, (hi - first) / 2);
}

static void hidden_cases(spec *S, uint64_t hseed, int emit)
{
	static const char *const keys[] = {"count", "scalars", "constraints", NULL};
	const cJSON *h = cko_jget(S->root, "hidden");
	if (!h)
		return;
	cko_jkeys(h, S->file, "hidden", keys);
	int64_t count = cko_jint(h, "count", S->file, "hidden");
	if (count < 0 || count > MAX_HIDDEN)
		cko_jfail(S->file, "hidden.count", "expected 0 to %d", MAX_HIDDEN);
	const cJSON *ranges = cko_jget(h, "scalars");
	if (ranges && !cJSON_IsObject(ranges))
		cko_jfail(S->file, "hidden.scalars", "expected an object of scalar -> [low, high]");
	const cko_signature *sig = &S->sig;
	int np = sig->nparams;
	int64_t *lo = xcalloc((size_t)np, sizeof *lo), *hi = xcalloc((size_t)np, sizeof *hi);
	int *drawn = xcalloc((size_t)np, sizeof *drawn);
	for (const cJSON *r = ranges ? ranges->child : NULL; r; r = r->next) {
		char f[256];
		snprintf(f, sizeof f, "%s", cko_field("hidden.scalars", r->string));
		int i = param_index(sig, r->string);
		if (i < 0 || sig->params[i].is_buffer)
			cko_jfail(S->file, f, "not a scalar of %s", sig->file);
		if (cko_dtype_is_float(sig->params[i].dtype))
			cko_jfail(S->file, f, "only integer scalars are drawn; %s takes the first correctness case's value",
				  r->string);
		if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2)
			cko_jfail(S->file, f, "expected [low, high]");
		for (int k = 0; k < 2; k++) {
			const cJSON *v = cJSON_GetArrayItem(r, k);
			if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
			    fabs(v->valuedouble) > 9007199254740992.0)
				cko_jfail(S->file, cko_field_i(f, k), "expected an integer");
			(k ? hi : lo)[i] = (int64_t)v->valuedouble;
		}
		if (lo[i] > hi[i])
			cko_jfail(S->file, f, "low %lld is above high %lld", (long long)lo[i], (long long)hi[i]);
		cko_dtype t = sig->params[i].dtype;
		int64_t tmin = t == CKO_I32 ? INT32_MIN : t == CKO_I64 ? INT64_MIN : 0;
		int64_t tmax = t == CKO_I32 ? INT32_MAX : t == CKO_U32 ? (int64_t)UINT32_MAX : INT64_MAX;
		if (lo[i] < tmin || hi[i] > tmax)
			cko_jfail(S->file, f, "the range does not fit %s", cko_dtype_name(t));
		drawn[i] = 1;
	}
	const cJSON *cons = cko_jget(h, "constraints");
	int ncons = cons ? cJSON_GetArraySize(cons) : 0;
	if (cons && !cJSON_IsArray(cons))
		cko_jfail(S->file, "hidden.constraints", "expected an array of expressions");
	char err[512];
	for (int k = 0; k < ncons; k++) {
		const cJSON *e = cJSON_GetArrayItem(cons, k);
		if (!cJSON_IsString(e) || cko_expr_check(e->valuestring, err, sizeof err))
			cko_jfail(S->file, cko_field_i("hidden.constraints", k), "%s",
				  cJSON_IsString(e) ? err : "expected an expression string");
	}
	/* Values of the scalars that are not drawn: the first correctness case's
	 * (an index: S->cases moves when it grows below). */
	int fi = 0;
	while (S->cases[fi].perf)
		fi++;
	const cJSON *first_json = cJSON_GetArrayItem(cko_jget(S->root, "cases"), fi);
	int *rejects = xcalloc((size_t)ncons + 1, sizeof *rejects);
	S->cases = xrealloc(S->cases, (size_t)(S->nexplicit + count) * sizeof *S->cases);
	const gcase *first = &S->cases[fi];
	for (int n = 1; n <= count; n++) {
		gcase *c = &S->cases[S->nexplicit + n - 1];
		memset(c, 0, sizeof *c);
		c->name = xasprintf("hidden-%d", n);
		c->hidden = 1;
		c->sets = 1;
		c->seed = cko_seed_mix(hseed, "hidden/seed", (uint64_t)n);
		cko_rng r;
		cko_rng_seed(&r, cko_seed_mix(hseed, "hidden/scalars", (uint64_t)n));
		cJSON *sc = NULL;
		int ok = 0;
		for (int t = 0; t < HIDDEN_TRIES && !ok; t++) {
			cJSON_Delete(sc);
			sc = cJSON_CreateObject();
			for (int i = 0; i < np; i++) {
				const cko_param *p = &sig->params[i];
				if (p->is_buffer)
					continue;
				double v = drawn[i] ? (double)draw_odd(&r, lo[i], hi[i])
						    : cko_jget(first->scalars, p->name)->valuedouble;
				cJSON_AddNumberToObject(sc, p->name, v);
			}
			cko_env_free(&c->env);
			cko_case_env(sig, sc, S->file, "hidden.scalars", &c->env);
			ok = 1;
			for (int k = 0; k < ncons && ok; k++) {
				int64_t v;
				const char *src = cJSON_GetArrayItem(cons, k)->valuestring;
				if (cko_expr_eval(src, &c->env, &v, err, sizeof err))
					cko_jfail(S->file, cko_field_i("hidden.constraints", k), "%s", err);
				if (!v)
					ok = 0, rejects[k]++;
			}
		}
		if (!ok) {
			int worst = 0;
			for (int k = 1; k < ncons; k++)
				if (rejects[k] > rejects[worst])
					worst = k;
			cko_jfail(S->file, cko_field_i("hidden.constraints", worst),
				  "\"%s\" rejected draws for %s %d times out of %d; widen hidden.scalars or relax it",
				  cJSON_GetArrayItem(cons, worst)->valuestring, c->name, rejects[worst], HIDDEN_TRIES);
		}
		char where[512];
		cko_buf desc = {0};
		for (const cJSON *v = sc->child; v; v = v->next)
			buf_printf(&desc, "%s%s=%g", desc.len ? " " : "", v->string, v->valuedouble);
		snprintf(where, sizeof where, " (hidden case %s: %s; add a constraint to hidden.constraints)", c->name,
			 desc.s);
		buf_free(&desc);
		bind_scalars(S, c, sc, "hidden.scalars");
		cJSON_Delete(sc);
		/* Inputs: the top level's, else the first correctness case's. */
		cJSON *inputs = cJSON_CreateObject();
		const cJSON *fin = cko_jget(first_json, "inputs");
		for (const cJSON *b = fin ? fin->child : NULL; b; b = b->next)
			if (!cko_jget(cko_jget(S->root, "inputs"), b->string))
				cJSON_AddItemToObject(inputs, b->string, cJSON_Duplicate(b, 1));
		char infield[64];
		snprintf(infield, sizeof infield, "cases[%d].inputs", fi);
		finish_case(S, c, inputs, infield, NULL, where, "hidden.scalars");
		cJSON_Delete(inputs);
	}
	free(rejects);
	free(lo);
	free(hi);
	free(drawn);
	if (emit)
		S->ncases = S->nexplicit + (int)count;
	else
		for (int n = 0; n < count; n++)
			free_case(S, &S->cases[S->nexplicit + n]);
}

static void load_spec(spec *S, const char *sigpath, const char *path, int have_seed, uint64_t hseed)
{
	static const char *const keys[] = {"flops", "bytes", "tolerance", "inputs", "rotations", "cases",
					   "hidden", "comment", NULL};
	memset(S, 0, sizeof *S);
	cko_signature_load(sigpath, &S->sig);
	cJSON *root = cko_json_load(path);
	S->root = root;
	S->file = path;
	S->dir = cko_dirname(path);
	cko_jkeys(root, path, "", keys);
	char err[512];
	for (const char *const *k = keys; k < keys + 2; k++) {
		const cJSON *e = cko_jget(root, *k);
		if (e && !cJSON_IsNumber(e) && (!cJSON_IsString(e) || cko_expr_check(e->valuestring, err, sizeof err)))
			cko_jfail(path, *k, "%s", cJSON_IsString(e) ? err : "expected a number or an expression");
	}
	check_tol_obj(S, cko_jget(root, "tolerance"), "tolerance");
	const cJSON *inputs = cko_jget(root, "inputs");
	if (inputs && !cJSON_IsObject(inputs))
		cko_jfail(path, "inputs", "expected an object of buffer -> generator");
	for (const cJSON *b = inputs ? inputs->child : NULL; b; b = b->next) {
		int i = param_index(&S->sig, b->string);
		if (i < 0 || !is_input(&S->sig.params[i]))
			cko_jfail(path, cko_field("inputs", b->string), "not an in or inout buffer of %s", sigpath);
	}
	int64_t rot = cko_jint_opt(root, "rotations", 2, path, "");
	if (rot < 1 || rot > MAX_ROTATIONS)
		cko_jfail(path, "rotations", "expected 1 to %d", MAX_ROTATIONS);
	S->rotations = (int)rot;
	const cJSON *cases = cko_jreq(root, "cases", path, "");
	if (!cJSON_IsArray(cases))
		cko_jfail(path, "cases", "expected an array of cases");
	S->nexplicit = cJSON_GetArraySize(cases);
	S->cases = xcalloc((size_t)S->nexplicit + 1, sizeof *S->cases);
	int idx = 0, ncorr = 0, nperf = 0;
	for (const cJSON *c = cases->child; c; c = c->next, idx++) {
		parse_case(S, c, idx);
		S->cases[idx].perf ? nperf++ : ncorr++;
	}
	S->ncases = S->nexplicit;
	if (!ncorr || !nperf)
		cko_jfail(path, "cases", "needs at least one correctness and one performance case (has %d and %d)", ncorr,
			  nperf);
	/* Without a seed the hidden section is still checked, with seed 0. */
	hidden_cases(S, have_seed ? hseed : 0, have_seed);
}

/* ---- writing the case folder ---- */

static cJSON *case_json(const spec *S, const gcase *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "kind", c->perf ? "performance" : "correctness");
	cJSON_AddBoolToObject(o, "hidden", c->hidden);
	cJSON_AddItemToObject(o, "scalars", cJSON_Duplicate(c->scalars, 1));
	cJSON_AddNumberToObject(o, "sets", c->sets);
	cJSON *tol = cJSON_AddObjectToObject(o, "tolerance");
	for (int i = 0; i < S->sig.nparams; i++) {
		if (!is_output(&S->sig.params[i]))
			continue;
		cJSON *t = cJSON_AddObjectToObject(tol, S->sig.params[i].name);
		cJSON_AddNumberToObject(t, "rtol", c->tol[i].rtol);
		cJSON_AddNumberToObject(t, "atol", c->tol[i].atol);
	}
	if (c->has_flops)
		cJSON_AddNumberToObject(o, "flops", c->flops);
	if (c->has_bytes)
		cJSON_AddNumberToObject(o, "bytes", c->bytes);
	return o;
}

/* Fills and writes one .npy without a second copy of the data: the header
 * and the elements share one allocation. */
static void write_input(const cko_param *p, const gcase *c, int i, int set, const char *path, int threads)
{
	cko_tensor t = {.dtype = p->dtype, .ndim = p->ndim, .count = 0};
	memcpy(t.shape, c->shape[i], sizeof t.shape);
	size_t hlen, bytes = c->count[i] * cko_dtype_size(p->dtype);
	void *hdr = cko_npy_image(&t, &hlen); /* count 0: the header alone */
	unsigned char *img = xmalloc(hlen + bytes);
	memcpy(img, hdr, hlen);
	free(hdr);
	char label[128];
	snprintf(label, sizeof label, "%s/%d", p->name, set);
	cko_gen_fill(&c->gen[i], img + hlen, c->count[i], c->seed, label, threads);
	cko_write_file(path, img, hlen + bytes);
	free(img);
}

static void generate(const spec *S, const char *outdir, int threads)
{
	cko_mkdir_p(outdir);
	cJSON *index = cJSON_CreateArray();
	for (int k = 0; k < S->ncases; k++) {
		const gcase *c = &S->cases[k];
		double t0 = cko_now(), total = 0;
		for (int s = 0; s < c->sets; s++) {
			char *setdir = xasprintf("%s/%s/in/%d", outdir, c->name, s);
			cko_mkdir_p(setdir);
			for (int i = 0; i < S->sig.nparams; i++) {
				const cko_param *p = &S->sig.params[i];
				if (!is_input(p))
					continue;
				char *path = xasprintf("%s/%s.npy", setdir, p->name);
				write_input(p, c, i, s, path, threads);
				total += (double)c->count[i] * (double)cko_dtype_size(p->dtype);
				free(path);
			}
			free(setdir);
		}
		cJSON *cj = case_json(S, c);
		char *cpath = xasprintf("%s/%s/case.json", outdir, c->name);
		cko_json_write(cpath, cj);
		free(cpath);
		cJSON_Delete(cj);
		if (total > 64e6 || cko_now() - t0 > 0.5)
			cko_info("%s: %d set%s, %.1f MB in %.2f s", c->name, c->sets, c->sets > 1 ? "s" : "", total / 1e6,
				 cko_now() - t0);
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", c->name);
		cJSON_AddStringToObject(e, "kind", c->perf ? "performance" : "correctness");
		cJSON_AddBoolToObject(e, "hidden", c->hidden);
		cJSON_AddNumberToObject(e, "sets", c->sets);
		cJSON_AddItemToArray(index, e);
	}
	/* Last, so its presence means the folder is complete. */
	char *ipath = xasprintf("%s/index.json", outdir);
	cko_json_write(ipath, index);
	free(ipath);
	cJSON_Delete(index);
}

/* ---- --check-expected ---- */

static void index_text(char *buf, size_t n, const cko_tensor *t, size_t at)
{
	int64_t idx[CKO_MAXDIM];
	for (int d = t->ndim - 1; d >= 0; d--) {
		idx[d] = t->shape[d] ? (int64_t)(at % (size_t)t->shape[d]) : 0;
		at = t->shape[d] ? at / (size_t)t->shape[d] : 0;
	}
	size_t k = (size_t)snprintf(buf, n, "[");
	for (int d = 0; d < t->ndim && k < n; d++)
		k += (size_t)snprintf(buf + k, n - k, "%lld%s", (long long)idx[d], d + 1 < t->ndim ? ", " : "");
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

static void check_tensor(const char *path)
{
	cko_tensor t;
	char err[1024], at[128];
	if (!cko_exists(path))
		cko_die(CKO_BADINPUT, "%s: missing (the reference did not write this expected output)", path);
	if (cko_npy_try_read(path, &t, err, sizeof err))
		cko_die(CKO_BADINPUT, "%s", err);
	if (cko_dtype_is_float(t.dtype))
		for (size_t i = 0; i < t.count; i++) {
			double v = cko_elem_get(t.dtype, t.data, i);
			if (!isfinite(v)) {
				index_text(at, sizeof at, &t, i);
				cko_die(CKO_BADINPUT, "%s: element %s is %s: the reference's output must be finite", path, at,
					isnan(v) ? "NaN" : "infinite");
			}
		}
	if (t.count > 1) {
		double first = cko_elem_get(t.dtype, t.data, 0);
		size_t i = 1;
		while (i < t.count && cko_elem_get(t.dtype, t.data, i) == first)
			i++;
		if (i == t.count)
			cko_die(CKO_BADINPUT,
				"%s: all %zu elements are %g: a degenerate case (a kernel that writes only %g passes); "
				"change the case's sizes or inputs",
				path, t.count, first, first);
	}
	cko_tensor_free(&t);
}

static int check_expected(const char *dir)
{
	static const char *const ikeys[] = {"name", "kind", "hidden", "sets", NULL};
	char *ipath = xasprintf("%s/index.json", dir);
	cJSON *index = cko_json_load(ipath);
	if (!cJSON_IsArray(index))
		cko_jfail(ipath, "", "expected an array of cases");
	int i = 0, files = 0;
	for (const cJSON *e = index->child; e; e = e->next, i++) {
		char field[32];
		snprintf(field, sizeof field, "[%d]", i);
		cko_jkeys(e, ipath, field, ikeys);
		const char *name = cko_jstr(e, "name", ipath, field);
		if (!safe_name(name))
			cko_jfail(ipath, cko_field(field, "name"), "'%s' is not a case name", name);
		int64_t sets = cko_jint(e, "sets", ipath, field);
		if (sets < 1 || sets > MAX_ROTATIONS)
			cko_jfail(ipath, cko_field(field, "sets"), "expected 1 to %d", MAX_ROTATIONS);
		char *cpath = xasprintf("%s/%s/case.json", dir, name);
		cJSON *cj = cko_json_load(cpath);
		const cJSON *tol = cko_jreq(cj, "tolerance", cpath, "");
		if (!cJSON_IsObject(tol) || !tol->child)
			cko_jfail(cpath, "tolerance", "expected an object naming the output buffers");
		for (int s = 0; s < sets; s++)
			for (const cJSON *b = tol->child; b; b = b->next) {
				if (!cko_is_ident(b->string))
					cko_jfail(cpath, "tolerance", "'%s' is not a buffer name", b->string);
				char *path = xasprintf("%s/%s/expected/%d/%s.npy", dir, name, s, b->string);
				check_tensor(path);
				files++;
				free(path);
			}
		cJSON_Delete(cj);
		free(cpath);
	}
	cko_info("%s: %d expected output%s checked: none degenerate", dir, files, files == 1 ? "" : "s");
	cJSON_Delete(index);
	free(ipath);
	return CKO_OK;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	enum { OPT_SEED = 256, OPT_LINT, OPT_CHECK };
	static const struct option lo[] = {
		{"hidden-seed", required_argument, 0, OPT_SEED}, {"lint", no_argument, 0, OPT_LINT},
		{"check-expected", no_argument, 0, OPT_CHECK},   {"output", required_argument, 0, 'o'},
		{"threads", required_argument, 0, 'j'},          {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *outdir = "cases";
	int lint = 0, check = 0, have_seed = 0, threads = 0, c;
	uint64_t hseed = 0;
	char *end;
	while ((c = getopt_long(argc, argv, "o:j:h", lo, NULL)) != -1) {
		switch (c) {
		case OPT_SEED:
			errno = 0;
			hseed = strtoull(optarg, &end, 10);
			if (!*optarg || *end || errno || *optarg == '-')
				cko_die(CKO_BADINPUT, "--hidden-seed %s: expected a non-negative integer", optarg);
			have_seed = 1;
			break;
		case OPT_LINT: lint = 1; break;
		case OPT_CHECK: check = 1; break;
		case 'o': outdir = optarg; break;
		case 'j': {
			long n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 256)
				cko_die(CKO_BADINPUT, "-j %s: expected 1 to 256 threads", optarg);
			threads = (int)n;
			break;
		}
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (check) {
		if (optind != argc - 1 || lint || have_seed)
			usage(2);
		return check_expected(argv[optind]);
	}
	if (optind != argc - 2)
		usage(2);
	cko_out_check(outdir);
	spec S;
	load_spec(&S, argv[optind], argv[optind + 1], have_seed, hseed);
	int nhidden = S.ncases - S.nexplicit;
	if (lint) {
		cko_info("%s: lint clean: %d cases%s", S.file, S.nexplicit,
			 cko_jget(S.root, "hidden") ? ", hidden section derives" : "");
	} else {
		if (cko_jget(S.root, "hidden") && !have_seed)
			cko_info("no --hidden-seed: the hidden cases are checked but not written");
		generate(&S, outdir, threads);
		cko_info("%s: %d cases (%d hidden)", outdir, S.ncases, nhidden);
	}
	for (int i = 0; i < S.ncases; i++)
		free_case(&S, &S.cases[i]);
	free(S.cases);
	cJSON_Delete((cJSON *)S.root);
	free((char *)S.dir);
	cko_signature_free(&S.sig);
	return CKO_OK;
}
