/* gpu_compare.c: compares device buffers with the kernels of
 * gpu_compare.cu (embedded at build time) and reads back only the
 * statistics: a tensor of gigabytes costs a few milliseconds instead of a
 * copy to the host and a pass over it there. */
#include "cko_gpu.h"

#include <string.h>

#include "gpu_compare_fatbin.h"

/* Mirrors struct dstats in gpu_compare.cu. */
typedef struct {
	uint64_t mismatches, nan, inf, poison, first_bad, max_abs_bits, max_rel_bits, max_abs_at;
} cko_dstats;

/* Mirrors struct args in gpu_compare.cu (natural alignment on both sides). */
typedef struct {
	CUdeviceptr expected, actual;
	uint64_t n;
	double atol, rtol, max_abs;
	int dtype, exact, nan_equal;
} cko_dargs;

static CUmodule mod;
static CUfunction fn_stats, fn_argmax;
static CUdeviceptr dstats;

static void load(void)
{
	if (mod)
		return;
	CU_CHECK(cuModuleLoadData(&mod, cko_compare_fatbin));
	CU_CHECK(cuModuleGetFunction(&fn_stats, mod, "cko_compare_stats"));
	CU_CHECK(cuModuleGetFunction(&fn_argmax, mod, "cko_compare_argmax"));
	CU_CHECK(cuMemAlloc(&dstats, sizeof(cko_dstats)));
}

static double from_bits(uint64_t b)
{
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static unsigned blocks_for(uint64_t n)
{
	uint64_t b = (n + 255) / 256;
	return (unsigned)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

void cko_gpu_compare(CUdeviceptr expected, CUdeviceptr actual, cko_dtype t, size_t count, const cko_tol *tol,
		     CUstream st, cko_cmp *r)
{
	load();
	memset(r, 0, sizeof *r);
	r->count = count;
	cko_dargs a = {expected, actual, count, tol->atol, tol->rtol, 0, (int)t,
		       !cko_dtype_is_float(t) && tol->atol == 0 && tol->rtol == 0, tol->nan_equal};
	cko_dstats s = {0, 0, 0, 0, ~0ull, 0, 0, ~0ull};
	void *args[] = {&a, &dstats};
	/* The plain copies do not order with a non-blocking stream: wait. */
	CU_CHECK(cuStreamSynchronize(st));
	CU_CHECK(cuMemcpyHtoD(dstats, &s, sizeof s));
	if (count)
		CU_CHECK(cuLaunchKernel(fn_stats, blocks_for(count), 1, 1, 256, 1, 1, 0, st, args, NULL));
	CU_CHECK(cuStreamSynchronize(st));
	CU_CHECK(cuMemcpyDtoH(&s, dstats, sizeof s));
	a.max_abs = from_bits(s.max_abs_bits);
	if (a.max_abs > 0) {
		CU_CHECK(cuLaunchKernel(fn_argmax, blocks_for(count), 1, 1, 256, 1, 1, 0, st, args, NULL));
		CU_CHECK(cuStreamSynchronize(st));
		CU_CHECK(cuMemcpyDtoH(&s, dstats, sizeof s));
		r->max_abs_at = (size_t)s.max_abs_at;
	}
	r->mismatches = (size_t)s.mismatches;
	r->nan = (size_t)s.nan;
	r->inf = (size_t)s.inf;
	r->poison = (size_t)s.poison;
	r->max_abs = a.max_abs;
	r->max_rel = from_bits(s.max_rel_bits);
	r->ok = r->mismatches == 0; /* else the caller compares on the host for the details */
}
