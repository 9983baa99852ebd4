// sgemm, variant "warptile": warp-tiled FP32 SIMT GEMM, double-buffered
// shared memory filled through registers.  C = A * B, all row-major,
// A is M x K, B is K x N, C is M x N.  Plain FP32 FMA, one fixed summation
// order over k per element (deterministic, no atomics).
//
// Each k-slab (BK) of A and B is read from global memory into registers
// while the previous slab is multiplied out of shared memory, then stored
// into the other shared buffer: one __syncthreads per slab.  (When K or N
// is not a multiple of 4, the slower scalar path loads each slab between
// two barriers instead, into one buffer.)
//
// Tiling: a warp's 32 lanes form an LM x (32/LM) grid, each lane owning
// TM x TN outputs in 4x4 pieces spread with a stride of 4*LM rows and
// 4*(32/LM) columns, so every fragment read from shared memory is one
// float4 and neighbouring lanes read neighbouring float4s.  That makes the
// warp tile WM x WN = LM*TM x (32/LM)*TN; WARPS_M x WARPS_N warps make the
// block tile BM x BN, and BK is the k-slab.
//
// Global reads move float4 groups: for A four consecutive k of one row m
// (stored transposed, As[k][m], pitch BM+4), for B four consecutive n of one
// row k (Bs[k][n], pitch BN).  When K % 4 == 0 (resp. N % 4 == 0) every
// group is 16-byte aligned and is one 128-bit load; otherwise the group is
// read as four bounds-checked scalar loads.  The choice is a uniform branch
// on K and N; the kernel body is a template on "both aligned", so the fast
// main loop carries no test.  Elements outside A or B read as 0.
//
// Tunables (-D): TM TN LM WARPS_M WARPS_N BK MINB (the __launch_bounds__
// minimum of resident blocks per SM).  Launch, with BM = WARPS_M*LM*TM and
// BN = WARPS_N*(32/LM)*TN:
//   grid  = (ceil_div(N, BN), ceil_div(M, BM), 1)
//   block = 32 * WARPS_M * WARPS_N
//   smem  = 2 * BK * (BM + 4 + BN) * 4 bytes (dynamic)
// Indices are 32-bit: the workload keeps M*K, K*N, M*N below 2^31.

#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef LM
#define LM 4
#endif
#ifndef WARPS_M
#define WARPS_M 4
#endif
#ifndef WARPS_N
#define WARPS_N 2
#endif
#ifndef BK
#define BK 8
#endif
#ifndef MINB
#define MINB 1
#endif

// The tiles follow from the tunables.
#define LR LM            // lanes of a warp along M
#define LC (32 / LM)     // lanes along N
#define WM (LR * TM)     // warp tile
#define WN (LC * TN)
#define BM (WARPS_M * WM) // block tile
#define BN (WARPS_N * WN)
#define NWARPS (WARPS_M * WARPS_N)
#define NTHREADS (32 * NWARPS)
#define LDA (BM + 4)
#define A_BUF (BK * LDA)
#define B_BUF (BK * BN)
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
// A groups: BM*BK/4; thread tid takes k4 = tid % (BK/4), m = tid / (BK/4) + i*A_MSTEP.
#define A_MSTEP (NTHREADS / (BK / 4))
#define A_ITERS CEIL_DIV(BM, A_MSTEP)
// B groups: BK*BN/4; thread tid takes n4 = tid % (BN/4), k = tid / (BN/4) + i*B_KSTEP.
#define B_KSTEP (NTHREADS / (BN / 4))
#define B_ITERS CEIL_DIV(BK, B_KSTEP)

static_assert(LM >= 1 && LM <= 32 && 32 % LM == 0, "LM must divide 32");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 pieces");
static_assert(BK % 4 == 0, "BK must be a multiple of 4");
static_assert(NTHREADS % (BK / 4) == 0, "A copy mapping needs NTHREADS % (BK/4) == 0");
static_assert(NTHREADS % (BN / 4) == 0, "B copy mapping needs NTHREADS % (BN/4) == 0");

template <bool FAST>
__device__ __forceinline__ void gemm_body(const float *__restrict__ A, const float *__restrict__ B,
					  float *__restrict__ C, int M, int N, int K, float *smem)
{
	float *const As = smem;             // 2 x [BK][LDA]
	float *const Bs = smem + 2 * A_BUF; // 2 x [BK][BN]

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int wr = warp / (BN / WN), wc = warp % (BN / WN);
	const int lr = lane / LC, lc = lane % LC;
	const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
	const int ntiles = (K + BK - 1) / BK;
	const bool vecA = FAST, vecB = FAST; // the slow path reads scalars throughout

	// Per-thread copy coordinates, fixed over the k loop: A groups at rows
	// a_m + i*A_MSTEP, columns a_k..a_k+3 of each slab; B groups at rows
	// b_k + i*B_KSTEP, columns b_n..b_n+3.  Kept as base pointers plus the
	// distance to the matrix edge.
	const int a_k = (tid % (BK / 4)) * 4, a_m = tid / (BK / 4);
	const int b_n = (tid % (BN / 4)) * 4, b_k = tid / (BN / 4);
	const float *const a_src = A + (bm0 + a_m) * K + a_k;
	const int a_rows = M - bm0 - a_m; // row i in range iff i*A_MSTEP < a_rows
	const int a_cols = K - a_k;       // column k0+q in range iff k0 + q < a_cols
	const float *const b_src = B + b_k * N + bn0 + b_n;
	const int b_rows = K - b_k;       // row k0 + r in range iff k0 + r < b_rows
	const int b_cols = N - bn0 - b_n; // column offset q in range iff q < b_cols

	float4 ra[A_ITERS], rb[B_ITERS];

	// Global -> registers, k-slab t.
	auto load_regs = [&](int t) {
		const int k0 = t * BK;
#pragma unroll
		for (int i = 0; i < A_ITERS; i++) {
			float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			if ((BM % A_MSTEP == 0 || a_m + i * A_MSTEP < BM) && i * A_MSTEP < a_rows) {
				const float *p = a_src + i * A_MSTEP * K + k0;
				if (vecA) {
					if (k0 < a_cols)
						v = __ldg((const float4 *)p);
				} else {
					if (k0 < a_cols)
						v.x = __ldg(p);
					if (k0 + 1 < a_cols)
						v.y = __ldg(p + 1);
					if (k0 + 2 < a_cols)
						v.z = __ldg(p + 2);
					if (k0 + 3 < a_cols)
						v.w = __ldg(p + 3);
				}
			}
			ra[i] = v;
		}
#pragma unroll
		for (int i = 0; i < B_ITERS; i++) {
			float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
			if ((BK % B_KSTEP == 0 || b_k + i * B_KSTEP < BK) && k0 + i * B_KSTEP < b_rows) {
				const float *p = b_src + (k0 + i * B_KSTEP) * N;
				if (vecB) {
					if (0 < b_cols)
						v = __ldg((const float4 *)p);
				} else {
					if (0 < b_cols)
						v.x = __ldg(p);
					if (1 < b_cols)
						v.y = __ldg(p + 1);
					if (2 < b_cols)
						v.z = __ldg(p + 2);
					if (3 < b_cols)
						v.w = __ldg(p + 3);
				}
			}
			rb[i] = v;
		}
	};

	// Registers -> shared buffer s.
	auto store_smem = [&](int s) {
		float *as = As + s * A_BUF + a_k * LDA + a_m;
		float *bs = Bs + s * B_BUF + b_k * BN + b_n;
#pragma unroll
		for (int i = 0; i < A_ITERS; i++) {
			if (BM % A_MSTEP == 0 || a_m + i * A_MSTEP < BM) {
				as[0 * LDA + i * A_MSTEP] = ra[i].x;
				as[1 * LDA + i * A_MSTEP] = ra[i].y;
				as[2 * LDA + i * A_MSTEP] = ra[i].z;
				as[3 * LDA + i * A_MSTEP] = ra[i].w;
			}
		}
#pragma unroll
		for (int i = 0; i < B_ITERS; i++) {
			if (BK % B_KSTEP == 0 || b_k + i * B_KSTEP < BK)
				*(float4 *)(bs + i * B_KSTEP * BN) = rb[i];
		}
	};

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	load_regs(0);
	store_smem(0);
	__syncthreads();

	int cur = 0;
	for (int t = 0; t < ntiles; t++) {
		const bool more = t + 1 < ntiles;
		if (FAST && more)
			load_regs(t + 1);

		const float *as = As + cur * A_BUF + wr * WM + lr * 4;
		const float *bs = Bs + cur * B_BUF + wc * WN + lc * 4;
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float a[TM], b[TN];
#pragma unroll
			for (int i = 0; i < TM / 4; i++) {
				const float4 v = *(const float4 *)(as + kk * LDA + i * 4 * LR);
				a[4 * i + 0] = v.x;
				a[4 * i + 1] = v.y;
				a[4 * i + 2] = v.z;
				a[4 * i + 3] = v.w;
			}
#pragma unroll
			for (int j = 0; j < TN / 4; j++) {
				const float4 v = *(const float4 *)(bs + kk * BN + j * 4 * LC);
				b[4 * j + 0] = v.x;
				b[4 * j + 1] = v.y;
				b[4 * j + 2] = v.z;
				b[4 * j + 3] = v.w;
			}
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}

		if (FAST) {
			// The other buffer was last read in iteration t-1, before the
			// barrier that ended it; it is read next after the barrier below.
			if (more)
				store_smem(cur ^ 1);
			__syncthreads();
			cur ^= 1;
		} else {
			// The unaligned path keeps no slab in flight across the
			// multiply (fewer live registers): one buffer, two barriers.
			__syncthreads();
			if (more) {
				load_regs(t + 1);
				store_smem(0);
			}
			__syncthreads();
		}
	}

	// Epilogue: row i of the thread tile is warp row (i/4)*4*LR + lr*4 + i%4;
	// columns come in float4 pieces j at j*4*LC + lc*4.  With N % 4 == 0 a
	// piece is either wholly inside C (and 16-byte aligned) or wholly outside.
#pragma unroll
	for (int i = 0; i < TM; i++) {
		const int row = bm0 + wr * WM + (i / 4) * 4 * LR + lr * 4 + (i % 4);
		if (row >= M)
			continue;
#pragma unroll
		for (int j = 0; j < TN / 4; j++) {
			const int col = bn0 + wc * WN + j * 4 * LC + lc * 4;
			float *dst = C + row * N + col;
			if (vecB) {
				if (col < N)
					*(float4 *)dst = make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2],
								     acc[i][4 * j + 3]);
			} else {
#pragma unroll
				for (int c = 0; c < 4; c++)
					if (col + c < N)
						dst[c] = acc[i][4 * j + c];
			}
		}
	}
}

// The unaligned path as a separate (not inlined) function: ptxas then
// allocates registers for the two main loops apart, which keeps the fast
// one from paying for the other's live ranges.
__device__ __noinline__ void gemm_unaligned(const float *__restrict__ A, const float *__restrict__ B,
					    float *__restrict__ C, int M, int N, int K, float *smem)
{
	gemm_body<false>(A, B, C, M, N, K, smem);
}

extern "C" __global__ void __launch_bounds__(NTHREADS, MINB)
	sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
	extern __shared__ __align__(16) float smem[];
	// A uniform branch: rows of A (B, C) are 16-byte aligned iff K (N) % 4 == 0.
	if ((K & 3) == 0 && (N & 3) == 0)
		gemm_body<true>(A, B, C, M, N, K, smem);
	else
		gemm_unaligned(A, B, C, M, N, K, smem);
}
