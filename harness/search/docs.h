/* docs.h: cko-docs beyond BM25 (bm25.h): HTML to text, the documentation
 * fetcher, research notes, and the search of the memory across runs.
 *
 *   html.c           an HTML page as markdown-ish text
 *   fetch.c          an NVIDIA documentation page into the cache (harness/http)
 *   research.c       research notes for a topic
 *   memory_search.c  the remembered runs most like a query */
#ifndef CKO_DOCS_H
#define CKO_DOCS_H

#include "bm25.h"

#define CKO_DOCS_MAX_PAGE (32u << 20) /* bytes of a fetched or converted page */

/* Text, headings as "#" lines, list items as "- ", preformatted text in
 * fences; navigation, scripts and styles dropped. *title: the page's
 * <title>, or NULL (both allocated). */
char *cko_html_text(const char *html, char **title);
/* Downloads an https://docs.nvidia.com/ page (redirects only within it)
 * into the cache folder as markdown headed "<!-- source: URL -->" and
 * prints the file's path. Dies with status 2 for a URL or page refused,
 * 3 when the network fails. */
void cko_docs_fetch(const char *url, const char *cache);
/* Writes research notes for topic to out: up to count passages of c for
 * the topic and the queries it suggests, each query's best first. */
void cko_docs_research(cko_corpus *c, const char *topic, int count, const char *out);
/* Writes to out the count entries of the memory folder dir most like query
 * (BM25 over shape, description and notes) as markdown examples; the run
 * exclude is left out, the entry first (run-HASH) comes first. CKO_OK. */
int cko_memory_search(const char *dir, const char *query, int count, const char *exclude, const char *first,
		      const char *out);

#endif
