/* runfolder.c: the one reader of a run folder (docs/formats.md, "A run
 * folder"): its iterations and candidates in a fixed order, their records,
 * the status word, and what history.json says (the best candidate, the
 * reference's timings). cko-rank decides the best and writes history.json;
 * every other reader takes the best from there. */
#include "cko.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cko_status_ok(const cJSON *rec)
{
	const char *st = cko_jstr_opt(rec, "status", NULL);
	/* "pass": compare.json, cko-bench's sets and the device records of
	 * run folders made before every tool said "ok". */
	return st && (!strcmp(st, "ok") || !strcmp(st, "pass"));
}

cJSON *cko_run_record(const char *dir, const char *name)
{
	char *p = cko_path_join(dir, name);
	cJSON *j = cko_exists(p) ? cko_json_load(p) : NULL;
	free(p);
	return j;
}

const cJSON *cko_record_case(const cJSON *rec, const char *name)
{
	const cJSON *cs = cko_jget(rec, "cases");
	for (const cJSON *c = cJSON_IsArray(cs) ? cs->child : NULL; c; c = c->next)
		if (!strcmp(cko_jstr_opt(c, "case", ""), name))
			return c;
	return NULL;
}

/* J of a candidate folder's name "cJ" (1 to 7 digits), or -1. */
static int cand_num(const char *name)
{
	size_t n = strlen(name);
	if (name[0] != 'c' || n < 2 || n > 8 || strspn(name + 1, "0123456789") != n - 1)
		return -1;
	return atoi(name + 1);
}

static int cmp_num(const void *a, const void *b)
{
	const cko_cand *x = a, *y = b;
	return x->num != y->num ? (x->num > y->num) - (x->num < y->num) : strcmp(x->id, y->id); /* c01 before c1 */
}

void cko_run_read(const char *run, int from, int upto, cko_run *out)
{
	memset(out, 0, sizeof *out);
	int cap = 0;
	for (int it = from < 0 ? 0 : from; it <= upto; it++) {
		char name[32];
		snprintf(name, sizeof name, "iter-%03d", it);
		char *idir = cko_path_join(run, name);
		int nd, first = out->n;
		char **ents = cko_list_dir(idir, "", &nd);
		for (int k = 0; k < nd; k++) {
			int num = cand_num(ents[k]);
			char *cdir = num < 0 ? NULL : cko_path_join(idir, ents[k]);
			cJSON *res = cdir && cko_is_dir(cdir) ? cko_run_record(cdir, "result.json") : NULL;
			if (!res) {
				free(cdir);
				continue;
			}
			if (out->n == cap)
				out->c = xrealloc(out->c, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *out->c);
			cko_cand *c = &out->c[out->n++];
			snprintf(c->id, sizeof c->id, "%s/%.8s", name, ents[k]);
			c->dir = cdir;
			c->iter = it;
			c->num = num;
			c->result = res;
		}
		if (out->n > first) /* out->c is still NULL when no candidate was found */
			qsort(out->c + first, (size_t)(out->n - first), sizeof *out->c, cmp_num);
		cko_free_list(ents, nd);
		free(idir);
	}
}

void cko_run_free(cko_run *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->c[i].dir);
		cJSON_Delete(r->c[i].result);
	}
	free(r->c);
	memset(r, 0, sizeof *r);
}

const cko_cand *cko_run_find(const cko_run *r, const char *id)
{
	for (int i = 0; id && i < r->n; i++)
		if (!strcmp(r->c[i].id, id))
			return &r->c[i];
	return NULL;
}

cJSON *cko_run_tokens(const char *run, int from, int upto)
{
	static const char *keys[] = {"prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "cost_usd"};
	double sum[5] = {0};
	int found = 0;
	for (int i = from; i <= upto; i++) {
		char *d = xasprintf("%s/iter-%03d", run, i);
		int n;
		char **names = cko_list_dir(d, ".json", &n);
		for (int k = 0; k < n; k++) {
			if (strncmp(names[k], "usage", 5))
				continue;
			cJSON *u = cko_run_record(d, names[k]);
			for (int j = 0; j < 5; j++)
				sum[j] += cko_jnum_opt(u, keys[j], 0);
			found = 1;
			cJSON_Delete(u);
		}
		cko_free_list(names, n);
		free(d);
	}
	if (!found)
		return NULL;
	cJSON *t = cJSON_CreateObject();
	for (int j = 0; j < 5; j++)
		cJSON_AddNumberToObject(t, keys[j], sum[j]);
	return t;
}

/* ---- history.json ---- */

const char *cko_history_best_id(const cJSON *history)
{
	const cJSON *b = cko_jget(history, "best");
	return cJSON_IsString(b) && *b->valuestring ? b->valuestring : NULL;
}

int cko_history_best_of(const cJSON *history, const char *id, const cJSON *result)
{
	const char *b = cko_history_best_id(history);
	return b && id && !strcmp(b, id) && !strcmp(cko_jstr_opt(result, "status", ""), "ok");
}

static double pos(const cJSON *v) { return cJSON_IsNumber(v) && v->valuedouble > 0 ? v->valuedouble : NAN; }

double cko_history_ref_ms(const cJSON *history, const char *case_name)
{
	return pos(cko_jget(cko_jget(cko_jget(history, "reference"), "median_ms"), case_name));
}

double cko_history_ref_geomean(const cJSON *history)
{
	return pos(cko_jget(cko_jget(history, "reference"), "geomean_ms"));
}
