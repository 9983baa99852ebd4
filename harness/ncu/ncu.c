/* ncu.c: the metrics cko-profile keeps and what they say (derived
 * fields), from a table of ncu_csv.c; ncu_summary.c puts them in prose
 * (see ncu.h). */
#include "ncu.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define STALL_SUFFIX "_per_issue_active.ratio"
#define STALL(n) STALL_PREFIX n STALL_SUFFIX

const char *const cko_ncu_metrics[] = {
	"gpu__time_duration.sum",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"smsp__issue_active.avg.pct_of_peak_sustained_active",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"sm__maximum_warps_per_active_cycle_pct",
	"launch__occupancy_limit_registers",
	"launch__occupancy_limit_shared_mem",
	"launch__occupancy_limit_warps",
	"launch__occupancy_limit_blocks",
	"launch__registers_per_thread",
	"launch__block_size",
	"launch__grid_size",
	"launch__shared_mem_per_block_static",
	"launch__shared_mem_per_block_dynamic",
	"launch__waves_per_multiprocessor",
	"smsp__average_warp_latency_per_inst_issued.ratio",
	STALL("barrier"),
	STALL("branch_resolving"),
	STALL("dispatch_stall"),
	STALL("drain"),
	STALL("imc_miss"),
	STALL("lg_throttle"),
	STALL("long_scoreboard"),
	STALL("math_pipe_throttle"),
	STALL("membar"),
	STALL("mio_throttle"),
	STALL("misc"),
	STALL("no_instruction"),
	STALL("not_selected"),
	STALL("selected"),
	STALL("short_scoreboard"),
	STALL("sleeping"),
	STALL("tex_throttle"),
	STALL("wait"),
	"l1tex__t_sector_hit_rate.pct",
	"lts__t_sector_hit_rate.pct",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
	"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum",
	"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
	"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	NULL,
};

char *cko_ncu_metric_list(void)
{
	cko_buf b = {0};
	for (int i = 0; cko_ncu_metrics[i]; i++)
		buf_printf(&b, "%s%s", i ? "," : "", cko_ncu_metrics[i]);
	return b.s;
}

/* ---- metrics and what they mean ---- */

typedef struct {
	const cko_ncu_table *t;
	int row;
} src;

static int get(const src *s, const char *name, double *v, const char **unit)
{
	int c = cko_ncu_col(s->t, name);
	if (c < 0 || cko_ncu_number(cko_ncu_cell(s->t, s->row, c), v))
		return 0;
	if (unit)
		*unit = s->t->units[c];
	return 1;
}

/* Scale of a time unit to milliseconds; ncu's base unit is nanoseconds. */
static double to_ms(const char *u)
{
	static const struct {
		const char *u;
		double f;
	} t[] = {{"nsecond", 1e-6}, {"ns", 1e-6}, {"usecond", 1e-3}, {"us", 1e-3}, {"msecond", 1}, {"ms", 1},
		 {"second", 1e3}, {"s", 1e3}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(u, t[i].u))
			return t[i].f;
	return 1e-6;
}

/* Scale of a byte unit to bytes (ncu's prefixes are decimal). */
static double to_bytes(const char *u)
{
	static const struct {
		const char *u;
		double f;
	} t[] = {{"byte", 1}, {"B", 1}, {"Kbyte", 1e3}, {"KB", 1e3}, {"Mbyte", 1e6}, {"MB", 1e6},
		 {"Gbyte", 1e9}, {"GB", 1e9}, {"Tbyte", 1e12}, {"TB", 1e12}, {"KiB", 1024.0},
		 {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (!strcmp(u, t[i].u))
			return t[i].f;
	return 1;
}

static double r3(double x) { return fabs(x) >= 1e6 ? round(x) : round(x * 1e3) / 1e3; }

static void add_num(cJSON *o, const char *key, double v) { cJSON_AddNumberToObject(o, key, r3(v)); }

static int cmp_stall(const void *a, const void *b)
{
	double x = cJSON_GetObjectItem(*(cJSON *const *)a, "cycles_per_issue")->valuedouble;
	double y = cJSON_GetObjectItem(*(cJSON *const *)b, "cycles_per_issue")->valuedouble;
	return x < y ? 1 : x > y ? -1 : 0;
}

static cJSON *derive(const src *s)
{
	cJSON *d = cJSON_CreateObject();
	double v, w, x, y;
	const char *u;
	if (get(s, "gpu__time_duration.sum", &v, &u))
		add_num(d, "duration_ms", v * to_ms(u));
	int hc = get(s, "sm__throughput.avg.pct_of_peak_sustained_elapsed", &v, NULL);
	int hm = get(s, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", &w, NULL);
	if (hc)
		add_num(d, "sol_compute_pct", v);
	if (hm)
		add_num(d, "sol_memory_pct", w);
	if (get(s, "dram__throughput.avg.pct_of_peak_sustained_elapsed", &x, NULL))
		add_num(d, "dram_pct", x);
	if (hc && hm) {
		/* Nsight's rule of thumb: below 60% of peak on both, latency
		 * rather than a unit's throughput limits the kernel. */
		const char *bound = v < 60 && w < 60 ? "latency" : w > 1.25 * v ? "memory" : v > 1.25 * w ? "compute"
													     : "compute+memory";
		cJSON_AddStringToObject(d, "bound", bound);
	}
	if (get(s, "smsp__issue_active.avg.pct_of_peak_sustained_active", &v, NULL))
		add_num(d, "issue_active_pct", v);
	if (get(s, "sm__warps_active.avg.pct_of_peak_sustained_active", &v, NULL))
		add_num(d, "achieved_occupancy_pct", v);
	if (get(s, "sm__maximum_warps_per_active_cycle_pct", &v, NULL))
		add_num(d, "theoretical_occupancy_pct", v);
	static const char *const lim[] = {"registers", "shared_mem", "warps", "blocks"};
	cJSON *limits = NULL;
	const char *limiter = NULL;
	double best = 0;
	for (int i = 0; i < 4; i++) {
		char name[64];
		snprintf(name, sizeof name, "launch__occupancy_limit_%s", lim[i]);
		if (!get(s, name, &v, NULL))
			continue;
		if (!limits)
			limits = cJSON_AddObjectToObject(d, "occupancy_limits");
		add_num(limits, lim[i], v);
		if (!limiter || v < best)
			limiter = lim[i], best = v;
	}
	if (limiter)
		cJSON_AddStringToObject(d, "occupancy_limiter", limiter);
	if (get(s, "launch__registers_per_thread", &v, NULL))
		add_num(d, "registers_per_thread", v);
	if (get(s, "launch__block_size", &v, NULL))
		add_num(d, "block_size", v);
	if (get(s, "launch__grid_size", &v, NULL))
		add_num(d, "grid_size", v);
	int h1 = get(s, "launch__shared_mem_per_block_static", &v, &u);
	int h2 = get(s, "launch__shared_mem_per_block_dynamic", &w, &u);
	if (h1 || h2)
		add_num(d, "smem_per_block_bytes", (h1 ? v : 0) + (h2 ? w : 0));
	if (get(s, "launch__waves_per_multiprocessor", &v, NULL))
		add_num(d, "waves_per_sm", v);
	if (get(s, "smsp__average_warp_latency_per_inst_issued.ratio", &v, NULL))
		add_num(d, "warp_cycles_per_issue", v);

	/* Stall reasons, largest first; "selected" is issuing, not stalling. */
	cJSON *st[32];
	int ns = 0;
	double total = 0;
	for (int i = 0; cko_ncu_metrics[i]; i++) {
		const char *m = cko_ncu_metrics[i];
		if (strncmp(m, STALL_PREFIX, strlen(STALL_PREFIX)) || !get(s, m, &v, NULL))
			continue;
		char *reason = strndup(m + strlen(STALL_PREFIX), strlen(m) - strlen(STALL_PREFIX) - strlen(STALL_SUFFIX));
		if (strcmp(reason, "selected") && v > 0 && ns < 32) {
			st[ns] = cJSON_CreateObject();
			cJSON_AddStringToObject(st[ns], "reason", reason);
			cJSON_AddNumberToObject(st[ns], "cycles_per_issue", v);
			ns++;
			total += v;
		}
		free(reason);
	}
	qsort(st, (size_t)ns, sizeof *st, cmp_stall);
	if (ns) {
		cJSON *top = cJSON_AddArrayToObject(d, "top_stalls");
		for (int i = 0; i < ns; i++) {
			if (i < 5) {
				double c = cJSON_GetObjectItem(st[i], "cycles_per_issue")->valuedouble;
				cJSON_ReplaceItemInObject(st[i], "cycles_per_issue", cJSON_CreateNumber(r3(c)));
				cJSON_AddNumberToObject(st[i], "share_pct", r3(100 * c / total));
				cJSON_AddItemToArray(top, st[i]);
			} else {
				cJSON_Delete(st[i]);
			}
		}
		add_num(d, "stall_cycles_per_issue", total);
	}

	if (get(s, "l1tex__t_sector_hit_rate.pct", &v, NULL))
		add_num(d, "l1_hit_pct", v);
	if (get(s, "lts__t_sector_hit_rate.pct", &v, NULL))
		add_num(d, "l2_hit_pct", v);
	int bl = get(s, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", &v, NULL);
	int bs = get(s, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", &w, NULL);
	if (bl || bs) {
		cJSON *b = cJSON_AddObjectToObject(d, "smem_bank_conflicts");
		if (bl)
			add_num(b, "load", v);
		if (bs)
			add_num(b, "store", w);
		int wl = get(s, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", &x, NULL);
		int ws = get(s, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", &y, NULL);
		double wf = (wl ? x : 0) + (ws ? y : 0);
		if ((wl || ws) && wf > 0)
			add_num(d, "smem_conflict_pct", 100 * ((bl ? v : 0) + (bs ? w : 0)) / wf);
	}
	int ll = get(s, "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", &v, &u);
	double lsc = ll ? to_bytes(u) : 1;
	const char *u2 = "";
	int ls = get(s, "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", &w, &u2);
	if (ll || ls) {
		cJSON *b = cJSON_AddObjectToObject(d, "local_bytes");
		if (ll)
			add_num(b, "load", v * lsc);
		if (ls)
			add_num(b, "store", w * to_bytes(u2));
	}
	int dr = get(s, "dram__bytes_read.sum", &v, &u);
	double drs = dr ? to_bytes(u) : 1;
	int dw = get(s, "dram__bytes_write.sum", &w, &u2);
	if (dr || dw) {
		cJSON *b = cJSON_AddObjectToObject(d, "dram_bytes");
		if (dr)
			add_num(b, "read", v * drs);
		if (dw)
			add_num(b, "write", w * to_bytes(u2));
		double ms = cJSON_GetNumberValue(cJSON_GetObjectItem(d, "duration_ms"));
		if (dr && dw && ms > 0)
			add_num(d, "dram_gbps", (v * drs + w * to_bytes(u2)) / (ms * 1e6));
	}
	if (get(s, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", &v, NULL) &&
	    get(s, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", &w, NULL) && w > 0)
		add_num(d, "global_load_sectors_per_request", v / w);
	if (get(s, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", &v, NULL) &&
	    get(s, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", &w, NULL) && w > 0)
		add_num(d, "global_store_sectors_per_request", v / w);
	return d;
}

void cko_ncu_profile(const cko_ncu_table *t, int row, cJSON *p)
{
	src s = {t, row};
	int kc = cko_ncu_col(t, "Kernel Name");
	if (kc >= 0)
		cJSON_AddStringToObject(p, "kernel", cko_ncu_cell(t, row, kc));
	int dc = cko_ncu_col(t, "device__attribute_display_name");
	if (dc >= 0 && *cko_ncu_cell(t, row, dc))
		cJSON_AddStringToObject(p, "device", cko_ncu_cell(t, row, dc));
	cJSON *m = cJSON_AddObjectToObject(p, "metrics");
	cJSON *missing = cJSON_AddArrayToObject(p, "missing");
	for (int i = 0; cko_ncu_metrics[i]; i++) {
		double v;
		const char *u;
		if (get(&s, cko_ncu_metrics[i], &v, &u)) {
			cJSON *o = cJSON_AddObjectToObject(m, cko_ncu_metrics[i]);
			cJSON_AddNumberToObject(o, "value", v);
			cJSON_AddStringToObject(o, "unit", u);
		} else {
			cJSON_AddItemToArray(missing, cJSON_CreateString(cko_ncu_metrics[i]));
		}
	}
	cJSON_AddItemToObject(p, "derived", derive(&s));
}
