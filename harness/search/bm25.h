/* bm25.h: ranked retrieval over markdown passages (cko-docs).
 *
 * A document is split into passages at its headings ("#" lines): the first
 * "# " line is the document's title, every heading starts a passage, and
 * text before the first sub-heading is a passage headed by the title. Long
 * passages are cut into parts of about CKO_BM25_PART_WORDS words. Passages
 * are scored with Okapi BM25 (k1 1.2, b 0.75) over lowercased, lightly
 * stemmed tokens without English stop words; heading words count twice and
 * title words once more, so a passage about a topic beats one that only
 * mentions it. */
#ifndef CKO_BM25_H
#define CKO_BM25_H

#include "cko.h"

#define CKO_BM25_PART_WORDS 400

typedef struct {
	char *file;    /* as given to cko_corpus_add */
	char *url;     /* source page of a fetched document, or NULL */
	char *title;   /* the document's "# " heading (or the file name) */
	char *heading; /* the passage's heading */
	char *text;    /* the passage's body, trimmed */
	int len;       /* weighted token count */
	int nterms;    /* distinct terms */
	int *term;     /* term ids, ascending */
	int *tf;       /* weighted frequency per term */
} cko_passage;

typedef struct {
	cko_passage *p;
	int n, cap;
	char **vocab; /* term id -> term */
	int *df;      /* passages holding the term */
	int nvocab, capvocab;
	int *htab;    /* open addressing: term id + 1, 0 empty */
	size_t hcap;
	double avglen;
} cko_corpus;

typedef struct {
	int passage;
	double score;
} cko_hit;

/* Calls fn for each search token of s: lowercased, stemmed, stop words
 * left out. A word with inner '_' or '.' (cp.async, __shfl_sync) yields
 * itself and its parts. */
void cko_bm25_tokens(const char *s, void (*fn)(const char *tok, void *arg), void *arg);
/* The stem of a lowercase word, in place. */
void cko_bm25_stem(char *w);

/* Splits a markdown document into passages and adds them; url may be NULL. */
void cko_corpus_add(cko_corpus *c, const char *file, const char *text, const char *url);
/* Ranks passages for query: up to max hits with a score > 0, best first
 * (ties by corpus order). Returns the count, or -1 if the query has no
 * search tokens. */
int cko_corpus_search(cko_corpus *c, const char *query, int max, cko_hit *out);
void cko_corpus_free(cko_corpus *c);

#endif
