/* ncu.c: Nsight Compute CSV parsing, the metrics cko-profile keeps, what
 * they say (derived fields) and a short summary (see ncu.h). */
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

/* ---- CSV ---- */

typedef struct {
	char **f;
	int n, cap;
} record;

static void rec_add(record *r, cko_buf *field)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->f = xrealloc(r->f, (size_t)r->cap * sizeof *r->f);
	}
	r->f[r->n++] = field->s ? field->s : xstrdup("");
	memset(field, 0, sizeof *field);
}

static void rec_free(record *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof *r);
}

/* One record from *p (RFC 4180: quotes, doubled quotes, newlines inside
 * quotes). Returns 0 at the end of input, -1 on an unterminated quote. */
static int next_record(const char **p, record *r)
{
	const char *s = *p;
	memset(r, 0, sizeof *r);
	if (!*s)
		return 0;
	cko_buf f = {0};
	buf_add(&f, "", 0);
	for (;;) {
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s) {
					buf_free(&f);
					rec_free(r);
					return -1;
				}
				if (*s == '"' && s[1] == '"') {
					buf_add(&f, "\"", 1);
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					buf_add(&f, s++, 1);
				}
			}
			/* Text after a closing quote is kept, as lenient parsers do. */
		}
		while (*s && *s != ',' && *s != '\n' && *s != '\r')
			buf_add(&f, s++, 1);
		if (*s == ',') {
			rec_add(r, &f);
			buf_add(&f, "", 0);
			s++;
			continue;
		}
		rec_add(r, &f);
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		break;
	}
	*p = s;
	return 1;
}

static int find(const record *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->f[i], name))
			return i;
	return -1;
}

static int add_col(cko_ncu_table *t, const char *name, const char *unit)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return i;
	t->names = xrealloc(t->names, (size_t)(t->ncols + 1) * sizeof *t->names);
	t->units = xrealloc(t->units, (size_t)(t->ncols + 1) * sizeof *t->units);
	t->names[t->ncols] = xstrdup(name);
	t->units[t->ncols] = xstrdup(unit ? unit : "");
	return t->ncols++;
}

static void set_cell(cko_ncu_table *t, int row, int col, const char *v)
{
	free(t->cells[(size_t)row * (size_t)t->ncols + (size_t)col]);
	t->cells[(size_t)row * (size_t)t->ncols + (size_t)col] = xstrdup(v);
}

/* The long (details page) form: rows of ID, ..., Metric Name, Metric Unit,
 * Metric Value, pivoted into one row per ID. */
static int pivot(record *hdr, record *rows, int nrows, cko_ncu_table *t, char *err, size_t errlen)
{
	int cid = find(hdr, "ID"), cname = find(hdr, "Metric Name"), cunit = find(hdr, "Metric Unit"),
	    cval = find(hdr, "Metric Value");
	/* Columns: the descriptive ones before "Section Name"/"Metric Name". */
	int ndesc = find(hdr, "Section Name") >= 0 ? find(hdr, "Section Name") : cname;
	for (int i = 0; i < ndesc; i++)
		add_col(t, hdr->f[i], "");
	char **ids = xcalloc((size_t)nrows + 1, sizeof *ids);
	int nid = 0;
	for (int r = 0; r < nrows; r++) {
		if (rows[r].n <= cval || rows[r].n <= cname)
			continue;
		add_col(t, rows[r].f[cname], cunit >= 0 && rows[r].n > cunit ? rows[r].f[cunit] : "");
		int k = 0;
		while (k < nid && strcmp(ids[k], rows[r].f[cid]))
			k++;
		if (k == nid)
			ids[nid++] = rows[r].f[cid];
	}
	if (!nid) {
		free(ids);
		snprintf(err, errlen, "no metric rows after the header");
		return -1;
	}
	t->nrows = nid;
	t->cells = xcalloc((size_t)nid * (size_t)t->ncols, sizeof *t->cells);
	for (int r = 0; r < nrows; r++) {
		if (rows[r].n <= cval || rows[r].n <= cname)
			continue;
		int k = 0;
		while (strcmp(ids[k], rows[r].f[cid]))
			k++;
		for (int i = 0; i < ndesc && i < rows[r].n; i++)
			set_cell(t, k, i, rows[r].f[i]);
		set_cell(t, k, cko_ncu_col(t, rows[r].f[cname]), rows[r].f[cval]);
	}
	free(ids);
	return 0;
}

int cko_ncu_parse_csv(const char *text, cko_ncu_table *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	const char *p = text;
	record hdr = {0};
	/* The header: the first record whose first field is "ID". Lines of
	 * other output before it are skipped whole. */
	for (;;) {
		const char *line = p;
		int k = next_record(&p, &hdr);
		if (k == 0) {
			snprintf(err, errlen, "no header row (a first column named \"ID\"): not ncu CSV output");
			return -1;
		}
		if (k < 0) {
			/* An unbalanced quote in a noise line: skip the line. */
			const char *nl = strchr(line, '\n');
			if (!nl) {
				snprintf(err, errlen, "no header row (a first column named \"ID\"): not ncu CSV output");
				return -1;
			}
			p = nl + 1;
			continue;
		}
		if (hdr.n > 1 && !strcmp(hdr.f[0], "ID"))
			break;
		rec_free(&hdr);
	}
	int cap = 16, n = 0, rc = 0;
	record *rows = xcalloc((size_t)cap, sizeof *rows);
	for (;;) {
		record r;
		int k = next_record(&p, &r);
		if (k == 0)
			break;
		if (k < 0) {
			snprintf(err, errlen, "record %d after the header: unterminated quoted field", n + 1);
			rc = -1;
			break;
		}
		if (r.n == 1 && !*r.f[0]) { /* a blank line */
			rec_free(&r);
			continue;
		}
		if (r.n == 1 && !strncmp(r.f[0], "==", 2)) { /* a trailing ==PROF== line */
			rec_free(&r);
			continue;
		}
		if (n == cap)
			rows = xrealloc(rows, (size_t)(cap *= 2) * sizeof *rows);
		rows[n++] = r;
	}
	if (!rc && find(&hdr, "Metric Name") >= 0 && find(&hdr, "Metric Value") >= 0) {
		rc = pivot(&hdr, rows, n, t, err, errlen);
	} else if (!rc) {
		/* The raw form: an optional units row (empty ID), then kernels. */
		int first = 0;
		for (int i = 0; i < hdr.n; i++)
			add_col(t, hdr.f[i], n > 0 && !*rows[0].f[0] && rows[0].n > i ? rows[0].f[i] : "");
		if (t->ncols != hdr.n) {
			snprintf(err, errlen, "the header repeats a column name");
			rc = -1;
		}
		if (!rc && n > 0 && !*rows[0].f[0])
			first = 1;
		t->nrows = n - first;
		t->cells = xcalloc((size_t)(t->nrows > 0 ? t->nrows : 1) * (size_t)t->ncols, sizeof *t->cells);
		for (int r = first; !rc && r < n; r++) {
			if (rows[r].n != hdr.n) {
				snprintf(err, errlen, "row %d has %d fields, the header %d", r + 2, rows[r].n, hdr.n);
				rc = -1;
				break;
			}
			for (int i = 0; i < hdr.n; i++)
				set_cell(t, r - first, i, rows[r].f[i]);
		}
		if (!rc && t->nrows <= 0) {
			snprintf(err, errlen, "no kernel rows: ncu profiled nothing");
			rc = -1;
		}
	}
	for (int i = 0; i < n; i++)
		rec_free(&rows[i]);
	free(rows);
	rec_free(&hdr);
	if (rc)
		cko_ncu_table_free(t);
	return rc;
}

void cko_ncu_table_free(cko_ncu_table *t)
{
	for (int i = 0; i < t->ncols; i++) {
		free(t->names[i]);
		free(t->units[i]);
	}
	if (t->cells)
		for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++)
			free(t->cells[i]);
	free(t->names);
	free(t->units);
	free(t->cells);
	memset(t, 0, sizeof *t);
}

int cko_ncu_col(const cko_ncu_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return -1;
}

const char *cko_ncu_cell(const cko_ncu_table *t, int row, int col)
{
	if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
		return "";
	const char *c = t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
	return c ? c : "";
}

int cko_ncu_number(const char *s, double *v)
{
	char buf[128];
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *lc = strrchr(buf, ','), *ld = strrchr(buf, '.');
	int commas = 0, dots = 0;
	for (char *q = buf; *q; q++)
		commas += *q == ',', dots += *q == '.';
	char dec = '.', group = ',';
	if (commas && dots)
		dec = lc > ld ? ',' : '.', group = lc > ld ? '.' : ',';
	else if (commas == 1 && !(strlen(lc + 1) == 3 && strspn(lc + 1, "0123456789") == 3))
		dec = ',', group = '.'; /* "65,77": a decimal comma */
	else if (dots > 1)
		dec = ',', group = '.'; /* "27.595.520": dots group thousands */
	char clean[128];
	size_t k = 0;
	for (char *q = buf; *q; q++) {
		if (*q == group)
			continue;
		clean[k++] = *q == dec ? '.' : *q;
	}
	clean[k] = 0;
	char *end;
	double x = strtod(clean, &end);
	if (end == clean || *end || isnan(x) || isinf(x))
		return -1;
	*v = x;
	return 0;
}

int cko_ncu_find_kernel(const cko_ncu_table *t, const char *entry)
{
	int col = cko_ncu_col(t, "Kernel Name"), found = -1;
	size_t n = strlen(entry);
	for (int r = 0; col >= 0 && r < t->nrows; r++) {
		const char *k = cko_ncu_cell(t, r, col);
		if (found < 0 && !strncmp(k, entry, n) && (k[n] == 0 || k[n] == '(' || k[n] == '<'))
			found = r;
	}
	if (found >= 0)
		return found; /* the first launch of the entry */
	return t->nrows == 1 && col < 0 ? 0 : -1;
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
