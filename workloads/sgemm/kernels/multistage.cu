// sgemm, variant "multistage": warp-tiled FP32 SIMT GEMM with a STAGES-deep
// cp.async pipeline in shared memory.  C = A * B, all row-major,
// A is M x K, B is K x N, C is M x N.  Plain FP32 FMA, one fixed summation
// order over k per element (deterministic, no atomics).
//
// Tiling: a warp's 32 lanes form an LM x (32/LM) grid, each lane owning
// TM x TN outputs in 4x4 pieces spread with a stride of 4*LM rows and
// 4*(32/LM) columns, so every fragment read from shared memory is one
// float4 and neighbouring lanes read neighbouring float4s.  That makes the
// warp tile WM x WN = LM*TM x (32/LM)*TN; WARPS_M x WARPS_N warps make the
// block tile BM x BN, and BK is the k-slab.
//
// Shared memory per stage: A transposed, As[k][m] with a row pitch of
// BM+4 floats (the pad keeps the 4-byte transposing stores conflict-free
// for BK=8 and the rows 16-byte aligned), then Bs[k][n] with pitch BN.
// A is copied with 4-byte cp.async (which is what transposes it, and works
// for any K); B with 16-byte cp.async when N % 4 == 0 (then every row of B
// is 16-byte aligned), else with 4-byte copies.  Out-of-range elements are
// zero-filled by cp.async's src-size operand, so the tail k-slab and the
// edge tiles need no special case in the inner loop.  The kernel body is a
// template on that N % 4 test, so each main loop carries one copy path.
//
// Tunables (-D): TM TN LM WARPS_M WARPS_N BK STAGES MINB (the
// __launch_bounds__ minimum of resident blocks per SM).  Launch, with
// BM = WARPS_M*LM*TM and BN = WARPS_N*(32/LM)*TN:
//   grid  = (ceil_div(N, BN), ceil_div(M, BM), 1)
//   block = 32 * WARPS_M * WARPS_N
//   smem  = STAGES * BK * (BM + 4 + BN) * 4 bytes (dynamic)
// Indices are 32-bit: the workload keeps M*K, K*N, M*N below 2^31.
//
// STREAMK=1 (the "streamk" variant) launches CTAS blocks instead, which
// share the tiles' k-slabs evenly (stream-K): block c takes slabs
// [c*T/G, (c+1)*T/G) of the T = tiles * ceil(K/BK) slabs in tile-major
// order (G = gridDim.x), so a 2048 x 2048 output in 128 tiles fills all
// 132 SMs instead of 128.  A tile split between blocks is finished by the
// block that arrives last (an atomic counter per tile, as reduce_sum's
// rowsplit does): every part stores its accumulators in a static slot,
// and the last adds the parts in block order, so C is bit-for-bit the
// same on every launch, whoever arrives last.  A split element is then a
// fixed sum of a few k-ordered FMA chains, not one chain.  KSYNC picks
// the order in which a block works the segments of its share.  Launch:
//   grid = min(CTAS, tiles * ceil_div(K, BK)), block as above,
//   smem = STAGES * BK * (BM + 4 + BN) * 4 + 16 (a word for the verdict).

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
#ifndef STAGES
#define STAGES 3
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef STREAMK
#define STREAMK 0
#endif
#ifndef CTAS
#define CTAS 132
#endif
#ifndef KSYNC
#define KSYNC 1
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
#define A_STAGE (BK * LDA)
#define B_STAGE (BK * BN)
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
// A: BM*BK single floats; thread tid takes k = tid % BK, m = tid / BK + i*A_MSTEP.
#define A_MSTEP (NTHREADS / BK)
#define A_ITERS CEIL_DIV(BM, A_MSTEP)
// B as float4s: BK*BN/4; thread takes n4 = tid % (BN/4), k = tid / (BN/4) + i*BV_KSTEP.
#define BV_KSTEP (NTHREADS / (BN / 4))
#define BV_ITERS CEIL_DIV(BK, BV_KSTEP)
// B as floats (N % 4 != 0): element e = tid + i*NTHREADS, k = e / BN, n = e % BN;
// as NTHREADS and BN are powers of two, k = tid/BN + (i*NTHREADS)/BN and
// n = tid%BN + (i*NTHREADS)%BN.
#define BS_ITERS CEIL_DIV(BK * BN, NTHREADS)

static_assert(LM >= 1 && LM <= 32 && 32 % LM == 0, "LM must divide 32");
static_assert(TM % 4 == 0 && TN % 4 == 0, "thread tiles are made of 4x4 pieces");
static_assert(NTHREADS % BK == 0, "A copy mapping needs NTHREADS % BK == 0");
static_assert(NTHREADS % (BN / 4) == 0, "B copy mapping needs NTHREADS % (BN/4) == 0");
static_assert(NTHREADS % BN == 0 || BN % NTHREADS == 0, "scalar B mapping needs NTHREADS | BN or BN | NTHREADS");
static_assert(STAGES >= 2, "the pipeline needs at least two stages");

#if STREAMK
// Two slots per block (its first and its last tile may both be split),
// one float4 per thread and piece; one arrival counter per block (the
// block holding a split tile's last slab owns the tile's counter).  Zero at
// module load; each counter is reset by its tile's last block.  Module
// state: launches of one loaded module must not overlap (one stream), and a
// launch that traps leaves the counters dirty (reload the module).
__device__ float4 sk_part[2 * CTAS * (BM * BN / 4)];
__device__ unsigned int sk_arrived[CTAS];
#endif

// The cp.async wrappers.  CKO_HOST_SIM is set only by the host emulator in
// tests/cli/sgemm-sim.cc (cko never passes CKO_ defines), which runs this
// file on the CPU to check the index math and the pipeline's ordering.
#ifndef CKO_HOST_SIM
__device__ __forceinline__ void cp_async4(float *dst, const float *src, bool ok)
{
	unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src), "r"(ok ? 4 : 0)
		     : "memory");
}

__device__ __forceinline__ void cp_async16(float *dst, const float *src, bool ok)
{
	unsigned d = (unsigned)__cvta_generic_to_shared(dst);
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(ok ? 16 : 0)
		     : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int n> __device__ __forceinline__ void cp_async_wait()
{
	asm volatile("cp.async.wait_group %0;\n" ::"n"(n) : "memory");
}
#else
#define cp_async4(dst, src, ok) sim_cp_async((dst), (src), 4, (ok) ? 4 : 0)
#define cp_async16(dst, src, ok) sim_cp_async((dst), (src), 16, (ok) ? 16 : 0)
#define cp_async_commit() sim_cp_async_commit()
template <int n> void cp_async_wait() { sim_cp_async_wait(n); }
#endif

// acc = the product of k-slabs [t0, t1) of the tile at (bm0, bn0).  Ends
// with every copy landed and a barrier, so the stages may be reused.
template <bool VECB>
__device__ __forceinline__ void gemm_slabs(const float *__restrict__ A, const float *__restrict__ B, int M, int N,
					   int K, int bm0, int bn0, int t0, int t1, float *smem, float (&acc)[TM][TN])
{
	float *const As = smem;                    // STAGES x [BK][LDA]
	float *const Bs = smem + STAGES * A_STAGE; // STAGES x [BK][BN]

	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int wr = warp / (BN / WN), wc = warp % (BN / WN);
	const int lr = lane / LC, lc = lane % LC;

	// Per-thread copy coordinates, fixed over the k loop: the thread copies
	// A rows a_m + i*A_MSTEP at column a_k of each slab; B float4s at column
	// b_n of rows b_k + i*BV_KSTEP (or single floats, see BS_ITERS).  Each
	// is kept as a base pointer plus the distance to the matrix edge.
	const int a_k = tid % BK, a_m = tid / BK;
	const float *const a_src = A + (bm0 + a_m) * K + a_k;
	const int a_rows = M - bm0 - a_m; // row i in range iff i*A_MSTEP < a_rows
	const int a_cols = K - a_k;       // slab k0 in range iff k0 < a_cols
	const int b_n = VECB ? (tid % (BN / 4)) * 4 : tid % BN;
	const int b_k = VECB ? tid / (BN / 4) : tid / BN;
	const float *const b_src = B + b_k * N + bn0 + b_n;
	const int b_rows = K - b_k;     // row r of slab k0 in range iff k0 + r < b_rows
	const int b_cols = N - bn0 - b_n; // column offset c in range iff c < b_cols

	// Issues the copies of k-slab t into stage s (no commit).
	auto load_tile = [&](int t, int s) {
		const int k0 = t * BK;
		float *as = As + s * A_STAGE + a_k * LDA + a_m;
		float *bs = Bs + s * B_STAGE + b_k * BN + b_n;
#pragma unroll
		for (int i = 0; i < A_ITERS; i++) {
			if (BM % A_MSTEP == 0 || a_m + i * A_MSTEP < BM) {
				const bool ok = i * A_MSTEP < a_rows && k0 < a_cols;
				cp_async4(as + i * A_MSTEP, ok ? a_src + i * A_MSTEP * K + k0 : A, ok);
			}
		}
		if (VECB) {
#pragma unroll
			for (int i = 0; i < BV_ITERS; i++) {
				if (BK % BV_KSTEP == 0 || b_k + i * BV_KSTEP < BK) {
					const bool ok = k0 + i * BV_KSTEP < b_rows && 0 < b_cols;
					cp_async16(bs + i * BV_KSTEP * BN, ok ? b_src + (k0 + i * BV_KSTEP) * N : B, ok);
				}
			}
		} else {
#pragma unroll
			for (int i = 0; i < BS_ITERS; i++) {
				const int dk = (i * NTHREADS) / BN, dn = (i * NTHREADS) % BN;
				if ((BK * BN) % NTHREADS == 0 || b_k + dk < BK) {
					const bool ok = k0 + dk < b_rows && dn < b_cols;
					cp_async4(bs + dk * BN + dn, ok ? b_src + (k0 + dk) * N + dn : B, ok);
				}
			}
		}
	};

#pragma unroll
	for (int i = 0; i < TM; i++)
#pragma unroll
		for (int j = 0; j < TN; j++)
			acc[i][j] = 0.0f;

	// Prologue: slabs t0 .. t0+STAGES-2, one commit group each (empty past t1).
#pragma unroll
	for (int t = 0; t < STAGES - 1; t++) {
		if (t0 + t < t1)
			load_tile(t0 + t, t);
		cp_async_commit();
	}

	int rs = 0, ws = STAGES - 1;
	for (int t = t0; t < t1; t++) {
		// Groups committed so far: STAGES-1+(t-t0); leaving STAGES-2 pending
		// means slab t has landed for this thread; the barrier makes it
		// visible to all and ends every thread's use of stage ws, which held
		// slab t-1.
		cp_async_wait<STAGES - 2>();
		__syncthreads();
		if (t + STAGES - 1 < t1)
			load_tile(t + STAGES - 1, ws);
		cp_async_commit();

		const float *as = As + rs * A_STAGE + wr * WM + lr * 4;
		const float *bs = Bs + rs * B_STAGE + wc * WN + lc * 4;
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
		rs = rs + 1 == STAGES ? 0 : rs + 1;
		ws = ws + 1 == STAGES ? 0 : ws + 1;
	}
	cp_async_wait<0>();
#if STREAMK
	__syncthreads(); // the next tile's prologue rewrites the stages
#endif
}

template <bool VECB>
__device__ __forceinline__ void store_tile(float *__restrict__ C, int M, int N, int bm0, int bn0,
					   const float (&acc)[TM][TN])
{
	const int tid = threadIdx.x;
	const int lane = tid & 31, warp = tid >> 5;
	const int wr = warp / (BN / WN), wc = warp % (BN / WN);
	const int lr = lane / LC, lc = lane % LC;
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
			if (VECB) {
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

template <bool VECB>
__device__ __forceinline__ void gemm_body(const float *__restrict__ A, const float *__restrict__ B,
					  float *__restrict__ C, int M, int N, int K, float *smem)
{
	float acc[TM][TN];
#if !STREAMK
	const int bm0 = blockIdx.y * BM, bn0 = blockIdx.x * BN;
	gemm_slabs<VECB>(A, B, M, N, K, bm0, bn0, 0, (K + BK - 1) / BK, smem, acc);
	store_tile<VECB>(C, M, N, bm0, bn0, acc);
#else
	const int tid = threadIdx.x;
	const int tiles_n = (N + BN - 1) / BN;
	const int S = (K + BK - 1) / BK;
	const long long T64 = (long long)tiles_n * ((M + BM - 1) / BM) * S;
	const int G = gridDim.x, c = blockIdx.x;
	// Beyond the rules (the slots would overrun) or 2^31 slabs (M*N*K past
	// 2^60; not with 32-bit indices and tiles of 128 x 128 or more).
	if (G > CTAS || T64 > 0x7fffffff)
		__trap();
	const int T = (int)T64;
	// first slab of block x's share, and the block whose share holds slab s
	auto first = [&](int x) { return (int)((long long)x * T / G); };
	auto holder = [&](int s) { return (int)(((long long)(s + 1) * G - 1) / T); };
	int *const verdict = (int *)(smem + STAGES * (A_STAGE + B_STAGE));
	// The share's segments, cut at the tiles' edges.  KSYNC=1: in the
	// order whole tiles, the head of the last tile, then the tail of the
	// first (the share starts mid-tile): every block then starts at k = 0
	// and, when it reaches the tail, works a few slabs ahead of the block
	// that holds that tile's head, so all blocks stay near one k at a time
	// and share the slabs of A and B in L2.  KSYNC=0: in slab order (tail,
	// whole tiles, head), where block c starts its k loop ~c*16 slabs
	// later than block 0 on a 2048 x 2048 x 8192 product and reads three
	// times the DRAM bytes, but was the faster order on the H200's square
	// and tall shapes (kernels/README.md).  Either order gives the same C.
	const int b = first(c), e = first(c + 1);
	const int tail_end = b % S ? (b / S + 1) * S < e ? (b / S + 1) * S : e : b; // [b, tail_end): the tail (empty at a tile's start)
	// x runs from tail_end to e, then wraps to b and runs to tail_end
	// (KSYNC=0, or no tail: from b to e)
	for (int x = KSYNC && tail_end != e ? tail_end : b, y, done = 0; done < e - b; done += y - x, x = y == e ? b : y) {
		const int t = x / S;
		const int ts = t * S, lim = x < tail_end ? tail_end : e;
		y = ts + S < lim ? ts + S : lim;
		const int bm0 = (t / tiles_n) * BM, bn0 = (t % tiles_n) * BN;
		gemm_slabs<VECB>(A, B, M, N, K, bm0, bn0, x - ts, y - ts, smem, acc);
		if (x == ts && y == ts + S) { // the whole tile
			store_tile<VECB>(C, M, N, bm0, bn0, acc);
			continue;
		}
		// A split tile: blocks c0..cf share it (some may hold no slab at
		// all when T < G); the part of block p sits in its slot 0 when the
		// tile holds p's first slab, else in slot 1.
		const int c0 = holder(ts), cf = holder(ts + S - 1);
		auto slot = [&](int p, int first_p) { return sk_part + (2 * p + (first_p >= ts ? 0 : 1)) * (BM * BN / 4); };
		float4 *mine = slot(c, b);
#pragma unroll
		for (int i = 0; i < TM; i++)
#pragma unroll
			for (int j = 0; j < TN / 4; j++)
				mine[(i * (TN / 4) + j) * NTHREADS + tid] =
					make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
		__threadfence(); // the part is visible before the count says so
		__syncthreads();
		if (tid == 0) {
			// The tile's non-empty parts: every share is non-empty when
			// T >= G (the rules' grid); else each holds at most one slab,
			// so the tile's S slabs have S holders.
			const unsigned parts = T >= G ? cf - c0 + 1 : S;
			const bool last = atomicAdd(&sk_arrived[cf], 1u) == parts - 1;
			if (last)
				sk_arrived[cf] = 0; // every part has arrived: ready for the next launch
			*verdict = last;
		}
		__syncthreads();
		const bool last = *verdict;
		__syncthreads(); // the verdict word is read before a later tile rewrites it
		if (last) {
			__threadfence();
			// C = part(c0) + part(c0+1) + ... + part(cf), in that order.
			// first(p) is stepped, not divided: first(p+1) = first(p) + q, plus
			// a carry from the remainder. Two 64-bit divisions per part and
			// float4 here cost 1.5-2% on the H100's 1.4 ms products and 12% at
			// 1536^3 (benchmarks/RESULTS.md, 2026-12-06).
			const long long c0T = (long long)c0 * T;
			const int f0 = (int)(c0T / G), r0 = (int)(c0T % G), q = T / G, r = T % G;
#pragma unroll
			for (int i = 0; i < TM; i++)
#pragma unroll
				for (int j = 0; j < TN / 4; j++) {
					float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
					bool any = false;
					for (int p = c0, fp = f0, rp = r0, fq; p <= cf; p++, fp = fq) {
						fq = fp + q, rp += r; // first(p + 1) and (p + 1) * T % G
						if (rp >= G)
							fq++, rp -= G;
						if (fq == fp) // p holds no slab (T < G)
							continue;
						const float4 v = p == c ? make_float4(acc[i][4 * j], acc[i][4 * j + 1],
										       acc[i][4 * j + 2], acc[i][4 * j + 3])
									: __ldcg(slot(p, fp) + (i * (TN / 4) + j) * NTHREADS + tid);
						if (any) {
							sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
						} else {
							sum = v, any = true;
						}
					}
					acc[i][4 * j] = sum.x, acc[i][4 * j + 1] = sum.y;
					acc[i][4 * j + 2] = sum.z, acc[i][4 * j + 3] = sum.w;
				}
			store_tile<VECB>(C, M, N, bm0, bn0, acc);
		}
	}
#endif
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
	// A uniform branch: every row of B and C is 16-byte aligned iff N % 4 == 0.
	if ((N & 3) == 0)
		gemm_body<true>(A, B, C, M, N, K, smem);
	else
		gemm_unaligned(A, B, C, M, N, K, smem);
}
