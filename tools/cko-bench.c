/* cko-bench: times requests with CUDA events. Per request: warm-up
 * launches, then timed launches, each preceded (outside the timed interval)
 * by poisoning the outputs, restoring inout buffers and flushing the L2 by
 * writing a buffer twice its size. Launches rotate among the request's
 * input sets; with --check, the outputs of each set's last timed launch are
 * compared with its expected outputs, and inputs must be unchanged. */
#include "cko_gpu.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-bench [-w warmup] [-n iterations] [--no-flush] [--check] [-t seconds] [--no-sandbox]\n"
		"                 [--after record.json] [-o bench.json] request.json...\n"
		"  -w, --warmup warmup          untimed launches per request first (default 10)\n"
		"  -n, --iterations iterations  timed launches per request (default 100)\n"
		"      --no-flush               leave the L2 cache warm between launches\n"
		"      --check                  compare each set's last timed launch with its expected outputs\n"
		"  -t, --timeout seconds        seconds one launch may take (default 10)\n"
		"      --no-sandbox             run without Landlock (when the kernel has none)\n"
		"  -o, --output bench.json      the timings (default: standard output)\n"
		"      --after record.json      time only if the record (compare.json) says ok; else write a\n"
		"                               skipped record as bench.json and exit 0 (requests may be none)\n"
		"  -h, --help                   print this help and exit\n");
	exit(status);
}

typedef struct {
	cko_reqloop L; /* the shared options, the GPU, bench.json */
	int warmup, iters, flush, check;
	CUstream st;
	CUdeviceptr flushbuf;
	size_t flushbytes;
	int lost; /* a fault or timeout: the context is unusable */
} bench;

static void fail(cJSON *c, const char *status, const char *error, const char *msg)
{
	cJSON_ReplaceItemInObject(c, "status", cJSON_CreateString(status));
	if (error)
		cJSON_AddStringToObject(c, "error", error);
	if (msg)
		cJSON_AddStringToObject(c, "message", msg);
}

/* Checks each set's outputs (the last timed launch's) against expected, on
 * the device (cko_exec_compare). */
static int check_outputs(cko_exec *x, const cko_request *rq, CUstream st, cJSON *c)
{
	cJSON *chk = cJSON_AddArrayToObject(c, "check_sets");
	int all = 1;
	for (int s = 0; s < x->nsets; s++) {
		cJSON *sj = cJSON_CreateObject();
		cJSON_AddItemToArray(chk, sj);
		cJSON_AddNumberToObject(sj, "set", s);
		char msg[512];
		if (cko_exec_check_guards(x, s, msg, sizeof msg) || cko_exec_check_inputs(x, s, msg, sizeof msg)) {
			cJSON_AddStringToObject(sj, "status", "fail");
			cJSON_AddStringToObject(sj, "message", msg);
			all = 0;
			continue;
		}
		if (!rq->sets[s].expected)
			cko_die(CKO_BADINPUT, "%s: --check needs sets[%d].expected", rq->file, s);
		int ok = 1;
		cJSON *tensors = cJSON_AddObjectToObject(sj, "tensors");
		for (int i = 0; i < rq->nparams; i++) {
			const cko_rparam *q = &rq->params[i];
			if (!q->p.is_buffer || q->p.role == CKO_IN)
				continue;
			char *path = xasprintf("%s/%s.npy", rq->sets[s].expected, q->p.name);
			cko_tensor ac;
			cko_cmp r;
			if (cko_exec_compare(x, s, i, path, &q->tol, 3, st, &r, &ac))
				cko_die(CKO_BADINPUT, "%s: %s", path, r.problem);
			ok &= r.ok;
			cko_tensor shape = cko_rparam_shape(q);
			cJSON_AddItemToObject(tensors, q->p.name, cko_cmp_json(&r, &shape, &q->tol));
			cko_tensor_free(&ac);
			free(path);
		}
		cJSON_AddStringToObject(sj, "status", ok ? "ok" : "fail");
		all &= ok;
	}
	return all;
}

/* The timed launches of each set gave the same outputs (by their device
 * hashes); else the candidate fails with the first launch that differed. */
static int timed_launches_agree(const bench *B, const cko_exec *x, CUdeviceptr hashes, int nout, cJSON *c)
{
	size_t n = (size_t)B->iters * (size_t)nout;
	uint64_t *h = xmalloc(n * sizeof *h);
	CU_CHECK(cuMemcpyDtoH(h, hashes, n * sizeof *h));
	int ok = 1;
	for (int t = x->nsets; t < B->iters && ok; t++) {
		int first = t % x->nsets; /* the set's first timed launch */
		if (memcmp(&h[(size_t)t * nout], &h[(size_t)first * nout], (size_t)nout * sizeof *h)) {
			char m[256];
			snprintf(m, sizeof m,
				 "timed launch %d gave different outputs from timed launch %d on the same inputs (set %d)",
				 t + 1, first + 1, (B->warmup + t) % x->nsets);
			fail(c, "nondeterministic", NULL, m);
			ok = 0;
		}
	}
	cJSON_AddNumberToObject(c, "launches_hashed", ok ? B->iters : 0);
	free(h);
	return ok;
}

/* One request's case; 1 when the context is lost (cko_reqloop_run). */
static int bench_request(void *arg, const char *path, cJSON *c)
{
	bench *B = arg;
	cko_request rq;
	cko_request_load(path, &rq);
	cJSON_AddStringToObject(c, "case", rq.case_name);
	cko_exec x;
	char err[512];
	if (cko_exec_open(&x, &rq, rq.nsets, err, sizeof err)) {
		fail(c, "launch_error", NULL, err);
		goto out;
	}
	cJSON_AddNumberToObject(c, "sets", x.nsets);
	int total = B->warmup + B->iters;
	CUevent *ev = xcalloc((size_t)B->iters * 2, sizeof *ev);
	for (int i = 0; i < B->iters * 2; i++)
		CU_CHECK(cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
	CUevent done;
	CU_CHECK(cuEventCreate(&done, CU_EVENT_DEFAULT));
	/* Every timed launch's outputs are hashed on the device after its stop
	 * event: the launches of one set must agree bit for bit, so the one
	 * that --check compares with the expected outputs vouches for all. */
	int nout = 0;
	for (int i = 0; i < rq.nparams; i++)
		nout += rq.params[i].p.is_buffer && rq.params[i].p.role != CKO_IN;
	CUdeviceptr hashes = 0;
	if (nout)
		CU_CHECK(cuMemAlloc(&hashes, (size_t)B->iters * (size_t)nout * sizeof(uint64_t)));
	/* With the flush (the default) every launch runs in a freshly loaded
	 * module, so nothing kept in __device__ memory survives from one launch
	 * to the next; the flush keeps the GPU busy while the host queues the
	 * start event, the kernel and the stop event, so they run back to back.
	 * Without it, everything is queued at once. */
	CUresult r = CUDA_SUCCESS;
	double tl = cko_now(), reload0 = cko_phase_s[CKO_PH_RELOAD];
	for (int i = 0; i < total && r == CUDA_SUCCESS; i++) {
		int s = i % x.nsets, t = i - B->warmup;
		if (B->flush && i > 0) {
			r = cko_wait_event(done, B->L.timeout);
			if (r != CUDA_SUCCESS)
				break;
			if (cko_exec_reload(&x, err, sizeof err)) {
				fail(c, "launch_error", NULL, err);
				goto done;
			}
		}
		cko_exec_reset(&x, s, CKO_POISON_A, B->st);
		if (B->flush)
			CU_CHECK(cuMemsetD8Async(B->flushbuf, (unsigned char)i, B->flushbytes, B->st));
		if (t >= 0)
			CU_CHECK(cuEventRecord(ev[2 * t], B->st));
		r = cko_exec_launch(&x, s, B->st);
		if (r != CUDA_SUCCESS) {
			fail(c, cko_cu_is_fault(r) ? "fault" : "launch_error", cko_cu_name(r), "cuLaunchKernel failed");
			B->lost = cko_cu_is_fault(r);
			goto done;
		}
		if (t >= 0) {
			CU_CHECK(cuEventRecord(ev[2 * t + 1], B->st));
			if (nout)
				cko_exec_hash_outputs(&x, s, B->st, hashes + (CUdeviceptr)t * nout * sizeof(uint64_t));
		}
		CU_CHECK(cuEventRecord(done, B->st));
	}
	if (r == CUDA_SUCCESS)
		r = cko_wait_event(done, B->L.timeout * (B->flush ? 1 : total));
	cko_phase_add(CKO_PH_LAUNCH, &tl); /* less the reloads, counted apart */
	cko_phase_s[CKO_PH_LAUNCH] -= cko_phase_s[CKO_PH_RELOAD] - reload0;
	if (r != CUDA_SUCCESS) {
		char m[128];
		snprintf(m, sizeof m, "%s while timing", r == CKO_CU_TIMEOUT ? "did not finish" : "faulted");
		fail(c, r == CKO_CU_TIMEOUT ? "timeout" : "fault", cko_cu_name(r), m);
		B->lost = 1;
		goto done;
	}
	double *ms = xmalloc((size_t)B->iters * sizeof *ms);
	for (int t = 0; t < B->iters; t++) {
		float f;
		CU_CHECK(cuEventElapsedTime(&f, ev[2 * t], ev[2 * t + 1]));
		ms[t] = f;
	}
	cko_stats st;
	cko_stats_compute(ms, B->iters, &st);
	cJSON *sj = cko_stats_json(&st, "_ms");
	for (cJSON *k = sj->child; k; k = k->next)
		cJSON_AddItemToObject(c, k->string, cJSON_Duplicate(k, 1));
	cJSON_Delete(sj);
	cJSON_AddItemToObject(c, "samples_ms", cJSON_CreateDoubleArray(ms, B->iters));
	/* Achieved rates from the case's FLOP and byte counts. */
	if (st.median > 0 && rq.flops > 0)
		cJSON_AddNumberToObject(c, "tflops", rq.flops / (st.median * 1e-3) * 1e-12);
	if (st.median > 0 && rq.bytes > 0)
		cJSON_AddNumberToObject(c, "gbps", rq.bytes / (st.median * 1e-3) * 1e-9);
	free(ms);
	if (nout && !timed_launches_agree(B, &x, hashes, nout, c))
		goto done;
	if (B->check) {
		int ok = check_outputs(&x, &rq, B->st, c);
		cJSON_AddStringToObject(c, "check", ok ? "ok" : "fail");
		if (!ok)
			fail(c, "check_failed", NULL, "the outputs of the timed launches differ from the expected ones");
	} else {
		cJSON_AddStringToObject(c, "check", "skipped");
	}
done:
	for (int i = 0; i < B->iters * 2 && !B->lost; i++)
		cuEventDestroy(ev[i]);
	if (hashes && !B->lost)
		cuMemFree(hashes);
	free(ev);
out:
	if (!B->lost)
		cko_exec_close(&x);
	cko_request_free(&rq);
	return B->lost;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"warmup", required_argument, 0, 'w'}, {"iterations", required_argument, 0, 'n'},
		{"no-flush", no_argument, 0, 'F'},     {"check", no_argument, 0, 'c'},
		CKO_REQLOOP_LONGOPTS,                  {0, 0, 0, 0},
	};
	bench B = {.L = CKO_REQLOOP("cko-bench", usage), .warmup = 10, .iters = 100, .flush = 1};
	int c;
	char *end;
	while ((c = getopt_long(argc, argv, CKO_REQLOOP_SHORTOPTS "w:n:", lo, NULL)) != -1) {
		switch (c) {
		case 'w':
			B.warmup = (int)strtol(optarg, &end, 10);
			if (*end || B.warmup < 0 || B.warmup > 100000)
				cko_die(CKO_BADINPUT, "-w %s: expected a count >= 0", optarg);
			break;
		case 'n':
			B.iters = (int)strtol(optarg, &end, 10);
			if (*end || B.iters < 1 || B.iters > 100000)
				cko_die(CKO_BADINPUT, "-n %s: expected a count >= 1", optarg);
			break;
		case 'F': B.flush = 0; break;
		case 'c': B.check = 1; break;
		default: cko_reqloop_option(&B.L, c, optarg);
		}
	}
	if (cko_reqloop_start(&B.L, argc - optind, argv + optind, B.warmup + B.iters))
		return 0;
	CU_CHECK(cuStreamCreate(&B.st, CU_STREAM_NON_BLOCKING));
	if (B.flush) {
		B.flushbytes = cko_flush_bytes(&B.L.gpu);
		CU_CHECK(cuMemAlloc(&B.flushbuf, B.flushbytes));
	}
	cJSON *out = B.L.result;
	cJSON_AddNumberToObject(out, "warmup", B.warmup);
	cJSON_AddNumberToObject(out, "iterations", B.iters);
	cJSON_AddBoolToObject(out, "flush", B.flush);
	cJSON_AddStringToObject(out, "sandbox", cko_sandbox_describe());
	cJSON_AddNumberToObject(out, "flush_bytes", (double)B.flushbytes);
	return cko_reqloop_run(&B.L, "timing", bench_request, &B);
}
