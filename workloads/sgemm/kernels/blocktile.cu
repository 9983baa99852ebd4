// sgemm, variant "blocktile": the plain shared-memory 2D block-tiled FP32
// GEMM.  C = A * B, all row-major, A is M x K, B is K x N, C is M x N.
// Plain FP32 FMA, one fixed summation order over k per element.
//
// A block computes a BM x BN tile of C with (BM/TM)*(BN/TN) threads, each
// owning TM x TN outputs placed with a stride of BM/TM rows and BN/TN
// columns (so neighbouring lanes touch neighbouring columns: conflict-free
// shared reads of B, coalesced stores of C).  Per k-slab of BK, the block
// copies A (transposed, As[k][m]) and B (Bs[k][n]) into shared memory with
// bounds-checked scalar loads (zero outside the matrices), then multiplies.
// The A pitch BM + 32/BK keeps the transposing stores free of bank
// conflicts.  No vector loads, no pipelining: the simple, robust baseline.
//
// Tunables (-D): BM BN BK TM TN.  Launch:
//   grid  = (ceil_div(N, BN), ceil_div(M, BM), 1)
//   block = (BM/TM) * (BN/TN)
//   smem  = BK * (BM + 32/BK + BN) * 4 bytes (dynamic)
// Indices are 32-bit: the workload keeps M*K, K*N, M*N below 2^31.

#ifndef BM
#define BM 64
#endif
#ifndef BN
#define BN 64
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 4
#endif
#ifndef TN
#define TN 4
#endif

#define TROWS (BM / TM)
#define TCOLS (BN / TN)
#define NTHREADS (TROWS * TCOLS)
#define LDA (BM + 32 / BK)
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#define A_ITERS CEIL_DIV(BM * BK, NTHREADS)
#define B_ITERS CEIL_DIV(BK * BN, NTHREADS)

static_assert(BM % TM == 0 && BN % TN == 0, "thread tiles must tile the block tile");
static_assert(BK >= 1 && BK <= 32 && 32 % BK == 0, "BK must divide 32");
static_assert(NTHREADS >= 32 && NTHREADS <= 1024, "block size out of range");

extern "C" __global__ void __launch_bounds__(NTHREADS)
	sgemm(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, int K)
{
	extern __shared__ __align__(16) float smem[];
	float *const As = smem;           // [BK][LDA]
	float *const Bs = smem + BK * LDA; // [BK][BN]

	const int tid = threadIdx.x;
	const int ty = tid / TCOLS, tx = tid % TCOLS;
	const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;

	float acc[TM][TN];
#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
		for (int i = 0; i < A_ITERS; i++) {
			const int e = tid + i * NTHREADS;
			if ((BM * BK) % NTHREADS == 0 || e < BM * BK) {
				const int m = e / BK, k = e % BK;
				const int gm = bm0 + m, gk = k0 + k;
				As[k * LDA + m] = gm < M && gk < K ? A[gm * K + gk] : 0.0f;
			}
		}
#pragma unroll
		for (int i = 0; i < B_ITERS; i++) {
			const int e = tid + i * NTHREADS;
			if ((BK * BN) % NTHREADS == 0 || e < BK * BN) {
				const int k = e / BN, n = e % BN;
				const int gk = k0 + k, gn = bn0 + n;
				Bs[k * BN + n] = gk < K && gn < N ? B[gk * N + gn] : 0.0f;
			}
		}
		__syncthreads();
#pragma unroll
		for (int kk = 0; kk < BK; kk++) {
			float a[TM], b[TN];
#pragma unroll
			for (int i = 0; i < TM; i++)
				a[i] = As[kk * LDA + ty + i * TROWS];
#pragma unroll
			for (int j = 0; j < TN; j++)
				b[j] = Bs[kk * BN + tx + j * TCOLS];
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		__syncthreads();
	}

#pragma unroll
	for (int i = 0; i < TM; i++) {
		const int row = bm0 + ty + i * TROWS;
		if (row >= M)
			continue;
#pragma unroll
		for (int j = 0; j < TN; j++) {
			const int col = bn0 + tx + j * TCOLS;
			if (col < N)
				C[row * N + col] = acc[i][j];
		}
	}
}
