/* cko-rank: verdicts and ranking. --candidate turns one candidate's step
 * files into result.json (the first failing stage decides; a time under the
 * speed-of-light floor or an implausible speedup invalidates); --run gathers
 * the results (the run-folder reader, cko_run_read) into history.json and
 * decides the best, the one place that does (docs/formats.md, "Reading a
 * run folder"); with --summary also the summary, best.cu, best-launch.json
 * and replay requests; --print shows a summary as text.
 *
 * In this file: the verdict of a candidate (verdict_*, result_*), the
 * speed of light (sol_*), the budget (budget_*), the run's ranking
 * (ranking_*, history_*, summary_*, write_*), the printed summary. */
#include "cko.h"
#include "tune.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-rank --candidate dir [--props props.json] [--reference bench.json] [--floor-slack f]\n"
		"                [--max-speedup x] -o result.json\n"
		"       cko-rank --run dir --upto N [-o history.json] [--summary summary.json] [--best best.cu]\n"
		"                [--replay dir] [--sanitize sanitize.json] [--sol-stop f] [--patience n] [--min-gain f]\n"
		"       cko-rank --print summary.json\n"
		"      --candidate dir           write the verdict of a candidate folder to result.json\n"
		"      --props props.json        the GPU's peak rates for the speed-of-light floor (cko-props)\n"
		"      --reference bench.json    the reference's timings, for the speedup check\n"
		"      --floor-slack f           a case faster than this fraction of its speed-of-light time is invalid (default 0.8)\n"
		"      --max-speedup x           a case more than x times faster than the reference is invalid (default 10000)\n"
		"  -o, --output file             with --candidate, result.json (required); with --run, history.json (none without it)\n"
		"      --run dir                 gather a run folder's results into history.json\n"
		"      --upto N                  the last iteration to gather (iterations 0 to N)\n"
		"      --summary summary.json    also write the summary\n"
		"      --best best.cu            also copy the best kernel there and its launch.json beside it (for best.cu, best-launch.json)\n"
		"      --replay dir              also write one replay request per case of the best candidate there\n"
		"      --sanitize sanitize.json  cko-sanitize's result: its rejected candidates are never best\n"
		"      --sol-stop f              history.json's stop: when every performance case reaches this fraction of\n"
		"                                its speed-of-light time (0: never)\n"
		"      --patience n              ... or when n iterations in a row gained less than --min-gain (0: never)\n"
		"      --min-gain f              the gain an iteration must bring to count, a fraction of the best geomean\n"
		"                                (default 0; 0.01 is 1%%)\n"
		"      --print summary.json      show a summary as a table\n"
		"  -h, --help                    print this help and exit\n");
	exit(status);
}

static cJSON *load_opt(const char *dir, const char *name) { return cko_run_record(dir, name); }

static const char *status_of(const cJSON *j) { return cko_jstr_opt(j, "status", "missing"); }
static int is_ok(const cJSON *j) { return cko_status_ok(j); }

/* "iter-002/c1" from a candidate folder path. */
static char *candidate_id(const char *dir)
{
	char *d = xstrdup(dir);
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	char *last = strrchr(d, '/');
	char *id;
	if (!last) {
		id = xstrdup(d);
	} else {
		*last = 0;
		char *prev = strrchr(d, '/');
		id = xasprintf("%s/%s", prev ? prev + 1 : d, last + 1);
	}
	free(d);
	return id;
}

/* The first lines of a compile log that say "error". */
static char *log_errors(const char *log)
{
	cko_buf b = {0};
	int n = 0;
	for (const char *p = log; p && *p && n < 4;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = strndup(p, len);
		if (strstr(line, "error")) {
			buf_printf(&b, "%s%s", n ? "; " : "", line);
			n++;
		}
		free(line);
		p = nl ? nl + 1 : NULL;
	}
	return b.s ? b.s : xstrdup("compile error");
}

/* The first failing case of a run/compare/bench file, described. */
static char *first_failure(const cJSON *j, const char *what)
{
	for (const cJSON *c = cko_jget(j, "cases") ? cko_jget(j, "cases")->child : NULL; c; c = c->next) {
		if (is_ok(c))
			continue;
		const char *name = cko_jstr_opt(c, "case", "?"), *st = status_of(c);
		const char *msg = cko_jstr_opt(c, "message", NULL), *err = cko_jstr_opt(c, "error", NULL);
		cko_buf b = {0};
		buf_printf(&b, "case %s: %s", name, st);
		if (msg)
			buf_printf(&b, ": %s", msg);
		if (err && strcmp(err, st))
			buf_printf(&b, " (%s)", err);
		/* compare.json: the tensor and its worst error */
		for (const cJSON *s = cko_jget(c, "sets") ? cko_jget(c, "sets")->child : NULL; s; s = s->next) {
			if (is_ok(s))
				continue;
			const cJSON *t = cko_jget(s, "tensors");
			for (const cJSON *x = t ? t->child : NULL; x; x = x->next) {
				if (is_ok(x))
					continue;
				const cJSON *mm = cko_jget(x, "mismatches"), *ma = cko_jget(x, "max_abs");
				const char *prob = cko_jstr_opt(x, "problem", NULL);
				char worst[64];
				if (cJSON_IsNumber(ma))
					snprintf(worst, sizeof worst, "%.3g", ma->valuedouble);
				else
					snprintf(worst, sizeof worst, "%s", cko_jstr_opt(x, "max_abs", "?"));
				if (prob)
					buf_printf(&b, ": %s: %s", x->string, prob);
				else if (cJSON_IsNumber(mm))
					buf_printf(&b, ": %s: %.0f of %.0f elements differ (max abs error %s, set %.0f)", x->string,
						   mm->valuedouble, cko_jnum_opt(x, "count", 0), worst, cko_jnum_opt(s, "set", 0));
				break;
			}
			if (!is_ok(s) && cko_jget(s, "status"))
				break; /* the first failing set described */
		}
		return b.s;
	}
	const char *msg = cko_jstr_opt(j, "message", NULL);
	return xasprintf("%s: %s%s%s", what, status_of(j), msg ? ": " : "", msg ? msg : "");
}

static double case_num(const char *cases_dir, const char *name, const char *key)
{
	char *p = xasprintf("%s/case.json", name);
	cJSON *c = load_opt(cases_dir, p);
	double v = cko_jnum_opt(c, key, 0);
	cJSON_Delete(c);
	free(p);
	return v;
}

static const cJSON *find_case(const cJSON *j, const char *name) { return cko_record_case(j, name); }

/* The vendor baseline's median for a case (baseline.json), 0 when it has
 * none or its own check did not pass: an unchecked time is never shown. */
static double baseline_ms(const cJSON *baseline, const char *name)
{
	const cJSON *c = find_case(baseline, name);
	if (strcmp(cko_jstr_opt(c, "status", "ok"), "ok") || !strcmp(cko_jstr_opt(c, "check", "ok"), "fail"))
		return 0;
	return cko_jnum_opt(c, "median_ms", 0);
}

typedef struct {
	const char *props, *reference;
	double floor_slack, max_speedup;
} cand_opts;

/* A candidate folder's step records and what its verdict needs. */
typedef struct {
	cJSON *prop, *launch, *comp, *reqs, *run, *cmp, *bench, *prof, *props, *ref, *index;
	char *cases_dir;
	/* the verdict: status "ok", "invalid" or "skipped", the stage, why */
	const char *status, *stage;
	char *reason;
} verdict;

static void verdict_load(verdict *v, const char *dir, const cand_opts *o)
{
	memset(v, 0, sizeof *v);
	v->prop = load_opt(dir, "proposal.json");
	v->launch = load_opt(dir, "launch.json");
	v->comp = load_opt(dir, "compile.json");
	v->reqs = load_opt(dir, "requests/index.json");
	v->run = load_opt(dir, "run.json");
	v->cmp = load_opt(dir, "compare.json");
	v->bench = load_opt(dir, "bench.json");
	v->prof = load_opt(dir, "profile.json");
	v->props = o->props && cko_exists(o->props) ? cko_json_load(o->props) : NULL;
	v->ref = o->reference && cko_exists(o->reference) ? cko_json_load(o->reference) : NULL;
	v->cases_dir = xasprintf("%s/../../cases", dir);
	v->index = load_opt(v->cases_dir, "index.json");
	if (!v->index)
		v->index = cJSON_CreateArray();
	v->status = "ok";
}

static void verdict_free(verdict *v)
{
	cJSON *all[] = {v->prop, v->launch, v->comp, v->reqs, v->run, v->cmp, v->bench, v->prof, v->props, v->ref, v->index};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		cJSON_Delete(all[i]);
	free(v->cases_dir);
	free(v->reason);
}

static void verdict_set(verdict *v, const char *status, const char *stage, char *reason)
{
	v->status = status;
	v->stage = stage;
	free(v->reason);
	v->reason = reason;
}

/* The first step that is not ok decides (docs/run.md). */
static void verdict_steps(verdict *v, cJSON *r)
{
	const cJSON *prop = v->prop;
	if (!prop) {
		verdict_set(v, "invalid", "propose", xstrdup("no proposal.json"));
	} else if (!strcmp(status_of(prop), "none")) {
		verdict_set(v, "skipped", "propose", cko_text_visible(cko_jstr_opt(prop, "note", "nothing proposed")));
	} else if (!strcmp(status_of(prop), "stopped")) {
		/* The run's budget stopped it (mk/run.mk, --sol-stop, --patience). */
		verdict_set(v, "skipped", "budget", cko_text_visible(cko_jstr_opt(prop, "reason", "the run's budget stopped it")));
		cJSON_AddStringToObject(r, "stopped", cko_jstr_opt(prop, "ended", "budget"));
	} else if (!is_ok(prop)) {
		verdict_set(v, "invalid", "propose", cko_text_visible(cko_jstr_opt(prop, "reason", "invalid proposal")));
	} else if (!is_ok(v->comp)) {
		verdict_set(v, "invalid", "compile", log_errors(cko_jstr_opt(v->comp, "log", "")));
	} else if (!is_ok(v->reqs)) {
		verdict_set(v, "invalid", "launch",
			    xasprintf("launch rule fails for case %s: %s", cko_jstr_opt(v->reqs, "case", "?"),
				      cko_jstr_opt(v->reqs, "message", "")));
	} else if (!is_ok(v->run)) {
		verdict_set(v, "invalid", "run", first_failure(v->run, "run"));
	} else if (!is_ok(v->cmp)) {
		verdict_set(v, "invalid", "compare", first_failure(v->cmp, "compare"));
	} else if (!is_ok(v->bench)) {
		verdict_set(v, "invalid", "bench", first_failure(v->bench, "bench"));
	}
}

/* A verified performance case's time against the speed-of-light floor (the
 * nominal peaks times --floor-slack) and the reference (--max-speedup):
 * the first that breaks either invalidates the candidate. */
static void verdict_floor(verdict *v, const cand_opts *o, const char *name, double ms, cJSON *c)
{
	double fl = case_num(v->cases_dir, name, "flops"), by = case_num(v->cases_dir, name, "bytes");
	const cJSON *peak = cko_jget(v->props, "peak");
	double pf = cko_jnum_opt(peak, "fp32_tflops", 0), pb = cko_jnum_opt(peak, "dram_gbps", 0);
	double floor_ms = 0;
	if (fl > 0 && pf > 0)
		floor_ms = fmax(floor_ms, fl / (pf * 1e12) * 1e3);
	if (by > 0 && pb > 0)
		floor_ms = fmax(floor_ms, by / (pb * 1e9) * 1e3);
	floor_ms *= o->floor_slack;
	if (floor_ms > 0)
		cJSON_AddNumberToObject(c, "floor_ms", floor_ms);
	double ref_ms = cko_jnum_opt(find_case(v->ref, name), "median_ms", 0);
	if (strcmp(v->status, "ok"))
		return;
	if (floor_ms > 0 && ms < floor_ms)
		verdict_set(v, "invalid", "floor",
			    xasprintf("case %s: %.4g ms is below the speed-of-light floor of %.4g ms "
				      "(%.3g FLOP, %.3g bytes at the GPU's peak rates)",
				      name, ms, floor_ms, fl, by));
	else if (ref_ms > 0 && ms > 0 && ref_ms / ms > o->max_speedup)
		verdict_set(v, "invalid", "floor",
			    xasprintf("case %s: a %.0fx speedup over the reference is implausible (bound %.0fx)", name,
				      ref_ms / ms, o->max_speedup));
}

/* result.json's cases[], one per case of cases/index.json; returns the
 * geometric mean of the performance cases' medians (0: none). */
static double verdict_cases(verdict *v, const cand_opts *o, cJSON *cases)
{
	double logsum = 0;
	int nperf = 0;
	for (const cJSON *e = v->index->child; e; e = e->next) {
		const char *name = cko_jstr_opt(e, "name", "?");
		int perf = !strcmp(cko_jstr_opt(e, "kind", ""), "performance");
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, c);
		cJSON_AddStringToObject(c, "case", name);
		cJSON_AddStringToObject(c, "kind", cko_jstr_opt(e, "kind", "?"));
		cJSON_AddBoolToObject(c, "hidden", cJSON_IsTrue(cko_jget(e, "hidden")));
		const cJSON *rc = find_case(v->run, name), *cc = find_case(v->cmp, name), *bc = find_case(v->bench, name);
		const char *cs = !rc ? "not run" : !is_ok(rc) ? status_of(rc) : cc && !is_ok(cc) ? "wrong" : "ok";
		if (perf && bc && !is_ok(bc))
			cs = status_of(bc);
		cJSON_AddStringToObject(c, "status", cs);
		if (!perf || !bc || !cJSON_IsNumber(cko_jget(bc, "median_ms")))
			continue;
		double ms = cko_jget(bc, "median_ms")->valuedouble;
		cJSON_AddNumberToObject(c, "median_ms", ms);
		cJSON_AddNumberToObject(c, "cv", cko_jnum_opt(bc, "cv", 0));
		if (ms > 0) {
			logsum += log(ms);
			nperf++;
		}
		verdict_floor(v, o, name, ms, c);
	}
	return nperf ? exp(logsum / nperf) : 0;
}

/* What result.json copies from the proposal: its text with controls shown,
 * the content hash (computed for proposers that give none), the defines. */
static void result_proposal(cJSON *r, const verdict *v, const char *dir)
{
	static const char *pk[] = {"proposer", "note", "parent", "hash", "variant", "strategy", "model", "memory"};
	for (size_t i = 0; i < sizeof pk / sizeof pk[0]; i++) {
		const cJSON *x = cko_jget(v->prop, pk[i]);
		if (cJSON_IsString(x)) {
			/* proposers' text (a model's, a hand-written note.txt) goes to
			 * history.json and terminals with its controls shown */
			char *t = cko_text_visible(x->valuestring);
			cJSON_AddStringToObject(r, pk[i], t);
			free(t);
		} else if (x) {
			cJSON_AddItemToObject(r, pk[i], cJSON_Duplicate(x, 1));
		}
	}
	if (!cko_jget(r, "hash")) {
		/* the same content hash cko-tune uses, for proposers that give none */
		char *src = xasprintf("%s/kernel.cu", dir);
		size_t n = 0;
		char err[256], sha[65];
		char *text = cko_try_read_file(src, 4u << 20, &n, err, sizeof err);
		cko_candidate_hash(text ? text : "", text ? n : 0, v->launch, sha);
		cJSON_AddStringToObject(r, "hash", sha);
		free(text);
		free(src);
	}
	if (cko_jget(v->launch, "defines"))
		cJSON_AddItemToObject(r, "defines", cJSON_Duplicate(cko_jget(v->launch, "defines"), 1));
}

/* What result.json takes from the steps: registers, spills, the profile,
 * each step's seconds. */
static void result_steps(cJSON *r, const verdict *v)
{
	if (is_ok(v->comp)) {
		cJSON_AddNumberToObject(r, "registers", cko_jnum_opt(v->comp, "registers", 0));
		cJSON_AddNumberToObject(r, "spills",
					cko_jnum_opt(v->comp, "spill_stores", 0) + cko_jnum_opt(v->comp, "spill_loads", 0));
	}
	if (v->prof && is_ok(v->prof))
		cJSON_AddStringToObject(r, "profile", "profile.json");
	cJSON *secs = cJSON_AddObjectToObject(r, "seconds");
	cJSON_AddNumberToObject(secs, "compile", cko_jnum_opt(v->comp, "time_s", 0));
	cJSON_AddNumberToObject(secs, "run", cko_jnum_opt(v->run, "seconds", 0));
	cJSON_AddNumberToObject(secs, "compare", cko_jnum_opt(v->cmp, "seconds", 0));
	cJSON_AddNumberToObject(secs, "bench", cko_jnum_opt(v->bench, "seconds", 0));
}

static int rank_candidate(const char *dir, const cand_opts *o, const char *out_path)
{
	char *id = candidate_id(dir);
	verdict v;
	verdict_load(&v, dir, o);
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "tool", "cko-rank");
	cJSON_AddStringToObject(r, "id", id);
	const char *dash = strchr(id, '-');
	cJSON_AddNumberToObject(r, "iteration", dash ? atoi(dash + 1) : 0);
	verdict_steps(&v, r);
	double gm = verdict_cases(&v, o, cJSON_AddArrayToObject(r, "cases"));
	cJSON_AddStringToObject(r, "status", v.status);
	if (v.stage)
		cJSON_AddStringToObject(r, "stage", v.stage);
	else
		cJSON_AddNullToObject(r, "stage");
	const cJSON *steps[] = {v.comp, v.run, v.bench};
	cJSON *sbx = cJSON_CreateArray();
	for (int k = 0; k < 3; k++) {
		const char *s = cko_jstr_opt(steps[k], "sandbox", NULL);
		if (s && !cko_json_array_has(sbx, s))
			cJSON_AddItemToArray(sbx, cJSON_CreateString(s));
	}
	cJSON_AddItemToObject(r, "sandbox", sbx);
	if (v.reason)
		cJSON_AddStringToObject(r, "reason", v.reason);
	else
		cJSON_AddNullToObject(r, "reason");
	if (!strcmp(v.status, "ok") && gm > 0)
		cJSON_AddNumberToObject(r, "geomean_ms", gm);
	result_proposal(r, &v, dir);
	result_steps(r, &v);
	cko_json_write(out_path, r);
	if (strcmp(v.status, "ok"))
		cko_info("%s: %s at %s: %s", id, v.status, v.stage, v.reason ? v.reason : "");
	cJSON_Delete(r);
	verdict_free(&v);
	free(id);
	return 0;
}

/* ---- the run: history, summary, best, replay ---- */

static double gm_of(const cJSON *r) { return cko_jnum_opt(r, "geomean_ms", 0); }

/* Rewrites a request's paths from its folder to a replay folder. */
static void write_replay(const char *req_path, const char *replay_dir, const char *name)
{
	cJSON *rq = cko_json_load(req_path);
	char *from = cko_dirname(req_path);
	const char *keys[] = {"cubin"};
	for (size_t i = 0; i < 1; i++) {
		cJSON *v = cJSON_GetObjectItemCaseSensitive(rq, keys[i]);
		if (cJSON_IsString(v)) {
			char *abs = cko_path_join(from, v->valuestring), *rel = cko_path_relative(replay_dir, abs);
			cJSON_SetValuestring(v, rel);
			free(abs);
			free(rel);
		}
	}
	for (cJSON *s = cJSON_GetObjectItem(rq, "sets") ? cJSON_GetObjectItem(rq, "sets")->child : NULL; s; s = s->next)
		for (cJSON *v = s->child; v; v = v->next)
			if (cJSON_IsString(v)) {
				char *abs = cko_path_join(from, v->valuestring), *rel = cko_path_relative(replay_dir, abs);
				cJSON_SetValuestring(v, rel);
				free(abs);
				free(rel);
			}
	char *out = xasprintf("out/%s", name);
	cJSON_ReplaceItemInObject(rq, "out", cJSON_CreateString(out));
	char *dst = xasprintf("%s/%s.json", replay_dir, name);
	cko_json_write(dst, rq);
	free(dst);
	free(out);
	free(from);
	cJSON_Delete(rq);
}

/* ---- speed of light: each performance case's floor at the measured rates ---- */

/* The rates the floor is taken at: cko-props --measure's FP32 FMA rate and
 * copy bandwidth, the nominal peaks where a figure was not measured. */
static void sol_rates(const cJSON *props, double *tflops, double *gbps)
{
	const cJSON *m = cko_jget(props, "measured"), *pk = cko_jget(props, "peak");
	*tflops = cko_jnum_opt(m, "fp32_tflops", 0);
	*gbps = cko_jnum_opt(m, "copy_gbps", 0);
	if (!(*tflops > 0))
		*tflops = cko_jnum_opt(pk, "fp32_tflops", 0);
	if (!(*gbps > 0))
		*gbps = cko_jnum_opt(pk, "dram_gbps", 0);
}

static int cmp_fraction(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	double fx = cko_jnum_opt(x, "fraction", 2), fy = cko_jnum_opt(y, "fraction", 2);
	return fx < fy ? -1 : fx > fy;
}

/* history.json's "sol": per performance case the floor (the larger of the
 * compute time and the memory time at the rates), its bound, the best
 * candidate's time and the fraction of the speed of light it reaches
 * (sol_ms / best_ms), the vendor baseline's where there is one; the cases
 * with the most headroom (lowest fraction) first. */
static cJSON *sol_report(const char *run, const cJSON *index, const cJSON *props, const cJSON *best,
			 const cJSON *baseline)
{
	double pf, pb;
	sol_rates(props, &pf, &pb);
	cJSON *sol = cJSON_CreateObject();
	cJSON_AddNumberToObject(sol, "fp32_tflops", pf);
	cJSON_AddNumberToObject(sol, "memory_gbps", pb);
	if (best)
		cJSON_AddStringToObject(sol, "candidate", cko_jstr_opt(best, "id", "?"));
	else
		cJSON_AddNullToObject(sol, "candidate");
	char *cp = xasprintf("%s/cases", run);
	cJSON *tmp[256];
	int n = 0;
	double minf = INFINITY;
	for (const cJSON *e = index->child; e && n < 256; e = e->next) {
		if (strcmp(cko_jstr_opt(e, "kind", ""), "performance"))
			continue;
		const char *name = cko_jstr_opt(e, "name", "?");
		double fl = case_num(cp, name, "flops"), by = case_num(cp, name, "bytes");
		double cms = fl > 0 && pf > 0 ? fl / (pf * 1e12) * 1e3 : 0;
		double mms = by > 0 && pb > 0 ? by / (pb * 1e9) * 1e3 : 0;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "case", name);
		if (cms > 0 || mms > 0) {
			cJSON_AddNumberToObject(o, "sol_ms", fmax(cms, mms));
			cJSON_AddStringToObject(o, "bound", cms >= mms ? "compute" : "memory");
		} else {
			cJSON_AddNullToObject(o, "sol_ms");
		}
		if (cms > 0)
			cJSON_AddNumberToObject(o, "compute_ms", cms);
		if (mms > 0)
			cJSON_AddNumberToObject(o, "memory_ms", mms);
		double bm = cko_jnum_opt(find_case(best, name), "median_ms", 0);
		if (bm > 0) {
			cJSON_AddNumberToObject(o, "best_ms", bm);
			if (cms > 0 || mms > 0) {
				cJSON_AddNumberToObject(o, "fraction", fmax(cms, mms) / bm);
				minf = fmin(minf, fmax(cms, mms) / bm);
			}
		}
		double vm = baseline_ms(baseline, name);
		if (vm > 0) {
			cJSON_AddNumberToObject(o, "baseline_ms", vm);
			if (cms > 0 || mms > 0)
				cJSON_AddNumberToObject(o, "baseline_fraction", fmax(cms, mms) / vm);
		}
		if (!cko_jget(o, "fraction"))
			minf = -1; /* a case without a fraction: never at the speed of light */
		tmp[n++] = o;
	}
	free(cp);
	qsort(tmp, (size_t)n, sizeof *tmp, cmp_fraction);
	cJSON *arr = cJSON_AddArrayToObject(sol, "cases");
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, tmp[i]);
	if (n && minf >= 0 && isfinite(minf))
		cJSON_AddNumberToObject(sol, "min_fraction", minf);
	else
		cJSON_AddNullToObject(sol, "min_fraction");
	return sol;
}

/* ---- the budget: when an iteration is not worth its tokens or GPU time ---- */

typedef struct {
	int on;            /* any rule given */
	double sol_stop;   /* stop when every case is at this fraction of SOL (0: never) */
	int patience;      /* stop after this many iterations in a row ... (0: never) */
	double min_gain;   /* ... each improving the best geomean by less than this fraction */
} budget;

/* A case the vendor baseline runs faster than the best: proof of headroom
 * that the speed-of-light stop must not override (the measured copy rate
 * it uses varies by a few percent between processes). */
static int behind_baseline(const cJSON *sol)
{
	for (const cJSON *c = cko_jget(sol, "cases") ? cko_jget(sol, "cases")->child : NULL; c; c = c->next) {
		double vm = cko_jnum_opt(c, "baseline_ms", 0), bm = cko_jnum_opt(c, "best_ms", 0);
		if (vm > 0 && bm > vm)
			return 1;
	}
	return 0;
}

/* The stop for iteration upto+1, or NULL: an earlier stop holds (it is
 * recorded in the stopped candidates' results), else the rules are tried
 * on iterations 0..upto. after[i] is the best geomean after iteration i
 * (INFINITY while none is verified). */
static cJSON *budget_stop(const budget *b, int upto, const double *after, const cJSON *cands, const cJSON *sol)
{
	for (const cJSON *c = cands->child; c; c = c->next)
		if (cko_jstr_opt(c, "stopped", NULL)) {
			cJSON *s = cJSON_CreateObject();
			cJSON_AddStringToObject(s, "ended", cko_jstr_opt(c, "stopped", "?"));
			cJSON_AddNumberToObject(s, "iteration", cko_jnum_opt(c, "iteration", 0));
			cJSON_AddStringToObject(s, "reason", cko_jstr_opt(c, "reason", "stopped"));
			return s;
		}
	const char *ended = NULL;
	char *why = NULL;
	const cJSON *mf = cko_jget(sol, "min_fraction");
	if (b->sol_stop > 0 && cJSON_IsNumber(mf) && mf->valuedouble >= b->sol_stop && !behind_baseline(sol)) {
		ended = "sol";
		why = xasprintf("every performance case is at %.3g or more of its speed-of-light time (the lowest at %.3g)",
				b->sol_stop, mf->valuedouble);
	} else if (b->patience > 0 && upto >= b->patience) {
		int flat = 1;
		for (int i = upto - b->patience + 1; i <= upto && flat; i++) {
			double gain = isinf(after[i - 1]) ? (isinf(after[i]) ? 0 : INFINITY) : after[i - 1] / after[i] - 1;
			flat = gain < b->min_gain;
		}
		if (flat) {
			ended = "no_gain";
			why = xasprintf("%d iterations in a row improved the best geomean by less than %.3g%%", b->patience,
					100 * b->min_gain);
		}
	}
	if (!ended)
		return NULL;
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "ended", ended);
	cJSON_AddNumberToObject(s, "iteration", upto + 1);
	cJSON_AddStringToObject(s, "reason", why);
	free(why);
	return s;
}

/* summary.json's "budget": why the run ended and what it spent and saved.
 * GPU seconds are the candidates' run and bench steps; the tokens saved
 * are the mean tokens of a model iteration times the iterations stopped. */
static void budget_summary(cJSON *s, const char *run, int upto, const cJSON *cands)
{
	const char *ended = "iterations";
	int stopped = 0, model_iters = 0;
	double gpu = 0, model_tokens = 0;
	for (int i = 1; i <= upto; i++) {
		int st = 0;
		for (const cJSON *c = cands->child; c; c = c->next)
			if ((int)cko_jnum_opt(c, "iteration", -1) == i && cko_jstr_opt(c, "stopped", NULL)) {
				if (!stopped)
					ended = cko_jstr_opt(c, "stopped", "?");
				st = 1;
			}
		stopped += st;
		cJSON *t = cko_run_tokens(run, i, i);
		if (t && !st) {
			model_tokens += cko_jnum_opt(t, "prompt_tokens", 0) + cko_jnum_opt(t, "completion_tokens", 0);
			model_iters++;
		}
		cJSON_Delete(t);
	}
	for (const cJSON *c = cands->child; c; c = c->next)
		gpu += cko_jnum_opt(cko_jget(c, "seconds"), "run", 0) + cko_jnum_opt(cko_jget(c, "seconds"), "bench", 0);
	cJSON_AddStringToObject(s, "ended", ended);
	cJSON *b = cJSON_AddObjectToObject(s, "budget");
	cJSON_AddStringToObject(b, "ended", ended);
	cJSON_AddNumberToObject(b, "iterations", upto);
	cJSON_AddNumberToObject(b, "iterations_run", upto - stopped);
	cJSON_AddNumberToObject(b, "iterations_stopped", stopped);
	cJSON_AddNumberToObject(b, "gpu_seconds", gpu);
	cJSON *all = cko_run_tokens(run, 0, upto);
	cJSON_AddNumberToObject(b, "tokens", cko_jnum_opt(all, "prompt_tokens", 0) + cko_jnum_opt(all, "completion_tokens", 0));
	cJSON_Delete(all);
	if (model_iters)
		cJSON_AddNumberToObject(b, "tokens_saved", model_tokens / model_iters * stopped);
	else
		cJSON_AddNumberToObject(b, "tokens_saved", 0);
}


/* 1 if the sanitizer verdict rejected this candidate. */
static int rejected_by(const cJSON *san, const char *id)
{
	for (const cJSON *r = cko_jget(san, "rejected") ? cko_jget(san, "rejected")->child : NULL; r; r = r->next)
		if (cJSON_IsString(r) && !strcmp(r->valuestring, id))
			return 1;
	return 0;
}

/* ---- the run's ranking: read once, then history, summary, best, replay ---- */

/* What rank_run reads from the run folder and decides. */
typedef struct {
	const char *run;
	int upto;
	cJSON *san, *config, *props, *ref, *baseline, *index;
	cko_run cands;        /* iterations 0..upto (the run-folder reader) */
	const cko_cand *best; /* NULL while none is verified */
	int counts[3];        /* ok, invalid, skipped */
	double *after;        /* the best geomean after each iteration (INFINITY: none yet) */
} ranking;

static void ranking_load(ranking *k, const char *run, int upto, const char *san_path)
{
	memset(k, 0, sizeof *k);
	k->run = run;
	k->upto = upto;
	k->san = san_path ? cko_json_load(san_path) : NULL;
	k->config = load_opt(run, "config.json");
	k->props = load_opt(run, "props.json");
	k->ref = load_opt(run, "reference/bench.json");
	k->baseline = load_opt(run, "baseline.json");
	k->index = load_opt(run, "cases/index.json");
	if (!k->index)
		k->index = cJSON_CreateArray();
	cko_run_read(run, 0, upto, &k->cands);
}

static void ranking_free(ranking *k)
{
	cJSON *all[] = {k->san, k->config, k->props, k->ref, k->baseline, k->index};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		cJSON_Delete(all[i]);
	cko_run_free(&k->cands);
	free(k->after);
}

/* The best: the verified candidate (status ok, a geomean) with the lowest
 * geomean that the sanitizer did not reject; on a tie the first in
 * iteration then candidate order (docs/formats.md, history.json). */
static void ranking_decide(ranking *k)
{
	k->after = xcalloc((size_t)k->upto + 1, sizeof *k->after);
	int i = 0;
	for (int it = 0; it <= k->upto; it++) {
		for (; i < k->cands.n && k->cands.c[i].iter == it; i++) {
			const cko_cand *c = &k->cands.c[i];
			const char *st = status_of(c->result);
			k->counts[!strcmp(st, "ok") ? 0 : !strcmp(st, "skipped") ? 2 : 1]++;
			if (!strcmp(st, "ok") && gm_of(c->result) > 0 && (!k->best || gm_of(c->result) < gm_of(k->best->result)) &&
			    !rejected_by(k->san, c->id))
				k->best = c;
		}
		k->after[it] = k->best ? gm_of(k->best->result) : INFINITY;
	}
}

/* history.json's "reference": the reference's medians and their geomean. */
static cJSON *history_reference(const cJSON *ref)
{
	cJSON *rj = cJSON_CreateObject();
	cJSON *rmed = cJSON_AddObjectToObject(rj, "median_ms");
	double rlog = 0;
	int rn = 0;
	for (const cJSON *c = cko_jget(ref, "cases") ? cko_jget(ref, "cases")->child : NULL; c; c = c->next) {
		double ms = cko_jnum_opt(c, "median_ms", 0);
		if (ms > 0) {
			cJSON_AddNumberToObject(rmed, cko_jstr_opt(c, "case", "?"), ms);
			rlog += log(ms);
			rn++;
		}
	}
	if (rn)
		cJSON_AddNumberToObject(rj, "geomean_ms", exp(rlog / rn));
	return rj;
}

static cJSON *history_json(const ranking *k, const budget *bud)
{
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "tool", "cko-rank");
	cJSON_AddStringToObject(h, "workload", cko_jstr_opt(k->config, "workload", "custom"));
	cJSON_AddStringToObject(h, "gpu", cko_jstr_opt(k->props, "name", "unknown GPU"));
	cJSON *perf = cJSON_AddArrayToObject(h, "perf_cases");
	for (const cJSON *e = k->index->child; e; e = e->next)
		if (!strcmp(cko_jstr_opt(e, "kind", ""), "performance"))
			cJSON_AddItemToArray(perf, cJSON_CreateString(cko_jstr_opt(e, "name", "?")));
	cJSON_AddItemToObject(h, "reference", history_reference(k->ref));
	cJSON *cands = cJSON_AddArrayToObject(h, "candidates");
	for (int i = 0; i < k->cands.n; i++)
		cJSON_AddItemToArray(cands, cJSON_Duplicate(k->cands.c[i].result, 1));
	/* the initial kernel: the first candidate of iteration 0 */
	if (k->cands.n && k->cands.c[0].iter == 0)
		cJSON_AddItemToObject(h, "initial", cJSON_Duplicate(k->cands.c[0].result, 1));
	if (k->best)
		cJSON_AddStringToObject(h, "best", k->best->id);
	else
		cJSON_AddNullToObject(h, "best");
	cJSON *sol = sol_report(k->run, k->index, k->props, k->best ? k->best->result : NULL, k->baseline);
	cJSON_AddItemToObject(h, "sol", sol);
	if (bud->on) {
		cJSON *st = budget_stop(bud, k->upto, k->after, cands, sol);
		cJSON_AddItemToObject(h, "stop", st ? st : cJSON_CreateNull());
	}
	return h;
}

/* summary.json's "cases": the best's performance cases against the
 * reference, the initial kernel, the roofline and the vendor baseline;
 * returns the geometric mean of the fractions of the baseline (0: none). */
static double summary_cases(const ranking *k, const cJSON *h, cJSON *sc)
{
	const cJSON *rmed = cko_jget(cko_jget(h, "reference"), "median_ms"), *init = cko_jget(h, "initial");
	char *cp = xasprintf("%s/cases", k->run);
	double culog = 0;
	int cun = 0;
	for (const cJSON *c = cko_jget(k->best->result, "cases")->child; c; c = c->next) {
		if (strcmp(cko_jstr_opt(c, "kind", ""), "performance"))
			continue;
		const char *name = cko_jstr_opt(c, "case", "?");
		double bm = cko_jnum_opt(c, "median_ms", 0), rm = cko_jnum_opt(rmed, name, 0);
		double im = cko_jnum_opt(find_case(init, name), "median_ms", 0);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "case", name);
		cJSON_AddNumberToObject(o, "best_ms", bm);
		if (rm > 0) {
			cJSON_AddNumberToObject(o, "reference_ms", rm);
			cJSON_AddNumberToObject(o, "speedup_vs_reference", rm / bm);
		}
		if (im > 0) {
			cJSON_AddNumberToObject(o, "initial_ms", im);
			cJSON_AddNumberToObject(o, "speedup_vs_initial", im / bm);
		}
		double fl = case_num(cp, name, "flops"), by = case_num(cp, name, "bytes");
		if (fl > 0)
			cJSON_AddNumberToObject(o, "tflops", fl / (bm * 1e-3) * 1e-12);
		if (by > 0)
			cJSON_AddNumberToObject(o, "gbps", by / (bm * 1e-3) * 1e-9);
		/* Roofline fractions: FLOP/s against the FP32 peak, bytes/s
		 * against the measured copy bandwidth. */
		double pf = cko_jnum_opt(cko_jget(k->props, "peak"), "fp32_tflops", 0);
		double cb = cko_jnum_opt(cko_jget(k->props, "measured"), "copy_gbps", 0);
		if (fl > 0 && pf > 0)
			cJSON_AddNumberToObject(o, "fp32_peak_fraction", fl / (bm * 1e-3) * 1e-12 / pf);
		if (by > 0 && cb > 0)
			cJSON_AddNumberToObject(o, "copy_bandwidth_fraction", by / (bm * 1e-3) * 1e-9 / cb);
		double cu = baseline_ms(k->baseline, name);
		if (cu > 0) {
			cJSON_AddNumberToObject(o, "baseline_ms", cu);
			cJSON_AddNumberToObject(o, "fraction_of_baseline", cu / bm);
			culog += log(cu / bm);
			cun++;
		}
		cJSON_AddItemToArray(sc, o);
	}
	free(cp);
	return cun ? exp(culog / cun) : 0;
}

/* summary.json's best: its geomean, its speedups and its cases. */
static void summary_best(const ranking *k, const cJSON *h, cJSON *s)
{
	if (!k->best) {
		cJSON_AddNullToObject(s, "best");
		return;
	}
	double g = gm_of(k->best->result);
	cJSON_AddStringToObject(s, "best", k->best->id);
	cJSON_AddNumberToObject(s, "best_geomean_ms", g);
	double rg = cko_jnum_opt(cko_jget(h, "reference"), "geomean_ms", 0), ig = gm_of(cko_jget(h, "initial"));
	if (rg > 0)
		cJSON_AddNumberToObject(s, "speedup_vs_reference", rg / g);
	if (ig > 0)
		cJSON_AddNumberToObject(s, "speedup_vs_initial", ig / g);
	double fb = summary_cases(k, h, cJSON_AddArrayToObject(s, "cases"));
	if (fb > 0) {
		/* baseline.json before it named its vendor timed cuBLAS */
		cJSON_AddStringToObject(s, "baseline", cko_jstr_opt(k->baseline, "vendor", "cuBLAS"));
		cJSON_AddNumberToObject(s, "fraction_of_baseline", fb);
	}
}

static cJSON *summary_json(const ranking *k, const cJSON *h)
{
	const cJSON *cands = cko_jget(h, "candidates");
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "tool", "cko-rank");
	cJSON_AddStringToObject(s, "workload", cko_jstr_opt(k->config, "workload", "custom"));
	cJSON_AddStringToObject(s, "gpu", cko_jstr_opt(k->props, "name", "unknown GPU"));
	cJSON_AddStringToObject(s, "proposer", cko_jstr_opt(k->config, "proposer", "?"));
	summary_best(k, h, s);
	cJSON *cn = cJSON_AddObjectToObject(s, "counts");
	cJSON_AddNumberToObject(cn, "candidates", k->counts[0] + k->counts[1] + k->counts[2]);
	cJSON_AddNumberToObject(cn, "ok", k->counts[0]);
	cJSON_AddNumberToObject(cn, "invalid", k->counts[1]);
	cJSON_AddNumberToObject(cn, "skipped", k->counts[2]);
	cJSON *ss = cJSON_AddObjectToObject(s, "stage_seconds");
	static const char *stages[] = {"compile", "run", "compare", "bench"};
	for (int i = 0; i < 4; i++) {
		double t = 0;
		for (const cJSON *c = cands->child; c; c = c->next)
			t += cko_jnum_opt(cko_jget(c, "seconds"), stages[i], 0);
		cJSON_AddNumberToObject(ss, stages[i], t);
	}
	/* Every confinement the run's candidates ran under: "off
	 * (--no-sandbox)" shows here if any step ran unconfined. */
	cJSON *sbx = cJSON_AddArrayToObject(s, "sandbox");
	for (const cJSON *c = cands->child; c; c = c->next)
		for (const cJSON *v = cko_jget(c, "sandbox") ? cko_jget(c, "sandbox")->child : NULL; v; v = v->next)
			if (cJSON_IsString(v) && !cko_json_array_has(sbx, v->valuestring))
				cJSON_AddItemToArray(sbx, cJSON_CreateString(v->valuestring));
	if (k->san) {
		cJSON *sj = cJSON_AddObjectToObject(s, "sanitizer");
		cJSON_AddStringToObject(sj, "status", cko_jstr_opt(k->san, "status", "?"));
		if (cko_jget(k->san, "rejected"))
			cJSON_AddItemToObject(sj, "rejected", cJSON_Duplicate(cko_jget(k->san, "rejected"), 1));
	}
	cJSON *tok = cko_run_tokens(k->run, 0, k->upto);
	if (tok)
		cJSON_AddItemToObject(s, "tokens", tok);
	cJSON_AddItemToObject(s, "sol", cJSON_Duplicate(cko_jget(h, "sol"), 1));
	budget_summary(s, k->run, k->upto, cands);
	return s;
}

/* best.cu and, beside it, best-launch.json: the best's kernel and launch
 * rules; both removed when there is no best. */
static void write_best(const char *best_path, const cko_cand *best)
{
	size_t bl = strlen(best_path);
	int cu = bl > 3 && !strcmp(best_path + bl - 3, ".cu");
	char *launch_path = xasprintf("%.*s-launch.json", (int)(cu ? bl - 3 : bl), best_path);
	if (best) {
		char *k = xasprintf("%s/kernel.cu", best->dir), *l = xasprintf("%s/launch.json", best->dir);
		cko_copy_file(k, best_path);
		cko_copy_file(l, launch_path);
		free(k);
		free(l);
	} else {
		unlink(best_path); /* never leave an old best beside a run with none */
		unlink(launch_path);
	}
	free(launch_path);
}

/* One replay request per case of the best candidate. */
static void write_replays(const char *replay, const cko_cand *best)
{
	cko_mkdir_p(replay);
	char *rd = xasprintf("%s/requests", best->dir);
	int n;
	char **names = cko_list_dir(rd, ".json", &n);
	for (int i = 0; i < n; i++) {
		if (!strcmp(names[i], "index.json"))
			continue;
		char *src = xasprintf("%s/%s", rd, names[i]);
		char *name = strndup(names[i], strlen(names[i]) - 5);
		write_replay(src, replay, name);
		free(src);
		free(name);
	}
	cko_free_list(names, n);
	free(rd);
}

static int rank_run(const char *run, int upto, const char *hist_path, const char *sum_path, const char *best_path,
		    const char *replay, const char *san_path, const budget *bud)
{
	ranking k;
	ranking_load(&k, run, upto, san_path);
	ranking_decide(&k);
	cJSON *h = history_json(&k, bud);
	if (hist_path)
		cko_json_write(hist_path, h);
	if (sum_path) {
		cJSON *s = summary_json(&k, h);
		cko_json_write(sum_path, s);
		cJSON_Delete(s);
	}
	if (best_path)
		write_best(best_path, k.best);
	if (replay && k.best)
		write_replays(replay, k.best);
	cJSON_Delete(h);
	ranking_free(&k);
	return 0;
}

/* A string of summary.json for the terminal, its controls shown (rotating
 * buffers: several may be used in one printf). */
static const char *vis(const char *s)
{
	static char *b[8];
	static int k;
	k = (k + 1) % 8;
	free(b[k]);
	b[k] = cko_text_visible(s);
	return b[k];
}

static int print_summary(const char *path)
{
	cJSON *s = cko_json_load(path);
	const cJSON *cn = cko_jget(s, "counts");
	printf("%s on %s (proposer %s): ", vis(cko_jstr_opt(s, "workload", "?")), vis(cko_jstr_opt(s, "gpu", "?")),
	       vis(cko_jstr_opt(s, "proposer", "?")));
	if (!cko_jstr_opt(s, "best", NULL)) {
		printf("no verified candidate\n");
	} else {
		printf("best %s, geomean %.4g ms", vis(cko_jstr_opt(s, "best", "?")),
		       cko_jnum_opt(s, "best_geomean_ms", 0));
		if (cko_jget(s, "speedup_vs_reference"))
			printf(", %.2fx vs reference", cko_jnum_opt(s, "speedup_vs_reference", 0));
		if (cko_jget(s, "speedup_vs_initial"))
			printf(", %.2fx vs initial", cko_jnum_opt(s, "speedup_vs_initial", 0));
		const char *vendor = vis(cko_jstr_opt(s, "baseline", "vendor"));
		if (cko_jget(s, "fraction_of_baseline"))
			printf(", %.1f%% of %s", 100 * cko_jnum_opt(s, "fraction_of_baseline", 0), vendor);
		/* "of copy": GB/s against the measured copy rate (the roofline
		 * of the memory-bound workloads); "of V": the vendor's time over
		 * the best's (above 100%: faster than the vendor). */
		char vh[32];
		snprintf(vh, sizeof vh, "of %.20s", vendor);
		printf("\n%-24s %11s %12s %11s %9s %8s %8s %8s %9s\n", "case", "best ms", "reference ms", "initial ms", "speedup",
		       "TFLOP/s", "GB/s", "of copy", vh);
		for (const cJSON *c = cko_jget(s, "cases") ? cko_jget(s, "cases")->child : NULL; c; c = c->next) {
			char cu[16] = "-", cp[16] = "-";
			if (cko_jget(c, "fraction_of_baseline"))
				snprintf(cu, sizeof cu, "%.1f%%", 100 * cko_jnum_opt(c, "fraction_of_baseline", 0));
			if (cko_jget(c, "copy_bandwidth_fraction"))
				snprintf(cp, sizeof cp, "%.1f%%", 100 * cko_jnum_opt(c, "copy_bandwidth_fraction", 0));
			printf("%-24s %11.4g %12.4g %11.4g %8.2fx %8.2f %8.1f %8s %9s\n", vis(cko_jstr_opt(c, "case", "?")),
			       cko_jnum_opt(c, "best_ms", 0), cko_jnum_opt(c, "reference_ms", 0), cko_jnum_opt(c, "initial_ms", 0),
			       cko_jnum_opt(c, "speedup_vs_reference", 0), cko_jnum_opt(c, "tflops", 0),
			       cko_jnum_opt(c, "gbps", 0), cp, cu);
		}
	}
	printf("candidates: %.0f (%.0f verified, %.0f invalid, %.0f skipped)\n", cko_jnum_opt(cn, "candidates", 0),
	       cko_jnum_opt(cn, "ok", 0), cko_jnum_opt(cn, "invalid", 0), cko_jnum_opt(cn, "skipped", 0));
	const cJSON *sb = cko_jget(s, "sandbox");
	if (cJSON_GetArraySize(sb)) {
		printf("sandbox:");
		for (const cJSON *v = sb->child; v; v = v->next)
			printf("%s %s", v == sb->child ? "" : ",", vis(cJSON_IsString(v) ? v->valuestring : "?"));
		printf("\n");
	}
	const cJSON *t = cko_jget(s, "tokens");
	if (t)
		printf("tokens: %.0f prompt, %.0f completion (%.0f reasoning), %.0f cached; about $%.4f\n",
		       cko_jnum_opt(t, "prompt_tokens", 0), cko_jnum_opt(t, "completion_tokens", 0),
		       cko_jnum_opt(t, "reasoning_tokens", 0), cko_jnum_opt(t, "cached_tokens", 0), cko_jnum_opt(t, "cost_usd", 0));
	cJSON_Delete(s);
	return 0;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"candidate", required_argument, 0, 'c'}, {"run", required_argument, 0, 'r'},
		{"upto", required_argument, 0, 'u'},      {"props", required_argument, 0, 'p'},
		{"reference", required_argument, 0, 'R'}, {"floor-slack", required_argument, 0, 'f'},
		{"max-speedup", required_argument, 0, 'm'}, {"summary", required_argument, 0, 's'},
		{"best", required_argument, 0, 'b'},      {"replay", required_argument, 0, 'y'},
		{"print", required_argument, 0, 'P'},     {"output", required_argument, 0, 'o'},
		{"sanitize", required_argument, 0, 'S'}, {"sol-stop", required_argument, 0, 'L'},
		{"patience", required_argument, 0, 'N'}, {"min-gain", required_argument, 0, 'G'},
		{"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
	};
	const char *cand = NULL, *run = NULL, *out = NULL, *sum = NULL, *best = NULL, *replay = NULL, *print = NULL;
	const char *san = NULL;
	int upto = -1, c;
	cand_opts o = {NULL, NULL, 0.8, 1e4};
	budget bud = {0, 0, 0, 0};
	char *end;
	while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': cand = optarg; break;
		case 'r': run = optarg; break;
		case 'u': upto = atoi(optarg); break;
		case 'p': o.props = optarg; break;
		case 'R': o.reference = optarg; break;
		case 'f': o.floor_slack = atof(optarg); break;
		case 'm': o.max_speedup = atof(optarg); break;
		case 's': sum = optarg; break;
		case 'b': best = optarg; break;
		case 'y': replay = optarg; break;
		case 'P': print = optarg; break;
		case 'o': out = optarg; break;
		case 'S': san = optarg; break;
		case 'L':
			bud.on = 1, bud.sol_stop = strtod(optarg, &end);
			if (*end || !(bud.sol_stop >= 0 && bud.sol_stop <= 1))
				cko_die(CKO_BADINPUT, "--sol-stop %s: expected a fraction from 0 (never) to 1", optarg);
			break;
		case 'N':
			bud.on = 1, bud.patience = (int)strtol(optarg, &end, 10);
			if (*end || bud.patience < 0 || bud.patience > 1000)
				cko_die(CKO_BADINPUT, "--patience %s: expected iterations from 0 (never) to 1000", optarg);
			break;
		case 'G':
			bud.on = 1, bud.min_gain = strtod(optarg, &end);
			if (*end || !(bud.min_gain >= 0 && bud.min_gain < 10))
				cko_die(CKO_BADINPUT, "--min-gain %s: expected a fraction >= 0 (0.01 is 1%%)", optarg);
			break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc || !!cand + !!run + !!print != 1)
		usage(2);
	cko_out_check(out);
	if (print)
		return print_summary(print);
	if (cand) {
		if (!out)
			usage(2);
		if (!(o.floor_slack > 0 && o.floor_slack <= 1) || !(o.max_speedup > 1))
			cko_die(CKO_BADINPUT, "--floor-slack must be in (0, 1] and --max-speedup > 1");
		return rank_candidate(cand, &o, out);
	}
	if (upto < 0)
		cko_die(CKO_BADINPUT, "--run needs --upto N (the last iteration)");
	return rank_run(run, upto, out, sum, best, replay, san, &bud);
}
