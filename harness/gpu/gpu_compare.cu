/* gpu_compare.cu: actual outputs against expected ones on the device, with
 * the host's per-element rule (compare_elem.h). Built by nvcc into a
 * fatbin that gpu_compare.c embeds; no candidate code ever links with it.
 * One pass gathers the counts, the largest errors and the first mismatch;
 * a second finds where the largest absolute error first occurs. */
#include <cuda_fp16.h>

#include "compare_elem.h"

typedef unsigned long long u64;

/* Mirrors cko_dstats in gpu_compare.c. */
struct dstats {
	u64 mismatches, nan, inf, poison;
	u64 first_bad;    /* smallest mismatching index (~0 if none) */
	u64 max_abs_bits; /* non-negative doubles order as their bits */
	u64 max_rel_bits;
	u64 max_abs_at;   /* smallest index of the largest error */
};

/* cko_dtype's order: f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64. */
template <int T> struct elem;
template <> struct elem<0> { typedef unsigned short raw; static __device__ double get(raw v) { return (double)__half2float(__ushort_as_half(v)); } };
template <> struct elem<1> { typedef unsigned int raw; static __device__ double get(raw v) { return (double)__uint_as_float(v); } };
template <> struct elem<2> { typedef u64 raw; static __device__ double get(raw v) { return __longlong_as_double((long long)v); } };
template <> struct elem<3> { typedef unsigned char raw; static __device__ double get(raw v) { return (double)(signed char)v; } };
template <> struct elem<4> { typedef unsigned short raw; static __device__ double get(raw v) { return (double)(short)v; } };
template <> struct elem<5> { typedef unsigned int raw; static __device__ double get(raw v) { return (double)(int)v; } };
template <> struct elem<6> { typedef u64 raw; static __device__ double get(raw v) { return (double)(long long)v; } };
template <> struct elem<7> { typedef unsigned char raw; static __device__ double get(raw v) { return (double)v; } };
template <> struct elem<8> { typedef unsigned short raw; static __device__ double get(raw v) { return (double)v; } };
template <> struct elem<9> { typedef unsigned int raw; static __device__ double get(raw v) { return (double)v; } };
template <> struct elem<10> { typedef u64 raw; static __device__ double get(raw v) { return (double)v; } };

struct args {
	const void *expected, *actual;
	u64 n;
	double atol, rtol, max_abs;
	int dtype, exact, nan_equal;
};

/* The element's error as the host computes it: exact comparisons count the
 * difference of mismatches only; -1 where there is none. */
template <int T> __device__ double elem_error(const args &p, u64 i, int *ok, int *nan, int *inf)
{
	typedef typename elem<T>::raw raw;
	raw eb = ((const raw *)p.expected)[i], ab = ((const raw *)p.actual)[i];
	double e = elem<T>::get(eb), a = elem<T>::get(ab);
	*nan = *inf = 0;
	if (p.exact) {
		*ok = eb == ab;
		return *ok ? -1 : fabs(a - e);
	}
	cko_elem_verdict v = cko_elem_check(e, a, p.atol, p.rtol, p.nan_equal);
	*ok = v.ok;
	*nan = v.nan;
	*inf = v.inf;
	return v.d;
}

template <int T> __device__ double elem_rel(const args &p, u64 i)
{
	typedef typename elem<T>::raw raw;
	if (p.exact)
		return -1;
	double e = elem<T>::get(((const raw *)p.expected)[i]), a = elem<T>::get(((const raw *)p.actual)[i]);
	return cko_elem_check(e, a, p.atol, p.rtol, p.nan_equal).rel;
}

template <int T> __device__ void stats_pass(const args &p, dstats *out)
{
	typedef typename elem<T>::raw raw;
	u64 mism = 0, nan = 0, inf = 0, poison = 0, first = ~0ull;
	double max_abs = 0, max_rel = 0;
	u64 stride = (u64)gridDim.x * blockDim.x;
	for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += stride) {
		int ok, isn, isi;
		double d = elem_error<T>(p, i, &ok, &isn, &isi);
		poison += ((const raw *)p.actual)[i] == (raw)~(raw)0;
		nan += isn;
		inf += isi;
		if (d > max_abs)
			max_abs = d;
		double r = elem_rel<T>(p, i);
		if (r > max_rel)
			max_rel = r;
		if (!ok) {
			mism++;
			if (i < first)
				first = i;
		}
	}
	for (int o = 16; o > 0; o /= 2) {
		mism += __shfl_down_sync(0xffffffffu, mism, o);
		nan += __shfl_down_sync(0xffffffffu, nan, o);
		inf += __shfl_down_sync(0xffffffffu, inf, o);
		poison += __shfl_down_sync(0xffffffffu, poison, o);
		first = min(first, __shfl_down_sync(0xffffffffu, first, o));
		max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, o));
		max_rel = fmax(max_rel, __shfl_down_sync(0xffffffffu, max_rel, o));
	}
	if ((threadIdx.x & 31) == 0) {
		if (mism)
			atomicAdd(&out->mismatches, mism);
		if (nan)
			atomicAdd(&out->nan, nan);
		if (inf)
			atomicAdd(&out->inf, inf);
		if (poison)
			atomicAdd(&out->poison, poison);
		if (first != ~0ull)
			atomicMin(&out->first_bad, first);
		atomicMax(&out->max_abs_bits, (u64)__double_as_longlong(max_abs));
		atomicMax(&out->max_rel_bits, (u64)__double_as_longlong(max_rel));
	}
}

template <int T> __device__ void argmax_pass(const args &p, dstats *out)
{
	u64 at = ~0ull, stride = (u64)gridDim.x * blockDim.x;
	for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < p.n && at == ~0ull; i += stride) {
		int ok, isn, isi;
		if (elem_error<T>(p, i, &ok, &isn, &isi) == p.max_abs)
			at = i;
	}
	for (int o = 16; o > 0; o /= 2)
		at = min(at, __shfl_down_sync(0xffffffffu, at, o));
	if ((threadIdx.x & 31) == 0 && at != ~0ull)
		atomicMin(&out->max_abs_at, at);
}

#define DISPATCH(fn)                                                                                       \
	switch (p.dtype) {                                                                                 \
	case 0: fn<0>(p, out); break;                                                                      \
	case 1: fn<1>(p, out); break;                                                                      \
	case 2: fn<2>(p, out); break;                                                                      \
	case 3: fn<3>(p, out); break;                                                                      \
	case 4: fn<4>(p, out); break;                                                                      \
	case 5: fn<5>(p, out); break;                                                                      \
	case 6: fn<6>(p, out); break;                                                                      \
	case 7: fn<7>(p, out); break;                                                                      \
	case 8: fn<8>(p, out); break;                                                                      \
	case 9: fn<9>(p, out); break;                                                                      \
	case 10: fn<10>(p, out); break;                                                                    \
	}

/* Launched with a multiple of 32 threads per block (full warps). */
extern "C" __global__ void cko_compare_stats(args p, dstats *out) { DISPATCH(stats_pass) }
extern "C" __global__ void cko_compare_argmax(args p, dstats *out) { DISPATCH(argmax_pass) }
