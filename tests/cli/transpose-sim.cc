// transpose-sim: runs workloads/transpose/kernels/tiled.cu on the CPU, as
// written, to check its index math (the grouped block order, the float4
// and scalar paths, the bounds) and its barrier where no GPU is at hand.
// Built by tests/cli/transpose-sim.sh with the kernel's -D defines plus
// -DKERNEL_FILE="path.cu", under -fsanitize=address,undefined: a read or
// write outside x or y and a misaligned float4 access stop the run.
//
// Model (as tests/cli/sgemm-sim.cc): every CUDA thread of a block is a
// fiber (ucontext) of one host thread; a scheduler runs each until it
// reaches __syncthreads() or returns, in index order, reversed, or
// shuffled anew in every barrier interval, so a missing barrier changes
// the result. The kernel's __shared__ tile is one static array for all
// threads, set to NaN before each block; y starts as NaN. Every element of
// y must be written and equal x transposed, bit for bit (x holds distinct
// values, so a value from the wrong place or a stale tile shows).
//
// Usage: transpose-sim R C GX BX ORDER
// Exit 0 when y is right, 1 otherwise (with a message), 2 on bad usage.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <vector>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

// ---- the CUDA surface the kernel uses ----
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
// A static in a section of its own: the linker's __start_/__stop_ symbols
// bound it, so it can be set to NaN before each block.
#define __shared__ static __attribute__((section("cko_shared")))
#define __restrict__

struct dim3 {
	unsigned x, y, z;
};
struct __attribute__((aligned(16))) float4 {
	float x, y, z, w;
};
static inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
static dim3 threadIdx, blockIdx, blockDim, gridDim;

static void sim_fail(const char *msg)
{
	fprintf(stderr, "transpose-sim: %s (block %u thread %u)\n", msg, blockIdx.x, threadIdx.x);
	exit(1);
}

template <class T> static inline T __ldg(const T *p)
{
	if ((uintptr_t)p % sizeof(T))
		sim_fail("misaligned __ldg");
	return *p;
}

struct SimThread {
	ucontext_t ctx;
	char *stack;
	void *fake;
	int state; // 0 ready, 1 at a barrier, 2 returned
};
static std::vector<SimThread> g_threads;
static int g_cur;
#define FIBER_STACK (64 * 1024)
#include "sim-fiber.h"

static void to_fiber(SimThread &t)
{
	fiber_enter(&t.ctx, t.stack);
}

static void to_sched(SimThread &t, bool last)
{
	fiber_leave(&t.ctx, &t.fake, last);
}

static void __syncthreads()
{
	SimThread &t = g_threads[g_cur];
	t.state = 1;
	to_sched(t, false);
}

#include KERNEL_FILE

extern "C" float __start_cko_shared[], __stop_cko_shared[];

// ---- the scheduler ----
static const float *g_x;
static float *g_y;
static int g_R, g_C;

static void fiber_main()
{
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(NULL, &g_sched_stack, &g_sched_size);
#endif
	transpose(g_x, g_y, g_R, g_C);
	SimThread &t = g_threads[g_cur];
	t.state = 2;
	to_sched(t, true);
	abort();
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

static void run_block(unsigned bx, unsigned nthreads, int order)
{
	blockIdx = dim3{bx, 0, 0};
	for (float *p = __start_cko_shared; p < __stop_cko_shared; p++)
		*p = NAN;
	for (unsigned i = 0; i < nthreads; i++) { // stacks allocated once, in main
		SimThread &t = g_threads[i];
		t.state = 0;
		t.fake = NULL;
		getcontext(&t.ctx);
		t.ctx.uc_stack.ss_sp = t.stack;
		t.ctx.uc_stack.ss_size = FIBER_STACK;
		t.ctx.uc_link = NULL;
		makecontext(&t.ctx, fiber_main, 0);
	}
	std::vector<unsigned> seq(nthreads);
	for (;;) {
		for (unsigned i = 0; i < nthreads; i++)
			seq[i] = order == 1 ? nthreads - 1 - i : i;
		if (order >= 2)
			for (unsigned i = nthreads - 1; i > 0; i--) {
				unsigned j = (unsigned)(rnd() % (i + 1)), s = seq[i];
				seq[i] = seq[j], seq[j] = s;
			}
		int running = 0, waiting = 0;
		for (unsigned k = 0; k < nthreads; k++) {
			SimThread &t = g_threads[seq[k]];
			if (t.state == 2)
				continue;
			g_cur = (int)seq[k];
			threadIdx = dim3{seq[k], 0, 0};
			t.state = 0;
			to_fiber(t);
			running++;
			waiting += t.state == 1;
		}
		if (!running)
			break;
		if (waiting && waiting != running)
			sim_fail("some threads returned while others wait at __syncthreads (divergent barrier)");
	}
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: transpose-sim R C GX BX ORDER\n");
		return 2;
	}
	g_R = atoi(argv[1]), g_C = atoi(argv[2]);
	unsigned gx = (unsigned)atoi(argv[3]), bx = (unsigned)atoi(argv[4]);
	int order = atoi(argv[5]);
	g_rng = (uint64_t)order * 7919u + 1;
	if (g_R < 1 || g_C < 1 || gx < 1 || bx < 1 || bx > 1024)
		return 2;
	if (bx != NT)
		sim_fail("block size is not NT");
	size_t n = (size_t)g_R * g_C;
	float *x = (float *)malloc(n * sizeof *x), *y = (float *)malloc(n * sizeof *y);
	for (size_t i = 0; i < n; i++)
		x[i] = (float)i + 0.5f; // distinct and exact up to 2^23
	for (size_t i = 0; i < n; i++)
		y[i] = NAN;
	g_x = x, g_y = y;
	blockDim = dim3{bx, 1, 1}, gridDim = dim3{gx, 1, 1};
	g_threads.assign(bx, SimThread{});
	for (SimThread &t : g_threads)
		t.stack = (char *)malloc(FIBER_STACK);
	for (unsigned b = 0; b < gx; b++)
		run_block(b, bx, order);
	for (SimThread &t : g_threads)
		free(t.stack);
	for (int c = 0; c < g_C; c++)
		for (int r = 0; r < g_R; r++) {
			float want = x[(size_t)r * g_C + c], got = y[(size_t)c * g_R + r];
			if (memcmp(&want, &got, sizeof want)) {
				fprintf(stderr, "transpose-sim: %dx%d: y[%d][%d] = %g, want %g\n", g_R, g_C, c, r, got, want);
				return 1;
			}
		}
	free(x);
	free(y);
	return 0;
}
