/* cko-profile: replays one launch request under Nsight Compute (ncu runs
 * `cko-run --no-double` on the request and profiles the entry's first
 * launch), keeps the report, and extracts the metrics the model needs as
 * profile.json plus a short text summary. Any profiler trouble is an
 * environment failure (exit 3) that the run survives without a profile. */
#include "cko.h"
#include "ncu.h"

#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OUT (64u << 20)

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-profile [-o profile.json] [--summary summary.txt] [--report file.ncu-rep] [--ncu path]\n"
		"                   [--timeout s] [--save-csv file.csv] [--no-sandbox] [--after record.json] request.json\n"
		"       cko-profile --csv file.csv [-o profile.json] [--summary summary.txt] [request.json]\n"
		"  -o, --output profile.json  the result (default: standard output)\n"
		"  -s, --summary summary.txt  also write the text summary\n"
		"      --report file.ncu-rep  keep the Nsight Compute report there (the name must end in .ncu-rep)\n"
		"      --ncu path             the ncu program (default: $NCU, else ncu on PATH or in the CUDA folders)\n"
		"  -t, --timeout s            time limit for each ncu run (default 600 seconds)\n"
		"      --save-csv file.csv    keep ncu's raw CSV export\n"
		"      --no-sandbox           run the profiled cko-run without Landlock\n"
		"      --csv file.csv         parse an existing export instead of profiling\n"
		"      --after record.json    profile only if the record (bench.json) says ok; else write a\n"
		"                             skipped record as profile.json and exit 0\n"
		"  -h, --help                 print this help and exit\n");
	exit(status);
}

static const char *out_json = "-", *out_summary;
static cJSON *result;

/* Writes the failed profile (so the model can be told why there is none)
 * and exits 3. */
static _Noreturn void unavailable(const char *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void unavailable(const char *status, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cJSON_ReplaceItemInObject(result, "status", cJSON_CreateString(status));
	cJSON_AddStringToObject(result, "message", msg);
	cko_json_write(out_json, result);
	if (out_summary) {
		char *s = xasprintf("No profile: %s\n", msg);
		cko_write_file(out_summary, s, strlen(s));
		free(s);
	}
	cko_die(CKO_ENV, "%s", msg);
}

/* --ncu, $NCU, PATH, the CUDA toolkit, then the newest Nsight Compute
 * under /opt/nvidia/nsight-compute. */
static char *find_ncu(const char *opt)
{
	const char *e = getenv("NCU");
	if (opt || (e && *e)) {
		const char *p = opt ? opt : e;
		if (access(p, X_OK))
			unavailable("no_ncu", "%s%s: ncu is not there or not executable", opt ? "--ncu " : "NCU=", p);
		return xstrdup(p);
	}
	char *w = cko_which("ncu");
	if (w)
		return w;
	if (!access("/usr/local/cuda/bin/ncu", X_OK))
		return xstrdup("/usr/local/cuda/bin/ncu");
	glob_t g;
	char *found = NULL;
	if (!glob("/opt/nvidia/nsight-compute/*/ncu", 0, NULL, &g)) {
		for (size_t i = g.gl_pathc; i-- > 0 && !found;) /* sorted: the last is the newest */
			if (!access(g.gl_pathv[i], X_OK))
				found = xstrdup(g.gl_pathv[i]);
		globfree(&g);
	}
	if (!found)
		unavailable("no_ncu", "ncu (Nsight Compute) not found: give --ncu PATH or set NCU");
	return found;
}

/* cko-run beside this program, else on PATH. */
static char *find_cko_run(void)
{
	char *f = cko_tool_path("cko-run");
	if (strchr(f, '/'))
		return f;
	free(f);
	char *w = cko_which("cko-run");
	if (!w)
		unavailable("error", "cko-run not found beside cko-profile or on PATH");
	return w;
}

static const char *tail(const char *s, size_t n)
{
	size_t l = s ? strlen(s) : 0;
	return l > n ? s + l - n : s ? s : "";
}

/* The profiler's verdict on its own run: NULL when it went fine. */
static const char *ncu_trouble(const cko_proc *r, const char **status)
{
	const char *o = r->out ? r->out : "";
	if (r->timed_out)
		return *status = "timeout", "ncu did not finish in time";
	if (strstr(o, "ERR_NVGPUCTRPERM"))
		return *status = "no_permission",
		       "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run as root or allow "
		       "profiling for all users (nvidia driver option NVreg_RestrictProfilingToAdminUsers=0)";
	if (strstr(o, "No kernels were profiled"))
		return *status = "no_kernel", "ncu profiled no kernel: the entry was not launched (did cko-run fail?)";
	if (strstr(o, "==ERROR=="))
		return *status = "profiler_error", "ncu reported an error";
	return NULL;
}

/* The options beyond -o and -s (out_json, out_summary). */
typedef struct {
	const char *after, *report, *ncu_opt, *csv_in, *csv_save;
	double timeout;
	const char *reqpath; /* NULL with --csv alone */
} prof_opts;

static void parse_options(int argc, char **argv, prof_opts *o)
{
	static const struct option lo[] = {
		{"output", required_argument, 0, 'o'}, {"summary", required_argument, 0, 's'},
		{"report", required_argument, 0, 'r'}, {"ncu", required_argument, 0, 'N'},
		{"timeout", required_argument, 0, 't'}, {"csv", required_argument, 0, 'C'},
		{"save-csv", required_argument, 0, 'S'}, {"no-sandbox", no_argument, 0, 'X'},
		{"after", required_argument, 0, 'A'}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:s:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out_json = optarg; break;
		case 's': out_summary = optarg; break;
		case 'r': o->report = optarg; break;
		case 'N': o->ncu_opt = optarg; break;
		case 't': {
			char *end;
			o->timeout = strtod(optarg, &end);
			if (*end || !(o->timeout > 0))
				cko_die(CKO_BADINPUT, "--timeout %s: expected seconds > 0", optarg);
			break;
		}
		case 'C': o->csv_in = optarg; break;
		case 'S': o->csv_save = optarg; break;
		case 'A': o->after = optarg; break;
		case 'X': setenv("CKO_SANDBOX", "off", 1); break; /* for the cko-run under ncu */
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind < argc - 1 || (optind == argc && !o->csv_in))
		usage(2);
	o->reqpath = optind < argc ? argv[optind] : NULL;
}

/* The request's case, entry and launch into result. */
static void describe_request(const cko_request *rq, const char *reqpath)
{
	cJSON_AddStringToObject(result, "request", reqpath);
	cJSON_AddStringToObject(result, "case", rq->case_name);
	cJSON_AddStringToObject(result, "entry", rq->entry);
	cJSON *g = cJSON_AddArrayToObject(result, "grid"), *b = cJSON_AddArrayToObject(result, "block");
	for (int i = 0; i < 3; i++) {
		cJSON_AddItemToArray(g, cJSON_CreateNumber((double)rq->launch.grid[i]));
		cJSON_AddItemToArray(b, cJSON_CreateNumber((double)rq->launch.block[i]));
	}
	cJSON_AddNumberToObject(result, "smem", (double)rq->launch.smem);
}

/* The report to keep: --report, else beside profile.json, else none (NULL). */
static char *kept_report(const char *report)
{
	if (report)
		return xstrdup(report);
	if (!strcmp(out_json, "-"))
		return NULL;
	size_t n = strlen(out_json);
	return n > 5 && !strcmp(out_json + n - 5, ".json") ? xasprintf("%.*s.ncu-rep", (int)(n - 5), out_json)
							    : xasprintf("%s.ncu-rep", out_json);
}

/* ncu on cko-run replaying the request, writing the report rep; exits 3
 * (unavailable) on any trouble. */
static void run_ncu(const prof_opts *o, const char *ncu, char *runner, const char *entry, const char *rep,
		    const char *runjson)
{
	char *metrics = cko_ncu_metric_list();
	char *av[40];
	int n = 0;
	av[n++] = (char *)ncu;
	av[n++] = "--clock-control";
	av[n++] = "none";
	av[n++] = "--target-processes";
	av[n++] = "all";
	av[n++] = "--kernel-name-base";
	av[n++] = "function";
	av[n++] = "--kernel-name";
	av[n++] = (char *)entry;
	av[n++] = "--launch-count";
	av[n++] = "1";
	av[n++] = "--set";
	int set_at = n;
	av[n++] = "basic";
	int metrics_at = n;
	av[n++] = "--metrics";
	av[n++] = metrics;
	av[n++] = "-o";
	av[n++] = (char *)rep;
	av[n++] = "-f";
	av[n++] = runner;
	av[n++] = "--no-double";
	av[n++] = "--sets";
	av[n++] = "1";
	av[n++] = "--no-write";
	av[n++] = "--no-compare";
	/* cko-run's own watchdog allows 4 x -t + 60 s: fit it to ours,
	 * since replaying the kernel for every counter pass is slow. */
	char tbuf[32];
	snprintf(tbuf, sizeof tbuf, "%g", o->timeout > 100 ? (o->timeout - 60) / 4 : 10);
	av[n++] = "-t";
	av[n++] = tbuf;
	av[n++] = "-o";
	av[n++] = (char *)runjson;
	av[n++] = (char *)o->reqpath;
	av[n] = NULL;
	cko_info("profiling %s under %s", o->reqpath, ncu);
	cko_proc r;
	if (cko_run_argv(av, NULL, o->timeout, MAX_OUT, 1, &r))
		unavailable("profiler_error", "cannot run %s", ncu);
	if (r.status == 127 && !r.out_len)
		unavailable("no_ncu", "%s could not be started", ncu);
	if (!r.timed_out && r.out && strstr(r.out, "Failed to find metric")) {
		/* An ncu that lacks one of the metrics: take the full set,
		 * which holds what this version offers. */
		cko_warn("ncu lacks some requested metrics; profiling with --set full instead");
		cJSON_AddStringToObject(result, "note", "collected with --set full: ncu lacked some requested metrics");
		cko_proc_free(&r);
		av[set_at] = "full";
		memmove(&av[metrics_at], &av[metrics_at + 2], (size_t)(n - metrics_at - 1) * sizeof *av);
		if (cko_run_argv(av, NULL, o->timeout, MAX_OUT, 1, &r))
			unavailable("profiler_error", "cannot run %s", ncu);
	}
	const char *status, *why = ncu_trouble(&r, &status);
	if (!why && !cko_exists(rep))
		status = "profiler_error", why = "ncu wrote no report";
	if (why) {
		unlink(rep);
		unavailable(status, "%s (exit status %d); ncu's last output: %s", why, r.status, tail(r.out, 1500));
	}
	if (r.status)
		cko_warn("ncu exited with status %d (the profiled program failed?): %s", r.status, tail(r.out, 600));
	cko_proc_free(&r);
	free(metrics);
}

/* The report's raw page as CSV (ncu --import). */
static char *import_csv(const char *ncu, const char *rep, double timeout)
{
	char *iv[] = {(char *)ncu, "--import", (char *)rep, "--csv", "--page", "raw", "--print-units", "base",
		      "--print-kernel-base", "function", NULL};
	cko_proc r;
	if (cko_run_argv(iv, NULL, timeout, MAX_OUT, 0, &r))
		unavailable("profiler_error", "cannot run %s", ncu);
	if (r.status || r.timed_out) {
		unlink(rep);
		unavailable("profiler_error", "ncu --import %s failed (exit status %d): %s", rep, r.status,
			    tail(r.out, 1500));
	}
	char *csv = r.out;
	r.out = NULL;
	cko_proc_free(&r);
	return csv;
}

/* Profiles the request's entry under ncu; returns the report as CSV. The
 * report is kept (kept_report) when there is a name for it. */
static char *profile(const prof_opts *o, const char *entry)
{
	char *ncu = find_ncu(o->ncu_opt);
	cJSON_AddStringToObject(result, "ncu", ncu);
	char *runner = find_cko_run();
	char *keep = kept_report(o->report), *rep;
	const char *td = getenv("TMPDIR");
	char *tmpdir = xasprintf("%s/cko-profile.XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmpdir))
		cko_die(CKO_ENV, "%s: cannot make a temporary folder", tmpdir);
	/* ncu writes the report itself: into a temporary name beside the
	 * target, renamed when complete, so it is never half written. */
	if (keep) {
		char *d = cko_dirname(keep);
		cko_mkdir_p(d);
		free(d);
		rep = xasprintf("%.*s.tmp.%ld.ncu-rep", (int)(strlen(keep) - 8), keep, (long)getpid());
	} else {
		rep = xasprintf("%s/report.ncu-rep", tmpdir);
	}
	char *runjson = xasprintf("%s/run.json", tmpdir);
	run_ncu(o, ncu, runner, entry, rep, runjson);
	char *csv = import_csv(ncu, rep, o->timeout);
	if (keep) {
		if (rename(rep, keep))
			cko_die(CKO_ENV, "%s: cannot rename to %s", rep, keep);
		cJSON_AddStringToObject(result, "report", keep);
	} else {
		unlink(rep);
	}
	unlink(runjson);
	rmdir(tmpdir);
	free(runjson);
	free(runner);
	free(ncu);
	free(tmpdir);
	free(rep);
	free(keep);
	return csv;
}

/* The metrics of entry's row (the first kernel without a request) into
 * result, then profile.json and the summary. */
static void write_profile(const char *csv, const char *csv_in, const char *entry)
{
	cko_ncu_table t;
	char err[512];
	if (cko_ncu_parse_csv(csv, &t, err, sizeof err)) {
		if (csv_in)
			cko_die(CKO_BADINPUT, "%s: %s", csv_in, err);
		unavailable("profiler_error", "ncu's CSV export: %s", err);
	}
	int row = entry ? cko_ncu_find_kernel(&t, entry) : 0;
	if (row < 0) {
		if (csv_in)
			cko_die(CKO_BADINPUT, "%s: no kernel named %s among its %d rows", csv_in, entry, t.nrows);
		unavailable("no_kernel", "the report holds no kernel named %s", entry);
	}
	cko_ncu_profile(&t, row, result);
	int nmetrics = cJSON_GetArraySize(cJSON_GetObjectItem(result, "metrics"));
	if (!nmetrics) {
		if (csv_in)
			cko_die(CKO_BADINPUT, "%s: none of the expected ncu metrics is present", csv_in);
		unavailable("profiler_error", "the report holds none of the expected metrics");
	}
	char *summary = cko_ncu_summary(result);
	cko_json_write(out_json, result);
	if (out_summary)
		cko_write_file(out_summary, summary, strlen(summary));
	cko_info("%d metrics, %d missing", nmetrics, cJSON_GetArraySize(cJSON_GetObjectItem(result, "missing")));
	free(summary);
	cko_ncu_table_free(&t);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	prof_opts o = {.timeout = 600};
	parse_options(argc, argv, &o);
	if (cko_step_after(o.after, out_json))
		return 0;
	cko_out_check(out_json);
	cko_out_check(out_summary);
	cko_out_check(o.report);
	cko_out_check(o.csv_save);
	if (o.report && (strlen(o.report) < 9 || strcmp(o.report + strlen(o.report) - 8, ".ncu-rep")))
		cko_die(CKO_BADINPUT, "--report %s: the name must end in .ncu-rep", o.report);

	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "tool", "cko-profile");
	cJSON_AddStringToObject(result, "status", "ok");
	cko_request rq = {0};
	const char *entry = NULL;
	if (o.reqpath) {
		cko_request_load(o.reqpath, &rq);
		entry = rq.entry;
		describe_request(&rq, o.reqpath);
	}
	char *csv;
	if (o.csv_in) {
		csv = cko_read_file(o.csv_in, MAX_OUT, NULL);
		cJSON_AddStringToObject(result, "csv", o.csv_in);
	} else {
		csv = profile(&o, entry);
	}
	if (o.csv_save)
		cko_write_file(o.csv_save, csv, strlen(csv));
	write_profile(csv, o.csv_in, entry);
	free(csv);
	if (o.reqpath)
		cko_request_free(&rq);
	cJSON_Delete(result);
	return CKO_OK;
}
