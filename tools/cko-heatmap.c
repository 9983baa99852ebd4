/* cko-heatmap: a run's history.json as a candidates x performance-cases
 * heatmap, PNG and SVG, drawn by gnuplot (run from an argv, the script on
 * its stdin). Colour is each median latency relative to the reference's
 * median for that case, on a log scale; cells show the speedup. The best
 * row is history.json's "best" (cko-rank decides it), none without one. */
#include "cko.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-heatmap [-o prefix] [--title text] [--script file.gp] history.json\n"
		"  -o, --output prefix   write prefix.png and prefix.svg (default: heatmap beside the history file)\n"
		"      --title text      first title line instead of \"workload on GPU\"\n"
		"      --script file.gp  also save the gnuplot script\n"
		"  -h, --help            print this help and exit\n");
	exit(status);
}

typedef struct {
	const char *id, *note, *status, *stage, *reason;
	double *ms; /* per perf case; NAN when missing */
	double geomean;
} row;

typedef struct {
	const char *file, *gpu, *workload;
	int ncases, nrows;
	int best; /* the row history.json names its best, -1 for none */
	const char **cases;
	double *ref; /* per perf case */
	double ref_geomean;
	row *rows;
} history;

static double pos_num(const cJSON *v) { return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN; }

static const char *str_or_null(const cJSON *o, const char *key, const char *file, const char *field)
{
	const cJSON *v = cko_jget(o, key);
	if (!v || cJSON_IsNull(v))
		return NULL;
	if (!cJSON_IsString(v))
		cko_jfail(file, cko_field(field, key), "expected a string or null");
	return v->valuestring;
}

/* Reads what the heatmap needs; other keys are left to cko-rank. */
static void load(const char *file, cJSON *root, history *h)
{
	memset(h, 0, sizeof *h);
	h->file = file;
	if (!cJSON_IsObject(root))
		cko_jfail(file, "", "expected an object (a history.json from cko-rank)");
	h->gpu = str_or_null(root, "gpu", file, "");
	h->workload = str_or_null(root, "workload", file, "");
	str_or_null(root, "best", file, "");
	h->best = -1;
	const cJSON *pc = cko_jreq(root, "perf_cases", file, "");
	if (!cJSON_IsArray(pc) || !cJSON_GetArraySize(pc))
		cko_jfail(file, "perf_cases", "expected a non-empty array of case names");
	h->ncases = cJSON_GetArraySize(pc);
	h->cases = xcalloc((size_t)h->ncases, sizeof *h->cases);
	h->ref = xcalloc((size_t)h->ncases, sizeof *h->ref);
	const cJSON *ref = cko_jreq(root, "reference", file, "");
	const cJSON *rmed = cko_jreq(ref, "median_ms", file, "reference");
	if (!cJSON_IsObject(rmed))
		cko_jfail(file, "reference.median_ms", "expected an object of case name -> milliseconds");
	int i = 0;
	double lsum = 0;
	for (const cJSON *c = pc->child; c; c = c->next, i++) {
		if (!cJSON_IsString(c) || !*c->valuestring)
			cko_jfail(file, cko_field_i("perf_cases", i), "expected a case name");
		h->cases[i] = c->valuestring;
		h->ref[i] = pos_num(cko_jget(rmed, c->valuestring));
		if (isnan(h->ref[i]))
			cko_jfail(file, cko_field("reference.median_ms", c->valuestring), "missing or not a positive number");
		lsum += log(h->ref[i]);
	}
	h->ref_geomean = pos_num(cko_jget(ref, "geomean_ms"));
	if (isnan(h->ref_geomean))
		h->ref_geomean = exp(lsum / h->ncases);
	const cJSON *cands = cko_jreq(root, "candidates", file, "");
	if (!cJSON_IsArray(cands))
		cko_jfail(file, "candidates", "expected an array");
	h->nrows = cJSON_GetArraySize(cands);
	h->rows = xcalloc((size_t)h->nrows + 1, sizeof *h->rows);
	i = 0;
	for (const cJSON *c = cands->child; c; c = c->next, i++) {
		const char *f = cko_field_i("candidates", i);
		char field[64];
		snprintf(field, sizeof field, "%s", f);
		if (!cJSON_IsObject(c))
			cko_jfail(file, field, "expected an object");
		row *r = &h->rows[i];
		r->id = cko_jstr(c, "id", file, field);
		r->status = cko_jstr(c, "status", file, field);
		r->note = str_or_null(c, "note", file, field);
		r->stage = str_or_null(c, "stage", file, field);
		r->reason = str_or_null(c, "reason", file, field);
		r->geomean = pos_num(cko_jget(c, "geomean_ms"));
		if (cko_history_best_of(root, r->id, c))
			h->best = i;
		r->ms = xcalloc((size_t)h->ncases, sizeof *r->ms);
		for (int k = 0; k < h->ncases; k++)
			r->ms[k] = NAN;
		const cJSON *cs = cko_jget(c, "cases");
		if (cs && !cJSON_IsArray(cs) && !cJSON_IsNull(cs))
			cko_jfail(file, cko_field(field, "cases"), "expected an array");
		int j = 0;
		for (const cJSON *e = cs ? cs->child : NULL; e; e = e->next, j++) {
			char ef[96];
			snprintf(ef, sizeof ef, "%s.cases[%d]", field, j);
			if (!cJSON_IsObject(e))
				cko_jfail(file, ef, "expected an object");
			const char *name = cko_jstr(e, "case", file, ef);
			const char *st = str_or_null(e, "status", file, ef);
			const cJSON *m = cko_jget(e, "median_ms");
			if (m && !cJSON_IsNull(m) && !cJSON_IsNumber(m))
				cko_jfail(file, cko_field(ef, "median_ms"), "expected a number or null");
			for (int k = 0; k < h->ncases; k++)
				if (!strcmp(name, h->cases[k]) && (!st || !strcmp(st, "ok")))
					r->ms[k] = pos_num(m);
		}
	}
}

/* Text for a single-quoted gnuplot string: no control characters, quotes
 * doubled (single quotes suppress backquote and macro substitution), cut
 * to at most max characters on a UTF-8 boundary. */
static char *gp_str(const char *s, int max)
{
	cko_buf b = {0};
	buf_add(&b, "", 0);
	int chars = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) != 0x80 && chars++ == max) {
			/* Replace the last character by an ellipsis. */
			while (b.len && ((unsigned char)b.s[b.len - 1] & 0xc0) == 0x80)
				b.len--;
			if (b.len) {
				if (b.s[b.len - 1] == '\'' && b.len > 1 && b.s[b.len - 2] == '\'')
					b.len--;
				b.len--;
			}
			b.s[b.len] = 0;
			buf_puts(&b, "\xe2\x80\xa6");
			break;
		}
		if (*p < 0x20 || *p == 0x7f)
			buf_add(&b, " ", 1);
		else if (*p == '\'')
			buf_add(&b, "''", 2);
		else
			buf_add(&b, (const char *)p, 1);
	}
	return b.s;
}

/* Already quoted text made literal for gnuplot's enhanced-text mode. */
static char *gp_enhanced_literal(const char *q)
{
	cko_buf b = {0};
	buf_add(&b, "", 0);
	for (; *q; q++) {
		if (strchr("\\^_@&~{}", *q))
			buf_add(&b, "\\", 1);
		buf_add(&b, q, 1);
	}
	return b.s;
}

static int is_ok(const row *r) { return !strcmp(r->status, "ok"); }

static void fmt_speedup(char *out, size_t n, double sp)
{
	if (sp >= 99.5)
		snprintf(out, n, "%.0fx", sp);
	else if (sp >= 9.95)
		snprintf(out, n, "%.1fx", sp);
	else
		snprintf(out, n, "%.2fx", sp);
}

/* The script draws onto a pixel grid worked out here, so the picture
 * stays legible from 1 to hundreds of rows. */
static char *script(const history *h, const char *title, const char *png, const char *svg)
{
	const int cw = 64, ch = 22;
	int maxlab = 0, nok = 0, ninv = 0, nskip = 0, best = h->best;
	double maxabs = 1;
	for (int i = 0; i < h->nrows; i++) {
		const row *r = &h->rows[i];
		if (is_ok(r))
			nok++;
		else if (!strcmp(r->status, "skipped"))
			nskip++;
		else
			ninv++;
		for (int k = 0; is_ok(r) && k < h->ncases; k++)
			if (!isnan(r->ms[k]) && fabs(log2(r->ms[k] / h->ref[k])) > maxabs)
				maxabs = fabs(log2(r->ms[k] / h->ref[k]));
	}
	/* Colour range: whole powers of two, symmetric, 2x to 64x. */
	int L = (int)ceil(maxabs - 1e-9);
	if (L < 1)
		L = 1;
	if (L > 6)
		L = 6;
	char **labels = xcalloc((size_t)h->nrows + 1, sizeof *labels);
	for (int i = 0; i < h->nrows; i++) {
		const row *r = &h->rows[i];
		char *raw = xasprintf("%s  %s", r->id, r->note ? r->note : "");
		labels[i] = gp_str(raw, 46);
		int n = (int)strlen(raw);
		if (n > 47)
			n = 47;
		if (n > maxlab)
			maxlab = n;
		free(raw);
	}
	int rows = h->nrows ? h->nrows : 1;
	if (maxlab < 16)
		maxlab = 16;
	int lm = 30 + maxlab * 8, rm = 150, tm = 120, bm = 40; /* 8 px: the best row is bold */
	int maxcase = 0;
	for (int k = 0; k < h->ncases; k++)
		if ((int)strlen(h->cases[k]) > maxcase)
			maxcase = (int)strlen(h->cases[k]);
	if (maxcase > 24)
		maxcase = 24;
	tm = 70 + (int)(maxcase * 7 * 0.72);
	/* The colour bar: as tall as the grid, but between 160 and 360 pixels. */
	int cbpx = rows * ch < 160 ? 160 : rows * ch > 360 ? 360 : rows * ch;
	if (cbpx > rows * ch)
		bm += cbpx - rows * ch;
	int W = lm + h->ncases * cw + rm, H = tm + rows * ch + bm;
	if (W < 640) {
		rm += 640 - W;
		W = 640;
	}
	if (H < 300) {
		bm += 300 - H;
		H = 300;
	}

	cko_buf s = {0};
	buf_puts(&s, "# cko-heatmap: generated\nreset\n");
	buf_printf(&s, "set lmargin at screen %.5f\nset rmargin at screen %.5f\n", (double)lm / W, (double)(lm + h->ncases * cw) / W);
	buf_printf(&s, "set tmargin at screen %.5f\nset bmargin at screen %.5f\n", 1 - (double)tm / H, (double)bm / H);
	buf_printf(&s, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", h->ncases - 0.5, rows - 0.5);
	buf_puts(&s, "unset key\nunset xtics\nset border 0\n");
	/* Case names along the top. */
	buf_printf(&s, "set x2range [-0.5:%g]\nset x2tics scale 0 rotate by 40 left offset -0.5,0 noenhanced (",
		   h->ncases - 0.5);
	for (int k = 0; k < h->ncases; k++) {
		char *t = gp_str(h->cases[k], 24);
		buf_printf(&s, "%s'%s' %d", k ? ", " : "", t, k);
		free(t);
	}
	buf_puts(&s, ")\n");
	buf_puts(&s, "set ytics scale 0 nomirror noenhanced (");
	for (int i = 0; i < h->nrows; i++)
		buf_printf(&s, "%s'%s' %d", i ? ", " : "", i == best ? "" : labels[i], i);
	if (!h->nrows)
		buf_puts(&s, "'(no candidates)' 0");
	buf_puts(&s, ")\n");
	/* Diverging palette over log2(latency / reference): blue faster, red slower. */
	buf_printf(&s, "set cbrange [%d:%d]\n", -L, L);
	buf_printf(&s, "set palette defined (%d '#08306b', %g '#2171b5', %g '#9ecae1', 0 '#f7f7f7', %g '#fcae91', %g '#de2d26', %d '#67000d')\n",
		   -L, -L * 0.66, -L * 0.25, L * 0.25, L * 0.66, L);
	buf_puts(&s, "set cbtics scale 0.5 (");
	for (int e = -L; e <= L; e++) {
		if (e == 0)
			buf_puts(&s, "'same as reference' 0");
		else
			buf_printf(&s, "'%dx %s' %d", 1 << abs(e), e < 0 ? "faster" : "slower", e);
		buf_puts(&s, e < L ? ", " : ")\n");
	}
	double cbx = (double)(lm + h->ncases * cw + 18) / W;
	double cbh = (double)cbpx / H;
	buf_printf(&s, "set colorbox vertical user origin screen %.5f, screen %.5f size screen %.5f, screen %.5f\n", cbx,
		   1 - (double)tm / H - cbh, 14.0 / W, cbh);
	buf_printf(&s, "set label 2 'latency vs reference' at screen %.5f, screen %.5f left font ',8' noenhanced\n",
		   cbx - 8.0 / W, 1 - (double)(tm - 14) / H);

	/* Title: what ran where, and the best result. */
	cko_buf t = {0};
	buf_add(&t, "", 0);
	if (title)
		buf_puts(&t, title);
	else
		buf_printf(&t, "%s%s%s", h->workload ? h->workload : "candidates", h->gpu ? " on " : "", h->gpu ? h->gpu : "");
	buf_puts(&t, "\n");
	if (best >= 0) {
		const row *b = &h->rows[best];
		double g = b->geomean;
		if (isnan(g)) {
			double ls = 0;
			int n = 0;
			for (int k = 0; k < h->ncases; k++)
				if (!isnan(b->ms[k]))
					ls += log(b->ms[k]), n++;
			g = n == h->ncases ? exp(ls / n) : NAN;
		}
		char sp[32];
		fmt_speedup(sp, sizeof sp, h->ref_geomean / g);
		if (isnan(g))
			buf_printf(&t, "best %s", b->id);
		else
			buf_printf(&t, "best %s: %s geomean speedup vs reference (%.4g ms vs %.4g ms)", b->id, sp, g,
				   h->ref_geomean);
	} else {
		/* cko-rank decides the best: a history without one has none here */
		buf_puts(&t, nok ? "no best candidate in the history" : "no valid candidate");
	}
	buf_printf(&t, "\n%d candidate%s: %d valid, %d invalid, %d skipped; cells: speedup vs reference median",
		   h->nrows, h->nrows == 1 ? "" : "s", nok, ninv, nskip);
	/* One single-quoted part per line, joined with "\n" (gnuplot's string
	 * concatenation), since single quotes take no escapes. */
	cko_buf tq = {0};
	buf_add(&tq, "", 0);
	for (char *p = t.s, *save, *line; (line = strtok_r(p, "\n", &save)); p = NULL) {
		char *q = gp_str(line, 160);
		buf_printf(&tq, "%s'%s'", tq.len ? ".\"\\n\"." : "", q);
		free(q);
	}
	buf_printf(&s, "set label 1 %s at screen 0.5, screen %.5f center noenhanced\n", tq.s, 1 - 12.0 / H);
	buf_free(&t);
	buf_free(&tq);

	/* Cells as rectangles coloured from the palette (white borders make
	 * the grid); invalid and skipped rows as one grey band with the reason. */
	int obj = 1, lab = 3;
	for (int i = 0; i < h->nrows; i++) {
		const row *r = &h->rows[i];
		if (!is_ok(r)) {
			int skipped = !strcmp(r->status, "skipped");
			buf_printf(&s, "set object %d rect from -0.5,%g to %g,%g fc rgb '%s' fs solid 1.0 border lc rgb '#ffffff' behind\n",
				   obj++, i - 0.5, h->ncases - 0.5, i + 0.5, skipped ? "#ececec" : "#c8c8c8");
			char *raw = skipped ? xasprintf("skipped%s%s", r->reason ? ": " : "", r->reason ? r->reason : "")
					    : xasprintf("x %s%s%s", r->stage ? r->stage : r->status, r->reason ? ": " : "",
							r->reason ? r->reason : "");
			char *q = gp_str(raw, h->ncases * cw / 7);
			buf_printf(&s, "set label %d '%s' at -0.35,%d left tc rgb '#404040' front noenhanced\n", lab++, q, i);
			free(q);
			free(raw);
			continue;
		}
		for (int k = 0; k < h->ncases; k++) {
			if (isnan(r->ms[k])) {
				buf_printf(&s, "set object %d rect from %g,%g to %g,%g fc rgb '#c8c8c8' fs solid 1.0 border lc rgb '#ffffff' behind\n",
					   obj++, k - 0.5, i - 0.5, k + 0.5, i + 0.5);
				buf_printf(&s, "set label %d '?' at %d,%d center tc rgb '#404040' front noenhanced\n", lab++, k,
					   i);
				continue;
			}
			double v = log2(r->ms[k] / h->ref[k]);
			buf_printf(&s, "set object %d rect from %g,%g to %g,%g fc palette cb %.5f fs solid 1.0 border lc rgb '#ffffff' behind\n",
				   obj++, k - 0.5, i - 0.5, k + 0.5, i + 0.5, v < -L ? -L : v > L ? L : v);
			char sp[32];
			fmt_speedup(sp, sizeof sp, h->ref[k] / r->ms[k]);
			buf_printf(&s, "set label %d '%s' at %d,%d center tc rgb '%s' front noenhanced\n", lab++, sp, k, i,
				   fabs(v) > 0.42 * L ? "#ffffff" : "#202020");
		}
	}
	if (best >= 0) {
		buf_printf(&s, "set object %d rect from -0.5,%g to %g,%g fs empty border lc rgb '#000000' lw 3 front\n", obj++,
			   best - 0.5, h->ncases - 0.5, best + 0.5);
		char *bl = gp_enhanced_literal(labels[best]);
		buf_printf(&s, "set label %d '{/:Bold %s}' at -0.5,%d right offset -1,0 front\n", lab++, bl, best);
		buf_printf(&s, "set label %d '{/:Bold best}' at %g,%d left offset 0.6,0 front\n", lab++, h->ncases - 0.5,
			   best);
		free(bl);
	}

	char *qpng = gp_str(png, 4096), *qsvg = gp_str(svg, 4096);
	buf_printf(&s, "set terminal pngcairo size %d,%d font 'DejaVu Sans,9' enhanced background '#ffffff'\n", W, H);
	buf_printf(&s, "set output '%s'\n", qpng);
	buf_puts(&s, "set label 1 font ',11'\n");
	/* Nothing to plot but the palette, which brings the colour box. */
	buf_puts(&s, "plot '+' using (NaN):(NaN):(0) with points lc palette\n");
	buf_puts(&s, "unset output\n");
	buf_printf(&s, "set terminal svg size %d,%d font 'DejaVu Sans,9' enhanced background '#ffffff'\n", W, H);
	buf_printf(&s, "set output '%s'\n", qsvg);
	buf_puts(&s, "replot\nunset output\n");
	free(qpng);
	free(qsvg);
	for (int i = 0; i < h->nrows; i++)
		free(labels[i]);
	free(labels);
	return s.s;
}

/* gnuplot checks none of its writes: on a full disk it exits 0 leaving a
 * PNG cut short and an empty SVG. So an output counts only when it is
 * whole (a PNG ends with its IEND chunk, an SVG with </svg>) and on disk
 * (fsync). NULL when fine, else what is wrong. */
static const char *incomplete(const char *path, int png, size_t *len)
{
	static const unsigned char iend[12] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
	char err[512];
	*len = 0;
	char *s = cko_try_read_file(path, 1u << 30, len, err, sizeof err);
	if (!s)
		return "not written";
	size_t n = *len;
	while (!png && n && strchr(" \t\r\n", s[n - 1]))
		n--;
	int whole = png ? n >= 12 && !memcmp(s + n - 12, iend, 12) : n >= 6 && !memcmp(s + n - 6, "</svg>", 6);
	free(s);
	if (!whole)
		return png ? "cut short (no IEND chunk at its end)" : "cut short (no </svg> at its end)";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int synced = fd >= 0 && fsync(fd) == 0;
	if (fd >= 0)
		close(fd);
	return synced ? NULL : "not flushed to disk (fsync failed)";
}

static int disk_full(const char *dir)
{
	struct statvfs v;
	return statvfs(dir, &v) == 0 && v.f_bavail == 0;
}

/* gnuplot from $GNUPLOT or PATH. */
static char *find_gnuplot(void)
{
	const char *g = getenv("GNUPLOT");
	if (g && *g) {
		if (access(g, X_OK))
			cko_die(CKO_ENV, "GNUPLOT=%s: not an executable; install gnuplot (Debian: gnuplot-nox)", g);
		return xstrdup(g);
	}
	char *f = cko_which("gnuplot");
	if (f)
		return f;
	cko_die(CKO_ENV, "gnuplot not found on PATH; install gnuplot (Debian: gnuplot-nox) or set GNUPLOT");
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'}, {"title", required_argument, 0, 'T'},
		{"script", required_argument, 0, 'S'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
	};
	char *prefix = NULL, *title = NULL, *save = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': prefix = optarg; break;
		case 'T': title = optarg; break;
		case 'S': save = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc - 1)
		usage(2);
	cko_out_check(prefix);
	cko_out_check(save);
	const char *file = argv[optind];
	cJSON *root = cko_json_load(file);
	history h;
	load(file, root, &h);
	char *dir = cko_dirname(file);
	char *pre = prefix ? xstrdup(prefix) : cko_path_join(dir, "heatmap");
	char *png = xasprintf("%s.png", pre), *svg = xasprintf("%s.svg", pre);
	/* gnuplot writes temporaries beside the targets; renamed when done. */
	char *tpng = xasprintf("%s.png.tmp.%ld.png", pre, (long)getpid());
	char *tsvg = xasprintf("%s.svg.tmp.%ld.svg", pre, (long)getpid());
	char *gp = script(&h, title, tpng, tsvg);
	if (save)
		cko_write_file(save, gp, strlen(gp));
	char *gnuplot = find_gnuplot();
	char *pdir = cko_dirname(png);
	cko_mkdir_p(pdir);
	char *av[] = {gnuplot, NULL};
	cko_proc r;
	if (cko_run_argv(av, gp, 120, 1 << 16, 1, &r))
		cko_die(CKO_ENV, "cannot run %s", gnuplot);
	int good = !r.timed_out && r.status == 0;
	if (!good) {
		unlink(tpng);
		unlink(tsvg);
		cko_die(CKO_ENV, "%s failed (%s): %s", gnuplot,
			r.timed_out ? "timed out" : r.status == 127 ? "could not start" : "exit status", r.out ? r.out : "");
	}
	const char *outs[2] = {tpng, tsvg}, *names[2] = {png, svg};
	for (int k = 0; k < 2; k++) {
		size_t n;
		const char *why = incomplete(outs[k], k == 0, &n);
		if (!why)
			continue;
		int full = disk_full(pdir);
		unlink(tpng);
		unlink(tsvg);
		cko_die(CKO_ENV, "%s: gnuplot's output is %s after %zu bytes%s; neither %s nor %s was written: %s and run "
			"cko-heatmap again", names[k], why, n, full ? ": the disk is full" : "", png, svg,
			full ? "free some space" : "check the disk and gnuplot's messages");
	}
	if (rename(tpng, png) || rename(tsvg, svg)) {
		int e = errno;
		unlink(tpng);
		unlink(tsvg);
		cko_die(CKO_ENV, "%s: %s", png, strerror(e));
	}
	if (r.out && r.out_len)
		cko_warn("gnuplot: %s", r.out);
	cko_info("wrote %s and %s", png, svg);
	cko_proc_free(&r);
	free(gnuplot), free(pdir), free(gp), free(tpng), free(tsvg), free(png), free(svg), free(pre), free(dir);
	for (int i = 0; i < h.nrows; i++)
		free(h.rows[i].ms);
	free(h.rows), free(h.cases), free(h.ref);
	cJSON_Delete(root);
	return CKO_OK;
}
