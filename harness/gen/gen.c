/* gen.c: the input generators of cases.json. A buffer is split into chunks
 * of CKO_GEN_CHUNK elements, each drawn from its own stream, so threads can
 * fill chunks in any order and the bytes never depend on the thread count.
 * Values are made in double (or int64 for integer draws) and then rounded
 * or stored into the buffer's dtype. */
#include "gen.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cko_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/* The representable range of an integer dtype (u64 limited to int64's). */
static void int_range(cko_dtype t, int64_t *lo, int64_t *hi)
{
	switch (t) {
	case CKO_I8: *lo = INT8_MIN, *hi = INT8_MAX; break;
	case CKO_I16: *lo = INT16_MIN, *hi = INT16_MAX; break;
	case CKO_I32: *lo = INT32_MIN, *hi = INT32_MAX; break;
	case CKO_U8: *lo = 0, *hi = UINT8_MAX; break;
	case CKO_U16: *lo = 0, *hi = UINT16_MAX; break;
	case CKO_U32: *lo = 0, *hi = UINT32_MAX; break;
	default: *lo = INT64_MIN, *hi = INT64_MAX; break;
	}
}

static double float_max(cko_dtype t) { return t == CKO_F16 ? 65504.0 : t == CKO_F32 ? FLT_MAX : DBL_MAX; }

static double num(const cJSON *spec, const char *key, double dflt, const char *file, const char *field)
{
	const cJSON *v = cko_jget(spec, key);
	if (!v)
		return dflt;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		cko_jfail(file, cko_field(field, key), "expected a finite number");
	return v->valuedouble;
}

/* An integral JSON number that an int64 holds exactly (|v| <= 2^53). */
static int64_t inum(const cJSON *spec, const char *key, int64_t dflt, int required, const char *file,
		    const char *field)
{
	const cJSON *v = cko_jget(spec, key);
	if (!v) {
		if (required)
			cko_jfail(file, cko_field(field, key), "missing");
		return dflt;
	}
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 9007199254740992.0)
		cko_jfail(file, cko_field(field, key), "expected an integer (|value| <= 2^53)");
	return (int64_t)v->valuedouble;
}

static void check_int_fits(int64_t v, cko_dtype t, const char *file, const char *field)
{
	int64_t lo, hi;
	int_range(t, &lo, &hi);
	if (v < lo || v > hi)
		cko_jfail(file, field, "%lld does not fit %s", (long long)v, cko_dtype_name(t));
}

static void check_float_fits(double v, cko_dtype t, const char *file, const char *field)
{
	if (fabs(v) > float_max(t))
		cko_jfail(file, field, "%g is beyond the range of %s", v, cko_dtype_name(t));
}

static void shape_text(char *buf, size_t n, int ndim, const int64_t *shape)
{
	size_t k = 0;
	k += (size_t)snprintf(buf + k, n - k, "(");
	for (int i = 0; i < ndim && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, "%lld%s", (long long)shape[i], i + 1 < ndim ? ", " : "");
	if (k < n)
		snprintf(buf + k, n - k, ")");
}

static int all_equal(const cko_tensor *t)
{
	double first = cko_elem_get(t->dtype, t->data, 0);
	for (size_t i = 1; i < t->count; i++)
		if (cko_elem_get(t->dtype, t->data, i) != first)
			return 0;
	return t->count > 1;
}

void cko_gen_parse(const cJSON *spec, cko_dtype t, int ndim, const int64_t *shape, size_t count,
		   const char *base_dir, const char *file, const char *field, cko_gen *g)
{
	static const char *const k_uniform[] = {"dist", "low", "high", "allow_constant", NULL};
	static const char *const k_normal[] = {"dist", "mean", "std", "allow_constant", NULL};
	static const char *const k_arange[] = {"dist", "start", "step", "allow_constant", NULL};
	static const char *const k_constant[] = {"dist", "value", "allow_constant", NULL};
	static const char *const k_file[] = {"dist", "path", "allow_constant", NULL};
	memset(g, 0, sizeof *g);
	g->dtype = t;
	if (!cJSON_IsObject(spec))
		cko_jfail(file, field, "expected a generator object such as {\"dist\": \"uniform\", \"low\": -1, \"high\": 1}");
	const char *dist = cko_jstr(spec, "dist", file, field);
	const cJSON *ac = cko_jget(spec, "allow_constant");
	if (ac && !cJSON_IsBool(ac))
		cko_jfail(file, cko_field(field, "allow_constant"), "expected true or false");
	g->allow_constant = cJSON_IsTrue(ac);
	int isf = cko_dtype_is_float(t), constant = 0;
	char fb[256];
	snprintf(fb, sizeof fb, "%s", field);
	if (!strcmp(dist, "uniform") || !strcmp(dist, "int")) {
		int is_int = !strcmp(dist, "int");
		cko_jkeys(spec, file, fb, k_uniform);
		g->dist = is_int ? CKO_GEN_INT : CKO_GEN_UNIFORM;
		if (is_int || !isf) {
			/* Inclusive integer range. */
			g->integer = 1;
			g->lo = inum(spec, "low", -1, is_int, file, fb);
			g->hi = inum(spec, "high", 1, is_int, file, fb);
			if (g->lo > g->hi)
				cko_jfail(file, fb, "low %lld is above high %lld", (long long)g->lo, (long long)g->hi);
			if (isf) {
				check_float_fits((double)g->lo, t, file, cko_field(fb, "low"));
				check_float_fits((double)g->hi, t, file, cko_field(fb, "high"));
			} else {
				check_int_fits(g->lo, t, file, cko_field(fb, "low"));
				check_int_fits(g->hi, t, file, cko_field(fb, "high"));
			}
			constant = g->lo == g->hi;
		} else {
			g->a = num(spec, "low", -1, file, fb);
			g->b = num(spec, "high", 1, file, fb);
			if (g->a > g->b)
				cko_jfail(file, fb, "low %g is above high %g", g->a, g->b);
			check_float_fits(g->a, t, file, cko_field(fb, "low"));
			check_float_fits(g->b, t, file, cko_field(fb, "high"));
			if (!isfinite(g->b - g->a))
				cko_jfail(file, fb, "high - low overflows");
			constant = g->a == g->b;
		}
	} else if (!strcmp(dist, "normal")) {
		cko_jkeys(spec, file, fb, k_normal);
		g->dist = CKO_GEN_NORMAL;
		if (!isf)
			cko_jfail(file, cko_field(fb, "dist"), "normal needs a float buffer (this one is %s); use uniform or int",
				  cko_dtype_name(t));
		g->a = num(spec, "mean", 0, file, fb);
		g->b = num(spec, "std", 1, file, fb);
		if (g->b < 0)
			cko_jfail(file, cko_field(fb, "std"), "must be >= 0");
		/* Box-Muller draws stay within about 8.6 standard deviations. */
		if (fabs(g->a) + 9 * g->b > float_max(t))
			cko_jfail(file, fb, "mean %g and std %g reach beyond the range of %s", g->a, g->b, cko_dtype_name(t));
		constant = g->b == 0;
	} else if (!strcmp(dist, "arange")) {
		cko_jkeys(spec, file, fb, k_arange);
		g->dist = CKO_GEN_ARANGE;
		if (isf) {
			g->a = num(spec, "start", 0, file, fb);
			g->b = num(spec, "step", 1, file, fb);
			check_float_fits(g->a + (double)(count - 1) * g->b, t, file, fb);
		} else {
			g->integer = 1;
			g->lo = inum(spec, "start", 0, 0, file, fb);
			g->hi = inum(spec, "step", 1, 0, file, fb);
			int64_t lo, hi;
			int_range(t, &lo, &hi);
			double end = (double)g->lo + (double)(count - 1) * (double)g->hi;
			check_int_fits(g->lo, t, file, cko_field(fb, "start"));
			if (end < (double)lo || end > (double)hi)
				cko_jfail(file, fb, "the last value %.0f does not fit %s", end, cko_dtype_name(t));
		}
		constant = count > 1 && (g->integer ? g->hi == 0 : g->b == 0);
	} else if (!strcmp(dist, "constant")) {
		cko_jkeys(spec, file, fb, k_constant);
		g->dist = CKO_GEN_CONSTANT;
		if (!cko_jget(spec, "value"))
			cko_jfail(file, cko_field(fb, "value"), "missing");
		if (isf) {
			g->a = num(spec, "value", 0, file, fb);
			check_float_fits(g->a, t, file, cko_field(fb, "value"));
		} else {
			g->integer = 1;
			g->lo = inum(spec, "value", 0, 1, file, fb);
			check_int_fits(g->lo, t, file, cko_field(fb, "value"));
		}
		constant = 1;
	} else if (!strcmp(dist, "file")) {
		cko_jkeys(spec, file, fb, k_file);
		g->dist = CKO_GEN_FILE;
		const char *p = cko_jstr(spec, "path", file, fb);
		g->path = cko_path_join(base_dir, p);
		char err[1024];
		if (cko_npy_try_read(g->path, &g->file, err, sizeof err))
			cko_jfail(file, cko_field(fb, "path"), "%s", err);
		char want[256], got[256];
		shape_text(want, sizeof want, ndim, shape);
		shape_text(got, sizeof got, g->file.ndim, g->file.shape);
		if (g->file.dtype != t)
			cko_jfail(file, cko_field(fb, "path"), "%s has dtype %s, the buffer is %s", g->path,
				  cko_dtype_name(g->file.dtype), cko_dtype_name(t));
		int same = g->file.ndim == ndim;
		for (int i = 0; same && i < ndim; i++)
			same = g->file.shape[i] == shape[i];
		if (!same)
			cko_jfail(file, cko_field(fb, "path"), "%s has shape %s, the buffer's shape is %s", g->path, got,
				  want);
		constant = all_equal(&g->file);
	} else {
		cko_jfail(file, cko_field(fb, "dist"),
			  "unknown generator '%s' (uniform, normal, int, arange, constant or file)", dist);
	}
	if (constant && !g->allow_constant)
		cko_jfail(file, fb,
			  "this input is one value everywhere, which hides indexing bugs; add \"allow_constant\": true "
			  "if that is intended");
}

void cko_gen_free(cko_gen *g)
{
	free(g->path);
	cko_tensor_free(&g->file);
	memset(g, 0, sizeof *g);
}

void cko_gen_describe(const cko_gen *g, char *buf, size_t n)
{
	switch (g->dist) {
	case CKO_GEN_UNIFORM:
		if (g->integer)
			snprintf(buf, n, "uniform(%lld..%lld)", (long long)g->lo, (long long)g->hi);
		else
			snprintf(buf, n, "uniform(%g, %g)", g->a, g->b);
		break;
	case CKO_GEN_NORMAL: snprintf(buf, n, "normal(%g, %g)", g->a, g->b); break;
	case CKO_GEN_INT: snprintf(buf, n, "int(%lld..%lld)", (long long)g->lo, (long long)g->hi); break;
	case CKO_GEN_ARANGE:
		if (g->integer)
			snprintf(buf, n, "arange(%lld, %lld)", (long long)g->lo, (long long)g->hi);
		else
			snprintf(buf, n, "arange(%g, %g)", g->a, g->b);
		break;
	case CKO_GEN_CONSTANT:
		if (g->integer)
			snprintf(buf, n, "constant(%lld)", (long long)g->lo);
		else
			snprintf(buf, n, "constant(%g)", g->a);
		break;
	case CKO_GEN_FILE: snprintf(buf, n, "file(%s)", g->path); break;
	}
}

/* Stores m doubles at element `at`, rounding to the float dtype. */
static void put_f(cko_dtype t, void *data, size_t at, const double *v, size_t m)
{
	switch (t) {
	case CKO_F32:
		for (size_t k = 0; k < m; k++)
			((float *)data)[at + k] = (float)v[k];
		break;
	case CKO_F64: memcpy((double *)data + at, v, m * sizeof *v); break;
	default:
		for (size_t k = 0; k < m; k++)
			cko_elem_set(t, data, at + k, v[k]);
		break;
	}
}

/* Stores m integers (already within the dtype's range) at element `at`. */
static void put_i(cko_dtype t, void *data, size_t at, const int64_t *v, size_t m)
{
	for (size_t k = 0; k < m; k++) {
		size_t i = at + k;
		switch (t) {
		case CKO_I8: ((int8_t *)data)[i] = (int8_t)v[k]; break;
		case CKO_I16: ((int16_t *)data)[i] = (int16_t)v[k]; break;
		case CKO_I32: ((int32_t *)data)[i] = (int32_t)v[k]; break;
		case CKO_I64: ((int64_t *)data)[i] = v[k]; break;
		case CKO_U8: ((uint8_t *)data)[i] = (uint8_t)v[k]; break;
		case CKO_U16: ((uint16_t *)data)[i] = (uint16_t)v[k]; break;
		case CKO_U32: ((uint32_t *)data)[i] = (uint32_t)v[k]; break;
		case CKO_U64: ((uint64_t *)data)[i] = (uint64_t)v[k]; break;
		default: cko_elem_set(t, data, i, (double)v[k]); break; /* integers into a float buffer */
		}
	}
}

typedef struct {
	const cko_gen *g;
	void *data;
	size_t count, nchunks;
	uint64_t seed;
	const char *label;
	atomic_size_t next;
} fill_job;

#define BLOCK 1024

static void fill_chunk(const fill_job *j, size_t c)
{
	const cko_gen *g = j->g;
	size_t start = c * CKO_GEN_CHUNK, n = j->count - start;
	if (n > CKO_GEN_CHUNK)
		n = CKO_GEN_CHUNK;
	cko_rng r;
	cko_rng_seed(&r, cko_seed_mix(j->seed, j->label, c));
	double dv[BLOCK];
	int64_t iv[BLOCK];
	for (size_t off = 0; off < n; off += BLOCK) {
		size_t m = n - off < BLOCK ? n - off : BLOCK, at = start + off;
		switch (g->dist) {
		case CKO_GEN_UNIFORM:
		case CKO_GEN_INT:
			if (g->integer) {
				for (size_t k = 0; k < m; k++)
					iv[k] = cko_rng_range(&r, g->lo, g->hi);
			} else {
				double w = g->b - g->a;
				for (size_t k = 0; k < m; k++)
					dv[k] = g->a + w * cko_rng_uniform(&r);
			}
			break;
		case CKO_GEN_NORMAL:
			for (size_t k = 0; k < m; k++)
				dv[k] = g->a + g->b * cko_rng_normal(&r);
			break;
		case CKO_GEN_ARANGE:
			for (size_t k = 0; k < m; k++) {
				if (g->integer)
					iv[k] = g->lo + (int64_t)(at + k) * g->hi;
				else
					dv[k] = g->a + (double)(at + k) * g->b;
			}
			break;
		case CKO_GEN_CONSTANT:
			for (size_t k = 0; k < m; k++)
				iv[k] = g->lo, dv[k] = g->a;
			break;
		case CKO_GEN_FILE: return; /* copied whole by cko_gen_fill */
		}
		if (g->integer)
			put_i(g->dtype, j->data, at, iv, m);
		else
			put_f(g->dtype, j->data, at, dv, m);
	}
}

static void *worker(void *arg)
{
	fill_job *j = arg;
	for (size_t c; (c = atomic_fetch_add(&j->next, 1)) < j->nchunks;)
		fill_chunk(j, c);
	return NULL;
}

void cko_gen_fill(const cko_gen *g, void *data, size_t count, uint64_t seed, const char *label, int threads)
{
	if (g->dist == CKO_GEN_FILE) {
		memcpy(data, g->file.data, count * cko_dtype_size(g->dtype));
		return;
	}
	fill_job j = {.g = g, .data = data, .count = count, .seed = seed, .label = label};
	j.nchunks = (count + CKO_GEN_CHUNK - 1) / CKO_GEN_CHUNK;
	atomic_init(&j.next, 0);
	if (threads <= 0)
		threads = cko_ncpus();
	if ((size_t)threads > j.nchunks)
		threads = (int)j.nchunks;
	pthread_t *tid = xcalloc((size_t)threads, sizeof *tid);
	int started = 0;
	for (int i = 1; i < threads; i++, started++)
		if (pthread_create(&tid[i], NULL, worker, &j))
			break; /* fewer threads: the others take up the chunks */
	worker(&j);
	for (int i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
}
