// sgemm-sim: runs one of workloads/sgemm/kernels/*.cu on the CPU, as
// written, to check its index math, bounds and barrier/cp.async ordering
// where no GPU is at hand.  Built by tests/cli/sgemm-sim.sh with the
// kernel's -D defines plus
//   -DKERNEL_FILE="path.cu" -DSIM_SMEM_BYTES=n (the launch's dynamic smem)
// and, as the script does, -fsanitize=address,undefined, so any read or
// write outside A, B, C or the shared-memory array, and any misaligned
// float4 access, stops the run.
//
// Model: every CUDA thread of a block is a fiber (ucontext) of one host
// thread; a scheduler runs each until it reaches __syncthreads() or
// returns, in index order, reversed, or shuffled anew in every barrier
// interval, so a missing barrier or a race between threads changes the
// result.  The shared
// array starts as NaN.  A cp.async fills its destination with NaN when
// issued and writes the data only at the issuing thread's
// cp.async.wait_group that covers it (the latest moment the hardware may
// complete it), so reading a stage too early, or overwriting a stage
// another thread still reads, shows up as a NaN or a wrong value.  fmaf is
// the host's fused multiply-add, bit-identical to the GPU's FFMA, so the
// result must equal, bit for bit, a plain k-ordered fmaf loop, and lie
// within rtol 1e-4 / atol 2e-3 of a double-precision product (for the
// stream-K variant, a fixed sum of such loops over its k-parts; blocks run
// in index order or reversed, so a different block finishes each split
// tile).  C starts as
// NaN; every element must be written.
//
// Usage: sgemm-sim M N K GX GY GZ BX SMEM ORDER
//   ORDER: the threads' order in each barrier interval: 0 by index,
//   1 reversed, 2 and up shuffled anew every interval (seeded by ORDER).
// Exit 0 when C is right, 1 otherwise (with a message), 2 on bad usage.
#include <math.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

// ---- the CUDA surface the kernels use ----
#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define CKO_HOST_SIM 1

struct dim3 {
	unsigned x, y, z;
};
struct __attribute__((aligned(16))) float4 {
	float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

static dim3 threadIdx, blockIdx, blockDim, gridDim;

#ifndef SIM_SMEM_BYTES
#error "build with -DSIM_SMEM_BYTES=n"
#endif
// The block's dynamic shared memory; ASan puts a red zone after it.
extern "C" {
__attribute__((aligned(16))) float smem[SIM_SMEM_BYTES / 4];
}

static const char *g_lo[2], *g_hi[2]; // A and B, for the cp.async source check

static void sim_fail(const char *msg)
{
	fprintf(stderr, "sgemm-sim: %s (block %u,%u thread %u)\n", msg, blockIdx.x, blockIdx.y, threadIdx.x);
	exit(1);
}

template <class T> static inline T __ldg(const T *p)
{
	if ((uintptr_t)p % sizeof(T))
		sim_fail("misaligned __ldg");
	return *p;
}

// The stream-K variant's cross-block handshake; blocks run one after
// another here, so plain operations are exact.
static inline void __threadfence() {}
static inline unsigned atomicAdd(unsigned *p, unsigned v)
{
	unsigned o = *p;
	*p = o + v;
	return o;
}
template <class T> static inline T __ldcg(const T *p)
{
	if ((uintptr_t)p % sizeof(T))
		sim_fail("misaligned __ldcg");
	return *p;
}
static inline void __trap() { sim_fail("__trap"); }

struct Copy {
	char *dst;
	const char *src;
	int bytes, srcbytes;
};
struct SimThread {
	ucontext_t ctx;
	char *stack;
	void *fake; // ASan's fake-stack handle while switched out
	int state;  // 0 ready, 1 at a barrier, 2 returned
	std::vector<Copy> open;
	std::vector<std::vector<Copy>> groups;
};
static std::vector<SimThread> g_threads;
static int g_cur;
#define FIBER_STACK (512 * 1024)
#include "sim-fiber.h"

static void to_fiber(SimThread &t)
{
	fiber_enter(&t.ctx, t.stack);
}

static void to_sched(SimThread &t, bool last)
{
	fiber_leave(&t.ctx, &t.fake, last);
}

static void sim_cp_async(void *dst, const void *src, int bytes, int srcbytes)
{
	char *d = (char *)dst;
	const char *s = (const char *)src;
	if (d < (char *)smem || d + bytes > (char *)smem + sizeof smem)
		sim_fail("cp.async destination outside shared memory");
	if ((uintptr_t)d % bytes || (uintptr_t)s % bytes)
		sim_fail("misaligned cp.async");
	if (srcbytes) {
		bool in = false;
		for (int i = 0; i < 2; i++)
			in |= s >= g_lo[i] && s + srcbytes <= g_hi[i];
		if (!in)
			sim_fail("cp.async reads outside A and B");
	}
	memset(d, 0xff, (size_t)bytes); // in flight: undefined until waited for
	g_threads[g_cur].open.push_back(Copy{d, s, bytes, srcbytes});
}

static void sim_cp_async_commit()
{
	SimThread &t = g_threads[g_cur];
	t.groups.push_back(t.open);
	t.open.clear();
}

static void sim_cp_async_wait(int n)
{
	SimThread &t = g_threads[g_cur];
	while ((int)t.groups.size() > n) {
		for (const Copy &c : t.groups.front()) {
			memset(c.dst, 0, (size_t)c.bytes);
			memcpy(c.dst, c.src, (size_t)c.srcbytes);
		}
		t.groups.erase(t.groups.begin());
	}
}

static void __syncthreads()
{
	SimThread &t = g_threads[g_cur];
	t.state = 1;
	to_sched(t, false);
}

#include KERNEL_FILE

// ---- the scheduler ----
static const float *g_A, *g_B;
static float *g_C;
static int g_M, g_N, g_K;

static void fiber_main()
{
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(NULL, &g_sched_stack, &g_sched_size);
#endif
	sgemm(g_A, g_B, g_C, g_M, g_N, g_K);
	SimThread &t = g_threads[g_cur];
	t.state = 2;
	to_sched(t, true);
	abort(); // never resumed
}

static uint64_t g_rng;
static uint64_t rnd()
{
	g_rng += 0x9e3779b97f4a7c15ull;
	uint64_t z = g_rng;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void run_block(int nthreads, int order)
{
	g_threads.assign((size_t)nthreads, SimThread());
	for (int i = 0; i < nthreads; i++) {
		SimThread &t = g_threads[i];
		t.stack = (char *)mmap(NULL, FIBER_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t.stack == MAP_FAILED || getcontext(&t.ctx))
			sim_fail("cannot make a fiber");
		t.ctx.uc_stack.ss_sp = t.stack;
		t.ctx.uc_stack.ss_size = FIBER_STACK;
		t.ctx.uc_link = NULL;
		makecontext(&t.ctx, fiber_main, 0);
	}
	std::vector<int> ord((size_t)nthreads);
	for (;;) {
		for (int i = 0; i < nthreads; i++)
			ord[i] = order == 1 ? nthreads - 1 - i : i;
		if (order >= 2)
			for (int i = nthreads - 1; i > 0; i--) {
				int j = (int)(rnd() % (uint64_t)(i + 1));
				int x = ord[i];
				ord[i] = ord[j];
				ord[j] = x;
			}
		for (int i : ord) {
			SimThread &t = g_threads[i];
			if (t.state == 2)
				continue;
			t.state = 0;
			g_cur = i;
			threadIdx = dim3{(unsigned)i, 0, 0};
			to_fiber(t);
		}
		int done = 0;
		for (int i = 0; i < nthreads; i++)
			done += g_threads[i].state == 2;
		if (done == nthreads)
			break;
		if (done)
			sim_fail("some threads returned while others wait at __syncthreads");
	}
	for (int i = 0; i < nthreads; i++) {
		SimThread &t = g_threads[i];
		munmap(t.stack, FIBER_STACK);
		for (const std::vector<Copy> &grp : t.groups)
			for (const Copy &c : grp)
				if (c.srcbytes)
					sim_fail("thread returned with a cp.async carrying data never waited for");
	}
}

#if STREAMK
// What the stream-K kernel must give for C[m][n]: its tile's slabs are
// cut where the G blocks' even shares of all T slabs begin, each part is
// a k-ordered fmaf chain from 0, and the parts are added in block order.
static float streamk_element(const float *A, const float *B, int M, int N, int K, int G, int m, int n)
{
	const long tiles_n = (N + BN - 1) / BN, S = (K + BK - 1) / BK;
	const long T = tiles_n * ((M + BM - 1) / BM) * S;
	const long ts = ((long)(m / BM) * tiles_n + n / BN) * S;
	float sum = 0.0f;
	bool any = false;
	for (long p = 0; p < G; p++) {
		long lo = p * T / G, hi = (p + 1) * T / G;
		lo = lo > ts ? lo : ts;
		hi = hi < ts + S ? hi : ts + S;
		if (lo >= hi)
			continue;
		float part = 0.0f;
		for (long k = (lo - ts) * BK; k < (hi - ts) * BK && k < K; k++)
			part = fmaf(A[(size_t)m * K + k], B[(size_t)k * N + n], part);
		sum = any ? sum + part : part;
		any = true;
	}
	return sum;
}
#endif

int main(int argc, char **argv)
{
	if (argc != 10) {
		fprintf(stderr, "usage: sgemm-sim M N K GX GY GZ BX SMEM ORDER\n");
		return 2;
	}
	int M = atoi(argv[1]), N = atoi(argv[2]), K = atoi(argv[3]);
	int gx = atoi(argv[4]), gy = atoi(argv[5]), gz = atoi(argv[6]), bx = atoi(argv[7]);
	long smem_bytes = atol(argv[8]);
	int order = atoi(argv[9]);
	if (M < 1 || N < 1 || K < 1 || gx < 1 || gy < 1 || gz < 1 || bx < 1 || bx > 1024) {
		fprintf(stderr, "sgemm-sim: bad arguments\n");
		return 2;
	}
	if (smem_bytes != SIM_SMEM_BYTES) {
		fprintf(stderr, "sgemm-sim: launch smem %ld != compiled %d\n", smem_bytes, SIM_SMEM_BYTES);
		return 2;
	}
	g_rng = (uint64_t)order * 7919u + (uint64_t)M * 31u + (uint64_t)N * 17u + (uint64_t)K;
	// Exact-size heap buffers (glibc malloc aligns to 16, as the float4
	// paths need), so ASan's red zones sit right at their ends.
	float *Ae = (float *)malloc((size_t)M * K * 4), *Be = (float *)malloc((size_t)K * N * 4);
	float *Ce = (float *)malloc((size_t)M * N * 4);
	if ((uintptr_t)Ae % 16 || (uintptr_t)Be % 16 || (uintptr_t)Ce % 16) {
		fprintf(stderr, "sgemm-sim: malloc not 16-byte aligned\n");
		return 3;
	}
	for (long i = 0; i < (long)M * K; i++)
		Ae[i] = (float)((long)(rnd() % 2000001) - 1000000) / 1e6f;
	for (long i = 0; i < (long)K * N; i++)
		Be[i] = (float)((long)(rnd() % 2000001) - 1000000) / 1e6f;
	memset(Ce, 0xff, (size_t)M * N * 4);
	const float *A = Ae, *B = Be;
	g_A = Ae, g_B = Be, g_C = Ce, g_M = M, g_N = N, g_K = K;
	g_lo[0] = (const char *)Ae, g_hi[0] = (const char *)(Ae + (size_t)M * K);
	g_lo[1] = (const char *)Be, g_hi[1] = (const char *)(Be + (size_t)K * N);
	gridDim = dim3{(unsigned)gx, (unsigned)gy, (unsigned)gz};
	blockDim = dim3{(unsigned)bx, 1, 1};
	// Blocks one at a time, in index order or (odd ORDER) reversed: which
	// block of a stream-K tile arrives last changes, the result may not.
	const long nblocks = (long)gx * gy * gz;
	for (long n = 0; n < nblocks; n++) {
		const long b = order % 2 ? nblocks - 1 - n : n;
		blockIdx = dim3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / gx / gy)};
		for (size_t i = 0; i < sizeof smem / 4; i++)
			smem[i] = NAN;
		run_block(bx, order);
	}
	int bad = 0;
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++) {
			float c = 0.0f;
			double r = 0.0;
			for (int k = 0; k < K; k++) {
				c = fmaf(A[(size_t)m * K + k], B[(size_t)k * N + n], c);
				r += (double)A[(size_t)m * K + k] * B[(size_t)k * N + n];
			}
#if STREAMK
			c = streamk_element(A, B, M, N, K, gx, m, n);
#endif
			float got = Ce[(size_t)m * N + n];
			uint32_t gb, cb;
			memcpy(&gb, &got, 4);
			memcpy(&cb, &c, 4);
			bool exact = gb == cb || (got == 0.0f && c == 0.0f);
			bool close = fabs((double)got - r) <= 2e-3 + 1e-4 * fabs(r);
			if ((!exact || !close) && bad++ < 5)
				fprintf(stderr, "sgemm-sim: C[%d][%d] = %.9g, want %.9g (fp64 %.9g)%s\n", m, n, got, c, r,
					isnan(got) ? " (unwritten or NaN read)" : "");
		}
	if (bad)
		fprintf(stderr, "sgemm-sim: %d of %ld elements wrong (M=%d N=%d K=%d order %d)\n", bad, (long)M * N, M,
			N, K, order);
	free(Ae), free(Be), free(Ce);
	return bad ? 1 : 0;
}
