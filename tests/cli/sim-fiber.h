// Fibers for the CPU simulations of kernels (sgemm-sim.cc, transpose-sim.cc):
// one per CUDA thread, each switched to and from one scheduler. ASan is told
// of every switch, so it tracks which stack is live. Define FIBER_STACK (a
// fiber's stack size) before including this.
static ucontext_t g_sched;
static const void *g_sched_stack; // the scheduler's stack, for ASan
static size_t g_sched_size;

// From the scheduler into the fiber ctx running on stack.
static void fiber_enter(ucontext_t *ctx, char *stack)
{
#ifdef __SANITIZE_ADDRESS__
	void *fake = NULL;
	__sanitizer_start_switch_fiber(&fake, stack, FIBER_STACK);
	swapcontext(&g_sched, ctx);
	__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
	(void)stack;
	swapcontext(&g_sched, ctx);
#endif
}

// From the fiber ctx back to the scheduler; *fake keeps ASan's fake-stack
// handle while it is switched out; last: the fiber has returned for good.
static void fiber_leave(ucontext_t *ctx, void **fake, bool last)
{
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_start_switch_fiber(last ? NULL : fake, g_sched_stack, g_sched_size);
	swapcontext(ctx, &g_sched);
	__sanitizer_finish_switch_fiber(*fake, &g_sched_stack, &g_sched_size);
#else
	(void)fake;
	(void)last;
	swapcontext(ctx, &g_sched);
#endif
}
