// reduce_sum, variant "rowsplit": y[r] = sum of row r of x (R x N).
//
// The grid is (R, S): block (r, k) sums chunk k of row r, S chunks per row.
// S comes from the launch rules (S = 1 when there are enough rows to fill
// the GPU; several chunks per row for long rows with few rows) and the
// kernel reads it as gridDim.y. With S > 1 every block stores its partial
// sum in a slot of a static array, and the block that arrives last at its
// row (an atomic counter per row) adds the row's S partials in chunk
// order, writes y[r] and resets the counter for the next launch. Which
// block arrives last varies; the order of the final sum does not, so the
// result is bit-for-bit the same on every launch. No float atomics.
//
// Each thread sums a strided slice of its chunk: scalar loads up to the
// first 16-byte boundary, UNROLL float4 loads in flight per step, scalar
// tail; the chunk's THREADS partials are combined by a fixed shuffle tree.
// Any R, N >= 1 works; a row may start anywhere (row r starts at byte
// 4*r*N). Row offsets are 64-bit (the performance cases are index64).
//
// Tunables (-D): THREADS (block size), UNROLL (float4 loads in flight per
// thread), TARGET (blocks the launch rules aim for; S > 1 only when
// R < TARGET). Launch:
//   grid  = (R, max(1, min(ceil_div(TARGET, R), ceil_div(N, 4*THREADS*UNROLL))), 1)
//   block = THREADS

#ifndef THREADS
#define THREADS 256
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

#define NWARPS (THREADS / 32)
// Split rows: S > 1 only when R < TARGET <= 4096, so R < 4096 and
// R*S < TARGET + R < 8192. The kernel checks and never overruns.
#define SPLIT_ROWS 4096
#define SPLIT_SLOTS 8192

static_assert(THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024, "THREADS: a multiple of 32 up to 1024");
static_assert(UNROLL >= 1 && UNROLL <= 16, "UNROLL: 1 to 16");

__device__ float rs_partial[SPLIT_SLOTS];
__device__ unsigned int rs_arrived[SPLIT_ROWS]; // zero at load; reset by each row's last block

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o /= 2)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

// The block's sum, valid in every thread. red holds NWARPS floats.
__device__ __forceinline__ float block_sum(float v, float *red)
{
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	v = warp_sum(v);
	__syncthreads(); // red may still be read by a previous call
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	float s = lane < NWARPS ? red[lane] : 0.0f;
	return warp_sum(s);
}

// This thread's share of p[0..n): elements t, t+THREADS, ... in a fixed
// pattern that depends only on n and the alignment of p.
__device__ __forceinline__ float sum_range(const float *__restrict__ p, long long n, int t)
{
	float acc[UNROLL];
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		acc[u] = 0.0f;
	long long head = (long long)(((16 - ((unsigned long long)p & 15)) & 15) / 4);
	if (head > n)
		head = n;
	if (t < head)
		acc[0] += p[t];
	const float4 *v = (const float4 *)(p + head);
	const long long nv = (n - head) / 4;
	long long i = t;
	for (; i + (long long)(UNROLL - 1) * THREADS < nv; i += (long long)UNROLL * THREADS) {
		float4 q[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			q[u] = __ldg(v + i + u * THREADS);
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			acc[u] += (q[u].x + q[u].y) + (q[u].z + q[u].w);
	}
	for (; i < nv; i += THREADS) {
		const float4 q = __ldg(v + i);
		acc[0] += (q.x + q.y) + (q.z + q.w);
	}
	const long long tail = head + 4 * nv;
	if (tail + t < n)
		acc[0] += p[tail + t];
	float s = 0.0f;
#pragma unroll
	for (int u = 0; u < UNROLL; u++)
		s += acc[u];
	return s;
}

extern "C" __global__ void __launch_bounds__(THREADS)
	reduce_sum(const float *__restrict__ x, float *__restrict__ y, int R, int N)
{
	__shared__ float red[NWARPS];
	__shared__ int last;
	const int t = threadIdx.x;
	const int r = blockIdx.x;
	int S = gridDim.y, k = blockIdx.y;
	if (S > 1 && (R > SPLIT_ROWS || (long long)R * S > SPLIT_SLOTS)) {
		// Launched outside the rules' range: chunk 0 sums the whole row.
		if (k != 0)
			return;
		S = 1;
	}
	const float *row = x + (size_t)r * (size_t)N;
	const long long chunk = (((long long)N + S - 1) / S + 3) / 4 * 4;
	long long lo = chunk * k, hi = lo + chunk;
	if (hi > N)
		hi = N;
	const float s = block_sum(lo < hi ? sum_range(row + lo, hi - lo, t) : 0.0f, red);
	if (S == 1) {
		if (t == 0)
			y[r] = s;
		return;
	}
	if (t == 0) {
		rs_partial[r * S + k] = s;
		__threadfence(); // the partial is visible before the count says so
		last = atomicAdd(&rs_arrived[r], 1u) == (unsigned int)(S - 1);
	}
	__syncthreads();
	if (!last)
		return;
	__threadfence();
	float v = 0.0f;
	for (int j = t; j < S; j += THREADS)
		v += __ldcg(&rs_partial[r * S + j]); // from L2: other blocks wrote them
	v = block_sum(v, red);
	if (t == 0) {
		y[r] = v;
		rs_arrived[r] = 0;
	}
}
