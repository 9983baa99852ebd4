/* memory.c: the memory across runs. The store is a folder of run-HASH.json
 * entries (cko-docs --memory-add); a new run of a workload whose signature
 * an entry fits starts from that entry's best kernel: the seed
 * (seed.json) picks it, and the candidate writer makes it iteration 1's c0.
 * Nothing here trusts the entry's kernel: it is compiled and verified like
 * any candidate. */
#include "memory.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *cko_memory_dir(const char *given)
{
	const char *e = getenv("CKO_MEMORY_DIR"), *x = getenv("XDG_DATA_HOME"), *h = getenv("HOME");
	if (given)
		return xstrdup(given);
	if (e && *e)
		return xstrdup(e);
	if (x && *x)
		return xasprintf("%s/cko/memory", x);
	if (!h || !*h)
		cko_die(CKO_ENV, "no memory folder: set CKO_MEMORY_DIR, XDG_DATA_HOME or HOME");
	return xasprintf("%s/.local/share/cko/memory", h);
}

cJSON **cko_memory_load(const char *dir, int *n)
{
	int k;
	char **names = cko_is_dir(dir) ? cko_list_dir(dir, ".json", &k) : NULL;
	if (!names)
		k = 0;
	cJSON **v = xcalloc((size_t)k + 1, sizeof *v);
	*n = 0;
	for (int i = 0; i < k; i++) {
		if (strncmp(names[i], "run-", 4))
			continue;
		char *p = xasprintf("%s/%s", dir, names[i]), err[512];
		size_t len;
		char *t = cko_try_read_file(p, 8u << 20, &len, err, sizeof err);
		cJSON *j = t ? cko_json_parse(t, len, err, sizeof err) : NULL;
		if (cJSON_IsObject(j) && cJSON_IsString(cko_jget(j, "kernel"))) {
			cJSON_DeleteItemFromObject(j, "_file");
			cJSON_AddStringToObject(j, "_file", names[i]);
			v[(*n)++] = j;
		} else {
			cko_warn("%s: ignored: %s", p, t && !j ? err : t ? "not an entry (no kernel)" : "unreadable");
			cJSON_Delete(j);
		}
		free(t);
		free(p);
	}
	cko_free_list(names, k);
	return v;
}

void cko_memory_free(cJSON **v, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(v[i]);
	free(v);
}

char *cko_signature_shape(const cJSON *sig)
{
	cko_buf b = {0};
	buf_printf(&b, "%s(", cko_jstr_opt(sig, "entry", "?"));
	const cJSON *ps = cko_jget(sig, "params");
	for (const cJSON *q = ps ? ps->child : NULL; q; q = q->next)
		buf_printf(&b, "%s%s %s %s %s", q == ps->child ? "" : ", ", cko_jstr_opt(q, "role", cko_jstr_opt(q, "kind", "")),
			   cko_jstr_opt(q, "dtype", ""), cko_jstr_opt(q, "kind", ""), cko_jstr_opt(q, "name", "?"));
	buf_puts(&b, ")");
	return b.s;
}

/* Why an entry cannot seed a run of this shape, or NULL. An entry records
 * a verified best (cko-docs --memory-add refuses runs without one); one
 * that says otherwise, or was edited into something else, is not used. */
static const char *unusable(const cJSON *e, const char *shape)
{
	const cJSON *sig = cko_jget(e, "signature"), *ms = cko_jget(e, "best_geomean_ms");
	if (!cJSON_IsString(cko_jget(e, "best")))
		return "no verified best";
	if (!cJSON_IsNumber(ms) || !isfinite(ms->valuedouble) || !(ms->valuedouble > 0))
		return "no verified time (best_geomean_ms)";
	if (!*cko_jstr_opt(e, "kernel", ""))
		return "no kernel";
	if (!cJSON_IsObject(cko_jget(e, "launch")))
		return "no launch rules";
	if (!cJSON_IsObject(sig))
		return "no signature";
	char *s = cko_signature_shape(sig);
	int same = !strcmp(s, shape);
	free(s);
	return same ? NULL : "another signature (its kernel does not fit this one)";
}

/* Higher is closer: the same signature, then the same description; then
 * the newest entry, then the file name (so the pick is deterministic). */
static int closer(const cJSON *a, int sa, const cJSON *b, int sb)
{
	if (sa != sb)
		return sa > sb;
	int c = strcmp(cko_jstr_opt(a, "created", ""), cko_jstr_opt(b, "created", ""));
	if (c)
		return c > 0;
	return strcmp(cko_jstr_opt(a, "_file", ""), cko_jstr_opt(b, "_file", "")) < 0;
}

static char *entry_id(const cJSON *e)
{
	const char *f = cko_jstr_opt(e, "_file", "run-?.json");
	size_t n = strlen(f);
	return xasprintf("%.*s", (int)(n > 5 ? n - 5 : n), f);
}

int cko_memory_seed(const char *run, const char *dir, const char *out)
{
	char rp[PATH_MAX];
	if (!realpath(run, rp))
		cko_die(CKO_BADINPUT, "%s: no such run folder", run);
	char *sp = xasprintf("%s/workload/signature.json", rp), *dp = xasprintf("%s/workload/description.txt", rp);
	if (!cko_exists(sp))
		cko_die(CKO_BADINPUT, "%s: missing: the run's signature is needed to pick a remembered kernel", sp);
	cJSON *sig = cko_json_load(sp);
	char *desc = cko_exists(dp) ? cko_read_file(dp, 1u << 20, NULL) : xstrdup("");
	if (strlen(desc) > 4000) /* as cko-docs --memory-add stores it */
		desc[cko_utf8_cut(desc, strlen(desc), 4000)] = 0;
	char *shape = cko_signature_shape(sig);
	int n;
	cJSON **v = cko_memory_load(dir, &n);
	cJSON *o = cJSON_CreateObject(), *skipped = cJSON_CreateArray();
	cJSON_AddStringToObject(o, "tool", "cko-docs");
	int pick = -1, pscore = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(cko_jstr_opt(v[i], "run", ""), rp))
			continue; /* the run's own entry (a run made again) */
		const char *why = unusable(v[i], shape);
		if (why) {
			cJSON *s = cJSON_CreateObject();
			char *id = entry_id(v[i]);
			cJSON_AddStringToObject(s, "entry", id);
			cJSON_AddStringToObject(s, "reason", why);
			cJSON_AddItemToArray(skipped, s);
			free(id);
			continue;
		}
		int score = 2 * cJSON_Compare(sig, cko_jget(v[i], "signature"), 1) +
			    !strcmp(cko_jstr_opt(v[i], "description", ""), desc);
		if (pick < 0 || closer(v[i], score, v[pick], pscore))
			pick = i, pscore = score;
	}
	if (pick < 0) {
		cJSON_AddStringToObject(o, "status", "none");
		cJSON_AddStringToObject(o, "reason", n ? "no remembered run fits this signature"
						      : "the memory holds no runs");
	} else {
		const cJSON *e = v[pick];
		char *id = entry_id(e);
		cJSON_AddStringToObject(o, "status", "ok");
		cJSON_AddStringToObject(o, "entry", id);
		char *file = xasprintf("%s/%s", dir, cko_jstr_opt(e, "_file", ""));
		cJSON_AddStringToObject(o, "file", file);
		cJSON_AddStringToObject(o, "match", pscore >= 2 ? "signature" : "shape");
		static const char *keep[] = {"run", "workload", "gpu", "proposer", "best", "best_geomean_ms",
					     "speedup_vs_reference", "kernel", "launch"};
		for (size_t k = 0; k < sizeof keep / sizeof *keep; k++)
			if (cko_jget(e, keep[k]))
				cJSON_AddItemToObject(o, keep[k], cJSON_Duplicate(cko_jget(e, keep[k]), 1));
		char *note = xasprintf("the remembered best of %s (memory entry %s: %s, geomean %.4g ms on %s)",
				       cko_jstr_opt(e, "run", "?"), id, cko_jstr_opt(e, "best", "?"),
				       cko_jnum_opt(e, "best_geomean_ms", 0), cko_jstr_opt(e, "gpu", "?"));
		cJSON_AddStringToObject(o, "note", note);
		cko_info("%s: starts from %s", rp, note);
		free(note);
		free(file);
		free(id);
	}
	cJSON_AddItemToObject(o, "skipped", skipped);
	cko_json_write(out, o);
	cJSON_Delete(o);
	cko_memory_free(v, n);
	cJSON_Delete(sig);
	free(shape);
	free(desc);
	free(sp);
	free(dp);
	return CKO_OK;
}

int cko_memory_candidate(const char *seed, const char *cdir)
{
	cJSON *s = cko_json_load(seed);
	const cJSON *k = cko_jget(s, "kernel"), *l = cko_jget(s, "launch");
	if (strcmp(cko_jstr_opt(s, "status", ""), "ok") || !cJSON_IsString(k) || !cJSON_IsObject(l)) {
		cko_warn("%s: no remembered kernel (%s)", seed, cko_jstr_opt(s, "reason", "no kernel and launch rules"));
		cJSON_Delete(s);
		return CKO_VERDICT;
	}
	cko_mkdir_p(cdir);
	char *kp = xasprintf("%s/kernel.cu", cdir), *lp = xasprintf("%s/launch.json", cdir),
	     *pp = xasprintf("%s/proposal.json", cdir);
	cko_write_file(kp, k->valuestring, strlen(k->valuestring));
	cko_json_write(lp, l);
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "proposer", "memory");
	cJSON_AddStringToObject(p, "status", "ok");
	cJSON_AddStringToObject(p, "note", cko_jstr_opt(s, "note", "the remembered best"));
	cJSON_AddNullToObject(p, "parent");
	cJSON_AddStringToObject(p, "memory", cko_jstr_opt(s, "entry", "?"));
	cJSON_AddStringToObject(p, "memory_run", cko_jstr_opt(s, "run", "?"));
	cko_json_write(pp, p);
	cJSON_Delete(p);
	cJSON_Delete(s);
	free(kp);
	free(lp);
	free(pp);
	return CKO_OK;
}
