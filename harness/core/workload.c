/* workload.c: signature.json, case scalars and launch.json rules. */
#include "cko.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int scalar_dtype_ok(cko_dtype t)
{
	return t == CKO_I32 || t == CKO_I64 || t == CKO_U32 || t == CKO_U64 || t == CKO_F32 || t == CKO_F64;
}

/* A scalar's dtype and keys, or a buffer's shape: expressions. */
static void param_rest(const cJSON *p, const char *file, const char *field, int i, cko_param *q, void *arg)
{
	if (!q->is_buffer) {
		if (!scalar_dtype_ok(q->dtype))
			cko_jfail(file, cko_field(field, "dtype"), "scalars are i32, i64, u32, u64, f32 or f64");
		if (cko_jget(p, "role") || cko_jget(p, "shape"))
			cko_jfail(file, field, "a scalar has no role or shape");
		return;
	}
	const cJSON *shape = cko_jreq(p, "shape", file, field);
	int nd = cJSON_GetArraySize(shape);
	if (!cJSON_IsArray(shape) || nd < 1 || nd > CKO_MAXDIM)
		cko_jfail(file, cko_field(field, "shape"), "expected an array of 1 to %d expressions", CKO_MAXDIM);
	q->ndim = nd;
	int d = 0;
	for (const cJSON *e = shape->child; e; e = e->next, d++) {
		char err[256];
		if (cJSON_IsNumber(e))
			q->shape[d] = xasprintf("%.0f", e->valuedouble);
		else if (cJSON_IsString(e))
			q->shape[d] = xstrdup(e->valuestring);
		else
			cko_jfail(file, cko_field_i(cko_field(field, "shape"), d), "expected an expression");
		if (cko_expr_check(q->shape[d], err, sizeof err))
			cko_jfail(file, cko_field_i(cko_field(field, "shape"), d), "%s", err);
	}
}

void cko_signature_from_json(const cJSON *root, const char *file, cko_signature *sig)
{
	static const char *const top[] = {"entry", "params", "comment", NULL};
	static const char *const pk[] = {"name", "kind", "dtype", "role", "shape", "comment", NULL};
	memset(sig, 0, sizeof *sig);
	cko_jkeys(root, file, "", top);
	sig->file = xstrdup(file);
	const char *entry = cko_jstr(root, "entry", file, "");
	if (!cko_is_ident(entry))
		cko_jfail(file, "entry", "'%s' is not a C identifier", entry);
	sig->entry = xstrdup(entry);
	sig->nparams = cko_params_parse(root, file, 1, pk, &sig->params, param_rest, NULL);
}

void cko_signature_load(const char *path, cko_signature *sig)
{
	cJSON *root = cko_json_load(path);
	cko_signature_from_json(root, path, sig);
	cJSON_Delete(root);
}

void cko_signature_free(cko_signature *sig)
{
	for (int i = 0; i < sig->nparams; i++) {
		free(sig->params[i].name);
		for (int d = 0; d < sig->params[i].ndim; d++)
			free(sig->params[i].shape[d]);
	}
	free(sig->params);
	free(sig->entry);
	free(sig->file);
	memset(sig, 0, sizeof *sig);
}

void cko_case_env(const cko_signature *sig, const cJSON *scalars, const char *file, const char *field, cko_env *env)
{
	if (scalars && !cJSON_IsObject(scalars))
		cko_jfail(file, field, "expected an object of scalar values");
	for (const cJSON *c = scalars ? scalars->child : NULL; c; c = c->next) {
		int known = 0;
		for (int i = 0; i < sig->nparams && !known; i++)
			known = !sig->params[i].is_buffer && !strcmp(sig->params[i].name, c->string);
		if (!known)
			cko_jfail(file, cko_field(field, c->string), "not a scalar of %s", sig->file);
	}
	for (int i = 0; i < sig->nparams; i++) {
		const cko_param *p = &sig->params[i];
		if (p->is_buffer)
			continue;
		const cJSON *v = cko_jget(scalars, p->name);
		if (!cJSON_IsNumber(v))
			cko_jfail(file, cko_field(field, p->name), v ? "expected a number" : "missing");
		if (cko_dtype_is_float(p->dtype))
			continue;
		int64_t x = cko_jint(scalars, p->name, file, field);
		int ok = p->dtype == CKO_I32   ? x >= INT32_MIN && x <= INT32_MAX
			 : p->dtype == CKO_U32 ? x >= 0 && x <= (int64_t)UINT32_MAX
			 : p->dtype == CKO_U64 ? x >= 0
					       : 1;
		if (!ok)
			cko_jfail(file, cko_field(field, p->name), "%lld does not fit %s", (long long)x,
				  cko_dtype_name(p->dtype));
		cko_env_set(env, p->name, x);
	}
}

int cko_param_shape(const cko_param *p, const cko_env *env, int64_t *shape, size_t *count, char *err, size_t errlen)
{
	size_t n = 1;
	for (int d = 0; d < p->ndim; d++) {
		char e[256];
		if (cko_expr_eval(p->shape[d], env, &shape[d], e, sizeof e)) {
			snprintf(err, errlen, "shape of %s: %s", p->name, e);
			return -1;
		}
		if (shape[d] < 1) {
			snprintf(err, errlen, "shape of %s: dimension %d is %lld (must be >= 1)", p->name, d,
				 (long long)shape[d]);
			return -1;
		}
		if ((uint64_t)shape[d] > (SIZE_MAX >> 4) / n) {
			snprintf(err, errlen, "shape of %s: too many elements", p->name);
			return -1;
		}
		n *= (size_t)shape[d];
	}
	*count = n;
	return 0;
}

int cko_define_ok(const char *name, const char *value, char *err, size_t errlen)
{
	if (!cko_is_ident(name) || !strncmp(name, "__", 2) || !strncmp(name, "CKO_", 4)) {
		snprintf(err, errlen, "define name '%.64s' must be a C identifier not starting with __ or CKO_", name);
		return 0;
	}
	if (!*value || strlen(value) > 64) {
		snprintf(err, errlen, "define %s: value must be 1 to 64 characters", name);
		return 0;
	}
	for (const char *s = value; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.+-", *s)) {
			snprintf(err, errlen, "define %s: value may hold only letters, digits and _ . + -", name);
			return 0;
		}
	return 1;
}

static void check_dims(const cJSON *v, const char *file, const char *field, int allow_scalar)
{
	char err[256];
	if (allow_scalar && (cJSON_IsNumber(v) || cJSON_IsString(v))) {
		if (cJSON_IsString(v) && cko_expr_check(v->valuestring, err, sizeof err))
			cko_jfail(file, field, "%s", err);
		return;
	}
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > 3)
		cko_jfail(file, field, "expected 1 to 3 expressions");
	int i = 0;
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		if (cJSON_IsString(e) ? cko_expr_check(e->valuestring, err, sizeof err) != 0 : !cJSON_IsNumber(e)) {
			if (!cJSON_IsString(e))
				snprintf(err, sizeof err, "expected a number or an expression");
			cko_jfail(file, cko_field_i(field, i), "%s", err);
		}
	}
}

int cko_define_text(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15) {
		snprintf(buf, n, "%lld", (long long)v->valuedouble);
		return 1;
	}
	if (cJSON_IsString(v)) {
		snprintf(buf, n, "%s", v->valuestring);
		return 1;
	}
	return 0;
}

void cko_launch_validate(const cJSON *l, const char *file)
{
	static const char *const keys[] = {"defines", "grid", "block", "smem", "overrides", "tunables", "constraints",
					   "comment", "name", "source", NULL};
	static const char *const okeys[] = {"grid", "block", "smem", NULL};
	char err[256], val[128];
	cko_jkeys(l, file, "", keys);
	const cJSON *defs = cko_jget(l, "defines");
	if (defs) {
		if (!cJSON_IsObject(defs))
			cko_jfail(file, "defines", "expected an object");
		for (const cJSON *d = defs->child; d; d = d->next) {
			if (!cko_define_text(d, val, sizeof val))
				cko_jfail(file, cko_field("defines", d->string), "expected an integer or a string");
			if (!cko_define_ok(d->string, val, err, sizeof err))
				cko_jfail(file, cko_field("defines", d->string), "%s", err);
		}
	}
	check_dims(cko_jreq(l, "grid", file, ""), file, "grid", 0);
	check_dims(cko_jreq(l, "block", file, ""), file, "block", 0);
	if (cko_jget(l, "smem"))
		check_dims(cko_jget(l, "smem"), file, "smem", 1);
	const cJSON *ov = cko_jget(l, "overrides");
	if (ov) {
		if (!cJSON_IsObject(ov))
			cko_jfail(file, "overrides", "expected an object of case name -> {grid, block, smem}");
		for (const cJSON *o = ov->child; o; o = o->next) {
			const char *f = cko_field("overrides", o->string);
			char fb[256];
			snprintf(fb, sizeof fb, "%s", f);
			cko_jkeys(o, file, fb, okeys);
			if (cko_jget(o, "grid"))
				check_dims(cko_jget(o, "grid"), file, cko_field(fb, "grid"), 0);
			if (cko_jget(o, "block"))
				check_dims(cko_jget(o, "block"), file, cko_field(fb, "block"), 0);
			if (cko_jget(o, "smem"))
				check_dims(cko_jget(o, "smem"), file, cko_field(fb, "smem"), 1);
		}
	}
	const cJSON *tun = cko_jget(l, "tunables");
	if (tun) {
		if (!cJSON_IsObject(tun))
			cko_jfail(file, "tunables", "expected an object of name -> [values]");
		for (const cJSON *t = tun->child; t; t = t->next) {
			const char *f = cko_field("tunables", t->string);
			if (!cJSON_IsArray(t) || cJSON_GetArraySize(t) < 1 || cJSON_GetArraySize(t) > 256)
				cko_jfail(file, f, "expected an array of 1 to 256 values");
			for (const cJSON *v = t->child; v; v = v->next)
				if (!cko_define_text(v, val, sizeof val) || !cko_define_ok(t->string, val, err, sizeof err))
					cko_jfail(file, f, "%s", cko_define_text(v, val, sizeof val) ? err : "bad value");
		}
	}
	const cJSON *con = cko_jget(l, "constraints");
	if (con) {
		if (!cJSON_IsArray(con))
			cko_jfail(file, "constraints", "expected an array of expressions");
		int i = 0;
		for (const cJSON *c = con->child; c; c = c->next, i++)
			if (!cJSON_IsString(c) || cko_expr_check(c->valuestring, err, sizeof err))
				cko_jfail(file, cko_field_i("constraints", i), "%s",
					  cJSON_IsString(c) ? err : "expected an expression string");
	}
}

void cko_launch_defines_env(const cJSON *l, cko_env *env)
{
	for (const cJSON *d = cko_jget(l, "defines") ? cko_jget(l, "defines")->child : NULL; d; d = d->next)
		if (cJSON_IsNumber(d) && d->valuedouble == floor(d->valuedouble) && fabs(d->valuedouble) < 9e15)
			cko_env_set(env, d->string, (int64_t)d->valuedouble);
}

static int eval_dims(const cJSON *v, const cko_env *env, int64_t *out, int n, const char *what, char *err,
		     size_t errlen)
{
	for (int i = 0; i < n; i++)
		out[i] = 1;
	const cJSON *e = cJSON_IsArray(v) ? v->child : v;
	for (int i = 0; e && i < n; i++, e = cJSON_IsArray(v) ? e->next : NULL) {
		char m[256];
		if (cko_expr_json(e, env, &out[i], m, sizeof m)) {
			snprintf(err, errlen, "%s[%d]: %s", what, i, m);
			return -1;
		}
	}
	return 0;
}

int cko_launch_eval(const cJSON *l, const char *case_name, int hidden, const cko_env *env, cko_launch *out,
		    char *err, size_t errlen)
{
	const cJSON *ov = hidden ? NULL : cko_jget(cko_jget(l, "overrides"), case_name);
	const cJSON *grid = cko_jget(ov, "grid") ? cko_jget(ov, "grid") : cko_jget(l, "grid");
	const cJSON *block = cko_jget(ov, "block") ? cko_jget(ov, "block") : cko_jget(l, "block");
	const cJSON *smem = cko_jget(ov, "smem") ? cko_jget(ov, "smem") : cko_jget(l, "smem");
	out->limit = NULL;
	if (!grid || !block) {
		snprintf(err, errlen, "launch rule lacks grid or block");
		return -1;
	}
	if (eval_dims(grid, env, out->grid, 3, "grid", err, errlen) ||
	    eval_dims(block, env, out->block, 3, "block", err, errlen))
		return -1;
	out->smem = 0;
	if (smem && eval_dims(smem, env, &out->smem, 1, "smem", err, errlen))
		return -1;
	return cko_launch_limits(out, case_name, err, errlen);
}

/* CUDA's limits on every current GPU (the programming guide's table of
 * compute capabilities); props.json repeats them as max_grid_x etc. */
static const int64_t max_grid[3] = {INT32_MAX, 65535, 65535};
static const int64_t max_block[3] = {1024, 1024, 64};
static const char *const grid_limit[3] = {"max_grid_x", "max_grid_y", "max_grid_z"};
static const char *const block_limit[3] = {"max_block_x", "max_block_y", "max_block_z"};

int cko_launch_limits(cko_launch *l, const char *case_name, char *err, size_t errlen)
{
	static const char axis[] = "xyz";
	for (int i = 0; i < 3; i++) {
		if (l->grid[i] < 1 || l->grid[i] > max_grid[i]) {
			l->limit = grid_limit[i];
			snprintf(err, errlen, "grid[%d] is %lld for case %s; CUDA allows 1 to %lld blocks in %c (%s)",
				 i, (long long)l->grid[i], case_name, (long long)max_grid[i], axis[i], grid_limit[i]);
			return -1;
		}
		if (l->block[i] < 1 || l->block[i] > max_block[i]) {
			l->limit = block_limit[i];
			snprintf(err, errlen, "block[%d] is %lld for case %s; CUDA allows 1 to %lld threads in %c (%s)",
				 i, (long long)l->block[i], case_name, (long long)max_block[i], axis[i],
				 block_limit[i]);
			return -1;
		}
	}
	int64_t threads = l->block[0] * l->block[1] * l->block[2];
	if (threads > 1024) {
		l->limit = "max_threads_per_block";
		snprintf(err, errlen,
			 "block [%lld, %lld, %lld] has %lld threads for case %s; CUDA allows at most 1024 threads per "
			 "block (max_threads_per_block): make the block smaller",
			 (long long)l->block[0], (long long)l->block[1], (long long)l->block[2], (long long)threads,
			 case_name);
		return -1;
	}
	if (l->smem < 0 || l->smem > (1 << 30)) {
		snprintf(err, errlen, "smem is %lld bytes for case %s (0 to 2^30)", (long long)l->smem, case_name);
		return -1;
	}
	return 0;
}
