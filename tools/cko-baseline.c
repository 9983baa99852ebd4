/* cko-baseline: the vendor library's time for the requests of a workload
 * the CUDA toolkit has an equivalent of, timed with the protocol of
 * cko-bench (warm-up, CUDA events per launch, L2 flushed and outputs
 * poisoned before each launch, input sets rotated) and checked as a
 * candidate is (outputs against the expected ones, guards around every
 * buffer, inputs unchanged):
 *   sgemm       cuBLAS cublasSgemm, CUBLAS_PEDANTIC_MATH (FP32, no TF32)
 *   transpose   cuBLAS cublasSgeam, op(A) = A^T, beta = 0
 *   reduce_sum  CUB cub::DeviceSegmentedReduce::Sum over the rows, and for
 *               at most PER_ROW_MAX rows also cub::DeviceReduce::Sum once
 *               per row: the faster that passes its check counts. */
#include "cko_gpu.h"

#include "baseline_cub.h"

#include <cublas_v2.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define PER_ROW_MAX 1024

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-baseline [-w warmup] [-n iterations] [--no-flush] [-o baseline.json] request.json...\n"
		"  -w, --warmup warmup          warm-up launches per request (default 10)\n"
		"  -n, --iterations iterations  timed launches per request (default 100)\n"
		"      --no-flush               keep the L2 warm between launches\n"
		"  -o, --output baseline.json   the timings (default: standard output)\n"
		"  -h, --help                   print this help and exit\n"
		"workloads: sgemm (cuBLAS SGEMM), transpose (cuBLAS geam), reduce_sum (CUB)\n");
	exit(status);
}

#define CUBLAS_CHECK(call)                                                                                         \
	do {                                                                                                       \
		cublasStatus_t st_ = (call);                                                                       \
		if (st_ != CUBLAS_STATUS_SUCCESS)                                                                  \
			cko_die(CKO_ENV, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cublasGetStatusString(st_));  \
	} while (0)

enum { W_SGEMM, W_TRANSPOSE, W_REDUCE_SUM, W_N };
static const struct {
	const char *entry, *vendor, *library, *needs;
} wl[W_N] = {
	{"sgemm", "cuBLAS", "cuBLAS cublasSgemm, CUBLAS_PEDANTIC_MATH (FP32, no TF32)",
	 "f32 A, B in, C out and integer M, N, K"},
	{"transpose", "cuBLAS", "cuBLAS cublasSgeam (op(A) = A^T, beta = 0)", "f32 x in, y out and integer R, C"},
	{"reduce_sum", "CUB", "CUB DeviceSegmentedReduce::Sum (DeviceReduce::Sum per row where faster)",
	 "f32 x in, y out and integer R, N"},
};

static int workload_of(const char *entry)
{
	for (int w = 0; w < W_N; w++)
		if (!strcmp(entry, wl[w].entry))
			return w;
	return -1;
}

/* Index of the named parameter, checking its kind; dies with 2 otherwise. */
static int param(const cko_request *rq, int w, const char *name, int buffer, int role)
{
	for (int i = 0; i < rq->nparams; i++) {
		const cko_rparam *q = &rq->params[i];
		if (strcmp(q->p.name, name))
			continue;
		if (q->p.is_buffer != buffer || (buffer && (q->p.role != role || q->p.dtype != CKO_F32)) ||
		    (!buffer && cko_dtype_is_float(q->p.dtype)))
			break;
		return i;
	}
	cko_die(CKO_BADINPUT, "%s: not a %s request (needs %s): %s", rq->file, wl[w].entry, wl[w].needs, name);
}

/* One vendor call on set s's buffers. */
typedef struct {
	int w, method;
	cublasHandle_t h;
	cko_cub_rows *cub;
	int in0, in1, out, m, n, k; /* parameter indices */
	long long M, N, K;          /* scalars */
} op;

static CUdeviceptr buf(cko_exec *x, int s, int i) { return x->dev[(size_t)s * x->np + i].ptr; }

static void launch(op *o, cko_exec *x, int s, CUstream st)
{
	const float one = 1.0f, zero = 0.0f;
	char err[256];
	switch (o->w) {
	case W_SGEMM:
		/* Row-major C = A B is column-major C^T = B^T A^T. */
		CUBLAS_CHECK(cublasSgemm(o->h, CUBLAS_OP_N, CUBLAS_OP_N, (int)o->N, (int)o->M, (int)o->K, &one,
					 (const float *)buf(x, s, o->in1), (int)o->N, (const float *)buf(x, s, o->in0),
					 (int)o->K, &zero, (float *)buf(x, s, o->out), (int)o->N));
		break;
	case W_TRANSPOSE:
		/* x (R x C row-major) is column-major C x R; y (C x R row-major)
		 * is column-major R x C = x^T. B = y (in place, as geam allows)
		 * is never used with beta = 0. */
		CUBLAS_CHECK(cublasSgeam(o->h, CUBLAS_OP_T, CUBLAS_OP_N, (int)o->M, (int)o->N, &one,
					 (const float *)buf(x, s, o->in0), (int)o->N, &zero, (const float *)buf(x, s, o->out),
					 (int)o->M, (float *)buf(x, s, o->out), (int)o->M));
		break;
	case W_REDUCE_SUM:
		if (cko_cub_rows_run(o->cub, (const float *)buf(x, s, o->in0), (float *)buf(x, s, o->out), st, err,
				     sizeof err))
			cko_die(CKO_ENV, "%s", err);
		break;
	}
}

/* The protocol of cko-bench on one method: fills c with the statistics and
 * the check; 1 if the outputs, guards and inputs passed. */
static int time_op(op *o, cko_exec *x, const cko_request *rq, int warmup, int iters, CUdeviceptr fbuf, size_t fbytes,
		   CUstream st, cJSON *c)
{
	CUevent *ev = xcalloc((size_t)iters * 2, sizeof *ev);
	for (int i = 0; i < iters * 2; i++)
		CU_CHECK(cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
	for (int i = 0; i < warmup + iters; i++) {
		int s = i % x->nsets, t = i - warmup;
		cko_exec_reset(x, s, CKO_POISON_A, st);
		if (fbuf)
			CU_CHECK(cuMemsetD8Async(fbuf, (unsigned char)i, fbytes, st));
		if (t >= 0)
			CU_CHECK(cuEventRecord(ev[2 * t], st));
		launch(o, x, s, st);
		if (t >= 0)
			CU_CHECK(cuEventRecord(ev[2 * t + 1], st));
	}
	CU_CHECK(cuStreamSynchronize(st));
	double *ms = xmalloc((size_t)iters * sizeof *ms);
	for (int t = 0; t < iters; t++) {
		float f;
		CU_CHECK(cuEventElapsedTime(&f, ev[2 * t], ev[2 * t + 1]));
		ms[t] = f;
	}
	cko_stats sts;
	cko_stats_compute(ms, iters, &sts);
	cJSON *sj = cko_stats_json(&sts, "_ms");
	for (cJSON *k = sj->child; k; k = k->next)
		cJSON_AddItemToObject(c, k->string, cJSON_Duplicate(k, 1));
	cJSON_Delete(sj);
	if (rq->flops > 0)
		cJSON_AddNumberToObject(c, "tflops", rq->flops / (sts.median * 1e-3) * 1e-12);
	if (rq->bytes > 0)
		cJSON_AddNumberToObject(c, "gbps", rq->bytes / (sts.median * 1e-3) * 1e-9);
	/* The result must be right, or the timing means nothing: each set
	 * launched holds the outputs of its last launch. */
	int ok = 1, checked = 0;
	char msg[512] = "";
	int ran = warmup + iters < x->nsets ? warmup + iters : x->nsets;
	for (int s = 0; s < ran && ok; s++) {
		if (cko_exec_check_guards(x, s, msg, sizeof msg) || cko_exec_check_inputs(x, s, msg, sizeof msg)) {
			ok = 0;
			break;
		}
		if (!rq->sets[s].expected)
			continue;
		char *p = xasprintf("%s/%s.npy", rq->sets[s].expected, rq->params[o->out].p.name);
		cko_cmp r = {0};
		cko_tensor ac = {0};
		if (cko_exec_compare(x, s, o->out, p, &rq->params[o->out].tol, 3, st, &r, &ac) || !r.ok) {
			ok = 0;
			if (r.problem[0])
				snprintf(msg, sizeof msg, "%s: %s", p, r.problem);
			else
				snprintf(msg, sizeof msg, "set %d: %zu of %zu elements outside the tolerance (%zu NaN, %zu poison)",
					 s, r.mismatches, r.count, r.nan, r.poison);
		}
		checked++;
		cko_tensor_free(&ac);
		free(p);
	}
	cJSON_AddStringToObject(c, "check", !ok ? "fail" : checked ? "ok" : "unchecked");
	if (!ok)
		cJSON_AddStringToObject(c, "reason", msg);
	for (int i = 0; i < iters * 2; i++)
		cuEventDestroy(ev[i]);
	free(ev);
	free(ms);
	return ok;
}

static const char *method_name(int w, int method)
{
	if (w == W_SGEMM)
		return "cublasSgemm";
	if (w == W_TRANSPOSE)
		return "cublasSgeam";
	return method == CKO_CUB_SEGMENTED ? "cub::DeviceSegmentedReduce::Sum" : "cub::DeviceReduce::Sum per row";
}

/* The request's parameters for workload want; dies with 2 on anything else. */
static void setup(const cko_request *rq, int want, op *o)
{
	int w = workload_of(rq->entry);
	if (w != want)
		cko_die(CKO_BADINPUT, "%s: a %s request among %s requests", rq->file, rq->entry, wl[want].entry);
	memset(o, 0, sizeof *o);
	o->w = w;
	if (w == W_SGEMM) {
		o->in0 = param(rq, w, "A", 1, CKO_IN), o->in1 = param(rq, w, "B", 1, CKO_IN);
		o->out = param(rq, w, "C", 1, CKO_OUT);
		o->m = param(rq, w, "M", 0, 0), o->n = param(rq, w, "N", 0, 0), o->k = param(rq, w, "K", 0, 0);
		o->K = rq->params[o->k].ivalue;
	} else {
		o->in0 = param(rq, w, "x", 1, CKO_IN), o->out = param(rq, w, "y", 1, CKO_OUT);
		o->m = param(rq, w, "R", 0, 0), o->n = param(rq, w, w == W_TRANSPOSE ? "C" : "N", 0, 0);
	}
	o->M = rq->params[o->m].ivalue, o->N = rq->params[o->n].ivalue;
	if (o->M < 1 || o->N < 1 || o->K < 0 || o->M > INT32_MAX || o->N > INT32_MAX || o->K > INT32_MAX)
		cko_die(CKO_BADINPUT, "%s: sizes outside the library's int range", rq->file);
	/* The shapes the library call assumes. */
	size_t want_in = w == W_SGEMM ? (size_t)(o->M * o->K) : (size_t)(o->M * o->N);
	size_t want_out = w == W_REDUCE_SUM ? (size_t)o->M : (size_t)(o->M * o->N);
	if (rq->params[o->in0].count != want_in || rq->params[o->out].count != want_out ||
	    (w == W_SGEMM && rq->params[o->in1].count != (size_t)(o->K * o->N)))
		cko_die(CKO_BADINPUT, "%s: buffer sizes do not match the %s signature", rq->file, wl[w].entry);
}

static void time_request(cublasHandle_t h, const char *path, int want, int warmup, int iters, CUdeviceptr fbuf,
			 size_t fbytes, CUstream st, cJSON *c)
{
	cko_request rq;
	cko_request_load(path, &rq);
	cJSON_AddStringToObject(c, "case", rq.case_name);
	op o;
	setup(&rq, want, &o);
	o.h = h;
	int w = o.w;
	/* The buffers as cko-bench makes them (guards, poisoned outputs); the
	 * request's module is loaded but never launched. */
	cko_exec x;
	char err[512];
	if (cko_exec_open(&x, &rq, rq.nsets, err, sizeof err))
		cko_die(CKO_BADINPUT, "%s: %s", path, err);
	int nm = w == W_REDUCE_SUM && o.M <= PER_ROW_MAX ? 2 : 1, best = -1;
	cJSON *all = nm > 1 ? cJSON_CreateArray() : NULL, *tm[2] = {0};
	for (int m = 0; m < nm; m++) {
		o.method = m;
		if (w == W_REDUCE_SUM && cko_cub_rows_init(&o.cub, m, o.M, o.N, err, sizeof err))
			cko_die(CKO_ENV, "%s: %s", path, err);
		tm[m] = cJSON_CreateObject();
		cJSON_AddStringToObject(tm[m], "method", method_name(w, m));
		int ok = time_op(&o, &x, &rq, warmup, iters, fbuf, fbytes, st, tm[m]);
		if (ok && (best < 0 || cko_jnum_opt(tm[m], "median_ms", 0) < cko_jnum_opt(tm[best], "median_ms", 0)))
			best = m;
		cko_cub_rows_free(o.cub);
		o.cub = NULL;
	}
	/* The faster method that passed, else the first (and status says so). */
	const cJSON *pick = tm[best < 0 ? 0 : best];
	for (const cJSON *k = pick->child; k; k = k->next)
		cJSON_AddItemToObject(c, k->string, cJSON_Duplicate(k, 1));
	if (best < 0)
		cJSON_ReplaceItemInObject(c, "status", cJSON_CreateString("check_failed"));
	for (int m = 0; m < nm; m++) {
		if (all)
			cJSON_AddItemToArray(all, tm[m]);
		else
			cJSON_Delete(tm[m]);
	}
	if (all)
		cJSON_AddItemToObject(c, "methods", all);
	cko_exec_close(&x);
	cko_request_free(&rq);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"warmup", required_argument, 0, 'w'}, {"iterations", required_argument, 0, 'n'},
		{"no-flush", no_argument, 0, 'F'},     {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
	};
	int warmup = 10, iters = 100, flush = 1, c;
	const char *out = "-";
	while ((c = getopt_long(argc, argv, "w:n:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'w': warmup = atoi(optarg); break;
		case 'n': iters = atoi(optarg); break;
		case 'F': flush = 0; break;
		case 'o': out = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind >= argc || warmup < 0 || iters < 1)
		usage(2);
	cko_out_check(out);
	cko_requests_check(argc - optind, argv + optind);
	/* Every request of one workload, one the toolkit has a baseline for. */
	cko_request rq0;
	cko_request_load(argv[optind], &rq0);
	int w = workload_of(rq0.entry);
	if (w < 0)
		cko_die(CKO_BADINPUT, "%s: no vendor baseline for '%s' (only sgemm, transpose, reduce_sum)", argv[optind],
			rq0.entry);
	cko_request_free(&rq0);
	for (int i = optind; i < argc; i++) {
		op chk;
		cko_request_load(argv[i], &rq0);
		setup(&rq0, w, &chk);
		cko_request_free(&rq0);
	}
	cko_gpu g;
	cko_gpu_open(&g); /* the primary context, which cuBLAS and CUB share */
	cublasHandle_t h = NULL;
	CUstream st;
	CU_CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	int ver = 0;
	if (w != W_REDUCE_SUM) {
		CUBLAS_CHECK(cublasCreate(&h));
		CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
		CUBLAS_CHECK(cublasSetStream(h, (cudaStream_t)st));
		cublasGetVersion(h, &ver);
	}
	size_t fbytes = cko_flush_bytes(&g);
	CUdeviceptr fbuf = 0;
	if (flush)
		CU_CHECK(cuMemAlloc(&fbuf, fbytes));
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "tool", "cko-baseline");
	cJSON_AddStringToObject(o, "status", "ok");
	cJSON_AddStringToObject(o, "device", g.name);
	cJSON_AddStringToObject(o, "workload", wl[w].entry);
	cJSON_AddStringToObject(o, "vendor", wl[w].vendor);
	cJSON_AddStringToObject(o, "library", wl[w].library);
	if (h)
		cJSON_AddNumberToObject(o, "cublas_version", ver);
	else
		cJSON_AddNumberToObject(o, "cub_version", cko_cub_version());
	cJSON_AddNumberToObject(o, "warmup", warmup);
	cJSON_AddNumberToObject(o, "iterations", iters);
	cJSON_AddBoolToObject(o, "flush", flush);
	cJSON *cases = cJSON_AddArrayToObject(o, "cases");
	const char *overall = "ok";
	for (int i = optind; i < argc; i++) {
		cJSON *cj = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, cj);
		cJSON_AddStringToObject(cj, "status", "ok");
		cko_info("timing %s on %s", wl[w].vendor, argv[i]);
		time_request(h, argv[i], w, warmup, iters, fbuf, fbytes, st, cj);
		if (strcmp(cJSON_GetObjectItem(cj, "status")->valuestring, "ok"))
			overall = "check_failed";
	}
	cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString(overall));
	cko_json_write(out, o);
	if (h)
		cublasDestroy(h);
	return strcmp(overall, "ok") ? CKO_VERDICT : CKO_OK;
}
