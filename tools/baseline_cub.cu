/* baseline_cub.cu: CUB's row sums for cko-baseline (the reduce_sum
 * baseline). CUB is a C++ header library, so this one file is compiled by
 * nvcc (Makefile) and linked into cko-baseline only; baseline_cub.h is its
 * C interface. Two ways to sum the R rows of a row-major R x N matrix:
 *   CKO_CUB_SEGMENTED  cub::DeviceSegmentedReduce::Sum, one segment per row
 *                      (64-bit offsets r * N), one call;
 *   CKO_CUB_PER_ROW    cub::DeviceReduce::Sum once per row, R calls on the
 *                      stream (the whole device on each row: what suits a
 *                      few long rows).
 * The runtime API shares the driver API's primary context, which
 * cko-baseline makes current. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/version.cuh>

#include <stdio.h>
#include <stdlib.h>

#include "baseline_cub.h"

struct cko_cub_rows {
	int method;
	long long R, N;
	long long *offsets; /* R + 1 row starts (segmented) */
	void *temp;
	size_t temp_bytes;
};

static int fail(cudaError_t e, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

/* Runs the method; with temp NULL only sizes the temporary storage. */
static cudaError_t call(cko_cub_rows *h, void *temp, size_t *bytes, const float *x, float *y, cudaStream_t st)
{
	if (h->method == CKO_CUB_SEGMENTED)
		return cub::DeviceSegmentedReduce::Sum(temp, *bytes, x, y, (::cuda::std::int64_t)h->R, h->offsets,
						       h->offsets + 1, st);
	for (long long r = 0; r < h->R; r++) {
		size_t b = *bytes;
		cudaError_t e = cub::DeviceReduce::Sum(temp, b, x + r * h->N, y + r, (::cuda::std::int64_t)h->N, st);
		if (e != cudaSuccess)
			return e;
		if (!temp) { /* the same for every row; sized once */
			*bytes = b;
			break;
		}
	}
	return cudaSuccess;
}

extern "C" int cko_cub_rows_init(cko_cub_rows **out, int method, long long R, long long N, char *err, size_t errlen)
{
	*out = NULL;
	if (R < 1 || N < 1 || (method != CKO_CUB_SEGMENTED && method != CKO_CUB_PER_ROW)) {
		snprintf(err, errlen, "bad row sum: method %d, %lld x %lld", method, R, N);
		return -1;
	}
	cko_cub_rows *h = (cko_cub_rows *)calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	h->method = method;
	h->R = R;
	h->N = N;
	cudaError_t e;
	if (method == CKO_CUB_SEGMENTED) {
		long long *o = (long long *)malloc((size_t)(R + 1) * sizeof *o);
		if (!o) {
			free(h);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (long long r = 0; r <= R; r++)
			o[r] = r * N;
		e = cudaMalloc((void **)&h->offsets, (size_t)(R + 1) * sizeof *o);
		if (e == cudaSuccess)
			e = cudaMemcpy(h->offsets, o, (size_t)(R + 1) * sizeof *o, cudaMemcpyHostToDevice);
		free(o);
		if (e != cudaSuccess) {
			cko_cub_rows_free(h);
			return fail(e, "the row offsets", err, errlen);
		}
	}
	/* Sizing reads no data: placeholders for the pointers. */
	e = call(h, NULL, &h->temp_bytes, (const float *)h->offsets, (float *)h->offsets, 0);
	if (e == cudaSuccess)
		e = cudaMalloc(&h->temp, h->temp_bytes ? h->temp_bytes : 1);
	if (e != cudaSuccess) {
		cko_cub_rows_free(h);
		return fail(e, "CUB's temporary storage", err, errlen);
	}
	*out = h;
	return 0;
}

extern "C" int cko_cub_rows_run(cko_cub_rows *h, const float *x, float *y, void *stream, char *err, size_t errlen)
{
	size_t b = h->temp_bytes;
	cudaError_t e = call(h, h->temp, &b, x, y, (cudaStream_t)stream);
	if (e == cudaSuccess)
		e = cudaGetLastError();
	return e == cudaSuccess ? 0 : fail(e, h->method == CKO_CUB_SEGMENTED ? "cub::DeviceSegmentedReduce::Sum"
									  : "cub::DeviceReduce::Sum",
					   err, errlen);
}

extern "C" void cko_cub_rows_free(cko_cub_rows *h)
{
	if (!h)
		return;
	cudaFree(h->offsets);
	cudaFree(h->temp);
	free(h);
}

extern "C" int cko_cub_version(void) { return CUB_VERSION; }
