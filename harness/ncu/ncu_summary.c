/* ncu_summary.c: a profile's short plain-text summary for the model (see
 * ncu.h). */
#include "ncu.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the summary ---- */

static int num(const cJSON *o, const char *key, double *v)
{
	const cJSON *x = cJSON_GetObjectItem(o, key);
	if (!cJSON_IsNumber(x))
		return 0;
	*v = x->valuedouble;
	return 1;
}

static void human_bytes(char *out, size_t n, double b)
{
	if (b >= 1e9)
		snprintf(out, n, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(out, n, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(out, n, "%.1f KB", b / 1e3);
	else
		snprintf(out, n, "%.0f bytes", b);
}

static const char *stall_hint(const char *r)
{
	static const struct {
		const char *r, *h;
	} t[] = {
		{"long_scoreboard", "warps mostly wait for global or local memory: keep more independent loads in flight "
				    "(vector loads, unrolling), coalesce, or reuse data through shared memory"},
		{"short_scoreboard", "warps wait on shared memory or special-function results: fewer shared accesses "
				     "per FMA (register blocking) and no bank conflicts"},
		{"mio_throttle", "the shared-memory instruction queue is full: use wider (float4) shared accesses and "
				 "more register reuse"},
		{"lg_throttle", "the global/local memory instruction queue is full: use wider vector accesses and "
				"fewer, larger loads"},
		{"barrier", "warps wait at __syncthreads: balance work between warps or synchronize less often"},
		{"math_pipe_throttle", "a math pipe is saturated: the kernel is compute-bound on it; use cheaper "
				       "instructions or tensor cores"},
		{"wait", "fixed-latency dependencies dominate: more independent instructions per thread (ILP)"},
		{"membar", "memory fences are costly: fewer __threadfence calls"},
		{"branch_resolving", "divergent or frequent branches: make control flow uniform per warp"},
		{"no_instruction", "instruction fetch stalls: the code may be too large after unrolling"},
		{"dispatch_stall", "dispatch stalls: often register bank or pipeline conflicts"},
		{"not_selected", "plenty of ready warps: latency is hidden; look at throughput instead"},
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(r, t[i].r))
			return t[i].h;
	return NULL;
}

char *cko_ncu_summary(const cJSON *p)
{
	cko_buf b = {0};
	buf_add(&b, "", 0);
	const cJSON *d = cJSON_GetObjectItem(p, "derived");
	const char *kernel = cko_jstr_opt(p, "kernel", cko_jstr_opt(p, "entry", "?"));
	const char *cs = cko_jstr_opt(p, "case", NULL), *dev = cko_jstr_opt(p, "device", NULL);
	buf_printf(&b, "Nsight Compute profile of kernel %s%s%s%s%s.\n", kernel, cs ? ", case " : "", cs ? cs : "",
		   dev ? ", on " : "", dev ? dev : "");
	double v, w, x;
	int hints = 0;
	if (num(d, "duration_ms", &v))
		buf_printf(&b, "Duration under the profiler: %.4g ms (rank by cko-bench timings, not this).\n", v);
	if (num(d, "sol_compute_pct", &v) && num(d, "sol_memory_pct", &w)) {
		buf_printf(&b, "Throughput: compute (SM) %.1f%% of peak, memory %.1f%% of peak", v, w);
		if (num(d, "dram_pct", &x))
			buf_printf(&b, " (DRAM %.1f%%)", x);
		const char *bound = cko_jstr_opt(d, "bound", "");
		buf_printf(&b, ": %s.\n",
			   !strcmp(bound, "latency") ? "latency-bound (neither unit is busy; more parallelism or ILP)"
			   : !strcmp(bound, "memory") ? "memory-bound"
			   : !strcmp(bound, "compute") ? "compute-bound" : "both compute and memory are busy");
	}
	const cJSON *lim = cJSON_GetObjectItem(d, "occupancy_limits");
	if (num(d, "achieved_occupancy_pct", &v)) {
		buf_printf(&b, "Occupancy: achieved %.1f%%", v);
		if (num(d, "theoretical_occupancy_pct", &w))
			buf_printf(&b, ", theoretical %.1f%%", w);
		const char *l = cko_jstr_opt(d, "occupancy_limiter", NULL);
		if (l)
			buf_printf(&b, ", limited by %s", !strcmp(l, "shared_mem") ? "shared memory" : l);
		if (lim) {
			buf_puts(&b, " (blocks per SM allowed by");
			int first = 1;
			for (const cJSON *e = lim->child; e; e = e->next, first = 0)
				buf_printf(&b, "%s %s %g", first ? "" : ",",
					   !strcmp(e->string, "shared_mem") ? "shared memory" : e->string, e->valuedouble);
			buf_puts(&b, ")");
		}
		buf_puts(&b, ".\n");
	}
	int any = 0;
	if (num(d, "registers_per_thread", &v))
		buf_printf(&b, "%sRegisters: %g per thread", any++ ? "; " : "", v);
	if (num(d, "block_size", &v))
		buf_printf(&b, "%sblock %g threads", any++ ? "; " : "Launch: ", v);
	if (num(d, "grid_size", &v))
		buf_printf(&b, "%sgrid %g blocks", any++ ? ", " : "Launch: ", v);
	if (num(d, "smem_per_block_bytes", &v))
		buf_printf(&b, "%s%g bytes of shared memory per block", any++ ? "; " : "", v);
	if (num(d, "waves_per_sm", &v))
		buf_printf(&b, "%s%.2f waves", any++ ? "; " : "", v);
	if (any)
		buf_puts(&b, ".\n");
	const cJSON *top = cJSON_GetObjectItem(d, "top_stalls");
	const char *top_reason = NULL;
	if (cJSON_GetArraySize(top)) {
		buf_puts(&b, "Top warp stalls (cycles per issued instruction):");
		int i = 0;
		for (const cJSON *e = top->child; e && i < 4; e = e->next, i++) {
			const char *r = cko_jstr_opt(e, "reason", "?");
			if (!i)
				top_reason = r;
			buf_printf(&b, "%s %s %.2f (%.0f%%)", i ? "," : "", r,
				   cJSON_GetNumberValue(cJSON_GetObjectItem(e, "cycles_per_issue")),
				   cJSON_GetNumberValue(cJSON_GetObjectItem(e, "share_pct")));
		}
		if (num(d, "warp_cycles_per_issue", &v))
			buf_printf(&b, "; %.2f cycles between issues per warp", v);
		buf_puts(&b, ".\n");
	}
	int h1 = num(d, "l1_hit_pct", &v), h2 = num(d, "l2_hit_pct", &w);
	if (h1 || h2) {
		buf_puts(&b, "Caches:");
		if (h1)
			buf_printf(&b, " L1 hit rate %.1f%%%s", v, h2 ? "," : "");
		if (h2)
			buf_printf(&b, " L2 hit rate %.1f%%", w);
		buf_puts(&b, ".\n");
	}
	const cJSON *db = cJSON_GetObjectItem(d, "dram_bytes");
	if (db) {
		char r[32] = "?", wr[32] = "?";
		if (num(db, "read", &v))
			human_bytes(r, sizeof r, v);
		if (num(db, "write", &w))
			human_bytes(wr, sizeof wr, w);
		buf_printf(&b, "DRAM traffic: %s read, %s written", r, wr);
		if (num(d, "dram_gbps", &x))
			buf_printf(&b, " (%.1f GB/s)", x);
		buf_puts(&b, ".\n");
	}
	h1 = num(d, "global_load_sectors_per_request", &v);
	h2 = num(d, "global_store_sectors_per_request", &w);
	if (h1 || h2) {
		buf_puts(&b, "Global accesses:");
		if (h1)
			buf_printf(&b, " %.1f sectors per load request%s", v, h2 ? "," : "");
		if (h2)
			buf_printf(&b, " %.1f per store request", w);
		buf_puts(&b, " (a warp of coalesced 4-byte accesses needs 4, of float4 16).\n");
	}
	const cJSON *bc = cJSON_GetObjectItem(d, "smem_bank_conflicts");
	double cpct = 0;
	if (bc) {
		buf_printf(&b, "Shared-memory bank conflicts: %.0f on loads, %.0f on stores",
			   cJSON_GetNumberValue(cJSON_GetObjectItem(bc, "load")),
			   cJSON_GetNumberValue(cJSON_GetObjectItem(bc, "store")));
		if (num(d, "smem_conflict_pct", &cpct))
			buf_printf(&b, " (%.1f%% of shared-memory wavefronts)", cpct);
		buf_puts(&b, ".\n");
	}
	const cJSON *lb = cJSON_GetObjectItem(d, "local_bytes");
	double spill = 0;
	if (lb) {
		double l = 0, s = 0;
		num(lb, "load", &l);
		num(lb, "store", &s);
		spill = l + s;
		char a[32], c[32];
		human_bytes(a, sizeof a, l);
		human_bytes(c, sizeof c, s);
		buf_printf(&b, "Local memory (register spills, dynamically indexed arrays): %s loaded, %s stored.\n", a, c);
	}
	/* At most three hints, the most telling first. */
	const char *sh = top_reason ? stall_hint(top_reason) : NULL;
	if (sh && hints < 3) {
		buf_printf(&b, "Hint: %s.\n", sh);
		hints++;
	}
	if (cpct > 10 && hints < 3) {
		buf_puts(&b, "Hint: bank conflicts cost a large share of shared-memory traffic: pad rows or swizzle.\n");
		hints++;
	}
	if (spill > 0 && hints < 3) {
		buf_puts(&b, "Hint: the kernel spills or uses local arrays: unroll loops over register arrays, "
			     "or give __launch_bounds__ room for more registers.\n");
		hints++;
	}
	if (num(d, "waves_per_sm", &v) && v < 1 && hints < 3) {
		buf_puts(&b, "Hint: the grid is smaller than one wave: use more, smaller blocks to fill every SM.\n");
		hints++;
	}
	if (num(d, "achieved_occupancy_pct", &v) && num(d, "theoretical_occupancy_pct", &w) && v < 0.6 * w &&
	    hints < 3) {
		buf_puts(&b, "Hint: achieved occupancy is far below theoretical: blocks finish unevenly or the grid "
			     "leaves SMs idle.\n");
		hints++;
	}
	const cJSON *miss = cJSON_GetObjectItem(p, "missing");
	if (cJSON_GetArraySize(miss))
		buf_printf(&b, "(%d of the requested metrics were not available.)\n", cJSON_GetArraySize(miss));
	return b.s;
}
