/* request.c: launch requests (docs/formats.md), the input of cko-run,
 * cko-bench and cko-profile. Paths are relative to the request's folder. */
#include "cko.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void dims3(const cJSON *v, const char *file, const char *field, int64_t *out, int64_t lo)
{
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) < 1 || cJSON_GetArraySize(v) > 3)
		cko_jfail(file, field, "expected 1 to 3 integers");
	out[0] = out[1] = out[2] = 1;
	int i = 0;
	for (const cJSON *e = v->child; e; e = e->next, i++) {
		if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < (double)lo ||
		    e->valuedouble > 2147483647.0)
			cko_jfail(file, cko_field_i(field, i), "expected an integer >= %lld", (long long)lo);
		out[i] = (int64_t)e->valuedouble;
	}
}

/* A scalar's value, or a buffer's shape (integers) and tolerances. */
static void param_rest(const cJSON *p, const char *path, const char *f, int i, cko_param *head, void *arg)
{
	cko_request *rq = arg;
	cko_rparam *q = &rq->params[i];
	q->p = *head;
	if (!q->p.is_buffer) {
		const cJSON *v = cko_jreq(p, "value", path, f);
		if (!cJSON_IsNumber(v))
			cko_jfail(path, cko_field(f, "value"), "expected a number");
		if (cko_dtype_is_float(q->p.dtype))
			q->fvalue = v->valuedouble;
		else
			q->ivalue = cko_jint(p, "value", path, f);
		return;
	}
	const cJSON *shape = cko_jreq(p, "shape", path, f);
	int nd = cJSON_GetArraySize(shape);
	if (!cJSON_IsArray(shape) || nd < 1 || nd > CKO_MAXDIM)
		cko_jfail(path, cko_field(f, "shape"), "expected 1 to %d integers", CKO_MAXDIM);
	q->p.ndim = nd;
	q->count = 1;
	int d = 0;
	for (const cJSON *e = shape->child; e; e = e->next, d++) {
		if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 1 ||
		    e->valuedouble > 1e15)
			cko_jfail(path, cko_field_i(cko_field(f, "shape"), d), "expected an integer >= 1");
		q->shape[d] = (int64_t)e->valuedouble;
		if ((uint64_t)q->shape[d] > ((size_t)1 << 40) / q->count)
			cko_jfail(path, cko_field(f, "shape"), "more than 2^40 elements");
		q->count *= (size_t)q->shape[d];
	}
	cko_tol_default(q->p.dtype, &q->tol);
	q->tol.rtol = cko_jnum_opt(p, "rtol", q->tol.rtol);
	q->tol.atol = cko_jnum_opt(p, "atol", q->tol.atol);
	if (!(q->tol.rtol >= 0) || !(q->tol.atol >= 0))
		cko_jfail(path, f, "rtol and atol must be >= 0");
}

void cko_request_load(const char *path, cko_request *rq)
{
	static const char *const keys[] = {"case", "hidden", "cubin", "entry", "grid", "block", "smem", "params",
					   "sets", "out", "flops", "bytes", "comment", NULL};
	static const char *const pkeys[] = {"name", "kind", "dtype", "role", "shape", "value", "rtol", "atol", NULL};
	static const char *const skeys[] = {"in", "expected", NULL};
	memset(rq, 0, sizeof *rq);
	cJSON *root = cko_json_load(path);
	cko_jkeys(root, path, "", keys);
	rq->file = xstrdup(path);
	rq->dir = cko_dirname(path);
	rq->case_name = xstrdup(cko_jstr(root, "case", path, ""));
	rq->cubin = cko_path_join(rq->dir, cko_jstr(root, "cubin", path, ""));
	const char *entry = cko_jstr(root, "entry", path, "");
	if (!cko_is_ident(entry))
		cko_jfail(path, "entry", "'%s' is not a C identifier", entry);
	rq->entry = xstrdup(entry);
	dims3(cko_jreq(root, "grid", path, ""), path, "grid", rq->launch.grid, 1);
	dims3(cko_jreq(root, "block", path, ""), path, "block", rq->launch.block, 1);
	rq->launch.smem = cko_jint_opt(root, "smem", 0, path, "");
	if (rq->launch.smem < 0)
		cko_jfail(path, "smem", "must be >= 0");
	char err[512];
	if (cko_launch_limits(&rq->launch, rq->case_name, err, sizeof err))
		cko_jfail(path, !rq->launch.limit ? "smem" : strstr(rq->launch.limit, "grid") ? "grid" : "block", "%s",
			  err);
	rq->flops = cko_jnum_opt(root, "flops", 0);
	rq->bytes = cko_jnum_opt(root, "bytes", 0);
	const char *out = cko_jstr_opt(root, "out", NULL);
	rq->out = out ? cko_path_join(rq->dir, out) : NULL;

	cko_param *heads;
	rq->params = xcalloc(CKO_MAXPARAMS, sizeof *rq->params);
	rq->nparams = cko_params_parse(root, path, 0, pkeys, &heads, param_rest, rq);
	free(heads); /* each name now belongs to rq->params[i].p */
	const cJSON *sets = cko_jreq(root, "sets", path, "");
	if (!cJSON_IsArray(sets) || cJSON_GetArraySize(sets) < 1 || cJSON_GetArraySize(sets) > 16)
		cko_jfail(path, "sets", "expected an array of 1 to 16 input sets");
	rq->nsets = cJSON_GetArraySize(sets);
	rq->sets = xcalloc((size_t)rq->nsets, sizeof *rq->sets);
	int i = 0;
	for (const cJSON *s = sets->child; s; s = s->next, i++) {
		char f[32];
		snprintf(f, sizeof f, "sets[%d]", i);
		cko_jkeys(s, path, f, skeys);
		rq->sets[i].in = cko_path_join(rq->dir, cko_jstr(s, "in", path, f));
		const char *e = cko_jstr_opt(s, "expected", NULL);
		rq->sets[i].expected = e ? cko_path_join(rq->dir, e) : NULL;
	}
	cJSON_Delete(root);
}

void cko_requests_check(int n, char *const *paths)
{
	for (int i = 0; i < n; i++) {
		cko_request rq;
		cko_request_load(paths[i], &rq);
		cko_request_free(&rq);
	}
}

void cko_request_free(cko_request *rq)
{
	for (int i = 0; i < rq->nparams; i++)
		free(rq->params[i].p.name);
	for (int i = 0; i < rq->nsets; i++) {
		free(rq->sets[i].in);
		free(rq->sets[i].expected);
	}
	free(rq->params);
	free(rq->sets);
	free(rq->file);
	free(rq->dir);
	free(rq->case_name);
	free(rq->cubin);
	free(rq->entry);
	free(rq->out);
	memset(rq, 0, sizeof *rq);
}

void cko_request_read_inputs(const cko_request *rq, int s, cko_tensor *t)
{
	for (int i = 0; i < rq->nparams; i++) {
		const cko_rparam *q = &rq->params[i];
		memset(&t[i], 0, sizeof t[i]);
		if (!q->p.is_buffer || q->p.role == CKO_OUT)
			continue;
		char *path = xasprintf("%s/%s.npy", rq->sets[s].in, q->p.name);
		cko_npy_map(path, &t[i]); /* read-only: uploaded, compared */
		int same = t[i].dtype == q->p.dtype && t[i].ndim == q->p.ndim;
		for (int d = 0; same && d < q->p.ndim; d++)
			same = t[i].shape[d] == q->shape[d];
		if (!same) {
			cko_buf a = {0}, b = {0};
			for (int d = 0; d < t[i].ndim; d++)
				buf_printf(&a, "%s%lld", d ? ", " : "", (long long)t[i].shape[d]);
			for (int d = 0; d < q->p.ndim; d++)
				buf_printf(&b, "%s%lld", d ? ", " : "", (long long)q->shape[d]);
			cko_die(CKO_BADINPUT, "%s: %s (%s) disagrees with %s, which declares %s (%s)", path,
				cko_dtype_name(t[i].dtype), a.s ? a.s : "", rq->file, cko_dtype_name(q->p.dtype),
				b.s ? b.s : "");
		}
		free(path);
	}
}

char *cko_request_out_path(const cko_request *rq, int s, const char *name)
{
	return xasprintf("%s/%d/%s.npy", rq->out ? rq->out : "out", s, name);
}

char *cko_request_record_path(const cko_request *rq, int s, const char *name)
{
	return xasprintf("%s/%d/%s.json", rq->out ? rq->out : "out", s, name);
}
