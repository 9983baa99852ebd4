/* memory_search.c: the remembered runs most like a query, as markdown
 * examples for a prompt (cko-docs --memory). */
#include "docs.h"
#include "memory.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void fence_md(cko_buf *b, const char *lang, const char *text)
{
	int run = 0, longest = 0;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	int f = longest >= 3 ? longest + 1 : 3;
	buf_printf(b, "%.*s%s\n%s%s%.*s\n\n", f, "``````````````````", lang, text,
		   *text && text[strlen(text) - 1] == '\n' ? "" : "\n", f, "``````````````````");
}

/* One entry as a markdown example. */
static void example_md(cko_buf *b, const cJSON *e, int shown)
{
	buf_printf(b, "## Example %d: %s, %s on %s (%s)", shown, cko_jstr_opt(e, "workload", "?"),
		   cko_jstr_opt(e, "shape", "?"), cko_jstr_opt(e, "gpu", "?"), cko_jstr_opt(e, "proposer", "?"));
	if (cko_jget(e, "speedup_vs_reference"))
		buf_printf(b, ": %.2fx the reference", cko_jnum_opt(e, "speedup_vs_reference", 0));
	if (cko_jget(e, "sol_fraction"))
		buf_printf(b, ", %.3g%% of the speed of light", 100 * cko_jnum_opt(e, "sol_fraction", 0));
	buf_puts(b, "\n\n");
	const cJSON *notes = cko_jget(e, "notes");
	if (cJSON_GetArraySize(notes)) {
		buf_puts(b, "What helped, in order:\n\n");
		for (const cJSON *t = notes->child; t; t = t->next)
			if (cJSON_IsString(t)) {
				char *s1 = cko_text_visible(t->valuestring);
				buf_printf(b, "- %.*s\n", (int)cko_utf8_cut(s1, strlen(s1), 300), s1);
				free(s1);
			}
		buf_puts(b, "\n");
	}
	fence_md(b, "cuda", cko_jstr_opt(e, "kernel", ""));
	char *l = cJSON_PrintUnformatted(cko_jget(e, "launch"));
	fence_md(b, "json", l ? l : "null");
	free(l);
}

/* The entries most like the query (BM25 over shape, description and notes),
 * as markdown examples; the run given with --exclude is left out, the entry
 * named by --first (run-HASH, a run's seed) comes first. */
int cko_memory_search(const char *dir, const char *query, int count, const char *exclude, const char *first,
		      const char *out)
{
	int n;
	cJSON **v = cko_memory_load(dir, &n);
	char ex[PATH_MAX] = "";
	if (exclude && !realpath(exclude, ex))
		ex[0] = 0;
	cko_corpus cp = {0};
	int nwhich = n + 1, *which = xcalloc((size_t)nwhich, sizeof *which);
	for (int i = 0; i < n; i++) {
		if (*ex && !strcmp(cko_jstr_opt(v[i], "run", ""), ex))
			continue;
		cko_buf d = {0};
		buf_printf(&d, "# %s %s\n\n%s\n\n", cko_jstr_opt(v[i], "workload", ""), cko_jstr_opt(v[i], "shape", ""),
			   cko_jstr_opt(v[i], "description", ""));
		for (const cJSON *t = cko_jget(v[i], "notes") ? cko_jget(v[i], "notes")->child : NULL; t; t = t->next)
			if (cJSON_IsString(t))
				buf_printf(&d, "%s\n", t->valuestring);
		int before = cp.n;
		char name[32];
		snprintf(name, sizeof name, "%d", i);
		cko_corpus_add(&cp, name, d.s, NULL);
		if (cp.n > nwhich)
			which = xrealloc(which, (size_t)(nwhich = cp.n * 2) * sizeof *which);
		for (int k = before; k < cp.n; k++)
			which[k] = i; /* passage -> entry */
		buf_free(&d);
	}
	cko_hit *hits = xcalloc((size_t)count * 4 + 4, sizeof *hits);
	int nh = cp.n ? cko_corpus_search(&cp, query, count * 4, hits) : 0;
	cko_buf b = {0};
	buf_add(&b, "", 0);
	int shown = 0, *seen = xcalloc((size_t)n + 1, sizeof *seen);
	for (int i = 0; first && *first && i < n; i++) {
		char *f = xasprintf("%s.json", first);
		if (!strcmp(cko_jstr_opt(v[i], "_file", ""), f) && !(*ex && !strcmp(cko_jstr_opt(v[i], "run", ""), ex))) {
			seen[i] = 1;
			example_md(&b, v[i], ++shown);
		}
		free(f);
	}
	for (int h = 0; h < nh && shown < count; h++) {
		int i = which[hits[h].passage];
		if (seen[i]++)
			continue;
		example_md(&b, v[i], ++shown);
	}
	cko_write_file(out, b.s, b.len);
	buf_free(&b);
	cko_memory_free(v, n);
	free(which);
	free(seen);
	free(hits);
	cko_corpus_free(&cp);
	return CKO_OK;
}

