/* compare.c: element-wise comparison of an actual tensor with the expected
 * one: |a - e| <= atol + rtol * |e|; NaN matches NaN (unless disabled), an
 * infinity only the same infinity; integers exactly by default. */
#include "cko.h"
#include "compare_elem.h"

#include <math.h>
#include <string.h>

void cko_tol_default(cko_dtype t, cko_tol *tol)
{
	tol->nan_equal = 1;
	switch (t) {
	case CKO_F16: tol->rtol = 1e-3, tol->atol = 1e-3; break;
	case CKO_F32: tol->rtol = 1e-5, tol->atol = 1e-6; break;
	case CKO_F64: tol->rtol = 1e-12, tol->atol = 1e-14; break;
	default: tol->rtol = 0, tol->atol = 0; break;
	}
}

/* Poison pattern of cko-run's first run: every byte 0xff. */
static int is_poison(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xff)
			return 0;
	return 1;
}

static void note_first(cko_cmp *r, int max_first, size_t i, double e, double a)
{
	if (r->nfirst < max_first && r->nfirst < CKO_MAX_FIRST) {
		r->first[r->nfirst] = i;
		r->first_expected[r->nfirst] = e;
		r->first_actual[r->nfirst] = a;
		r->nfirst++;
	}
}

void cko_compare(const cko_tensor *ex, const cko_tensor *ac, const cko_tol *tol, int max_first, cko_cmp *r)
{
	memset(r, 0, sizeof *r);
	r->count = ac->count;
	if (ex->dtype != ac->dtype) {
		snprintf(r->problem, sizeof r->problem, "dtype differs: expected %s, actual %s", cko_dtype_name(ex->dtype),
			 cko_dtype_name(ac->dtype));
		return;
	}
	int same = ex->ndim == ac->ndim;
	for (int i = 0; same && i < ex->ndim; i++)
		same = ex->shape[i] == ac->shape[i];
	if (!same) {
		cko_buf b = {0};
		for (int k = 0; k < 2; k++) {
			const cko_tensor *t = k ? ac : ex;
			buf_puts(&b, k ? ", actual (" : "expected (");
			for (int i = 0; i < t->ndim; i++)
				buf_printf(&b, "%s%lld", i ? ", " : "", (long long)t->shape[i]);
			buf_puts(&b, ")");
		}
		snprintf(r->problem, sizeof r->problem, "shape differs: %s", b.s);
		buf_free(&b);
		return;
	}
	size_t es = cko_dtype_size(ac->dtype);
	const unsigned char *ab = ac->data, *eb = ex->data;
	int exact = !cko_dtype_is_float(ac->dtype) && tol->atol == 0 && tol->rtol == 0;
	for (size_t i = 0; i < ac->count; i++) {
		if (is_poison(ab + i * es, es))
			r->poison++;
		double e = cko_elem_get(ex->dtype, ex->data, i), a = cko_elem_get(ac->dtype, ac->data, i);
		int ok;
		if (exact) {
			ok = !memcmp(ab + i * es, eb + i * es, es);
			if (!ok) {
				double d = fabs(a - e);
				if (d > r->max_abs)
					r->max_abs = d, r->max_abs_at = i;
			}
		} else {
			cko_elem_verdict v = cko_elem_check(e, a, tol->atol, tol->rtol, tol->nan_equal);
			ok = v.ok;
			r->nan += (size_t)v.nan;
			r->inf += (size_t)v.inf;
			if (v.d > r->max_abs)
				r->max_abs = v.d, r->max_abs_at = i;
			if (v.rel > r->max_rel)
				r->max_rel = v.rel;
		}
		if (!ok) {
			r->mismatches++;
			note_first(r, max_first, i, e, a);
		}
	}
	r->ok = r->mismatches == 0;
}

static cJSON *num(double v)
{
	if (isnan(v))
		return cJSON_CreateString("nan");
	if (isinf(v))
		return cJSON_CreateString(v > 0 ? "inf" : "-inf");
	return cJSON_CreateNumber(v);
}

static cJSON *index_json(const cko_tensor *t, size_t flat)
{
	cJSON *a = cJSON_CreateArray();
	int64_t idx[CKO_MAXDIM];
	for (int d = t->ndim - 1; d >= 0; d--) {
		idx[d] = t->shape[d] ? (int64_t)(flat % (size_t)t->shape[d]) : 0;
		flat = t->shape[d] ? flat / (size_t)t->shape[d] : 0;
	}
	for (int d = 0; d < t->ndim; d++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)idx[d]));
	return a;
}

cJSON *cko_cmp_json(const cko_cmp *r, const cko_tensor *t, const cko_tol *tol)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", r->ok ? "ok" : "fail");
	if (r->problem[0]) {
		cJSON_AddStringToObject(o, "problem", r->problem);
		return o;
	}
	cJSON_AddNumberToObject(o, "count", (double)r->count);
	cJSON_AddNumberToObject(o, "mismatches", (double)r->mismatches);
	cJSON_AddItemToObject(o, "max_abs", num(r->max_abs));
	cJSON_AddItemToObject(o, "max_abs_index", index_json(t, r->max_abs_at));
	cJSON_AddItemToObject(o, "max_rel", num(r->max_rel));
	cJSON_AddNumberToObject(o, "nan", (double)r->nan);
	cJSON_AddNumberToObject(o, "inf", (double)r->inf);
	cJSON_AddNumberToObject(o, "poison", (double)r->poison);
	cJSON_AddNumberToObject(o, "rtol", tol->rtol);
	cJSON_AddNumberToObject(o, "atol", tol->atol);
	cJSON *first = cJSON_AddArrayToObject(o, "first");
	for (int i = 0; i < r->nfirst; i++) {
		cJSON *m = cJSON_CreateObject();
		cJSON_AddItemToObject(m, "index", index_json(t, r->first[i]));
		cJSON_AddItemToObject(m, "expected", num(r->first_expected[i]));
		cJSON_AddItemToObject(m, "actual", num(r->first_actual[i]));
		cJSON_AddItemToArray(first, m);
	}
	return o;
}
