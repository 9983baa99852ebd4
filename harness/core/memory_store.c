/* memory_store.c: adding an ended run to the memory across runs, and
 * clearing it (cko-docs --memory-add, --memory-clear; docs/formats.md,
 * "The memory across runs"). */
#include "memory.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cJSON *json_in(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	cJSON *j = cko_exists(p) ? cko_json_load(p) : NULL;
	free(p);
	return j;
}

static char *text_in(const char *dir, const char *name, size_t cap)
{
	char *p = xasprintf("%s/%s", dir, name);
	char *t = cko_exists(p) ? cko_read_file(p, 8u << 20, NULL) : NULL;
	free(p);
	if (t && strlen(t) > cap)
		t[cko_utf8_cut(t, strlen(t), cap)] = 0;
	return t;
}

/* Why a run may not be remembered, or NULL: no verified best, a best that
 * is not valid, or a candidate that ran unconfined or failed in the sandbox. */
static const char *memory_refusal(const cJSON *sum, const cJSON *hist)
{
	const char *best = cko_jstr_opt(sum, "best", NULL);
	if (!sum)
		return "no summary.json (the run has not ended)";
	if (!best)
		return "the run has no verified best";
	int found = 0;
	for (const cJSON *c = cko_jget(hist, "candidates") ? cko_jget(hist, "candidates")->child : NULL; c; c = c->next) {
		const char *id = cko_jstr_opt(c, "id", ""), *st = cko_jstr_opt(c, "status", "");
		if (!strcmp(id, best))
			found = !strcmp(st, "ok") ? 1 : -1;
		const char *why = cko_jstr_opt(c, "reason", "");
		if (strstr(why, "sandbox") || strstr(why, "landlock") || strstr(why, "Landlock"))
			return "a candidate failed in the sandbox";
	}
	if (found != 1)
		return "its best is not a valid candidate of history.json";
	for (const cJSON *v = cko_jget(sum, "sandbox") ? cko_jget(sum, "sandbox")->child : NULL; v; v = v->next)
		if (!cJSON_IsString(v) || strncmp(v->valuestring, "landlock", 8))
			return "candidates ran without the sandbox";
	return NULL;
}

/* The notes of the candidates that helped: each verified one that beat the
 * best before it. */
static cJSON *helpful_notes(const cJSON *hist)
{
	cJSON *a = cJSON_CreateArray();
	double best = INFINITY;
	for (const cJSON *c = cko_jget(hist, "candidates") ? cko_jget(hist, "candidates")->child : NULL; c; c = c->next) {
		double g = cko_jnum_opt(c, "geomean_ms", 0);
		if (strcmp(cko_jstr_opt(c, "status", ""), "ok") || !(g > 0) || g >= best)
			continue;
		if (isfinite(best) && cko_jstr_opt(c, "note", NULL) && cJSON_GetArraySize(a) < 32)
			cJSON_AddItemToArray(a, cJSON_CreateString(cko_jstr_opt(c, "note", "")));
		best = g;
	}
	return a;
}

int cko_memory_add(const char *run, const char *dir)
{
	char rp[PATH_MAX];
	if (!realpath(run, rp))
		cko_die(CKO_BADINPUT, "%s: no such run folder", run);
	cJSON *sum = json_in(rp, "summary.json"), *hist = json_in(rp, "history.json");
	const char *no = memory_refusal(sum, hist);
	if (no) {
		cko_warn("%s: not remembered: %s", rp, no);
		cJSON_Delete(sum);
		cJSON_Delete(hist);
		return CKO_VERDICT;
	}
	cJSON *sig = json_in(rp, "workload/signature.json"), *launch = json_in(rp, "best-launch.json");
	cJSON *conf = json_in(rp, "config.json");
	char *kernel = text_in(rp, "best.cu", 1u << 20), *desc = text_in(rp, "workload/description.txt", 4000);
	if (!kernel || !launch || !sig)
		cko_die(CKO_BADINPUT, "%s: best.cu, best-launch.json or workload/signature.json is missing", rp);
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "tool", "cko-docs");
	cJSON_AddStringToObject(e, "run", rp);
	cJSON_AddStringToObject(e, "created", cko_jstr_opt(conf, "created", ""));
	cJSON_AddStringToObject(e, "workload", cko_jstr_opt(sum, "workload", "custom"));
	cJSON_AddStringToObject(e, "gpu", cko_jstr_opt(sum, "gpu", "?"));
	cJSON_AddStringToObject(e, "proposer", cko_jstr_opt(sum, "proposer", "?"));
	char *shape = cko_signature_shape(sig);
	cJSON_AddStringToObject(e, "shape", shape);
	cJSON_AddItemToObject(e, "signature", cJSON_Duplicate(sig, 1));
	cJSON_AddStringToObject(e, "description", desc ? desc : "");
	cJSON_AddStringToObject(e, "best", cko_jstr_opt(sum, "best", "?"));
	static const char *nums[] = {"best_geomean_ms", "speedup_vs_reference", "speedup_vs_initial"};
	for (int i = 0; i < 3; i++)
		if (cko_jget(sum, nums[i]))
			cJSON_AddNumberToObject(e, nums[i], cko_jnum_opt(sum, nums[i], 0));
	const cJSON *mf = cko_jget(cko_jget(sum, "sol"), "min_fraction");
	if (cJSON_IsNumber(mf))
		cJSON_AddNumberToObject(e, "sol_fraction", mf->valuedouble);
	cJSON_AddItemToObject(e, "notes", helpful_notes(hist));
	cJSON_AddStringToObject(e, "kernel", kernel);
	cJSON_AddItemToObject(e, "launch", cJSON_Duplicate(launch, 1));
	cko_mkdir_p(dir);
	char hex[65];
	cko_sha256_hex(rp, strlen(rp), hex);
	char *path = xasprintf("%s/run-%.16s.json", dir, hex);
	cko_json_write(path, e); /* through a temporary file and rename */
	cko_info("remembered %s as %s", rp, path);
	free(path);
	free(shape);
	free(kernel);
	free(desc);
	cJSON *all[] = {e, sum, hist, sig, launch, conf};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		cJSON_Delete(all[i]);
	return CKO_OK;
}

int cko_memory_clear(const char *dir)
{
	int k;
	char **names = cko_is_dir(dir) ? cko_list_dir(dir, ".json", &k) : NULL;
	int removed = 0;
	for (int i = 0; names && i < k; i++) {
		if (strncmp(names[i], "run-", 4))
			continue;
		char *p = xasprintf("%s/%s", dir, names[i]);
		if (unlink(p))
			cko_die(CKO_ENV, "%s: cannot remove: %s", p, strerror(errno));
		removed++;
		free(p);
	}
	if (names)
		cko_free_list(names, k);
	cko_info("%s: %d entries removed", dir, removed);
	return CKO_OK;
}

