/* fetch.c: an NVIDIA documentation page into the cache of fetched pages
 * (cko-docs --fetch), through harness/http: https only, redirects within
 * https://docs.nvidia.com/, size and time limits. */
#include "docs.h"
#include "http.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NVIDIA_PREFIX "https://docs.nvidia.com/"

static int url_ok(const char *url)
{
	if (strncmp(url, NVIDIA_PREFIX, strlen(NVIDIA_PREFIX)) || strlen(url) > 2000)
		return 0;
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || *p == '\\')
			return 0;
	return 1;
}

/* The cache file's name: the URL's path as a slug plus a short hash. */
static char *cache_name(const char *url)
{
	cko_buf b = {0};
	int dash = 1;
	for (const char *p = url + strlen(NVIDIA_PREFIX); *p && *p != '#' && b.len < 80; p++) {
		if (isalnum((unsigned char)*p)) {
			char ch = (char)tolower((unsigned char)*p);
			buf_add(&b, &ch, 1);
			dash = 0;
		} else if (!dash) {
			buf_add(&b, "-", 1);
			dash = 1;
		}
	}
	while (b.len && b.s[b.len - 1] == '-')
		b.s[--b.len] = 0;
	char sha[65];
	cko_sha256_hex(url, strlen(url), sha);
	char *name = xasprintf("%s%s%.8s.md", b.s ? b.s : "", b.len ? "-" : "", sha);
	buf_free(&b);
	return name;
}

void cko_docs_fetch(const char *url, const char *cache)
{
	if (!url_ok(url))
		cko_die(CKO_BADINPUT, "--fetch %s: only NVIDIA documentation pages (%s...) may be fetched", url,
			NVIDIA_PREFIX);
	if (!cache)
		cko_die(CKO_BADINPUT, "--fetch: no cache folder (set XDG_CACHE_HOME or HOME, or give --cache DIR)");
	cko_http_opts o = {
		.https_only = 1,
		.max_redirects = 5, /* and the page must still be NVIDIA's */
		.timeout_s = 120,
		.connect_timeout_s = 30,
		.max_body = CKO_DOCS_MAX_PAGE,
		.agent = "cko-docs/" CKO_VERSION,
	};
	cko_http page;
	cko_info("fetching %s", url);
	if (cko_http_fetch(url, &o, &page)) {
		if (page.body_truncated)
			cko_die(CKO_BADINPUT, "%s: the page is larger than %u MB", url, CKO_DOCS_MAX_PAGE >> 20);
		cko_die(CKO_ENV, "%s: cannot fetch: %s", url, page.err);
	}
	long code = page.status;
	if (code >= 500)
		cko_die(CKO_ENV, "%s: the server answered HTTP %ld", url, code);
	if (code >= 400 || code < 200)
		cko_die(CKO_BADINPUT, "%s: the server answered HTTP %ld", url, code);
	if (!url_ok(page.url))
		cko_die(CKO_BADINPUT, "%s: redirected away from %s (to %s)", url, NVIDIA_PREFIX, page.url);
	if (!page.body_len || memchr(page.body, 0, page.body_len))
		cko_die(CKO_BADINPUT, "%s: not a text page", url);
	char *title;
	char *text = cko_html_text(page.body, &title);
	int has_h1 = !strncmp(text, "# ", 2) || strstr(text, "\n# ");
	char *doc = xasprintf("<!-- source: %s -->\n%s%s%s%s", url, has_h1 ? "" : "# ",
			      has_h1 ? "" : (title && *title ? title : url), has_h1 ? "" : "\n\n", text);
	cko_mkdir_p(cache);
	char *name = cache_name(url);
	char *path = cko_path_join(cache, name);
	cko_write_file(path, doc, strlen(doc));
	cko_corpus c = {0};
	cko_corpus_add(&c, name, text, url);
	cko_info("%s: %d passages", path, c.n);
	printf("%s\n", path);
	cko_corpus_free(&c);
	free(path);
	free(name);
	free(doc);
	free(text);
	free(title);
	cko_http_free(&page);
}

