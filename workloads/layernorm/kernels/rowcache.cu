// layernorm, variants "rowcache" and "adaptive": per row of x (R x C),
// mean m, biased variance v, y = (x - m) / sqrt(v + eps) * gamma + beta;
// one row per group of G threads.
//
// rowcache (ADAPT=0): a group is WPR warps (G = 32*WPR), a block holds ROWS
// groups (ROWS consecutive rows). adaptive (ADAPT=1): one row per block and
// the launch rules size the block to the row, G = blockDim.x (a multiple of
// 32, at most 32*MAXW threads, the __launch_bounds__).
//
// When the row fits the group's registers (C <= 4*VPT*G) it is read once
// into registers and the statistics are the exact two-pass ones: the sum
// gives the mean, then the sum of (x - mean)^2 the variance. Otherwise
// (and always when VPT = 0) the row is streamed twice: a Welford pass,
// where each thread keeps (count, mean, M2) and merges every float4 (or
// scalar) into it by Chan's formula, the group merges the triples, and a
// second pass writes the outputs.
//
// float4 accesses of x, y, gamma and beta when C % 4 == 0 (rows then start
// on 16-byte boundaries: buffers are 256-byte aligned); scalar accesses in
// the same pattern otherwise. Reductions are fixed shuffle trees, then a
// second shuffle tree over the group's warp results: the same bits on
// every launch. Any R, C >= 1.
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

static_assert(NTHREADS >= 32 && NTHREADS <= 1024, "block: 32 to 1024 threads");
static_assert(VPT >= 0 && VPT <= 32, "VPT: 0 to 32");

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

// Group-wide sum, valid in every thread of the group; every thread of the
// block must call it (it has barriers when a group spans warps).
__device__ __forceinline__ float group_sum(float v, float *red, int g)
{
	v = warp_sum(v);
	if (GWARPS == 1)
		return v;
	__syncthreads(); // red may still be read by a previous call
	if (threadIdx.x % 32 == 0)
		red[threadIdx.x / 32] = v;
	__syncthreads();
	// The warps' results through a second shuffle tree (lanes past the
	// group's warps hold 0): a few shuffles instead of GWARPS dependent
	// shared loads, which matter when one block fills an SM.
	v = threadIdx.x % 32 < GWARPS ? red[g * GWARPS + threadIdx.x % 32] : 0.0f;
	return warp_sum(v);
}

// Welford triples: n values with mean a and sum of squared deviations q.
struct wf {
	float n, a, q;
};

__device__ __forceinline__ wf wf_merge(wf x, wf y)
{
	const float n = x.n + y.n;
	if (y.n == 0.0f)
		return x;
	if (x.n == 0.0f)
		return y;
	const float d = y.a - x.a, f = y.n / n;
	return wf{n, x.a + d * f, x.q + y.q + d * d * x.n * f};
}

// One float4 of the row merged into a running triple.
__device__ __forceinline__ wf wf_add4(wf w, float4 v)
{
	const float a = ((v.x + v.y) + (v.z + v.w)) * 0.25f;
	const float dx = v.x - a, dy = v.y - a, dz = v.z - a, dw = v.w - a;
	return wf_merge(w, wf{4.0f, a, (dx * dx + dy * dy) + (dz * dz + dw * dw)});
}

__device__ __forceinline__ wf wf_shfl(wf w, int o)
{
	return wf{__shfl_xor_sync(0xffffffffu, w.n, o), __shfl_xor_sync(0xffffffffu, w.a, o),
		  __shfl_xor_sync(0xffffffffu, w.q, o)};
}

// Group-wide triple; each xor tree merges (lower, upper) halves in the same
// order in every lane, so all lanes hold the same bits.
__device__ __forceinline__ wf wf_tree(wf w, int lane)
{
#pragma unroll
	for (int o = 1; o < 32; o *= 2) {
		const wf p = wf_shfl(w, o);
		w = lane & o ? wf_merge(p, w) : wf_merge(w, p);
	}
	return w;
}

__device__ __forceinline__ wf group_wf(wf w, float *red, int g)
{
	const int lane = threadIdx.x % 32;
	w = wf_tree(w, lane);
	if (GWARPS == 1)
		return w;
	__syncthreads();
	if (lane == 0) {
		red[3 * (threadIdx.x / 32)] = w.n;
		red[3 * (threadIdx.x / 32) + 1] = w.a;
		red[3 * (threadIdx.x / 32) + 2] = w.q;
	}
	__syncthreads();
	// A second xor tree over the group's warp results; lanes past them
	// hold the empty triple, which wf_merge passes through unchanged.
	const float *b = red + 3 * (g * GWARPS + lane);
	w = lane < GWARPS ? wf{b[0], b[1], b[2]} : wf{0.0f, 0.0f, 0.0f};
	return wf_tree(w, lane);
}

extern "C" __global__ void __launch_bounds__(NTHREADS)
	layernorm(const float *__restrict__ x, const float *__restrict__ gamma, const float *__restrict__ beta,
		  float *__restrict__ y, int R, int C, float eps)
{
	__shared__ float red[3 * (NTHREADS / 32)];
	const int G = 32 * GWARPS;
	const int g = threadIdx.x / G, t = threadIdx.x % G;
	const int r = blockIdx.x * NROWS + g;
	// A group past the last row works on an empty row (no loads, no
	// stores) but still reaches every barrier.
	const int n = r < R ? C : 0;
	const float *in = x + (size_t)(r < R ? r : 0) * (size_t)C;
	float *out = y + (size_t)(r < R ? r : 0) * (size_t)C;
	const bool vec = C % 4 == 0;
	float mean, rstd;

	if (VPT > 0 && C <= 4 * VPT * G) {
		float v[NVAL];
		if (vec) {
#pragma unroll
			for (int k = 0; k < NVAL / 4; k++) {
				const int e = 4 * (t + k * G);
				float4 q = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
				if (e < n)
					q = __ldg((const float4 *)(in + e));
				v[4 * k] = q.x, v[4 * k + 1] = q.y, v[4 * k + 2] = q.z, v[4 * k + 3] = q.w;
			}
		} else {
#pragma unroll
			for (int k = 0; k < NVAL; k++) {
				const int e = t + k * G;
				v[k] = e < n ? __ldg(in + e) : 0.0f;
			}
		}
		float s = 0.0f;
#pragma unroll
		for (int k = 0; k < NVAL; k++)
			s += v[k];
		mean = group_sum(s, red, g) / C;
		float q = 0.0f;
#pragma unroll
		for (int k = 0; k < NVAL; k++) {
			const int e = vec ? 4 * (t + (k / 4) * G) + k % 4 : t + k * G;
			const float d = e < n ? v[k] - mean : 0.0f;
			q += d * d;
		}
		rstd = rsqrtf(group_sum(q, red, g) / C + eps);
		if (vec) {
#pragma unroll
			for (int k = 0; k < NVAL / 4; k++) {
				const int e = 4 * (t + k * G);
				if (e < n) {
					const float4 ga = __ldg((const float4 *)(gamma + e));
					const float4 be = __ldg((const float4 *)(beta + e));
					*(float4 *)(out + e) = make_float4((v[4 * k] - mean) * rstd * ga.x + be.x,
									   (v[4 * k + 1] - mean) * rstd * ga.y + be.y,
									   (v[4 * k + 2] - mean) * rstd * ga.z + be.z,
									   (v[4 * k + 3] - mean) * rstd * ga.w + be.w);
				}
			}
		} else {
#pragma unroll
			for (int k = 0; k < NVAL; k++) {
				const int e = t + k * G;
				if (e < n)
					out[e] = (v[k] - mean) * rstd * __ldg(gamma + e) + __ldg(beta + e);
			}
		}
		return;
	}

	// Streamed: a Welford pass for the statistics, then the outputs.
	wf w = {0.0f, 0.0f, 0.0f};
	if (vec) {
		const float4 *in4 = (const float4 *)in;
		for (int i = t; i < n / 4; i += G)
			w = wf_add4(w, __ldg(in4 + i));
	} else {
		for (int i = t; i < n; i += G)
			w = wf_merge(w, wf{1.0f, __ldg(in + i), 0.0f});
	}
	w = group_wf(w, red, g);
	mean = w.a;
	rstd = rsqrtf(w.q / C + eps);
	if (vec) {
		const float4 *in4 = (const float4 *)in;
		float4 *out4 = (float4 *)out;
		for (int i = t; i < n / 4; i += G) {
			const float4 q = __ldg(in4 + i);
			const float4 ga = __ldg((const float4 *)gamma + i), be = __ldg((const float4 *)beta + i);
			out4[i] = make_float4((q.x - mean) * rstd * ga.x + be.x, (q.y - mean) * rstd * ga.y + be.y,
					      (q.z - mean) * rstd * ga.z + be.z, (q.w - mean) * rstd * ga.w + be.w);
		}
	} else {
		for (int i = t; i < n; i += G)
			out[i] = (__ldg(in + i) - mean) * rstd * __ldg(gamma + i) + __ldg(beta + i);
	}
}
