/* exec.c: a request's buffers on the device, with guards and poison. */
#include "cko_gpu.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double cko_phase_s[CKO_PH_N];
int cko_input_host_checks;

void cko_phase_add(int ph, double *t0)
{
	double t = cko_now();
	cko_phase_s[ph] += t - *t0;
	*t0 = t;
}

cJSON *cko_phase_json(void)
{
	static const char *names[CKO_PH_N] = {"init",    "load",    "upload", "launch", "check",
					      "readback", "compare", "write",  "reload"};
	cJSON *o = cJSON_CreateObject();
	for (int i = 0; i < CKO_PH_N; i++)
		cJSON_AddNumberToObject(o, names[i], cko_phase_s[i]);
	/* inputs whose device hash differed and were compared on the host */
	cJSON_AddNumberToObject(o, "input_host_checks", cko_input_host_checks);
	return o;
}

#define AT(x, s, i) ((size_t)(s) * (size_t)(x)->np + (size_t)(i))

/* The unchanged-input check runs on the device: after the upload and after
 * each launch, a keyed hash of every input buffer (the sum over its 64-bit
 * words of splitmix64(i * golden ^ key ^ word), a bijection per word, so
 * one changed word always changes the sum, and more cancel only by chance:
 * the key is drawn per process and no candidate kernel can see it). Only a
 * mismatch copies the buffer back, to name the first changed element; the
 * host copy stays the authority. Reading gigabytes back over PCIe after
 * every launch was most of cko-run's time on memory-bound workloads. */
static const char hash_ptx[] =
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	".visible .entry cko_hash64(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<5>;\n"
	"\t.reg .b64 %rd<14>;\n"
	"\tld.param.u64 %rd1, [p0];\n"
	"\tld.param.u64 %rd2, [p1];\n"
	"\tld.param.u64 %rd3, [p2];\n"
	"\tld.param.u64 %rd4, [p3];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd4, %rd4;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %ntid.x;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tmov.u32 %r4, %nctaid.x;\n"
	"\tmul.wide.u32 %rd5, %r1, %r2;\n"
	"\tcvt.u64.u32 %rd6, %r3;\n"
	"\tadd.u64 %rd5, %rd5, %rd6;\n"
	"\tmul.wide.u32 %rd7, %r4, %r2;\n"
	"\tmov.u64 %rd8, 0;\n"
	"$L_loop:\n"
	"\tsetp.ge.u64 %p1, %rd5, %rd2;\n"
	"\t@%p1 bra $L_done;\n"
	"\tshl.b64 %rd9, %rd5, 3;\n"
	"\tadd.u64 %rd9, %rd1, %rd9;\n"
	"\tld.global.u64 %rd10, [%rd9];\n"
	"\tmul.lo.u64 %rd11, %rd5, 0x9E3779B97F4A7C15;\n"
	"\txor.b64 %rd11, %rd11, %rd3;\n"
	"\txor.b64 %rd11, %rd11, %rd10;\n"
	"\tshr.u64 %rd12, %rd11, 30;\n"
	"\txor.b64 %rd11, %rd11, %rd12;\n"
	"\tmul.lo.u64 %rd11, %rd11, 0xBF58476D1CE4E5B9;\n"
	"\tshr.u64 %rd12, %rd11, 27;\n"
	"\txor.b64 %rd11, %rd11, %rd12;\n"
	"\tmul.lo.u64 %rd11, %rd11, 0x94D049BB133111EB;\n"
	"\tshr.u64 %rd12, %rd11, 31;\n"
	"\txor.b64 %rd11, %rd11, %rd12;\n"
	"\tadd.u64 %rd8, %rd8, %rd11;\n"
	"\tadd.u64 %rd5, %rd5, %rd7;\n"
	"\tbra.uni $L_loop;\n"
	"$L_done:\n"
	"\tatom.global.add.u64 %rd13, [%rd4], %rd8;\n"
	"\tret;\n"
	"}\n";

static CUmodule hash_mod;
static CUfunction hash_fn;
static CUdeviceptr hash_out;
static uint64_t hash_key;

static void hash_init(void)
{
	if (hash_fn)
		return;
	CU_CHECK(cuModuleLoadData(&hash_mod, hash_ptx));
	CU_CHECK(cuModuleGetFunction(&hash_fn, hash_mod, "cko_hash64"));
	CU_CHECK(cuMemAlloc(&hash_out, sizeof(uint64_t)));
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(&hash_key, sizeof hash_key, 1, f) != 1)
		hash_key = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(cko_now() * 1e9);
	if (f)
		fclose(f);
}

static uint64_t dev_hash_key(CUdeviceptr p, size_t words, uint64_t key)
{
	hash_init();
	uint64_t n = words, h = 0;
	void *args[] = {&p, &n, &key, &hash_out};
	CU_CHECK(cuMemsetD8(hash_out, 0, sizeof h));
	CU_CHECK(cuLaunchKernel(hash_fn, 1024, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
	CU_CHECK(cuMemcpyDtoH(&h, hash_out, sizeof h)); /* waits for the kernel */
	return h;
}

static uint64_t dev_hash(CUdeviceptr p, size_t words)
{
	hash_init(); /* draws the key: read it only after */
	return dev_hash_key(p, words, hash_key);
}

uint64_t cko_exec_digest(cko_exec *x, int s, int i)
{
	const cko_dbuf *b = &x->dev[AT(x, s, i)];
	return dev_hash_key(b->ptr, (b->bytes + 7) / 8, 0);
}

int cko_exec_hash_outputs(cko_exec *x, int s, CUstream st, CUdeviceptr out)
{
	hash_init();
	int n = 0;
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		if (!q->p.is_buffer || q->p.role == CKO_IN)
			continue;
		cko_dbuf *b = &x->dev[AT(x, s, i)];
		/* Whole words: a tail of fewer than 8 bytes is hashed with the
		 * guard bytes after it, which never change unless a guard check
		 * fails too. */
		uint64_t words = (b->bytes + 7) / 8;
		CUdeviceptr o = out + (CUdeviceptr)n * sizeof(uint64_t);
		void *args[] = {&b->ptr, &words, &hash_key, &o};
		CU_CHECK(cuMemsetD8Async(o, 0, sizeof(uint64_t), st));
		CU_CHECK(cuLaunchKernel(hash_fn, 1024, 1, 1, 256, 1, 1, 0, st, args, NULL));
		n++;
	}
	return n;
}

/* 1 if the input buffer k is as uploaded, by the device hash and the
 * trailing bytes; 0 means: compare on the host. */
static int input_intact(cko_exec *x, size_t k)
{
	const cko_dbuf *b = &x->dev[k];
	size_t words = b->bytes / 8, tail = b->bytes % 8;
	unsigned char t[8];
	if (tail) {
		CU_CHECK(cuMemcpyDtoH(t, b->ptr + words * 8, tail));
		if (memcmp(t, (const unsigned char *)x->host[k].data + words * 8, tail))
			return 0;
	}
	return dev_hash(b->ptr, words) == b->hash;
}

/* Uploads n bytes of a host tensor. A tensor in a mapped file has its pages
 * registered (page-locked, read-only) for the copy: from the page cache at
 * the bus's speed, about 55 GB/s on the H200 machine, against 8.5 GB/s for a
 * pageable copy and 1.4 GB/s for reading the file into fresh memory. */
static void upload(CUdeviceptr dst, const cko_tensor *t, size_t n)
{
	int pinned = t->map && n >= ((size_t)1 << 20) &&
		     cuMemHostRegister(t->map, t->map_len, CU_MEMHOSTREGISTER_READ_ONLY) == CUDA_SUCCESS;
	CU_CHECK(cuMemcpyHtoD(dst, t->data, n));
	/* The copy may still be in flight when cuMemcpyHtoD returns (seen on
	 * the H200: the hash taken next saw a partial input); it must be done
	 * before the input is hashed and before its pages are released. */
	CU_CHECK(cuCtxSynchronize());
	if (pinned)
		CU_CHECK(cuMemHostUnregister(t->map));
}

static size_t param_bytes(const cko_rparam *q) { return q->count * cko_dtype_size(q->p.dtype); }

/* Stores a scalar argument in its slot with the parameter's C type. */
static void store_scalar(uint64_t *slot, const cko_rparam *q)
{
	*slot = 0;
	switch (q->p.dtype) {
	case CKO_I32: { int32_t v = (int32_t)q->ivalue; memcpy(slot, &v, 4); break; }
	case CKO_U32: { uint32_t v = (uint32_t)q->ivalue; memcpy(slot, &v, 4); break; }
	case CKO_I64: { int64_t v = q->ivalue; memcpy(slot, &v, 8); break; }
	case CKO_U64: { uint64_t v = (uint64_t)q->ivalue; memcpy(slot, &v, 8); break; }
	case CKO_F32: { float v = (float)q->fvalue; memcpy(slot, &v, 4); break; }
	case CKO_F64: { double v = q->fvalue; memcpy(slot, &v, 8); break; }
	default: break;
	}
}

int cko_exec_open(cko_exec *x, const cko_request *rq, int nsets, char *err, size_t errlen)
{
	memset(x, 0, sizeof *x);
	x->rq = rq;
	x->np = rq->nparams;
	x->nsets = nsets < rq->nsets ? nsets : rq->nsets;
	x->image = cko_read_file(rq->cubin, (size_t)256 << 20, NULL);
	if (cko_exec_reload(x, err, errlen))
		return 1;
	size_t n = (size_t)x->nsets * (size_t)x->np;
	x->host = xcalloc(n, sizeof *x->host);
	x->dev = xcalloc(n, sizeof *x->dev);
	x->args = xcalloc(n, sizeof *x->args);
	x->vals = xcalloc(n, sizeof *x->vals);
	double t0 = cko_now();
	for (int s = 0; s < x->nsets; s++) {
		cko_request_read_inputs(rq, s, &x->host[AT(x, s, 0)]);
		cko_phase_add(CKO_PH_LOAD, &t0);
		for (int i = 0; i < x->np; i++) {
			const cko_rparam *q = &rq->params[i];
			size_t k = AT(x, s, i);
			x->args[k] = &x->vals[k];
			if (!q->p.is_buffer) {
				store_scalar(&x->vals[k], q);
				continue;
			}
			cko_dbuf *b = &x->dev[k];
			b->bytes = param_bytes(q);
			CU_CHECK(cuMemAlloc(&b->base, b->bytes + 2 * CKO_GUARD_BYTES));
			CU_CHECK(cuMemsetD8(b->base, CKO_GUARD, b->bytes + 2 * CKO_GUARD_BYTES));
			b->ptr = b->base + CKO_GUARD_BYTES;
			x->vals[k] = (uint64_t)b->ptr;
			if (q->p.role != CKO_OUT)
				upload(b->ptr, &x->host[k], b->bytes);
			if (q->p.role == CKO_IN)
				b->hash = dev_hash(b->ptr, b->bytes / 8);
			if (q->p.role == CKO_INOUT) {
				CU_CHECK(cuMemAlloc(&b->pristine, b->bytes));
				CU_CHECK(cuMemcpyHtoD(b->pristine, x->host[k].data, b->bytes));
			}
		}
		cko_phase_add(CKO_PH_UPLOAD, &t0);
	}
	return 0;
}

static int reload(cko_exec *x, const cko_request *rq, char *err, size_t errlen);

int cko_exec_reload(cko_exec *x, char *err, size_t errlen)
{
	const cko_request *rq = x->rq;
	double t0 = cko_now();
	int rc = reload(x, rq, err, errlen);
	cko_phase_add(CKO_PH_RELOAD, &t0);
	return rc;
}

static int reload(cko_exec *x, const cko_request *rq, char *err, size_t errlen)
{
	if (x->mod)
		CU_CHECK(cuModuleUnload(x->mod));
	x->mod = NULL;
	CUresult r = cuModuleLoadData(&x->mod, x->image);
	if (r != CUDA_SUCCESS) {
		x->mod = NULL;
		snprintf(err, errlen, "%s: cannot load the module: %s", rq->cubin, cko_cu_name(r));
		return 1;
	}
	r = cuModuleGetFunction(&x->fn, x->mod, rq->entry);
	if (r != CUDA_SUCCESS) {
		snprintf(err, errlen, "%s: no kernel named '%s' (%s)", rq->cubin, rq->entry, cko_cu_name(r));
		return 1;
	}
	if (rq->launch.smem > 48 * 1024) {
		r = cuFuncSetAttribute(x->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)rq->launch.smem);
		if (r != CUDA_SUCCESS) {
			snprintf(err, errlen, "%lld bytes of dynamic shared memory refused: %s", (long long)rq->launch.smem,
				 cko_cu_name(r));
			return 1;
		}
	}
	return 0;
}

void cko_exec_close(cko_exec *x)
{
	size_t n = (size_t)x->nsets * (size_t)x->np;
	for (size_t k = 0; k < n; k++) {
		if (x->dev && x->dev[k].base)
			cuMemFree(x->dev[k].base);
		if (x->dev && x->dev[k].pristine)
			cuMemFree(x->dev[k].pristine);
		if (x->host)
			cko_tensor_free(&x->host[k]);
	}
	for (int i = 0; x->shadow && i < x->np; i++)
		if (x->shadow[i])
			cuMemFree(x->shadow[i]);
	if (x->scratch)
		cuMemFree(x->scratch);
	free(x->shadow);
	if (x->mod)
		cuModuleUnload(x->mod);
	free(x->image);
	free(x->host);
	free(x->dev);
	free(x->args);
	free(x->vals);
	memset(x, 0, sizeof *x);
}

void cko_exec_reset(cko_exec *x, int s, int poison, CUstream st)
{
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		cko_dbuf *b = &x->dev[AT(x, s, i)];
		if (!q->p.is_buffer)
			continue;
		if (q->p.role == CKO_OUT)
			CU_CHECK(cuMemsetD8Async(b->ptr, (unsigned char)poison, b->bytes, st));
		else if (q->p.role == CKO_INOUT)
			CU_CHECK(cuMemcpyDtoDAsync(b->ptr, b->pristine, b->bytes, st));
	}
}

CUresult cko_exec_launch(cko_exec *x, int s, CUstream st)
{
	const cko_launch *l = &x->rq->launch;
	return cuLaunchKernel(x->fn, (unsigned)l->grid[0], (unsigned)l->grid[1], (unsigned)l->grid[2],
			      (unsigned)l->block[0], (unsigned)l->block[1], (unsigned)l->block[2], (unsigned)l->smem, st,
			      &x->args[AT(x, s, 0)], NULL);
}

CUresult cko_wait_event(CUevent ev, double timeout_s)
{
	double deadline = cko_now() + timeout_s;
	for (int spins = 0;; spins++) {
		CUresult r = cuEventQuery(ev);
		if (r != CUDA_ERROR_NOT_READY)
			return r;
		if (timeout_s > 0 && cko_now() > deadline)
			return CKO_CU_TIMEOUT;
		if (spins > 1000)
			usleep(100); /* a long kernel: stop spinning */
	}
}

static int check_guards(cko_exec *x, int s, char *msg, size_t n);
static int check_inputs(cko_exec *x, int s, char *msg, size_t n);

int cko_exec_check_guards(cko_exec *x, int s, char *msg, size_t n)
{
	double t0 = cko_now();
	int rc = check_guards(x, s, msg, n);
	cko_phase_add(CKO_PH_CHECK, &t0);
	return rc;
}

int cko_exec_check_inputs(cko_exec *x, int s, char *msg, size_t n)
{
	double t0 = cko_now();
	int rc = check_inputs(x, s, msg, n);
	cko_phase_add(CKO_PH_CHECK, &t0);
	return rc;
}

static int check_guards(cko_exec *x, int s, char *msg, size_t n)
{
	unsigned char g[CKO_GUARD_BYTES];
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		cko_dbuf *b = &x->dev[AT(x, s, i)];
		if (!q->p.is_buffer)
			continue;
		for (int side = 0; side < 2; side++) {
			CUdeviceptr at = side ? b->ptr + b->bytes : b->base;
			CU_CHECK(cuMemcpyDtoH(g, at, CKO_GUARD_BYTES));
			for (size_t j = 0; j < CKO_GUARD_BYTES; j++) {
				if (g[j] == CKO_GUARD)
					continue;
				long off = side ? (long)j : (long)j - CKO_GUARD_BYTES;
				if (!side)
					snprintf(msg, n, "write out of bounds of %s: %ld bytes before its start", q->p.name,
						 -off);
				else
					snprintf(msg, n, "write out of bounds of %s: %ld bytes past its end", q->p.name,
						 off + 1);
				return 1;
			}
		}
	}
	return 0;
}

static int check_inputs(cko_exec *x, int s, char *msg, size_t n)
{
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		size_t k = AT(x, s, i);
		if (!q->p.is_buffer || q->p.role != CKO_IN || input_intact(x, k))
			continue;
		size_t bytes = x->dev[k].bytes;
		cko_input_host_checks++;
		unsigned char *tmp = xmalloc(bytes);
		CU_CHECK(cuMemcpyDtoH(tmp, x->dev[k].ptr, bytes));
		const unsigned char *orig = x->host[k].data;
		size_t es = cko_dtype_size(q->p.dtype), changed = 0, first = 0;
		if (!memcmp(tmp, orig, bytes)) {
			free(tmp);
			continue;
		}
		for (size_t j = 0; j < bytes; j += es)
			if (memcmp(tmp + j, orig + j, es) && changed++ == 0)
				first = j / es;
		free(tmp);
		if (changed) {
			snprintf(msg, n, "input %s was modified (%zu elements, first at flat index %zu)", q->p.name, changed,
				 first);
			return 1;
		}
	}
	return 0;
}

/* Copies parameter q's bytes at src to a fresh host tensor. */
static void read_back(const cko_rparam *q, CUdeviceptr src, cko_tensor *t)
{
	*t = cko_rparam_shape(q);
	t->data = xmalloc(param_bytes(q) ? param_bytes(q) : 1);
	double t0 = cko_now();
	CU_CHECK(cuMemcpyDtoH(t->data, src, param_bytes(q)));
	cko_phase_add(CKO_PH_READBACK, &t0);
}

void cko_exec_read(cko_exec *x, int s, int i, cko_tensor *t) { read_back(&x->rq->params[i], x->dev[AT(x, s, i)].ptr, t); }

/* Shared memory is poisoned too: a kernel that reads shared memory it never
 * wrote then sees different garbage in the two launches of cko-run. A PTX
 * kernel (JIT-compiled by the driver) fills the largest block's worth of
 * shared memory on every SM. */
static const char smem_fill_ptx[] =
	".version 7.0\n.target sm_70\n.address_size 64\n"
	".extern .shared .align 16 .b8 cko_smem[];\n"
	".visible .entry cko_smem_fill(.param .u32 p0, .param .u32 p1)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n"
	"\tld.param.u32 %r1, [p0];\n\tld.param.u32 %r2, [p1];\n"
	"\tmov.u32 %r3, %tid.x;\n\tmov.u32 %r6, %ntid.x;\n\tmov.u32 %r7, cko_smem;\n"
	"$L_loop:\n\tsetp.ge.u32 %p1, %r3, %r1;\n\t@%p1 bra $L_done;\n"
	"\tshl.b32 %r4, %r3, 2;\n\tadd.s32 %r5, %r7, %r4;\n\tst.volatile.shared.u32 [%r5], %r2;\n"
	"\tadd.s32 %r3, %r3, %r6;\n\tbra.uni $L_loop;\n$L_done:\n\tret;\n}\n";

static CUmodule smem_mod;
static CUfunction smem_fn;
static int smem_bytes, smem_blocks;

void cko_smem_poison(const cko_gpu *g, uint32_t pattern, CUstream st)
{
	if (!smem_fn) {
		CU_CHECK(cuModuleLoadData(&smem_mod, smem_fill_ptx));
		CU_CHECK(cuModuleGetFunction(&smem_fn, smem_mod, "cko_smem_fill"));
		smem_bytes = cko_gpu_attr(g, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
		CU_CHECK(cuFuncSetAttribute(smem_fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem_bytes));
		smem_blocks = 2 * g->sms;
	}
	unsigned words = (unsigned)smem_bytes / 4;
	void *args[] = {&words, &pattern};
	CU_CHECK(cuLaunchKernel(smem_fn, (unsigned)smem_blocks, 1, 1, 1024, 1, 1, (unsigned)smem_bytes, st, args, NULL));
}

void cko_exec_save(cko_exec *x, int s, CUstream st)
{
	if (!x->shadow)
		x->shadow = xcalloc((size_t)x->np, sizeof *x->shadow);
	for (int i = 0; i < x->np; i++) {
		const cko_rparam *q = &x->rq->params[i];
		if (!q->p.is_buffer || q->p.role == CKO_IN)
			continue;
		const cko_dbuf *b = &x->dev[AT(x, s, i)];
		if (!x->shadow[i])
			CU_CHECK(cuMemAlloc(&x->shadow[i], param_bytes(q) ? param_bytes(q) : 1));
		CU_CHECK(cuMemcpyDtoDAsync(x->shadow[i], b->ptr, b->bytes, st));
	}
}

void cko_exec_read_saved(cko_exec *x, int i, cko_tensor *t) { read_back(&x->rq->params[i], x->shadow[i], t); }

cko_tensor cko_rparam_shape(const cko_rparam *q)
{
	cko_tensor t = {.dtype = q->p.dtype, .ndim = q->p.ndim, .count = q->count};
	memcpy(t.shape, q->shape, sizeof t.shape);
	return t;
}

int cko_exec_compare(cko_exec *x, int s, int i, const char *expected, const cko_tol *tol, int max_first,
		     CUstream st, cko_cmp *r, cko_tensor *actual)
{
	const cko_rparam *q = &x->rq->params[i];
	const cko_dbuf *b = &x->dev[AT(x, s, i)];
	memset(actual, 0, sizeof *actual);
	double t0 = cko_now();
	cko_tensor ex;
	cko_npy_map(expected, &ex);
	cko_phase_add(CKO_PH_LOAD, &t0);
	cko_tensor shape = cko_rparam_shape(q);
	int same = ex.dtype == shape.dtype && ex.ndim == shape.ndim;
	for (int d = 0; same && d < ex.ndim; d++)
		same = ex.shape[d] == shape.shape[d];
	if (!same) { /* cko_compare names the difference without reading data */
		cko_compare(&ex, &shape, tol, max_first, r);
		cko_tensor_free(&ex);
		return -1;
	}
	size_t bytes = param_bytes(q);
	if (bytes > x->scratch_bytes) {
		if (x->scratch)
			CU_CHECK(cuMemFree(x->scratch));
		CU_CHECK(cuMemAlloc(&x->scratch, bytes));
		x->scratch_bytes = bytes;
	}
	if (bytes)
		upload(x->scratch, &ex, bytes);
	cko_phase_add(CKO_PH_UPLOAD, &t0);
	cko_gpu_compare(x->scratch, b->ptr, q->p.dtype, q->count, tol, st, r);
	cko_phase_add(CKO_PH_COMPARE, &t0);
	if (!r->ok) { /* the host names the first mismatches */
		cko_exec_read(x, s, i, actual);
		t0 = cko_now();
		cko_compare(&ex, actual, tol, max_first, r);
		cko_phase_add(CKO_PH_COMPARE, &t0);
	}
	cko_tensor_free(&ex);
	return 0;
}
