/* step.c: a run's steps in a chain (mk/run.mk). Each step of a candidate
 * (compile, launch rules, run, compare, bench, profile) is given the record
 * of the step before it with --after; when that record's status is not ok,
 * the step does nothing but write a "skipped" record saying why, and the
 * run goes on. */
#include "cko.h"

#include <stdlib.h>
#include <string.h>

/* The step a record stands for, by its file name: "compile" for
 * compile.json, "launch rules" for requests/index.json. */
static char *step_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strcmp(base, "index.json"))
		return xstrdup("launch rules");
	size_t n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	return xasprintf("%.*s", (int)n, base);
}

int cko_step_ok(const char *prev, char **why)
{
	char err[256];
	size_t len;
	char *text = cko_try_read_file(prev, CKO_JSON_MAX, &len, err, sizeof err);
	cJSON *j = text ? cko_json_parse(text, len, err, sizeof err) : NULL;
	const char *st = j ? cko_jstr_opt(j, "status", "missing") : "unreadable";
	int ok = cko_status_ok(j);
	if (!ok && why) {
		const char *r = j ? cko_jstr_opt(j, "reason", cko_jstr_opt(j, "note", NULL)) : NULL;
		char *name = step_name(prev);
		*why = r && *r ? xasprintf("%s: %s %s", name, st, r) : xasprintf("%s: %s", name, st);
		free(name);
	}
	cJSON_Delete(j);
	free(text);
	return ok;
}

int cko_step_after(const char *prev, const char *out)
{
	if (!prev)
		return 0;
	char *why = NULL;
	if (cko_step_ok(prev, &why))
		return 0;
	cko_out_check(out);
	cJSON *rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "tool", cko_prog());
	cJSON_AddStringToObject(rec, "status", "skipped");
	cJSON_AddStringToObject(rec, "reason", why);
	cko_json_write(out, rec);
	cko_info("%s: skipped (%s)", out, why);
	cJSON_Delete(rec);
	free(why);
	return 1;
}

int cko_step_skipped(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *rec = NULL;
		if (!strcmp(argv[i], "--after") && i + 1 < argc)
			rec = argv[i + 1];
		else if (!strncmp(argv[i], "--after=", 8))
			rec = argv[i] + 8;
		if (rec)
			return !cko_step_ok(rec, NULL);
	}
	return 0;
}
