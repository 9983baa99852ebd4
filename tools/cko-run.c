/* cko-run: launches requests and writes their outputs as .npy files.
 * Each set is launched twice, with outputs poisoned by two different byte
 * patterns; the two results must agree bit for bit, which proves every
 * output element was written and nothing stale or uninitialised was read.
 * Guards around every buffer catch out-of-bounds writes; inputs are
 * checked unchanged. A fault or a hang is a verdict (exit 1), never a hang. */
#include "cko_gpu.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-run [-o run.json] [-t seconds] [--no-double] [--sets n] [--no-write] [--keep-outputs]\n"
		"               [--no-compare] [--no-sandbox] [--after record.json] request.json...\n"
		"  -o, --output run.json  the verdicts (default: standard output)\n"
		"  -t, --timeout seconds  seconds one launch may take (default 10)\n"
		"      --no-double        launch each set once (for profilers and sanitizers)\n"
		"      --sets n           only the first n input sets of each request (default 16)\n"
		"      --no-write         write no outputs, nor the records that stand for them\n"
		"      --keep-outputs     write every output as .npy (by default only a failing set's, and those\n"
		"                         of sets without expected outputs; the others get a NAME.json record)\n"
		"      --no-compare       do not compare with the expected outputs (every output is then kept)\n"
		"      --no-sandbox       run without Landlock (when the kernel has none)\n"
		"      --after record.json  run only if the record (requests/index.json) says ok; else write a\n"
		"                         skipped record as run.json and exit 0 (requests may then be none)\n"
		"  -h, --help             print this help and exit\n");
	exit(status);
}

static void set_status(cJSON *o, const char *status)
{
	cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString(status));
}

/* Compares the two runs' outputs; returns "ok", "unwritten" or
 * "nondeterministic" and describes the first differences in o. */
static const char *compare_runs(const cko_rparam *q, const cko_tensor *a, const cko_tensor *b, cJSON *o)
{
	size_t es = cko_dtype_size(q->p.dtype), unwritten = 0, differ = 0, first_u = 0, first_d = 0;
	const unsigned char *pa = a->data, *pb = b->data;
	if (!memcmp(pa, pb, a->count * es))
		return "ok"; /* the common case, at memory speed */
	for (size_t i = 0; i < a->count; i++) {
		const unsigned char *x = pa + i * es, *y = pb + i * es;
		if (!memcmp(x, y, es))
			continue;
		int pois_a = 1, pois_b = 1;
		for (size_t k = 0; k < es; k++) {
			pois_a &= x[k] == CKO_POISON_A;
			pois_b &= y[k] == CKO_POISON_B;
		}
		if (pois_a && pois_b) {
			if (!unwritten++)
				first_u = i;
		} else if (!differ++) {
			first_d = i;
		}
	}
	if (!unwritten && !differ)
		return "ok";
	cJSON *t = cJSON_AddObjectToObject(o, q->p.name);
	cJSON_AddNumberToObject(t, "count", (double)a->count);
	cJSON_AddNumberToObject(t, "unwritten", (double)unwritten);
	cJSON_AddNumberToObject(t, "differing", (double)differ);
	if (unwritten)
		cJSON_AddNumberToObject(t, "first_unwritten", (double)first_u);
	if (differ)
		cJSON_AddNumberToObject(t, "first_differing", (double)first_d);
	return unwritten ? "unwritten" : "nondeterministic";
}

typedef struct {
	cko_reqloop L;    /* the shared options, the GPU, run.json */
	int twice;        /* two launches per set (default; --no-double: one) */
	int nsets;        /* --sets */
	int write;        /* write the outputs (default; --no-write) */
	int compare;      /* compare with the expected outputs (default) */
	int keep;         /* --keep-outputs */
	int fault;        /* the context is gone */
	int timed_out;
	CUstream st;
	CUevent e0, e1;
} runner;

static int launch_timed(runner *R, cko_exec *x, int s, int poison, cJSON *c, double *ms);

/* One launch of set s with poison byte; 0 ok, else fills status/message. */
static int launch_once(runner *R, cko_exec *x, int s, int poison, cJSON *c, double *ms)
{
	double t0 = cko_now();
	int rc = launch_timed(R, x, s, poison, c, ms);
	cko_phase_add(CKO_PH_LAUNCH, &t0);
	return rc;
}

static int launch_timed(runner *R, cko_exec *x, int s, int poison, cJSON *c, double *ms)
{
	cko_exec_reset(x, s, poison, R->st);
	cko_smem_poison(&R->L.gpu, poison == CKO_POISON_A ? CKO_SMEM_POISON_A : CKO_SMEM_POISON_B, R->st);
	CU_CHECK(cuEventRecord(R->e0, R->st));
	CUresult r = cko_exec_launch(x, s, R->st);
	if (r != CUDA_SUCCESS) {
		set_status(c, cko_cu_is_fault(r) ? "fault" : "launch_error");
		cJSON_AddStringToObject(c, "error", cko_cu_name(r));
		cJSON_AddStringToObject(c, "message", "cuLaunchKernel refused the launch configuration");
		R->fault = cko_cu_is_fault(r);
		return 1;
	}
	CU_CHECK(cuEventRecord(R->e1, R->st));
	r = cko_wait_event(R->e1, R->L.timeout);
	if (r == CKO_CU_TIMEOUT) {
		set_status(c, "timeout");
		cJSON_AddStringToObject(c, "error", "timeout");
		char m[128];
		snprintf(m, sizeof m, "the kernel did not finish within %g s", R->L.timeout);
		cJSON_AddStringToObject(c, "message", m);
		R->timed_out = 1;
		return 1;
	}
	if (r != CUDA_SUCCESS) {
		set_status(c, cko_cu_is_fault(r) ? "fault" : "launch_error");
		cJSON_AddStringToObject(c, "error", cko_cu_name(r));
		const char *d = NULL;
		cuGetErrorString(r, &d);
		cJSON_AddStringToObject(c, "message", d ? d : "");
		R->fault = 1;
		return 1;
	}
	float f = 0;
	CU_CHECK(cuEventElapsedTime(&f, R->e0, R->e1));
	*ms = f;
	return 0;
}

/* Checks guards and inputs after a launch; 0 ok. */
static int check_after(cko_exec *x, int s, cJSON *c)
{
	char msg[512];
	if (cko_exec_check_guards(x, s, msg, sizeof msg)) {
		set_status(c, "guard_overwrite");
		cJSON_AddStringToObject(c, "message", msg);
		return 1;
	}
	if (cko_exec_check_inputs(x, s, msg, sizeof msg)) {
		set_status(c, "input_modified");
		cJSON_AddStringToObject(c, "message", msg);
		return 1;
	}
	return 0;
}

/* The two launches of set s gave the same outputs, by their device hashes
 * (taken after each launch; the first launch's outputs saved on the device).
 * Only when they differ do both come back, to tell unwritten elements from
 * differing ones; *first then holds the first launch's outputs. */
static const char *launches_agree(cko_exec *x, int s, CUstream st, CUdeviceptr h, int nout, cJSON *c,
				  cko_tensor *first)
{
	uint64_t *hv = xmalloc(2 * (size_t)nout * sizeof *hv);
	CU_CHECK(cuStreamSynchronize(st));
	CU_CHECK(cuMemcpyDtoH(hv, h, 2 * (size_t)nout * sizeof *hv));
	double t0 = cko_now();
	int same = !memcmp(hv, hv + nout, (size_t)nout * sizeof *hv);
	free(hv);
	cko_phase_add(CKO_PH_COMPARE, &t0);
	if (same)
		return "ok";
	cJSON *diff = cJSON_CreateObject();
	const char *verdict = "ok";
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		if (!q->p.is_buffer || q->p.role == CKO_IN)
			continue;
		cko_tensor second;
		cko_exec_read_saved(x, i, &first[i]);
		cko_exec_read(x, s, i, &second);
		t0 = cko_now();
		const char *v = compare_runs(q, &first[i], &second, diff);
		cko_phase_add(CKO_PH_COMPARE, &t0);
		if (strcmp(v, "ok") && !strcmp(verdict, "ok"))
			verdict = v;
		cko_tensor_free(&second);
	}
	if (!strcmp(verdict, "ok")) { /* a hash collision: the outputs are equal */
		cJSON_Delete(diff);
		return "ok";
	}
	set_status(c, verdict);
	cJSON_AddStringToObject(c, "message", !strcmp(verdict, "unwritten")
						      ? "some output elements were never written"
						      : "two launches on the same inputs gave different bits "
							"(stale or uninitialised reads, a race, or order-dependent atomics)");
	cJSON_AddItemToObject(c, "detail", diff);
	return verdict;
}

/* Where output `name` of set s goes: NAME.npy (the outputs) or NAME.json
 * (what the device comparison found, when the outputs were not kept). The
 * other one is removed, so a stale file never answers for this run. */
static void write_output(const cko_request *rq, int s, const cko_rparam *q, const cko_tensor *t, const cJSON *verdict)
{
	char *npy = cko_request_out_path(rq, s, q->p.name);
	char *json = cko_request_record_path(rq, s, q->p.name);
	double t0 = cko_now();
	if (t) {
		cko_npy_write(npy, t);
		unlink(json);
	} else {
		cko_json_write(json, verdict);
		unlink(npy);
	}
	cko_phase_add(CKO_PH_WRITE, &t0);
	free(npy);
	free(json);
}

/* The record of a device comparison, read by cko-compare --requests in place
 * of the outputs (docs/formats.md, "Outputs not kept"). */
static cJSON *verdict_json(const cko_request *rq, const char *expected, const cko_rparam *q, int s, uint64_t digest,
			   const cko_tol *tol, cJSON *cmp)
{
	cJSON *v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "tool", "cko-run");
	cJSON_AddStringToObject(v, "tensor", q->p.name);
	cJSON_AddNumberToObject(v, "set", s);
	/* relative to the record's folder, as paths in requests are */
	char *npy = cko_request_out_path(rq, s, q->p.name), *dir = cko_dirname(npy);
	char *rel = cko_path_relative(dir, expected);
	cJSON_AddStringToObject(v, "expected", rel);
	free(rel);
	free(dir);
	free(npy);
	cJSON_AddItemToObject(v, "expected_stamp", cko_file_stamp(expected));
	char d[32];
	snprintf(d, sizeof d, "%016llx", (unsigned long long)digest);
	cJSON_AddStringToObject(v, "digest", d);
	cJSON_AddBoolToObject(v, "nan_equal", tol->nan_equal);
	cJSON_AddItemToObject(v, "compare", cmp);
	return v;
}

/* One request's case; 1 when the context is lost (cko_reqloop_run). */
static int run_request(void *arg, const char *path, cJSON *c)
{
	runner *R = arg;
	int nsets = R->nsets, twice = R->twice, write = R->write;
	cko_request rq;
	cko_request_load(path, &rq);
	cJSON_AddStringToObject(c, "case", rq.case_name);
	cko_exec x;
	char err[512];
	if (cko_exec_open(&x, &rq, nsets, err, sizeof err)) {
		set_status(c, "launch_error");
		cJSON_AddStringToObject(c, "message", err);
		cko_exec_close(&x);
		cko_request_free(&rq);
		return 0;
	}
	int nout = 0;
	for (int i = 0; i < x.np; i++)
		nout += rq.params[i].p.is_buffer && rq.params[i].p.role != CKO_IN;
	CUdeviceptr hashes = 0;
	if (nout && twice)
		CU_CHECK(cuMemAlloc(&hashes, 2 * (size_t)nout * sizeof(uint64_t)));
	int compared = 0, kept = 0;
	cJSON *sets = cJSON_AddArrayToObject(c, "sets");
	for (int s = 0; s < x.nsets; s++) {
		cJSON *sj = cJSON_CreateObject();
		cJSON_AddItemToArray(sets, sj);
		cJSON_AddNumberToObject(sj, "set", s);
		double ms = 0, ms2 = 0;
		if (launch_once(R, &x, s, CKO_POISON_A, c, &ms) || check_after(&x, s, c))
			break; /* check_after is never reached after a timeout */
		cJSON_AddNumberToObject(sj, "time_ms", ms);
		cko_tensor *out = xcalloc((size_t)x.np, sizeof *out); /* outputs on the host, where needed */
		int bad = 0;
		if (twice && nout) {
			cko_exec_hash_outputs(&x, s, R->st, hashes);
			cko_exec_save(&x, s, R->st);
			if (launch_once(R, &x, s, CKO_POISON_B, c, &ms2) || check_after(&x, s, c))
				bad = 1;
			else {
				cko_exec_hash_outputs(&x, s, R->st, hashes + (CUdeviceptr)nout * sizeof(uint64_t));
				bad = strcmp(launches_agree(&x, s, R->st, hashes, nout, c, out), "ok") != 0;
			}
		}
		/* The outputs now on the device are verified ones (both launches
		 * agree): compare them with the expected outputs there. */
		const char *ex_dir = rq.sets[s].expected;
		cJSON *tensors = !bad && ex_dir && R->compare ? cJSON_AddObjectToObject(sj, "compare") : NULL;
		for (int i = 0; i < x.np && !R->fault && !R->timed_out; i++) {
			const cko_rparam *q = &rq.params[i];
			if (!q->p.is_buffer || q->p.role == CKO_IN)
				continue;
			cJSON *verdict = NULL;
			if (tensors) {
				char *e = xasprintf("%s/%s.npy", ex_dir, q->p.name);
				cko_cmp r;
				if (cko_exec_compare(&x, s, i, e, &q->tol, 5, R->st, &r, &out[i]))
					cko_die(CKO_BADINPUT, "%s: %s", e, r.problem);
				cko_tensor shape = cko_rparam_shape(q);
				cJSON *cmp = cko_cmp_json(&r, &shape, &q->tol);
				cJSON_AddItemToObject(tensors, q->p.name, cJSON_Duplicate(cmp, 1));
				if (!r.ok && !out[i].data)
					cko_exec_read(&x, s, i, &out[i]);
				verdict = verdict_json(&rq, e, q, s, cko_exec_digest(&x, s, i), &q->tol, cmp);
				compared = 1;
				free(e);
			}
			/* Outputs are written where they are kept: always with
			 * --keep-outputs or without expected ones (the reference's
			 * become the expected outputs), and for a set that failed. */
			int keep = R->keep || !tensors || out[i].data;
			if (write && rq.out) {
				if (keep && !out[i].data)
					cko_exec_read(&x, s, i, &out[i]);
				write_output(&rq, s, q, keep ? &out[i] : NULL, verdict);
				kept |= keep;
			}
			cJSON_Delete(verdict);
		}
		for (int i = 0; i < x.np; i++)
			cko_tensor_free(&out[i]);
		free(out);
		if (bad || R->fault || R->timed_out)
			break;
	}
	cJSON_AddStringToObject(c, "compared", compared ? "device" : "none");
	cJSON_AddBoolToObject(c, "outputs_kept", kept);
	/* After a fault or a timeout the context is lost or still busy: freeing
	 * would wait for the kernel forever. The process exits instead. */
	if (!R->fault && !R->timed_out) {
		if (hashes)
			cuMemFree(hashes);
		cko_exec_close(&x);
	}
	cko_request_free(&rq);
	return R->fault || R->timed_out;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"no-double", no_argument, 0, '1'},    {"sets", required_argument, 0, 'S'},
		{"no-write", no_argument, 0, 'W'},     {"keep-outputs", no_argument, 0, 'K'},
		{"no-compare", no_argument, 0, 'C'},   CKO_REQLOOP_LONGOPTS,
		{0, 0, 0, 0},
	};
	runner R = {.L = CKO_REQLOOP("cko-run", usage), .twice = 1, .nsets = 16, .write = 1, .compare = 1};
	R.L.skipped_named = 1;
	int c;
	while ((c = getopt_long(argc, argv, CKO_REQLOOP_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case '1': R.twice = 0; break;
		case 'S':
			R.nsets = atoi(optarg);
			if (R.nsets < 1)
				cko_die(CKO_BADINPUT, "--sets %s: expected a count >= 1", optarg);
			break;
		case 'W': R.write = 0; break;
		case 'K': R.keep = 1; break;
		case 'C': R.compare = 0; break;
		default: cko_reqloop_option(&R.L, c, optarg);
		}
	}
	if (cko_reqloop_start(&R.L, argc - optind, argv + optind, 4.0 * (R.twice ? 2 : 1)))
		return 0;
	cJSON_AddBoolToObject(R.L.result, "double", R.twice);
	cJSON_AddStringToObject(R.L.result, "sandbox", cko_sandbox_describe());
	CU_CHECK(cuStreamCreate(&R.st, CU_STREAM_NON_BLOCKING));
	CU_CHECK(cuEventCreate(&R.e0, CU_EVENT_DEFAULT));
	CU_CHECK(cuEventCreate(&R.e1, CU_EVENT_DEFAULT));
	return cko_reqloop_run(&R.L, "running", run_request, &R);
}
