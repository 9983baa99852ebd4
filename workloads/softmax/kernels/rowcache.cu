// softmax, variants "rowcache" and "adaptive": y = exp(x - max) / sum per
// row of x (R x C), one row per group of G threads.
//
// rowcache (ADAPT=0): a group is WPR warps (G = 32*WPR), a block holds ROWS
// groups (ROWS consecutive rows). adaptive (ADAPT=1): one row per block and
// the launch rules size the block to the row, G = blockDim.x (a multiple of
// 32, at most 32*MAXW threads, the __launch_bounds__).
//
// When the row fits the group's registers (C <= 4*VPT*G) it is read once:
// each thread keeps its VPT float4s (or 4*VPT scalars) in registers, the
// group finds the maximum, replaces every kept value by expf(x - max),
// sums them and writes value * (1/sum): one read and one write per
// element. Otherwise (and always when VPT = 0) the row is streamed twice:
// an online pass keeps a running (max, sum) per thread, rescaling the sum
// when the maximum grows, the group combines the pairs, and a second pass
// writes expf(x - max) / sum.
//
// float4 loads and stores are used when C % 4 == 0 (every row then starts
// on a 16-byte boundary: buffers are 256-byte aligned); other rows use
// scalar accesses in the same pattern. Reductions are fixed shuffle trees,
// then a second shuffle tree over the group's warp results: the same bits
// on every launch.
// Any R, C >= 1.
//
// Tunables (-D): ADAPT, WPR, ROWS, VPT, MAXW. Launch:
//   rowcache: grid = ceil_div(R, ROWS), block = 32*WPR*ROWS
//   adaptive: grid = R, block = 32*min(MAXW, max(1, ceil_div(C, 128*max(VPT, 1))))

#ifndef ADAPT
#define ADAPT 0
#endif
#ifndef WPR
#define WPR 4
#endif
#ifndef ROWS
#define ROWS 1
#endif
#ifndef VPT
#define VPT 4
#endif
#ifndef MAXW
#define MAXW 32
#endif

#if ADAPT
#define NTHREADS (32 * MAXW)
#define NROWS 1
#define GWARPS (blockDim.x / 32)
#else
#define NTHREADS (32 * WPR * ROWS)
#define NROWS ROWS
#define GWARPS WPR
#endif
#define NVAL (VPT > 0 ? 4 * VPT : 1)
#define NEG_INF (-__int_as_float(0x7f800000))

static_assert(NTHREADS >= 32 && NTHREADS <= 1024, "block: 32 to 1024 threads");
static_assert(VPT >= 0 && VPT <= 32, "VPT: 0 to 32");

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o /= 2)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
	return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

// expf(a - m) for a running maximum a that may still be -inf.
__device__ __forceinline__ float rescale(float a, float m)
{
	return a == NEG_INF ? 0.0f : expf(a - m);
}

// (m, s) pairs: s is a sum of exponentials relative to the maximum m.
__device__ __forceinline__ void pair_merge(float &m, float &s, float m2, float s2)
{
	const float mm = fmaxf(m, m2);
	if (mm == NEG_INF)
		return; // both empty
	s = s * rescale(m, mm) + s2 * rescale(m2, mm);
	m = mm;
}

// The xor tree merges (lower lane, upper lane) in that order in both
// lanes of a pair, so every lane ends with the same bits.
__device__ __forceinline__ void warp_pair(float &m, float &s)
{
	const int lane = threadIdx.x % 32;
#pragma unroll
	for (int o = 1; o < 32; o *= 2) {
		float m2 = __shfl_xor_sync(0xffffffffu, m, o), s2 = __shfl_xor_sync(0xffffffffu, s, o);
		if (lane & o) {
			const float tm = m, ts = s;
			m = m2, s = s2, m2 = tm, s2 = ts;
		}
		pair_merge(m, s, m2, s2);
	}
}

// Group-wide max or sum, valid in every thread of the group; every thread
// of the block must call it (it has barriers when a group spans warps).
template <bool MAX> __device__ __forceinline__ float group_reduce(float v, float *red, int g)
{
	v = MAX ? warp_max(v) : warp_sum(v);
	if (GWARPS == 1)
		return v;
	__syncthreads(); // red may still be read by a previous call
	if (threadIdx.x % 32 == 0)
		red[threadIdx.x / 32] = v;
	__syncthreads();
	// The warps' results through a second shuffle tree (lanes past the
	// group's warps hold the identity): a few shuffles instead of GWARPS
	// dependent shared loads, which matter when one block fills an SM.
	const int lane = threadIdx.x % 32;
	v = lane < GWARPS ? red[g * GWARPS + lane] : (MAX ? NEG_INF : 0.0f);
	return MAX ? warp_max(v) : warp_sum(v);
}

__device__ __forceinline__ void group_pair(float &m, float &s, float *red, float *red2, int g)
{
	warp_pair(m, s);
	if (GWARPS == 1)
		return;
	__syncthreads();
	if (threadIdx.x % 32 == 0) {
		red[threadIdx.x / 32] = m;
		red2[threadIdx.x / 32] = s;
	}
	__syncthreads();
	const int lane = threadIdx.x % 32;
	m = lane < GWARPS ? red[g * GWARPS + lane] : NEG_INF;
	s = lane < GWARPS ? red2[g * GWARPS + lane] : 0.0f;
	warp_pair(m, s); // (-inf, 0) merges as the identity
}

__device__ __forceinline__ float max4(float4 q)
{
	return fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w));
}

// Adds the elements of one float4 (or one scalar, as a float4 padded with
// -inf) to a running (m, s).
__device__ __forceinline__ void online4(float &m, float &s, float4 q)
{
	const float mq = max4(q);
	if (mq > m) {
		s *= rescale(m, mq);
		m = mq;
	}
	s += (expf(q.x - m) + expf(q.y - m)) + (expf(q.z - m) + expf(q.w - m));
}

extern "C" __global__ void __launch_bounds__(NTHREADS)
	softmax(const float *__restrict__ x, float *__restrict__ y, int R, int C)
{
	__shared__ float red[NTHREADS / 32], red2[NTHREADS / 32];
	const int G = 32 * GWARPS;
	const int g = threadIdx.x / G, t = threadIdx.x % G;
	const int r = blockIdx.x * NROWS + g;
	// A group past the last row works on an empty row (no loads, no
	// stores) but still reaches every barrier.
	const int n = r < R ? C : 0;
	const float *in = x + (size_t)(r < R ? r : 0) * (size_t)C;
	float *out = y + (size_t)(r < R ? r : 0) * (size_t)C;
	const bool vec = C % 4 == 0;

	if (VPT > 0 && C <= 4 * VPT * G) {
		float v[NVAL];
		if (vec) {
#pragma unroll
			for (int k = 0; k < NVAL / 4; k++) {
				const int e = 4 * (t + k * G);
				float4 q = make_float4(NEG_INF, NEG_INF, NEG_INF, NEG_INF);
				if (e < n)
					q = __ldg((const float4 *)(in + e));
				v[4 * k] = q.x, v[4 * k + 1] = q.y, v[4 * k + 2] = q.z, v[4 * k + 3] = q.w;
			}
		} else {
#pragma unroll
			for (int k = 0; k < NVAL; k++) {
				const int e = t + k * G;
				v[k] = e < n ? __ldg(in + e) : NEG_INF;
			}
		}
		float m = NEG_INF;
#pragma unroll
		for (int k = 0; k < NVAL; k++)
			m = fmaxf(m, v[k]);
		m = group_reduce<true>(m, red, g);
		float s = 0.0f;
#pragma unroll
		for (int k = 0; k < NVAL; k++) {
			v[k] = v[k] == NEG_INF ? 0.0f : expf(v[k] - m);
			s += v[k];
		}
		const float inv = 1.0f / group_reduce<false>(s, red, g);
		if (vec) {
#pragma unroll
			for (int k = 0; k < NVAL / 4; k++) {
				const int e = 4 * (t + k * G);
				if (e < n)
					*(float4 *)(out + e) = make_float4(v[4 * k] * inv, v[4 * k + 1] * inv,
									   v[4 * k + 2] * inv, v[4 * k + 3] * inv);
			}
		} else {
#pragma unroll
			for (int k = 0; k < NVAL; k++) {
				const int e = t + k * G;
				if (e < n)
					out[e] = v[k] * inv;
			}
		}
		return;
	}

	// Streamed: an online pass for (max, sum), then the outputs.
	float m = NEG_INF, s = 0.0f;
	if (vec) {
		const float4 *in4 = (const float4 *)in;
		for (int i = t; i < n / 4; i += G)
			online4(m, s, __ldg(in4 + i));
	} else {
		for (int i = t; i < n; i += G)
			online4(m, s, make_float4(__ldg(in + i), NEG_INF, NEG_INF, NEG_INF));
	}
	group_pair(m, s, red, red2, g);
	const float inv = 1.0f / s;
	if (vec) {
		const float4 *in4 = (const float4 *)in;
		float4 *out4 = (float4 *)out;
		for (int i = t; i < n / 4; i += G) {
			const float4 q = __ldg(in4 + i);
			out4[i] = make_float4(expf(q.x - m) * inv, expf(q.y - m) * inv, expf(q.z - m) * inv,
					      expf(q.w - m) * inv);
		}
	} else {
		for (int i = t; i < n; i += G)
			out[i] = expf(__ldg(in + i) - m) * inv;
	}
}
