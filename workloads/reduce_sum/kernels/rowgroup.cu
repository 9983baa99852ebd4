// reduce_sum, variant "rowgroup": y[r] = sum of row r of x (R x N), for
// short and medium rows: a group of WPR warps sums one row, a block holds
// ROWS groups (ROWS consecutive rows), so short rows still make blocks of
// 64 threads or more.
//
// Each thread of a group sums a strided slice of its row: scalar loads up
// to the first 16-byte boundary, UNROLL float4 loads in flight per step,
// scalar tail. The group's partials are combined by a fixed shuffle tree
// per warp and then, for WPR > 1, by one thread adding the WPR warp sums
// in warp order: the same bits on every launch. Any R, N >= 1; row offsets
// are 64-bit.
//
// Tunables (-D): WPR (warps per row), ROWS (rows per block), UNROLL.
// Launch:
//   grid  = ceil_div(R, ROWS)
//   block = 32*WPR*ROWS

#ifndef WPR
#define WPR 1
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef UNROLL
#define UNROLL 2
#endif

#define G (32 * WPR)
#define NTHREADS (G * ROWS)

static_assert(NTHREADS >= 32 && NTHREADS <= 1024, "32*WPR*ROWS: 32 to 1024 threads");
static_assert(UNROLL >= 1 && UNROLL <= 16, "UNROLL: 1 to 16");

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

// This thread's share (index t of G) of p[0..n), in a fixed pattern that
// depends only on n and the alignment of p.
__device__ __forceinline__ float sum_range(const float *__restrict__ p, int n, int t)
{
	float acc[UNROLL];
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		acc[u] = 0.0f;
	int head = (int)(((16 - ((unsigned long long)p & 15)) & 15) / 4);
	if (head > n)
		head = n;
	if (t < head)
		acc[0] += p[t];
	const float4 *v = (const float4 *)(p + head);
	const int nv = (n - head) / 4;
	int i = t;
	for (; i + (UNROLL - 1) * G < nv; i += UNROLL * G) {
		float4 q[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			q[u] = __ldg(v + i + u * G);
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc[u] += (q[u].x + q[u].y) + (q[u].z + q[u].w);
	}
	for (; i < nv; i += G) {
		const float4 q = __ldg(v + i);
		acc[0] += (q.x + q.y) + (q.z + q.w);
	}
	const int tail = head + 4 * nv;
	if (tail + t < n)
		acc[0] += p[tail + t];
	float s = 0.0f;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		s += acc[u];
	return s;
}

extern "C" __global__ void __launch_bounds__(NTHREADS)
	reduce_sum(const float *__restrict__ x, float *__restrict__ y, int R, int N)
{
	__shared__ float red[ROWS * WPR];
	const int g = threadIdx.x / G, t = threadIdx.x % G;
	const int r = blockIdx.x * ROWS + g;
	// r is the same for the whole group: a group past the last row skips
	// its loads (and, below, its store) but not the barrier.
	float s = r < R ? sum_range(x + (size_t)r * (size_t)N, N, t) : 0.0f;
	s = warp_sum(s);
	if (WPR > 1) {
		if (t % 32 == 0)
			red[threadIdx.x / 32] = s;
		__syncthreads();
		if (t == 0) {
			s = red[g * WPR];
#pragma unroll
			for (int j = 1; j < WPR; j++)
				s += red[g * WPR + j];
		}
	}
	if (t == 0 && r < R)
		y[r] = s;
}
