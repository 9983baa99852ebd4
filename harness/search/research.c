/* research.c: research notes for a topic (cko-docs --research): the
 * guidance passages for the topic and the queries it suggests. */
#include "docs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Extra queries for topics the corpus covers in depth. */
static const struct {
	const char *words; /* any of these (substrings of the lowercased topic) */
	const char *queries[3];
} expand[] = {
	{"gemm matmul matrix mult sgemm hgemm linear", {"gemm block tile warp tile thread tile registers",
						       "double buffering cp.async pipeline stages",
						       "tensor cores mma wmma tf32 accuracy"}},
	{"reduc sum norm mean argmax max min", {"warp shuffle reduction", "deterministic reduction across blocks"}},
	{"softmax attention", {"online softmax running maximum", "warp shuffle reduction"}},
	{"layernorm layer_norm rmsnorm normaliz variance", {"welford mean variance one pass", "warp shuffle reduction"}},
	{"transpose permute", {"transpose shared memory tile padding", "coalesced global memory access"}},
	{"conv stencil filter blur", {"shared memory tile halo stencil", "constant memory broadcast"}},
	{"elementwise vector add copy axpy saxpy scale bandwidth relu gelu", {"vectorized float4 loads",
									   "grid-stride loop waves",
									   "streaming loads stores cache"}},
	{"scan prefix cumsum", {"prefix sum scan shuffles"}},
	{"histogram atomic count", {"shared memory atomics privatization"}},
	{"hopper h100 h200 sm_90 sm90", {"hopper thread block clusters distributed shared memory",
					 "tma bulk copy mbarrier", "wgmma warpgroup"}},
};

void cko_docs_research(cko_corpus *c, const char *topic, int count, const char *out)
{
	char *low = xstrdup(topic);
	for (char *s = low; *s; s++)
		*s = (char)tolower((unsigned char)*s);
	const char *qs[64];
	int nq = 0;
	qs[nq++] = topic;
	for (size_t i = 0; i < sizeof expand / sizeof *expand; i++) {
		char *w = xstrdup(expand[i].words);
		int hit = 0;
		for (char *save, *t = strtok_r(w, " ", &save); t && !hit; t = strtok_r(NULL, " ", &save))
			hit = strstr(low, t) != NULL;
		free(w);
		for (int j = 0; hit && j < 3 && expand[i].queries[j] && nq < 60; j++)
			qs[nq++] = expand[i].queries[j];
	}
	/* General advice that applies to every kernel. */
	qs[nq++] = "coalesced global memory access";
	qs[nq++] = "occupancy registers launch bounds";
	qs[nq++] = "instruction level parallelism independent";

	cko_hit *picked = xcalloc((size_t)count, sizeof *picked);
	const char **why = xcalloc((size_t)count, sizeof *why);
	int np = 0;
	cko_hit hits[3];
	for (int round = 0; round < 3 && np < count; round++)
		for (int q = 0; q < nq && np < count; q++) {
			/* Round r takes each query's (r+1)-th passage, so every query
			 * contributes before any contributes twice. */
			int n = cko_corpus_search(c, qs[q], 3, hits);
			if (n <= round)
				continue;
			int dup = 0;
			for (int k = 0; k < np && !dup; k++)
				dup = picked[k].passage == hits[round].passage;
			if (!dup) {
				why[np] = qs[q];
				picked[np++] = hits[round];
			}
		}
	cko_buf b = {0};
	buf_printf(&b, "# Research notes: %s\n\n", topic);
	buf_printf(&b, "Passages retrieved by cko-docs from the guidance corpus for %d queries derived from the topic.\n",
		   nq);
	for (int k = 0; k < np; k++) {
		const cko_passage *p = &c->p[picked[k].passage];
		buf_printf(&b, "\n## %d. %s\n\n", k + 1, p->heading);
		buf_printf(&b, "Source: %s%s%s (%s); query: \"%s\"\n\n", p->file, p->url ? ", " : "", p->url ? p->url : "",
			   p->title, why[k]);
		buf_puts(&b, p->text);
		buf_puts(&b, "\n");
	}
	if (!np)
		buf_puts(&b, "\nNo passage matched.\n");
	cko_write_file(out, b.s, b.len);
	buf_free(&b);
	free(picked);
	free(why);
	free(low);
}

