/* llm_context.c: the material a propose or repair prompt needs, gathered
 * from a run folder (docs/formats.md, "A run folder") into one markdown
 * document: the workload, the GPU, the best kernel with its launch rules,
 * timings against the reference, the headroom to the speed of light,
 * compile figures and profile, the last
 * iteration's results, the history, research notes and examples from
 * earlier runs.
 *
 * Hidden cases never appear with names, sizes or data: a failure on one is
 * told by its class only ("failed a hidden correctness case: wrong
 * values"), and any text that names a hidden case is replaced that way. */
#include "llm.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILE_CAP (64u << 10)
#define LOG_CAP 6000

typedef cko_cand cand;

typedef struct {
	const char *run;
	char **hidden;
	int nhidden;
	cJSON *index;     /* cases/index.json */
	cJSON *history;   /* iter-N/history.json (cko-rank): the best, the reference */
	cko_run cands;    /* iterations 0..N-1 (the run-folder reader) */
	cand *c;          /* cands.c */
	int n;            /* cands.n */
	cko_buf *md;
} ctx;

static char *path2(const char *a, const char *b) { return cko_path_join(a, b); }

static cJSON *json_opt(const char *path)
{
	char err[512];
	size_t len;
	char *t = cko_try_read_file(path, CKO_JSON_MAX, &len, err, sizeof err);
	if (!t)
		return NULL;
	cJSON *j = cko_json_parse(t, len, err, sizeof err);
	if (!j)
		cko_warn("%s: ignored: %s", path, err);
	free(t);
	return j;
}

/* A text file, cut to cap bytes (saying so); NULL if absent. */
static char *text_opt(const char *path, size_t cap)
{
	char err[512];
	size_t len;
	char *t = cko_try_read_file(path, 64u << 20, &len, err, sizeof err);
	if (!t)
		return NULL;
	if (len > cap) {
		char *c = xasprintf("%.*s\n[... %zu more bytes cut ...]\n", (int)cap, t, len - cap);
		free(t);
		return c;
	}
	return t;
}

static int is_hidden_name(const ctx *x, const char *name)
{
	if (!name)
		return 0;
	if (!strncmp(name, "hidden-", 7))
		return 1;
	for (int i = 0; i < x->nhidden; i++)
		if (!strcmp(x->hidden[i], name))
			return 1;
	return 0;
}

/* 1 if the text names a hidden case. */
static int mentions_hidden(const ctx *x, const char *s)
{
	if (!s)
		return 0;
	if (strstr(s, "hidden-") || strstr(s, "hidden case"))
		return 1;
	for (int i = 0; i < x->nhidden; i++)
		if (strstr(s, x->hidden[i]))
			return 1;
	return 0;
}

static const char *klass(const char *status)
{
	static const struct {
		const char *s, *what;
	} t[] = {
		{"fault", "the kernel faulted (an illegal address or a similar error)"},
		{"timeout", "the kernel did not finish in time"},
		{"launch_error", "the launch failed"},
		{"unwritten", "some output elements were left unwritten"},
		{"nondeterministic", "repeated launches gave different results"},
		{"input_modified", "an input buffer was modified"},
		{"guard_overwrite", "the kernel wrote outside a buffer"},
		{"fail", "wrong values"},
		{"mismatch", "wrong values"},
		{"wrong", "wrong values"},
		{"compare", "wrong values"},
		{"nan", "NaN or Inf in the outputs"},
		{"launch", "its launch rule failed"},
		{"not run", "it was not run (an earlier step failed)"},
	};
	for (size_t i = 0; status && i < sizeof t / sizeof *t; i++)
		if (!strcmp(status, t[i].s))
			return t[i].what;
	return "it failed";
}

static const char *stage_words(const char *stage)
{
	static const struct {
		const char *s, *what;
	} t[] = {
		{"propose", "the answer failed local validation"},
		{"compile", "it did not compile"},
		{"launch", "its launch rules failed"},
		{"run", "it failed while running"},
		{"compare", "its outputs were wrong"},
		{"bench", "it failed during timing"},
		{"floor", "its time was below the physical floor (it cannot have done all the work)"},
	};
	for (size_t i = 0; stage && i < sizeof t / sizeof *t; i++)
		if (!strcmp(stage, t[i].s))
			return t[i].what;
	return "it failed";
}

static void fence(cko_buf *md, const char *lang, const char *text)
{
	/* A fence longer than any run of backticks in the text. */
	int run = 0, longest = 0;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	int n = longest >= 3 ? longest + 1 : 3;
	for (int i = 0; i < n; i++)
		buf_puts(md, "`");
	buf_printf(md, "%s\n%s", lang, text);
	if (!*text || text[strlen(text) - 1] != '\n')
		buf_puts(md, "\n");
	for (int i = 0; i < n; i++)
		buf_puts(md, "`");
	buf_puts(md, "\n\n");
}

static void fence_json(cko_buf *md, const cJSON *j, size_t cap)
{
	char *s = cko_json_print(j);
	if (strlen(s) > cap) {
		s[cap] = 0;
		char *t = xasprintf("%s\n[... cut ...]\n", s);
		free(s);
		s = t;
	}
	fence(md, "json", s);
	free(s);
}

static double num(const cJSON *o, const char *k) { return cJSON_IsNumber(cko_jget(o, k)) ? cko_jget(o, k)->valuedouble : NAN; }

static void one_line(cko_buf *md, const char *s, size_t cap)
{
	size_t len = s ? strlen(s) : 0, n = cko_utf8_cut(s, len, cap);
	for (size_t i = 0; i < n; i++)
		buf_add(md, s[i] == '\n' || s[i] == '\r' || s[i] == '|' ? " " : s + i, 1);
	if (len > cap)
		buf_puts(md, "...");
}

/* ---- from the reader and history.json ---- */

static int is_ok(const cand *c) { return !strcmp(cko_jstr_opt(c->result, "status", ""), "ok"); }

/* history.json's best, when it is one of the candidates before iteration N
 * and ok; the context never decides the best itself. */
static const cand *best_of(const ctx *x)
{
	for (int i = 0; i < x->n; i++)
		if (cko_history_best_of(x->history, x->c[i].id, x->c[i].result))
			return &x->c[i];
	return NULL;
}

/* The reference's median for a case and its geomean: history.json's, NAN
 * without one. */
static double ref_ms(const ctx *x, const char *cs) { return cko_history_ref_ms(x->history, cs); }
static double ref_geomean(const ctx *x) { return cko_history_ref_geomean(x->history); }

/* ---- sections ---- */

static void workload(ctx *x)
{
	cko_buf *md = x->md;
	char *p = path2(x->run, "workload/description.txt");
	char *d = text_opt(p, FILE_CAP);
	free(p);
	buf_puts(md, "# The workload\n\n");
	buf_puts(md, d && *d ? d : "(no description was given; the signature and the reference define the task)\n");
	if (d && *d && d[strlen(d) - 1] != '\n')
		buf_puts(md, "\n");
	buf_puts(md, "\n");
	free(d);
	p = path2(x->run, "workload/signature.json");
	d = text_opt(p, FILE_CAP);
	free(p);
	if (d) {
		buf_puts(md, "## The kernel's signature (signature.json)\n\n");
		fence(md, "json", d);
	}
	free(d);

	buf_puts(md, "## The input cases\n\n");
	int hidden = 0;
	for (const cJSON *c = x->index ? x->index->child : NULL; c; c = c->next) {
		const char *name = cko_jstr_opt(c, "name", "?");
		if (cJSON_IsTrue(cko_jget(c, "hidden")) || is_hidden_name(x, name)) {
			hidden++;
			continue;
		}
		char *cp = xasprintf("%s/cases/%s/case.json", x->run, name);
		cJSON *cj = json_opt(cp);
		free(cp);
		buf_printf(md, "- `%s` (%s):", name, cko_jstr_opt(c, "kind", "?"));
		for (const cJSON *s = cko_jget(cj, "scalars") ? cko_jget(cj, "scalars")->child : NULL; s; s = s->next)
			buf_printf(md, " %s=%.17g", s->string, s->valuedouble);
		double fl = num(cj, "flops"), by = num(cj, "bytes"), r = ref_ms(x, name);
		if (isfinite(fl))
			buf_printf(md, "; %.4g FLOP", fl);
		if (isfinite(by))
			buf_printf(md, "; %.4g bytes at least", by);
		if (isfinite(r))
			buf_printf(md, "; reference %.4g ms", r);
		buf_puts(md, "\n");
		cJSON_Delete(cj);
	}
	if (hidden)
		buf_printf(md,
			   "- and %d hidden correctness case%s that you do not see, with other sizes (odd ones "
			   "included): the kernel and its launch rules must work for any sizes\n",
			   hidden, hidden == 1 ? "" : "s");
	buf_puts(md, "\nEvery case must pass; the score is the geometric mean of the median times of the "
		     "performance cases.\n\n");

	p = path2(x->run, "props.json");
	cJSON *props = json_opt(p);
	free(p);
	if (props) {
		buf_puts(md, "## The GPU (props.json)\n\n");
		fence_json(md, props, 4096);
	}
	cJSON_Delete(props);
}

static void candidate_files(ctx *x, const cand *c, int with_profile)
{
	cko_buf *md = x->md;
	char *p = path2(c->dir, "kernel.cu");
	char *k = text_opt(p, FILE_CAP);
	free(p);
	if (k) {
		buf_printf(md, "### %s: kernel.cu\n\n", c->id);
		fence(md, "cuda", k);
	}
	free(k);
	p = path2(c->dir, "launch.json");
	k = text_opt(p, FILE_CAP);
	free(p);
	if (k) {
		buf_printf(md, "### %s: launch.json\n\n", c->id);
		fence(md, "json", k);
	}
	free(k);
	p = path2(c->dir, "compile.json");
	cJSON *cj = json_opt(p);
	free(p);
	if (cj && !strcmp(cko_jstr_opt(cj, "status", ""), "ok")) {
		buf_printf(md, "Compiled for %s:", cko_jstr_opt(cj, "arch", "?"));
		static const char *const keys[] = {"registers", "spill_stores", "spill_loads", "stack_bytes",
						   "smem_static"};
		static const char *const words[] = {"registers per thread", "bytes of spill stores",
						    "bytes of spill loads", "bytes of stack", "bytes of static shared memory"};
		int shown = 0;
		for (int i = 0; i < 5; i++)
			if (isfinite(num(cj, keys[i])))
				buf_printf(md, "%s %.0f %s", shown++ ? "," : "", num(cj, keys[i]), words[i]);
		buf_puts(md, ".\n");
		const char *log = cko_jstr_opt(cj, "log", "");
		if (strstr(log, "warning")) {
			char *l = strndup(log, 2000);
			buf_puts(md, "Compiler warnings:\n\n");
			fence(md, "", l);
			free(l);
		}
		buf_puts(md, "\n");
	}
	cJSON_Delete(cj);
	if (!with_profile)
		return;
	p = path2(c->dir, "profile.txt");
	k = text_opt(p, 8192);
	free(p);
	if (!k) {
		p = path2(c->dir, "profile.json");
		cJSON *pj = json_opt(p);
		free(p);
		if (pj) {
			buf_printf(md, "### %s: profiler summary (Nsight Compute)\n\n", c->id);
			const cJSON *s = cko_jget(pj, "summary");
			if (cJSON_IsString(s))
				fence(md, "", s->valuestring);
			else
				fence_json(md, s ? s : pj, 8192);
		}
		cJSON_Delete(pj);
	} else {
		buf_printf(md, "### %s: profiler summary (Nsight Compute)\n\n", c->id);
		fence(md, "", k);
	}
	free(k);
}

static void timing_table(ctx *x, const cand *c)
{
	cko_buf *md = x->md;
	buf_puts(md, "| case | this kernel (ms) | reference (ms) | speedup |\n| --- | ---: | ---: | ---: |\n");
	for (const cJSON *e = cko_jget(c->result, "cases") ? cko_jget(c->result, "cases")->child : NULL; e;
	     e = e->next) {
		const char *cs = cko_jstr_opt(e, "case", "?");
		if (cJSON_IsTrue(cko_jget(e, "hidden")) || is_hidden_name(x, cs))
			continue;
		double m = num(e, "median_ms"), r = ref_ms(x, cs);
		if (!isfinite(m))
			continue;
		buf_printf(md, "| %s | %.4g | ", cs, m);
		if (isfinite(r))
			buf_printf(md, "%.4g | %.2fx |\n", r, r / m);
		else
			buf_puts(md, "- | - |\n");
	}
	buf_puts(md, "\n");
}

/* The headroom to the speed of light per performance case, from the
 * history's "sol" (cko-rank): the cases with the most headroom first. */
static void headroom(ctx *x)
{
	cko_buf *md = x->md;
	const cJSON *sol = cko_jget(x->history, "sol"), *cs = cko_jget(sol, "cases");
	if (!cJSON_GetArraySize(cs))
		return;
	buf_printf(md, "## Headroom to the speed of light\n\n"
		       "The floor of each performance case at the GPU's measured rates (%.4g TFLOP/s FP32, %.4g GB/s "
		       "copy bandwidth): the larger of its FLOP over the compute rate and its bytes over the "
		       "bandwidth; the bound says which. Achieved is floor / best time: the lower it is, the more "
		       "there is to gain; most headroom first.\n\n",
		   num(sol, "fp32_tflops"), num(sol, "memory_gbps"));
	int base = 0;
	for (const cJSON *e = cs->child; e; e = e->next)
		base |= isfinite(num(e, "baseline_ms"));
	buf_printf(md, "| case | best (ms) | floor (ms) | bound | achieved |%s\n| --- | ---: | ---: | --- | ---: |%s\n",
		   base ? " vendor baseline (ms) | baseline achieved |" : "", base ? " ---: | ---: |" : "");
	for (const cJSON *e = cs->child; e; e = e->next) {
		const char *name = cko_jstr_opt(e, "case", "?");
		if (is_hidden_name(x, name))
			continue;
		double b = num(e, "best_ms"), f = num(e, "sol_ms"), a = num(e, "fraction");
		buf_printf(md, "| %s | ", name);
		buf_printf(md, isfinite(b) ? "%.4g | " : "- | ", b);
		buf_printf(md, isfinite(f) ? "%.4g | " : "- | ", f);
		buf_printf(md, "%s | ", cko_jstr_opt(e, "bound", "-"));
		buf_printf(md, isfinite(a) ? "%.1f%% |" : "- |", 100 * a);
		if (base) {
			double v = num(e, "baseline_ms"), va = num(e, "baseline_fraction");
			buf_printf(md, isfinite(v) ? " %.4g |" : " - |", v);
			buf_printf(md, isfinite(va) ? " %.1f%% |" : " - |", 100 * va);
		}
		buf_puts(md, "\n");
	}
	buf_puts(md, "\n");
}

/* One line on a candidate's outcome, hidden details removed. */
static void outcome(ctx *x, const cand *c)
{
	cko_buf *md = x->md;
	const cJSON *r = c->result;
	const char *st = cko_jstr_opt(r, "status", "?");
	buf_printf(md, "- %s: ", c->id);
	if (!strcmp(st, "ok")) {
		double g = num(r, "geomean_ms"), rg = ref_geomean(x);
		buf_printf(md, "ok, geomean %.4g ms", g);
		if (isfinite(rg) && g > 0)
			buf_printf(md, " (%.2fx the reference)", rg / g);
	} else if (!strcmp(st, "invalid")) {
		const char *stage = cko_jstr_opt(r, "stage", NULL);
		const char *reason = cko_jstr_opt(r, "reason", NULL);
		buf_printf(md, "invalid at %s: ", stage ? stage : "?");
		if (reason && !mentions_hidden(x, reason))
			one_line(md, reason, 300);
		else
			buf_puts(md, stage_words(stage));
	} else {
		buf_puts(md, st);
	}
	const char *note = cko_jstr_opt(r, "note", NULL);
	if (note && *note) {
		buf_puts(md, ". Note: ");
		one_line(md, note, 200);
	}
	buf_puts(md, "\n");
}

/* Why a candidate failed, in full for visible cases, by class for hidden. */
static void failure(ctx *x, const cand *c)
{
	cko_buf *md = x->md;
	const cJSON *r = c->result;
	const char *stage = cko_jstr_opt(r, "stage", NULL);
	const char *reason = cko_jstr_opt(r, "reason", NULL);
	buf_printf(md, "It failed at stage **%s**: %s.\n\n", stage ? stage : "?", stage_words(stage));
	if (reason && !mentions_hidden(x, reason)) {
		buf_puts(md, "Reason:\n\n");
		char *s = strndup(reason, LOG_CAP);
		fence(md, "", s);
		free(s);
	}
	if (stage && !strcmp(stage, "compile")) {
		char *p = path2(c->dir, "compile.json");
		cJSON *cj = json_opt(p);
		free(p);
		const char *log = cko_jstr_opt(cj, "log", NULL);
		if (log && *log) {
			buf_puts(md, "The compiler's log:\n\n");
			char *s = strndup(log, LOG_CAP);
			fence(md, "", s);
			free(s);
		}
		cJSON_Delete(cj);
	}
	char *rp = path2(c->dir, "run.json"), *cp = path2(c->dir, "compare.json");
	cJSON *run = json_opt(rp), *cmp = json_opt(cp);
	free(rp);
	free(cp);
	const char *classes[16];
	int counts[16], nclass = 0, shown = 0;
	for (const cJSON *e = cko_jget(r, "cases") ? cko_jget(r, "cases")->child : NULL; e; e = e->next) {
		const char *cs = cko_jstr_opt(e, "case", "?");
		const char *st = cko_jstr_opt(e, "status", "ok");
		if (!strcmp(st, "ok") || !strcmp(st, "skipped"))
			continue;
		if (cJSON_IsTrue(cko_jget(e, "hidden")) || is_hidden_name(x, cs)) {
			const char *k = klass(st);
			int i = 0;
			while (i < nclass && strcmp(classes[i], k))
				i++;
			if (i == nclass && nclass < 16) {
				classes[nclass] = k;
				counts[nclass++] = 0;
			}
			if (i < 16)
				counts[i]++;
			continue;
		}
		if (shown++ >= 4)
			continue; /* the first few failures say enough */
		buf_printf(md, "Case `%s` failed: %s", cs, st);
		const char *why = cko_jstr_opt(e, "reason", NULL);
		if (why && !mentions_hidden(x, why)) {
			buf_puts(md, ": ");
			one_line(md, why, 600);
		}
		buf_puts(md, "\n\n");
		const cJSON *re = cko_record_case(run, cs), *ce = cko_record_case(cmp, cs);
		if (re && strcmp(cko_jstr_opt(re, "status", "ok"), "ok")) {
			buf_puts(md, "From run.json:\n\n");
			fence_json(md, re, 3000);
		}
		if (ce && cko_jget(ce, "status") && !cko_status_ok(ce)) {
			buf_puts(md, "From compare.json (first mismatches with their indices):\n\n");
			fence_json(md, ce, 4000);
		}
	}
	for (int i = 0; i < nclass; i++)
		buf_printf(md, "Failed %d hidden correctness case%s: %s.\n", counts[i], counts[i] == 1 ? "" : "s",
			   classes[i]);
	if (nclass)
		buf_puts(md, "(Hidden cases are not shown; make the kernel correct for any sizes.)\n");
	buf_puts(md, "\n");
	cJSON_Delete(run);
	cJSON_Delete(cmp);
}

static void history_table(ctx *x, const cand *best)
{
	cko_buf *md = x->md;
	buf_puts(md, "## All candidates so far\n\n| candidate | status | geomean (ms) | note |\n| --- | --- | ---: | --- |\n");
	for (int i = 0; i < x->n; i++) {
		const cand *c = &x->c[i];
		const char *st = cko_jstr_opt(c->result, "status", "?");
		buf_printf(md, "| %s%s | %s", c->id, c == best ? " (best)" : "", st);
		if (!strcmp(st, "invalid"))
			buf_printf(md, " at %s", cko_jstr_opt(c->result, "stage", "?"));
		double g = num(c->result, "geomean_ms");
		if (isfinite(g))
			buf_printf(md, " | %.4g | ", g);
		else
			buf_puts(md, " | - | ");
		one_line(md, cko_jstr_opt(c->result, "note", ""), 120);
		buf_puts(md, " |\n");
	}
	buf_puts(md, "\n");
}

static void research(ctx *x, int iter)
{
	char *p = path2(x->run, "research.md");
	char *t = text_opt(p, 16384);
	free(p);
	if (!t && iter > 0) {
		char *q = xasprintf("%s/iter-%03d/research.md", x->run, iter - 1);
		t = text_opt(q, 16384);
		free(q);
	}
	if (t) {
		buf_puts(x->md, "## Research notes\n\n");
		buf_puts(x->md, t);
		buf_puts(x->md, "\n\n");
	}
	free(t);
}

/* The remembered runs most like this one (memory.md, cko-docs --memory). */
static void memory(ctx *x, int iter)
{
	char *p = path2(x->run, "memory.md");
	char *t = text_opt(p, 24576);
	free(p);
	p = path2(x->run, "memory-seed.json");
	cJSON *seed = json_opt(p);
	free(p);
	if (t && *t) {
		buf_puts(x->md, "## Examples from earlier runs (what worked on similar workloads)\n\n"
				"Verified best kernels of earlier runs with a similar signature or description, "
				"and the changes that helped them; adapt what fits, the cases here may differ.\n\n");
		if (iter == 1 && !strcmp(cko_jstr_opt(seed, "status", ""), "ok"))
			buf_puts(x->md, "Example 1 is the remembered best for this signature: it is this iteration's "
					"candidate c0 as it is (proposer memory), so propose something different.\n\n");
		buf_puts(x->md, t);
		buf_puts(x->md, "\n");
	}
	free(t);
	cJSON_Delete(seed);
}

void llm_context_build(const char *rundir, int iter, llm_context *out)
{
	memset(out, 0, sizeof *out);
	if (!cko_is_dir(rundir))
		cko_die(CKO_BADINPUT, "%s: no such run folder", rundir);
	cko_buf md = {0};
	buf_add(&md, "", 0);
	ctx x = {.run = rundir, .md = &md};
	char *ip = path2(rundir, "cases/index.json");
	x.index = json_opt(ip);
	free(ip);
	int cap = 8;
	x.hidden = xcalloc((size_t)cap, sizeof *x.hidden);
	for (const cJSON *c = x.index ? x.index->child : NULL; c; c = c->next)
		if (cJSON_IsTrue(cko_jget(c, "hidden")) && cJSON_IsString(cko_jget(c, "name"))) {
			if (x.nhidden == cap)
				x.hidden = xrealloc(x.hidden, (size_t)(cap *= 2) * sizeof *x.hidden);
			x.hidden[x.nhidden++] = xstrdup(cko_jget(c, "name")->valuestring);
		}
	/* run.mk ranks the iterations before N into iter-N/history.json. */
	char *hp = xasprintf("%s/iter-%03d/history.json", rundir, iter);
	x.history = json_opt(hp);
	free(hp);
	if (!x.history) {
		hp = path2(rundir, "history.json");
		x.history = json_opt(hp);
		free(hp);
	}
	cko_run_read(rundir, 0, iter - 1, &x.cands);
	x.c = x.cands.c;
	x.n = x.cands.n;

	workload(&x);
	const cand *best = best_of(&x);
	int last = x.n ? x.c[x.n - 1].iter : -1;
	int last_ok = 0, first_bad = -1;
	for (int i = 0; i < x.n; i++)
		if (x.c[i].iter == last) {
			if (is_ok(&x.c[i]))
				last_ok = 1;
			else if (first_bad < 0 && !strcmp(cko_jstr_opt(x.c[i].result, "status", ""), "invalid"))
				first_bad = i;
		}
	out->mode_repair = last >= 0 && !last_ok && first_bad >= 0;

	buf_printf(&md, "# Where the search stands (before iteration %d)\n\n", iter);
	if (out->mode_repair)
		snprintf(out->parent, sizeof out->parent, "%s", x.c[first_bad].id);
	else if (best)
		snprintf(out->parent, sizeof out->parent, "%s", best->id);
	if (out->mode_repair) {
		const cand *c = &x.c[first_bad];
		buf_printf(&md, "## The candidate to repair: %s\n\n", c->id);
		const char *note = cko_jstr_opt(c->result, "note", "");
		if (*note) {
			buf_puts(&md, "Its author's note: ");
			one_line(&md, note, 1000);
			buf_puts(&md, "\n\n");
		}
		failure(&x, c);
		candidate_files(&x, c, 0);
	}
	if (best) {
		double g = num(best->result, "geomean_ms"), rg = ref_geomean(&x);
		buf_printf(&md, "## The best kernel so far: %s, geomean %.4g ms", best->id, g);
		if (isfinite(rg) && g > 0)
			buf_printf(&md, " (%.2fx the reference's %.4g ms)", rg / g, rg);
		buf_puts(&md, "\n\n");
		timing_table(&x, best);
		headroom(&x);
		if (!out->mode_repair)
			candidate_files(&x, best, 1);
	} else if (x.n && !x.history) {
		/* cko-rank decides the best (docs/formats.md, "Reading a run folder") */
		buf_puts(&md, "No history.json ranks these candidates yet, so no best kernel is named.\n\n");
	} else if (x.n) {
		buf_puts(&md, "No candidate has passed every case yet.\n\n");
		headroom(&x);
	} else {
		buf_puts(&md, "No candidate has been evaluated yet.\n\n");
	}
	if (last >= 0 && !out->mode_repair) {
		buf_printf(&md, "## The last iteration (iter-%03d)\n\n", last);
		for (int i = 0; i < x.n; i++)
			if (x.c[i].iter == last)
				outcome(&x, &x.c[i]);
		buf_puts(&md, "\n");
		/* A failure in the last round is worth showing in full too. */
		for (int i = 0; i < x.n; i++)
			if (x.c[i].iter == last && !is_ok(&x.c[i]) &&
			    !strcmp(cko_jstr_opt(x.c[i].result, "status", ""), "invalid")) {
				buf_printf(&md, "### Why %s failed\n\n", x.c[i].id);
				failure(&x, &x.c[i]);
				break;
			}
	}
	if (x.n)
		history_table(&x, best);
	research(&x, iter);
	memory(&x, iter);

	out->markdown = md.s;
	cko_run_free(&x.cands);
	cko_free_list(x.hidden, x.nhidden);
	cJSON_Delete(x.index);
	cJSON_Delete(x.history);
}

void llm_context_free(llm_context *c)
{
	free(c->markdown);
	memset(c, 0, sizeof *c);
}
