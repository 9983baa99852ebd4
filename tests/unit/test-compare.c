/* test-compare.c: cko_compare and cko_cmp_json: NaN and infinity rules,
 * signed zeros, the tolerance boundary, exact integers, shape and dtype
 * problems, poison counting, the first mismatches with their
 * multi-dimensional indices, and max_abs/max_rel. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

/* A tensor of dtype t and shape dims holding vals (converted). */
static cko_tensor mk(cko_dtype t, int ndim, const int64_t *dims, const double *vals)
{
	cko_tensor x = {.dtype = t, .ndim = ndim, .count = 1};
	for (int i = 0; i < ndim; i++)
		x.count *= (size_t)(x.shape[i] = dims[i]);
	x.data = xcalloc(x.count ? x.count : 1, cko_dtype_size(t));
	for (size_t i = 0; i < x.count; i++)
		cko_elem_set(t, x.data, i, vals[i]);
	return x;
}

/* One-element f32/f64 comparison under tol (NULL: the dtype's default). */
static int one(cko_dtype t, double e, double a, const cko_tol *tol, cko_cmp *r)
{
	int64_t n = 1;
	cko_tensor x = mk(t, 1, &n, &e), y = mk(t, 1, &n, &a);
	cko_tol d;
	cko_tol_default(t, &d);
	cko_compare(&x, &y, tol ? tol : &d, 10, r);
	cko_tensor_free(&x);
	cko_tensor_free(&y);
	return r->ok;
}

static void specials(void)
{
	cko_cmp r;
	for (int k = 0; k < 3; k++) {
		cko_dtype t = k == 0 ? CKO_F16 : k == 1 ? CKO_F32 : CKO_F64;
		char n[64];
		snprintf(n, sizeof n, "cmp-%s-nan-vs-nan-passes", cko_dtype_name(t));
		CHECK(n, one(t, NAN, NAN, NULL, &r) && r.nan == 1 && r.mismatches == 0);
		snprintf(n, sizeof n, "cmp-%s-nan-vs-number-fails", cko_dtype_name(t));
		CHECK(n, !one(t, 1.0, NAN, NULL, &r) && r.nan == 1 && r.mismatches == 1 && r.nfirst == 1);
		snprintf(n, sizeof n, "cmp-%s-number-vs-expected-nan-fails", cko_dtype_name(t));
		CHECK(n, !one(t, NAN, 1.0, NULL, &r) && r.nan == 0 && r.mismatches == 1);
		snprintf(n, sizeof n, "cmp-%s-inf-same-sign-passes", cko_dtype_name(t));
		CHECK(n, one(t, INFINITY, INFINITY, NULL, &r) && r.inf == 1 && one(t, -INFINITY, -INFINITY, NULL, &r));
		snprintf(n, sizeof n, "cmp-%s-inf-opposite-sign-fails", cko_dtype_name(t));
		CHECK(n, !one(t, INFINITY, -INFINITY, NULL, &r) && r.inf == 1 && r.mismatches == 1 &&
				 !one(t, -INFINITY, INFINITY, NULL, &r));
		snprintf(n, sizeof n, "cmp-%s-inf-vs-finite-fails", cko_dtype_name(t));
		CHECK(n, !one(t, 1.0, INFINITY, NULL, &r) && r.inf == 1 && !one(t, INFINITY, 60000.0, NULL, &r) &&
				 r.inf == 0);
		snprintf(n, sizeof n, "cmp-%s-signed-zeros-pass", cko_dtype_name(t));
		CHECK(n, one(t, -0.0, 0.0, NULL, &r) && one(t, 0.0, -0.0, NULL, &r));
	}
	cko_tol strict = {.rtol = 1e-5, .atol = 1e-6, .nan_equal = 0};
	CHECK("cmp-nan-equal-off-fails", !one(CKO_F32, NAN, NAN, &strict, &r) && r.mismatches == 1);
}

static void boundary(void)
{
	/* atol + rtol*|e| = 0.25 + 0.5*2 = 1.25, exact in binary. */
	cko_tol tol = {.rtol = 0.5, .atol = 0.25, .nan_equal = 1};
	cko_cmp r;
	CHECK("cmp-f64-at-bound-above-passes", one(CKO_F64, 2.0, 3.25, &tol, &r) && r.max_abs == 1.25);
	CHECK("cmp-f64-at-bound-below-passes", one(CKO_F64, 2.0, 0.75, &tol, &r));
	CHECK("cmp-f64-just-above-bound-fails", !one(CKO_F64, 2.0, nextafter(3.25, 4), &tol, &r) && r.mismatches == 1);
	/* One ulp below 0.75 is half an ulp of the difference 1.25 and rounds
	 * away in e - a; two ulps is the nearest actual that shows. */
	CHECK("cmp-f64-just-below-bound-fails", !one(CKO_F64, 2.0, nextafter(nextafter(0.75, 0), 0), &tol, &r));
	CHECK("cmp-negative-expected-uses-abs", one(CKO_F64, -2.0, -3.25, &tol, &r) &&
							!one(CKO_F64, -2.0, nextafter(-3.25, -4), &tol, &r));
	CHECK("cmp-f32-at-bound-passes", one(CKO_F32, 2.0, 3.25, &tol, &r));
	CHECK("cmp-f32-next-float-fails", !one(CKO_F32, 2.0, nextafterf(3.25f, 4), &tol, &r));
	cko_tol zero = {0, 0, 1};
	CHECK("cmp-f32-zero-tol-exact", one(CKO_F32, 1.5, 1.5, &zero, &r) &&
						!one(CKO_F32, 1.5, nextafterf(1.5f, 2), &zero, &r));
	cko_tol dflt;
	cko_tol_default(CKO_F32, &dflt);
	CHECK("cmp-tol-defaults", dflt.rtol == 1e-5 && dflt.atol == 1e-6 && dflt.nan_equal == 1);
	cko_tol_default(CKO_F16, &dflt);
	CHECK("cmp-tol-default-f16", dflt.rtol == 1e-3 && dflt.atol == 1e-3);
	cko_tol_default(CKO_F64, &dflt);
	CHECK("cmp-tol-default-f64", dflt.rtol == 1e-12 && dflt.atol == 1e-14);
	cko_tol_default(CKO_I32, &dflt);
	CHECK("cmp-tol-default-int-exact", dflt.rtol == 0 && dflt.atol == 0);
}

static void integers(void)
{
	cko_cmp r;
	cko_tol tol;
	int64_t n = 3;
	double e[] = {1, 2, 3}, a[] = {1, 2, 4};
	cko_tensor x = mk(CKO_I32, 1, &n, e), y = mk(CKO_I32, 1, &n, a);
	cko_tol_default(CKO_I32, &tol);
	cko_compare(&x, &y, &tol, 10, &r);
	CHECK("cmp-int-mismatch", !r.ok && r.mismatches == 1 && r.max_abs == 1 && r.max_abs_at == 2 && r.nfirst == 1 &&
					  r.first[0] == 2 && r.first_expected[0] == 3 && r.first_actual[0] == 4);
	cko_compare(&x, &x, &tol, 10, &r);
	CHECK("cmp-int-equal", r.ok && r.mismatches == 0 && r.count == 3);
	cko_tol loose = {.atol = 1, .rtol = 0};
	cko_compare(&x, &y, &loose, 10, &r);
	CHECK("cmp-int-with-atol", r.ok);
	cko_tensor_free(&x);
	cko_tensor_free(&y);

	/* 2^53 and 2^53+1 are the same double: only the bytes tell them apart. */
	int64_t big[2] = {9007199254740992LL, INT64_MAX}, big1[2] = {9007199254740993LL, INT64_MAX - 1};
	cko_tensor bx = {.dtype = CKO_I64, .ndim = 1, .shape = {2}, .count = 2, .data = big};
	cko_tensor by = {.dtype = CKO_I64, .ndim = 1, .shape = {2}, .count = 2, .data = big1};
	cko_tol_default(CKO_I64, &tol);
	cko_compare(&bx, &by, &tol, 10, &r);
	CHECK("cmp-i64-exact-beyond-double", !r.ok && r.mismatches == 2);
	uint64_t u[1] = {UINT64_MAX}, u1[1] = {UINT64_MAX - 1};
	cko_tensor ux = {.dtype = CKO_U64, .ndim = 1, .shape = {1}, .count = 1, .data = u};
	cko_tensor uy = {.dtype = CKO_U64, .ndim = 1, .shape = {1}, .count = 1, .data = u1};
	cko_tol_default(CKO_U64, &tol);
	cko_compare(&ux, &uy, &tol, 10, &r);
	CHECK("cmp-u64-exact", !r.ok && r.mismatches == 1);
	cko_compare(&ux, &ux, &tol, 10, &r);
	CHECK("cmp-u64-equal", r.ok);
	int8_t s8[2] = {-128, 127}, s8b[2] = {-128, 127};
	cko_tensor sx = {.dtype = CKO_I8, .ndim = 1, .shape = {2}, .count = 2, .data = s8};
	cko_tensor sy = {.dtype = CKO_I8, .ndim = 1, .shape = {2}, .count = 2, .data = s8b};
	cko_tol_default(CKO_I8, &tol);
	cko_compare(&sx, &sy, &tol, 10, &r);
	CHECK("cmp-i8-equal", r.ok && r.count == 2);
}

static void problems(void)
{
	cko_cmp r;
	cko_tol tol;
	cko_tol_default(CKO_F32, &tol);
	int64_t d23[] = {2, 3}, d32[] = {3, 2}, d6[] = {6};
	double v[6] = {0};
	cko_tensor a = mk(CKO_F32, 2, d23, v), b = mk(CKO_F64, 2, d23, v), c = mk(CKO_F32, 2, d32, v),
		   d = mk(CKO_F32, 1, d6, v);
	cko_compare(&a, &b, &tol, 10, &r);
	CHECK("cmp-dtype-mismatch-problem", !r.ok && strstr(r.problem, "dtype") && strstr(r.problem, "f32") &&
						    strstr(r.problem, "f64"));
	cko_compare(&a, &c, &tol, 10, &r);
	CHECK("cmp-shape-mismatch-problem",
	      !r.ok && strstr(r.problem, "shape") && strstr(r.problem, "(2, 3)") && strstr(r.problem, "(3, 2)"));
	cko_compare(&a, &d, &tol, 10, &r);
	CHECK("cmp-rank-mismatch-problem", !r.ok && strstr(r.problem, "shape") && strstr(r.problem, "(6)"));
	cJSON *j = cko_cmp_json(&r, &a, &tol);
	CHECK("cmp-json-problem", !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "fail") &&
					  cJSON_IsString(cJSON_GetObjectItem(j, "problem")));
	cJSON_Delete(j);
	cko_compare(&a, &a, &tol, 10, &r);
	CHECK("cmp-same-passes", r.ok && !r.problem[0] && r.count == 6);
	int64_t z[] = {0, 4};
	cko_tensor e0 = mk(CKO_F32, 2, z, v);
	cko_compare(&e0, &e0, &tol, 10, &r);
	CHECK("cmp-empty-passes", r.ok && r.count == 0);
	cko_tensor_free(&a), cko_tensor_free(&b), cko_tensor_free(&c), cko_tensor_free(&d), cko_tensor_free(&e0);
}

static void poison(void)
{
	cko_cmp r;
	cko_tol tol;
	cko_tol_default(CKO_F32, &tol);
	int64_t n = 5;
	double v[5] = {1, 2, 3, 4, 5};
	cko_tensor e = mk(CKO_F32, 1, &n, v), a = mk(CKO_F32, 1, &n, v);
	memset((char *)a.data + 4, 0xff, 4);
	memset((char *)a.data + 12, 0xff, 8);
	((unsigned char *)a.data)[0] = 0xff; /* one 0xff byte is not poison */
	cko_compare(&e, &a, &tol, 10, &r);
	CHECK("cmp-poison-counted", r.poison == 3 && r.nan == 3 && r.mismatches == 4 && !r.ok);
	cko_tensor_free(&a);
	a = mk(CKO_F16, 1, &n, v);
	cko_tensor e16 = mk(CKO_F16, 1, &n, v);
	memset(a.data, 0xff, 10);
	cko_tol_default(CKO_F16, &tol);
	cko_compare(&e16, &a, &tol, 10, &r);
	CHECK("cmp-poison-f16", r.poison == 5 && r.mismatches == 5);
	cko_tensor_free(&a), cko_tensor_free(&e), cko_tensor_free(&e16);
	e = mk(CKO_U8, 1, &n, v);
	a = mk(CKO_U8, 1, &n, v);
	((unsigned char *)a.data)[4] = 0xff;
	cko_tol_default(CKO_U8, &tol);
	cko_compare(&e, &a, &tol, 10, &r);
	CHECK("cmp-poison-u8", r.poison == 1 && r.mismatches == 1 && r.max_abs == 250);
	cko_tensor_free(&a), cko_tensor_free(&e);
}

static void firsts(void)
{
	cko_cmp r;
	cko_tol tol = {.rtol = 0, .atol = 0.1, .nan_equal = 1};
	int64_t dims[] = {2, 3, 4};
	double e[24], a[24];
	for (int i = 0; i < 24; i++)
		e[i] = a[i] = i;
	a[5] = 5.5;   /* [0,1,1] */
	a[6] = 26;    /* [0,1,2]: the largest error, 20 */
	a[13] = NAN;  /* [1,0,1] */
	a[20] = 19;   /* [1,2,0] */
	a[23] = 23.5; /* [1,2,3] */
	a[1] = 1.05;  /* within atol */
	cko_tensor x = mk(CKO_F64, 3, dims, e), y = mk(CKO_F64, 3, dims, a);
	cko_compare(&x, &y, &tol, 3, &r);
	CHECK("cmp-first-limited", r.mismatches == 5 && r.nfirst == 3 && r.first[0] == 5 && r.first[1] == 6 &&
					   r.first[2] == 13);
	CHECK("cmp-first-values", r.first_expected[1] == 6 && r.first_actual[1] == 26 && isnan(r.first_actual[2]));
	CHECK("cmp-max-abs", r.max_abs == 20 && r.max_abs_at == 6);
	CHECK("cmp-max-rel", fabs(r.max_rel - 20.0 / 6) < 1e-15);
	cko_compare(&x, &y, &tol, 100, &r);
	CHECK("cmp-first-capped", r.nfirst == 5 && r.first[4] == 23);
	cJSON *j = cko_cmp_json(&r, &x, &tol);
	cJSON *f = cJSON_GetObjectItem(j, "first");
	char *idx0 = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(f, 0), "index"));
	char *idx4 = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(f, 4), "index"));
	char *maxi = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "max_abs_index"));
	CHECK("cmp-json-multidim-index", !strcmp(idx0, "[0,1,1]") && !strcmp(idx4, "[1,2,3]") && !strcmp(maxi, "[0,1,2]"));
	CHECK("cmp-json-nan-as-string",
	      !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(f, 2), "actual")), "nan"));
	CHECK("cmp-json-fields", cJSON_GetArraySize(f) == 5 && cJSON_GetObjectItem(j, "mismatches")->valuedouble == 5 &&
					 cJSON_GetObjectItem(j, "count")->valuedouble == 24 &&
					 cJSON_GetObjectItem(j, "nan")->valuedouble == 1 &&
					 cJSON_GetObjectItem(j, "atol")->valuedouble == 0.1 &&
					 !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "fail"));
	free(idx0), free(idx4), free(maxi);
	cJSON_Delete(j);
	/* many mismatches: at most CKO_MAX_FIRST are kept */
	for (int i = 0; i < 24; i++)
		a[i] = i + 1;
	cko_tensor_free(&y);
	y = mk(CKO_F64, 3, dims, a);
	cko_compare(&x, &y, &tol, 1000, &r);
	CHECK("cmp-first-at-most-10", r.mismatches == 24 && r.nfirst == CKO_MAX_FIRST && r.first[9] == 9);
	/* a 0-d tensor's index is [] */
	cko_tensor s0 = mk(CKO_F32, 0, dims, e), s1 = mk(CKO_F32, 0, dims, a);
	cko_compare(&s0, &s1, &tol, 10, &r);
	j = cko_cmp_json(&r, &s0, &tol);
	char *i0 = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "first"), 0), "index"));
	CHECK("cmp-json-0d-index", r.mismatches == 1 && i0 && !strcmp(i0, "[]"));
	free(i0);
	cJSON_Delete(j);
	cko_tensor_free(&x), cko_tensor_free(&y), cko_tensor_free(&s0), cko_tensor_free(&s1);
}

int main(void)
{
	specials();
	boundary();
	integers();
	problems();
	poison();
	firsts();
	TEST_END();
}
