/* cko-compare: actual outputs against expected ones, per tensor: maximum
 * absolute and relative error, mismatches, NaN/Inf/poison counts and the
 * first mismatching indices. Exit 0 ok, 1 fail, 2 bad input. */
#include "cko.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-compare [--rtol r] [--atol a] [--no-nan-equal] [-n count] [-o verdict.json] expected actual\n"
		"       cko-compare --requests [--rtol r] [--atol a] [--no-nan-equal] [-n count] [-o compare.json]\n"
		"                   [--after record.json] request.json...\n"
		"      --rtol r               relative tolerance, a number >= 0 (default: by dtype, or the request's)\n"
		"      --atol a               absolute tolerance, a number >= 0 (default: by dtype, or the request's)\n"
		"      --no-nan-equal         a NaN where a NaN is expected is a mismatch\n"
		"  -n, --first count          mismatches listed per tensor, 0 to 10 (default 5)\n"
		"  -o, --output verdict.json  the verdict (default: standard output)\n"
		"      --requests             compare each request's outputs with its sets' expected outputs\n"
		"      --after record.json    compare only if the record (run.json) says ok; else write a skipped\n"
		"                             record as compare.json and exit 0 (requests may then be none)\n"
		"  -h, --help                 print this help and exit\n");
	exit(status);
}

static double opt_rtol = -1, opt_atol = -1;
static int nan_equal = 1, max_first = 5;

static void apply_flags(cko_tol *t)
{
	if (opt_rtol >= 0)
		t->rtol = opt_rtol;
	if (opt_atol >= 0)
		t->atol = opt_atol;
	t->nan_equal = nan_equal;
}

/* Compares one pair of files; missing_actual_fails: a missing actual file is a
 * failed verdict (a candidate that produced nothing) rather than bad input. */
static int compare_files(const char *ex_path, const char *ac_path, const cko_tol *given, int missing_actual_fails,
			 cJSON *into, const char *key)
{
	cko_tensor ex, ac;
	char err[768];
	cko_npy_read(ex_path, &ex);
	if (cko_npy_try_read(ac_path, &ac, err, sizeof err)) {
		if (!missing_actual_fails)
			cko_die(CKO_BADINPUT, "%s", err);
		cJSON *o = cJSON_AddObjectToObject(into, key);
		cJSON_AddStringToObject(o, "status", "fail");
		cJSON_AddStringToObject(o, "problem", err);
		cko_tensor_free(&ex);
		return 0;
	}
	cko_tol tol;
	if (given) {
		tol = *given;
	} else {
		cko_tol_default(ex.dtype, &tol);
		apply_flags(&tol);
	}
	cko_cmp r;
	cko_compare(&ex, &ac, &tol, max_first, &r);
	if (r.problem[0] && !missing_actual_fails)
		cko_die(CKO_BADINPUT, "%s vs %s: %s", ex_path, ac_path, r.problem);
	cJSON_AddItemToObject(into, key, cko_cmp_json(&r, &ac, &tol));
	cko_tensor_free(&ex);
	cko_tensor_free(&ac);
	return r.ok;
}

/* Expected and actual folders: every .npy in expected must be in actual. */
static int compare_dirs(const char *ex_dir, const char *ac_dir, const char *prefix, cJSON *into)
{
	int n, ok = 1;
	char **names = cko_list_dir(ex_dir, "", &n);
	if (!names)
		cko_die(CKO_BADINPUT, "%s: cannot read the folder", ex_dir);
	int found = 0;
	for (int i = 0; i < n; i++) {
		char *e = xasprintf("%s/%s", ex_dir, names[i]), *a = xasprintf("%s/%s", ac_dir, names[i]);
		char *key = *prefix ? xasprintf("%s/%s", prefix, names[i]) : xstrdup(names[i]);
		if (cko_is_dir(e)) {
			ok &= compare_dirs(e, a, key, into);
			found = 1;
		} else if (strlen(names[i]) > 4 && !strcmp(names[i] + strlen(names[i]) - 4, ".npy")) {
			if (!cko_exists(a))
				cko_die(CKO_BADINPUT, "%s: missing (expected has %s)", a, e);
			ok &= compare_files(e, a, NULL, 0, into, key);
			found = 1;
		}
		free(e);
		free(a);
		free(key);
	}
	cko_free_list(names, n);
	if (!found && !*prefix)
		cko_die(CKO_BADINPUT, "%s: no .npy files", ex_dir);
	return ok;
}

/* An output cko-run did not keep: its NAME.json holds the comparison made
 * on the device. It answers only for the same expected file, unchanged,
 * and the same tolerances; else the outputs must be made again. */
static int use_device_verdict(const char *vpath, const char *expected, const cko_tol *tol, cJSON *into,
			      const char *key)
{
	cJSON *v = cko_json_load(vpath);
	const cJSON *cmp = cko_jget(v, "compare"), *ex = cko_jget(v, "expected");
	if (!cJSON_IsObject(cmp) || !cJSON_IsString(ex))
		cko_die(CKO_BADINPUT, "%s: not a record of cko-run (no compare or expected)", vpath);
	char *dir = cko_dirname(vpath), *was = cko_path_join(dir, ex->valuestring);
	char *a = realpath(was, NULL), *b = realpath(expected, NULL);
	if (!a || !b || strcmp(a, b))
		cko_die(CKO_BADINPUT, "%s: compared with %s, not %s; run cko-run again (or with --keep-outputs)", vpath,
			was, expected);
	free(a);
	free(b);
	free(was);
	free(dir);
	if (!cko_file_stamp_matches(cko_jget(v, "expected_stamp"), expected))
		cko_die(CKO_BADINPUT, "%s: changed since cko-run compared with it (%s); run cko-run again", expected, vpath);
	if (cko_jnum_opt(cmp, "rtol", -1) != tol->rtol || cko_jnum_opt(cmp, "atol", -1) != tol->atol ||
	    cJSON_IsTrue(cko_jget(v, "nan_equal")) != (tol->nan_equal != 0))
		cko_die(CKO_BADINPUT,
			"%s: compared on the device with rtol %g, atol %g; for other tolerances keep the outputs "
			"(cko-run --keep-outputs)",
			vpath, cko_jnum_opt(cmp, "rtol", -1), cko_jnum_opt(cmp, "atol", -1));
	int ok = cko_status_ok(cmp);
	cJSON *o = cJSON_Duplicate(cmp, 1);
	/* compare.json says "ok" even for the legacy record of an older run */
	if (cko_jget(o, "status"))
		cJSON_ReplaceItemInObjectCaseSensitive(o, "status", cJSON_CreateString(ok ? "ok" : "fail"));
	else
		cJSON_AddStringToObject(o, "status", ok ? "ok" : "fail");
	cJSON_AddStringToObject(o, "compared_on", "device");
	cJSON_AddItemToObject(into, key, o);
	cJSON_Delete(v);
	return ok;
}

static int compare_requests(int argc, char **argv, cJSON *out)
{
	cJSON *cases = cJSON_AddArrayToObject(out, "cases");
	int all = 1;
	for (int k = 0; k < argc; k++) {
		cko_request rq;
		cko_request_load(argv[k], &rq);
		cJSON *c = cJSON_CreateObject();
		cJSON_AddItemToArray(cases, c);
		cJSON_AddStringToObject(c, "case", rq.case_name);
		int ok = 1;
		cJSON *sets = cJSON_AddArrayToObject(c, "sets");
		for (int s = 0; s < rq.nsets; s++) {
			if (!rq.sets[s].expected)
				cko_die(CKO_BADINPUT, "%s: sets[%d] has no expected folder", argv[k], s);
			cJSON *sj = cJSON_CreateObject();
			cJSON_AddItemToArray(sets, sj);
			cJSON_AddNumberToObject(sj, "set", s);
			cJSON *tensors = cJSON_AddObjectToObject(sj, "tensors");
			int sok = 1;
			for (int i = 0; i < rq.nparams; i++) {
				cko_rparam *q = &rq.params[i];
				if (!q->p.is_buffer || q->p.role == CKO_IN)
					continue;
				char *e = xasprintf("%s/%s.npy", rq.sets[s].expected, q->p.name);
				char *a = cko_request_out_path(&rq, s, q->p.name);
				cko_tol tol = q->tol;
				apply_flags(&tol);
				char *v = cko_request_record_path(&rq, s, q->p.name);
				if (!cko_exists(a) && cko_exists(v))
					sok &= use_device_verdict(v, e, &tol, tensors, q->p.name);
				else
					sok &= compare_files(e, a, &tol, 1, tensors, q->p.name);
				free(v);
				free(e);
				free(a);
			}
			cJSON_AddStringToObject(sj, "status", sok ? "ok" : "fail");
			ok &= sok;
		}
		cJSON_AddStringToObject(c, "status", ok ? "ok" : "fail");
		if (!ok)
			cko_info("%s: case %s: outputs differ from the expected ones", argv[k], rq.case_name);
		all &= ok;
		cko_request_free(&rq);
	}
	return all;
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"rtol", required_argument, 0, 'r'},    {"atol", required_argument, 0, 'a'},
		{"no-nan-equal", no_argument, 0, 'N'},  {"first", required_argument, 0, 'n'},
		{"output", required_argument, 0, 'o'},  {"requests", no_argument, 0, 'R'},
		{"after", required_argument, 0, 'A'},
		{"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
	};
	const char *out_path = "-", *after = NULL;
	int requests = 0, c;
	char *end;
	while ((c = getopt_long(argc, argv, "n:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 'a': {
			double v = strtod(optarg, &end);
			if (*end || !(v >= 0) || isinf(v))
				cko_die(CKO_BADINPUT, "--%s %s: expected a number >= 0", c == 'r' ? "rtol" : "atol", optarg);
			*(c == 'r' ? &opt_rtol : &opt_atol) = v;
			break;
		}
		case 'N': nan_equal = 0; break;
		case 'n':
			max_first = (int)strtol(optarg, &end, 10);
			if (*end || max_first < 0 || max_first > CKO_MAX_FIRST)
				cko_die(CKO_BADINPUT, "-n %s: expected 0 to %d", optarg, CKO_MAX_FIRST);
			break;
		case 'o': out_path = optarg; break;
		case 'R': requests = 1; break;
		case 'A': after = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (cko_step_after(after, out_path))
		return 0;
	cko_out_check(out_path);
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "tool", "cko-compare");
	cJSON *status = cJSON_AddStringToObject(out, "status", "ok");
	double t0 = cko_now();
	int ok;
	if (requests) {
		if (optind >= argc)
			usage(2);
		ok = compare_requests(argc - optind, argv + optind, out);
	} else {
		if (argc - optind != 2)
			usage(2);
		const char *e = argv[optind], *a = argv[optind + 1];
		if (!cko_exists(e))
			cko_die(CKO_BADINPUT, "%s: no such file or folder", e);
		if (!cko_exists(a))
			cko_die(CKO_BADINPUT, "%s: no such file or folder", a);
		cJSON *tensors = cJSON_AddObjectToObject(out, "tensors");
		if (cko_is_dir(e) != cko_is_dir(a))
			cko_die(CKO_BADINPUT, "%s and %s: compare a file with a file or a folder with a folder", e, a);
		ok = cko_is_dir(e) ? compare_dirs(e, a, "", tensors) : compare_files(e, a, NULL, 0, tensors, a);
	}
	if (!ok)
		cJSON_SetValuestring(status, "fail");
	cJSON_AddNumberToObject(out, "seconds", cko_now() - t0);
	cko_json_write(out_path, out);
	cJSON_Delete(out);
	return ok ? CKO_OK : CKO_VERDICT;
}
