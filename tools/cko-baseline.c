/* cko-baseline: the vendor baseline for sgemm requests: cuBLAS FP32 SGEMM in
 * pedantic math mode (no TF32), timed with the protocol of cko-bench
 * (warm-up, CUDA events per launch, L2 flushed between launches, input sets
 * rotated, outputs checked against the expected ones). */
#include "cko_gpu.h"

#include <cublas_v2.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-baseline [-w warmup] [-n iterations] [--no-flush] [-o baseline.json] request.json...\n"
		"  -w, --warmup warmup          warm-up launches per request (default 10)\n"
		"  -n, --iterations iterations  timed launches per request (default 100)\n"
		"      --no-flush               keep the L2 warm between launches\n"
		"  -o, --output baseline.json   the timings (default: standard output)\n"
		"  -h, --help                   print this help and exit\n");
	exit(status);
}

#define CUBLAS_CHECK(call)                                                                                         \
	do {                                                                                                       \
		cublasStatus_t st_ = (call);                                                                       \
		if (st_ != CUBLAS_STATUS_SUCCESS)                                                                  \
			cko_die(CKO_ENV, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cublasGetStatusString(st_));  \
	} while (0)

/* Index of the named parameter, checking its kind; dies with 2 otherwise. */
static int param(const cko_request *rq, const char *name, int buffer, int role)
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
	cko_die(CKO_BADINPUT, "%s: not an sgemm request (needs f32 A, B in, C out and integer M, N, K): %s", rq->file,
		name);
}

static void time_request(cublasHandle_t h, const char *path, int warmup, int iters, int flush, CUdeviceptr fbuf,
			 size_t fbytes, CUstream st, cJSON *c)
{
	cko_request rq;
	cko_request_load(path, &rq);
	cJSON_AddStringToObject(c, "case", rq.case_name);
	int ia = param(&rq, "A", 1, CKO_IN), ib = param(&rq, "B", 1, CKO_IN), ic = param(&rq, "C", 1, CKO_OUT);
	int im = param(&rq, "M", 0, 0), in = param(&rq, "N", 0, 0), ik = param(&rq, "K", 0, 0);
	int M = (int)rq.params[im].ivalue, N = (int)rq.params[in].ivalue, K = (int)rq.params[ik].ivalue;
	/* Buffers as cko-run makes them, without the candidate's module. */
	int nsets = rq.nsets, np = rq.nparams;
	cko_tensor *host = xcalloc((size_t)nsets * np, sizeof *host);
	CUdeviceptr *dev = xcalloc((size_t)nsets * 3, sizeof *dev);
	for (int s = 0; s < nsets; s++) {
		cko_request_read_inputs(&rq, s, &host[s * np]);
		int ids[3] = {ia, ib, ic};
		for (int k = 0; k < 3; k++) {
			size_t bytes = rq.params[ids[k]].count * 4;
			CU_CHECK(cuMemAlloc(&dev[s * 3 + k], bytes));
			if (k < 2)
				CU_CHECK(cuMemcpyHtoD(dev[s * 3 + k], host[s * np + ids[k]].data, bytes));
		}
	}
	CUevent *ev = xcalloc((size_t)iters * 2, sizeof *ev);
	for (int i = 0; i < iters * 2; i++)
		CU_CHECK(cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
	const float alpha = 1.0f, beta = 0.0f;
	size_t cbytes = (size_t)M * N * 4;
	for (int i = 0; i < warmup + iters; i++) {
		int s = i % nsets, t = i - warmup;
		CU_CHECK(cuMemsetD8Async(dev[s * 3 + 2], CKO_POISON_A, cbytes, st));
		if (flush)
			CU_CHECK(cuMemsetD8Async(fbuf, (unsigned char)i, fbytes, st));
		if (t >= 0)
			CU_CHECK(cuEventRecord(ev[2 * t], st));
		/* Row-major C = A B is column-major C^T = B^T A^T. */
		CUBLAS_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, (const float *)dev[s * 3 + 1], N,
					 (const float *)dev[s * 3], K, &beta, (float *)dev[s * 3 + 2], N));
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
	cJSON_AddNumberToObject(c, "tflops", 2.0 * M * N * (double)K / (sts.median * 1e-3) * 1e-12);
	/* The result must be right, or the timing means nothing. */
	int ok = 1;
	for (int s = 0; s < nsets; s++) {
		if (!rq.sets[s].expected)
			continue;
		char *p = xasprintf("%s/C.npy", rq.sets[s].expected);
		cko_tensor ex, ac = {.dtype = CKO_F32, .ndim = 2, .shape = {M, N}, .count = (size_t)M * N};
		cko_npy_read(p, &ex);
		ac.data = xmalloc(cbytes);
		CU_CHECK(cuMemcpyDtoH(ac.data, dev[s * 3 + 2], cbytes));
		cko_cmp r;
		cko_compare(&ex, &ac, &rq.params[ic].tol, 3, &r);
		ok &= r.ok;
		cko_tensor_free(&ex);
		cko_tensor_free(&ac);
		free(p);
	}
	cJSON_AddStringToObject(c, "check", ok ? "pass" : "fail");
	if (!ok)
		cJSON_ReplaceItemInObject(c, "status", cJSON_CreateString("check_failed"));
	for (int i = 0; i < iters * 2; i++)
		cuEventDestroy(ev[i]);
	for (int k = 0; k < nsets * 3; k++)
		cuMemFree(dev[k]);
	for (int k = 0; k < nsets * np; k++)
		cko_tensor_free(&host[k]);
	free(ev);
	free(ms);
	free(dev);
	free(host);
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
	cko_gpu g;
	cko_gpu_open(&g); /* the primary context, which cuBLAS shares */
	cublasHandle_t h;
	CUBLAS_CHECK(cublasCreate(&h));
	CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
	CUstream st;
	CU_CHECK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	CUBLAS_CHECK(cublasSetStream(h, (cudaStream_t)st));
	size_t fbytes = cko_flush_bytes(&g);
	CUdeviceptr fbuf = 0;
	if (flush)
		CU_CHECK(cuMemAlloc(&fbuf, fbytes));
	int ver = 0;
	cublasGetVersion(h, &ver);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "tool", "cko-baseline");
	cJSON_AddStringToObject(o, "status", "ok");
	cJSON_AddStringToObject(o, "device", g.name);
	cJSON_AddStringToObject(o, "library", "cuBLAS cublasSgemm, CUBLAS_PEDANTIC_MATH (FP32, no TF32)");
	cJSON_AddNumberToObject(o, "cublas_version", ver);
	cJSON_AddNumberToObject(o, "warmup", warmup);
	cJSON_AddNumberToObject(o, "iterations", iters);
	cJSON_AddBoolToObject(o, "flush", flush);
	cJSON *cases = cJSON_AddArrayToObject(o, "cases");
	const char *overall = "ok";
	for (int i = optind; i < argc; i++) {
		cJSON *cj = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, cj);
		cJSON_AddStringToObject(cj, "status", "ok");
		cko_info("timing cuBLAS on %s", argv[i]);
		time_request(h, argv[i], warmup, iters, flush, fbuf, fbytes, st, cj);
		if (strcmp(cJSON_GetObjectItem(cj, "status")->valuestring, "ok"))
			overall = "check_failed";
	}
	cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString(overall));
	cko_json_write(out, o);
	cublasDestroy(h);
	return strcmp(overall, "ok") ? CKO_VERDICT : CKO_OK;
}
