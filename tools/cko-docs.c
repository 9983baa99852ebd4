/* cko-docs: ranked retrieval (BM25) over the project's optimization
 * guidance (the .md files of docs/guidance) and over NVIDIA documentation pages fetched
 * into a local cache; also writes research notes for a topic. */
#include "cko.h"
#include "bm25.h"
#include "memory.h"

#include <ctype.h>
#include <errno.h>
#include <curl/curl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DOC (8u << 20)
#define MAX_PAGE (32u << 20)
#define NVIDIA_PREFIX "https://docs.nvidia.com/"

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-docs [-n count] [-c corpus-dir] [--cache dir] [--no-cache] [--json] [-o file] query...\n"
		"       cko-docs --fetch URL [--cache dir]\n"
		"       cko-docs --research topic [-n count] [-c corpus-dir] [-o notes.md]\n"
		"       cko-docs --html file.html\n"
		"       cko-docs --memory query [-n count] [--exclude run-dir] [--first entry] [--memory-dir dir] [-o file]\n"
		"       cko-docs --memory-add run-dir [--memory-dir dir]\n"
		"       cko-docs --memory-clear [--memory-dir dir]\n"
		"       cko-docs --memory-seed run-dir [--memory-dir dir] -o seed.json\n"
		"       cko-docs --memory-candidate seed.json -o candidate-dir\n"
		"  -n, --count count        passages to print, 1 to 100 (default 5, for --research 12)\n"
		"  -c, --corpus corpus-dir  the guidance corpus (default: docs/guidance of the share folder)\n"
		"      --cache dir          the folder of fetched pages (default $XDG_CACHE_HOME/cko/docs or ~/.cache/cko/docs)\n"
		"      --no-cache           search the corpus only\n"
		"      --json               print the results as JSON instead of text\n"
		"  -o, --output file        write the results or the notes to a file (atomically) instead of standard output\n"
		"      --fetch URL          download an https://docs.nvidia.com/ page into the cache, then search any query given\n"
		"      --research topic     write research notes for a topic\n"
		"      --html file.html     print the text --fetch would store for a local HTML file\n"
		"      --memory query       the remembered runs most like the query, as markdown examples (default 2)\n"
		"      --exclude run-dir    with --memory, leave this run's own entry out\n"
		"      --first entry        with --memory, show this entry (run-HASH) first\n"
		"      --memory-add run-dir remember an ended run: its best kernel, launch rules, signature and notes\n"
		"      --memory-clear       forget every remembered run\n"
		"      --memory-seed run-dir  pick the remembered best whose signature the run's fits (seed.json)\n"
		"      --memory-candidate seed.json  write the seed's kernel as a candidate (proposer memory)\n"
		"      --memory-dir dir     the memory folder (default $CKO_MEMORY_DIR, $XDG_DATA_HOME/cko/memory\n"
		"                           or ~/.local/share/cko/memory)\n"
		"  -h, --help               print this help and exit\n");
	exit(status);
}

/* ---- the corpus folders ---- */

/* $CKO_SHARE/docs/guidance, else the binary's ../docs/guidance (a build in
 * the repository) or ../share/cko/docs/guidance (an installed tree), as
 * cko_share_dir looks. */
static char *default_corpus(void)
{
	const char *share = getenv("CKO_SHARE");
	if (share && *share) {
		char *d = xasprintf("%s/docs/guidance", share);
		if (!cko_is_dir(d))
			cko_die(CKO_BADINPUT, "%s: no such folder (the guidance corpus, from CKO_SHARE); give one with -c DIR",
				d);
		return d;
	}
	char *top = cko_share_dir("docs/guidance");
	if (!top)
		cko_die(CKO_BADINPUT, "no guidance corpus: neither ../docs/guidance nor ../share/cko/docs/guidance "
				      "beside this program exists; give one with -c DIR or set CKO_SHARE");
	char *d = cko_path_join(top, "docs/guidance");
	free(top);
	return d;
}

static char *default_cache(void)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
	if (x && *x == '/')
		return xasprintf("%s/cko/docs", x);
	if (h && *h)
		return xasprintf("%s/.cache/cko/docs", h);
	return NULL;
}

/* A fetched page starts with "<!-- source: URL -->". */
static const char *source_url(const char *text, char **url)
{
	*url = NULL;
	if (strncmp(text, "<!-- source: ", 13))
		return text;
	const char *e = strstr(text, " -->");
	const char *nl = strchr(text, '\n');
	if (!e || (nl && nl < e))
		return text;
	*url = strndup(text + 13, (size_t)(e - text - 13));
	return nl ? nl + 1 : e + 4;
}

/* Adds the .md files of dir; returns how many. */
static int load_dir(cko_corpus *c, const char *dir, const char *prefix)
{
	int n;
	char **names = cko_list_dir(dir, ".md", &n);
	for (int i = 0; i < n; i++) {
		char *path = cko_path_join(dir, names[i]);
		char *text = cko_read_file(path, MAX_DOC, NULL);
		char *url, *label = xasprintf("%s%s", prefix, names[i]);
		const char *body = source_url(text, &url);
		cko_corpus_add(c, label, body, url);
		free(url);
		free(label);
		free(text);
		free(path);
	}
	cko_free_list(names, n);
	return n;
}

static void load_corpus(cko_corpus *c, const char *dir, const char *cache)
{
	if (!cko_is_dir(dir))
		cko_die(CKO_BADINPUT, "%s: no such folder (the guidance corpus)", dir);
	if (!load_dir(c, dir, ""))
		cko_die(CKO_BADINPUT, "%s: no .md files in the guidance corpus", dir);
	if (cache && cko_is_dir(cache))
		load_dir(c, cache, "cache/");
}

/* ---- HTML to markdown-ish text ---- */

static void put_utf8(cko_buf *b, unsigned long cp)
{
	char u[4];
	if (cp < 0x80) {
		u[0] = (char)cp;
		buf_add(b, u, 1);
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f));
		buf_add(b, u, 2);
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3f)), u[2] = (char)(0x80 | (cp & 0x3f));
		buf_add(b, u, 3);
	} else if (cp < 0x110000) {
		u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f));
		buf_add(b, u, 4);
	}
}

static const struct {
	const char *name;
	unsigned cp;
} entities[] = {
	{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", ' '},
	{"ndash", 0x2013}, {"mdash", 0x2014}, {"hellip", 0x2026}, {"lsquo", 0x2018}, {"rsquo", 0x2019},
	{"ldquo", 0x201c}, {"rdquo", 0x201d}, {"times", 0xd7}, {"copy", 0xa9}, {"reg", 0xae}, {"trade", 0x2122},
	{"para", 0xb6}, {"sect", 0xa7}, {"rarr", 0x2192}, {"larr", 0x2190}, {"le", 0x2264}, {"ge", 0x2265},
	{"ne", 0x2260}, {"micro", 0xb5}, {"middot", 0xb7}, {"bull", 0x2022}, {"deg", 0xb0}, {"plusmn", 0xb1},
};

/* Decodes the entity at s ('&'); returns the bytes consumed, 0 if none. */
static size_t entity(const char *s, cko_buf *b)
{
	const char *semi = strchr(s, ';');
	if (!semi || semi - s > 10)
		return 0;
	if (s[1] == '#') {
		char *end;
		unsigned long cp = s[2] == 'x' || s[2] == 'X' ? strtoul(s + 3, &end, 16) : strtoul(s + 2, &end, 10);
		if (end != semi)
			return 0;
		put_utf8(b, cp == 0xa0 ? ' ' : cp);
		return (size_t)(semi - s) + 1;
	}
	for (size_t i = 0; i < sizeof entities / sizeof *entities; i++)
		if (strlen(entities[i].name) == (size_t)(semi - s - 1) &&
		    !strncmp(s + 1, entities[i].name, (size_t)(semi - s - 1))) {
			put_utf8(b, entities[i].cp);
			return (size_t)(semi - s) + 1;
		}
	return 0;
}

static int tag_is(const char *name, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(name, *set))
			return 1;
	return 0;
}

/* Text, headings as "#" lines, list items as "- ", preformatted text in
 * fences. Navigation, scripts and styles are dropped. */
static char *html_to_text(const char *html, char **title)
{
	static const char *const skip[] = {"script", "style", "noscript", "nav", "svg", "template", "footer",
					   "button", "form", "select", NULL};
	static const char *const block[] = {"p", "div", "section", "article", "main", "table", "ul", "ol", "dl",
					    "blockquote", "figure", "figcaption", "header", "aside", "hr", "caption",
					    NULL};
	cko_buf out = {0}, tbuf = {0};
	buf_add(&out, "", 0);
	*title = NULL;
	int pre = 0, in_title = 0, space = 1;
	for (const char *p = html; *p;) {
		if (*p == '<') {
			if (!strncmp(p, "<!--", 4)) {
				const char *e = strstr(p + 4, "-->");
				p = e ? e + 3 : p + strlen(p);
				continue;
			}
			const char *q = p + 1;
			int closing = *q == '/';
			q += closing;
			char name[16];
			size_t n = 0;
			while (isalnum((unsigned char)*q) && n < sizeof name - 1)
				name[n++] = (char)tolower((unsigned char)*q++);
			name[n] = 0;
			/* The end of the tag, past quoted attribute values. */
			char quote = 0;
			while (*q && (quote || *q != '>')) {
				if (quote && *q == quote)
					quote = 0;
				else if (!quote && (*q == '"' || *q == '\''))
					quote = *q;
				q++;
			}
			int selfclose = q > p && q[-1] == '/';
			p = *q ? q + 1 : q;
			if (!n)
				continue; /* <!doctype>, <?xml?> */
			if (!closing && !selfclose && tag_is(name, skip)) {
				/* Drop everything up to the matching close tag. */
				char *close = xasprintf("</%s", name);
				const char *e = strcasestr(p, close);
				free(close);
				p = e ? e : p + strlen(p);
				continue;
			}
			cko_buf *o = in_title ? &tbuf : &out;
			if (!strcmp(name, "title")) {
				in_title = !closing;
				if (closing && !*title && tbuf.s)
					*title = xstrdup(tbuf.s);
			} else if (n == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6') {
				buf_puts(o, "\n\n");
				if (!closing)
					for (int i = 0; i < name[1] - '0'; i++)
						buf_puts(o, i + 1 == name[1] - '0' ? "# " : "#");
				space = 1;
			} else if (!strcmp(name, "pre")) {
				buf_puts(o, closing ? "\n```\n\n" : "\n\n```\n");
				pre = !closing;
				space = 1;
			} else if (!strcmp(name, "br")) {
				buf_puts(o, "\n");
				space = 1;
			} else if (!strcmp(name, "li") && !closing) {
				buf_puts(o, "\n- ");
				space = 1;
			} else if ((!strcmp(name, "tr") || !strcmp(name, "dt") || !strcmp(name, "dd")) && !closing) {
				buf_puts(o, "\n");
				space = 1;
			} else if ((!strcmp(name, "td") || !strcmp(name, "th")) && !closing) {
				buf_puts(o, " | ");
				space = 1;
			} else if (tag_is(name, block)) {
				buf_puts(o, "\n\n");
				space = 1;
			}
			continue;
		}
		cko_buf *o = in_title ? &tbuf : &out;
		if (!pre && (!strncmp(p, "&nbsp;", 6) || !strncmp(p, "&#160;", 6) || !strncmp(p, "&#xa0;", 6))) {
			if (!space)
				buf_add(o, " ", 1);
			space = 1;
			p += 6;
			continue;
		}
		if (*p == '&') {
			size_t k = entity(p, o);
			if (k) {
				p += k;
				space = 0;
				continue;
			}
		}
		if (!pre && isspace((unsigned char)*p)) {
			if (!space)
				buf_add(o, " ", 1);
			space = 1;
			p++;
			continue;
		}
		buf_add(o, p++, 1);
		space = 0;
	}
	if (!*title && tbuf.s)
		*title = xstrdup(tbuf.s);
	buf_free(&tbuf);

	/* Tidy: strip line ends and heading anchors, at most one blank line. */
	cko_buf t = {0};
	buf_add(&t, "", 0);
	int blank = 1, fence = 0;
	for (char *line = out.s, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		size_t n = strlen(line);
		if (!strncmp(line, "```", 3))
			fence = !fence;
		if (!fence) {
			while (n && isspace((unsigned char)line[n - 1]))
				n--;
			while (*line == ' ' && n)
				line++, n--;
			if (*line == '#') {
				for (;;) { /* permalink marks after a heading */
					if (n >= 2 && !strncmp(line + n - 2, "\xc2\xb6", 2))
						n -= 2;
					else if (n >= 3 && !strncmp(line + n - 3, "\xef\x83\x81", 3))
						n -= 3;
					else if (n > 2 && line[n - 1] == '#' && line[n - 2] == ' ')
						n -= 1;
					else
						break;
					while (n && isspace((unsigned char)line[n - 1]))
						n--;
				}
				if (strspn(line, "# ") == n)
					n = 0; /* an empty heading */
			}
		}
		if (!n) {
			if (!blank)
				buf_puts(&t, "\n");
			blank = 1;
			continue;
		}
		if (*line == '#' && !fence && !blank)
			buf_puts(&t, "\n");
		buf_add(&t, line, n);
		buf_puts(&t, "\n");
		blank = 0;
	}
	buf_free(&out);
	if (*title) {
		char *s = *title, *d = s;
		for (; *s; s++)
			if (!isspace((unsigned char)*s) || (d > *title && d[-1] != ' '))
				*d++ = isspace((unsigned char)*s) ? ' ' : *s;
		while (d > *title && d[-1] == ' ')
			d--;
		*d = 0;
	}
	return t.s;
}

/* ---- fetching ---- */

static size_t on_data(char *data, size_t size, size_t n, void *arg)
{
	cko_buf *b = arg;
	if (b->len + size * n > MAX_PAGE)
		return 0;
	buf_add(b, data, size * n);
	return size * n;
}

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

static void fetch(const char *url, const char *cache)
{
	if (!url_ok(url))
		cko_die(CKO_BADINPUT, "--fetch %s: only NVIDIA documentation pages (%s...) may be fetched", url,
			NVIDIA_PREFIX);
	if (!cache)
		cko_die(CKO_BADINPUT, "--fetch: no cache folder (set XDG_CACHE_HOME or HOME, or give --cache DIR)");
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		cko_die(CKO_ENV, "libcurl: initialization failed");
	CURL *h = curl_easy_init();
	if (!h)
		cko_die(CKO_ENV, "libcurl: initialization failed");
	cko_buf page = {0};
	char errbuf[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, 120L);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "cko-docs/" CKO_VERSION);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &page);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	cko_info("fetching %s", url);
	CURLcode rc = curl_easy_perform(h);
	if (rc == CURLE_WRITE_ERROR)
		cko_die(CKO_BADINPUT, "%s: the page is larger than %u MB", url, MAX_PAGE >> 20);
	if (rc != CURLE_OK)
		cko_die(CKO_ENV, "%s: cannot fetch: %s", url, *errbuf ? errbuf : curl_easy_strerror(rc));
	long code = 0;
	char *eff = NULL;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
	if (code >= 500)
		cko_die(CKO_ENV, "%s: the server answered HTTP %ld", url, code);
	if (code >= 400 || code < 200)
		cko_die(CKO_BADINPUT, "%s: the server answered HTTP %ld", url, code);
	if (eff && !url_ok(eff))
		cko_die(CKO_BADINPUT, "%s: redirected away from %s (to %s)", url, NVIDIA_PREFIX, eff);
	if (!page.len || memchr(page.s, 0, page.len))
		cko_die(CKO_BADINPUT, "%s: not a text page", url);
	char *title;
	char *text = html_to_text(page.s, &title);
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
	buf_free(&page);
	curl_easy_cleanup(h);
	curl_global_cleanup();
}

/* ---- output ---- */

static double round4(double x) { return floor(x * 1e4 + 0.5) / 1e4; }

static cJSON *hit_json(const cko_corpus *c, const cko_hit *h, int rank)
{
	const cko_passage *p = &c->p[h->passage];
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "rank", rank);
	cJSON_AddStringToObject(o, "file", p->file);
	if (p->url)
		cJSON_AddStringToObject(o, "url", p->url);
	cJSON_AddStringToObject(o, "title", p->title);
	cJSON_AddStringToObject(o, "heading", p->heading);
	cJSON_AddNumberToObject(o, "score", round4(h->score));
	cJSON_AddStringToObject(o, "text", p->text);
	return o;
}

static void print_hit(cko_buf *b, const cko_corpus *c, const cko_hit *h, int rank)
{
	const cko_passage *p = &c->p[h->passage];
	buf_printf(b, "%d. %s: %s [score %.2f]\n", rank, p->file, p->heading, h->score);
	if (p->url)
		buf_printf(b, "   %s\n", p->url);
	for (const char *s = p->text; *s;) {
		const char *nl = strchr(s, '\n');
		int n = nl ? (int)(nl - s) : (int)strlen(s);
		if (n)
			buf_printf(b, "   %.*s\n", n, s);
		else
			buf_puts(b, "\n");
		s += n + (nl != NULL);
	}
	buf_puts(b, "\n");
}

static char *join_args(int argc, char **argv)
{
	cko_buf b = {0};
	buf_add(&b, "", 0);
	for (int i = 0; i < argc; i++) {
		if (i)
			buf_puts(&b, " ");
		buf_puts(&b, argv[i]);
	}
	return b.s;
}

/* ---- research notes ---- */

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

static void research(cko_corpus *c, const char *topic, int count, const char *out)
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

/* ---- the memory across runs: one JSON file per finished run ---- */

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

static int memory_add(const char *run, const char *dir)
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

/* The entries most like the query (BM25 over shape, description and notes),
 * as markdown examples; the run given with --exclude is left out. */
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
static int memory_search(const char *dir, const char *query, int count, const char *exclude, const char *first,
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

static int memory_clear(const char *dir)
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

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"count", required_argument, 0, 'n'}, {"corpus", required_argument, 0, 'c'},
		{"json", no_argument, 0, 'j'}, {"fetch", required_argument, 0, 'F'},
		{"cache", required_argument, 0, 'C'}, {"no-cache", no_argument, 0, 'N'},
		{"research", required_argument, 0, 'R'}, {"output", required_argument, 0, 'o'},
		{"html", required_argument, 0, 'H'}, {"help", no_argument, 0, 'h'},
		{"memory", required_argument, 0, 'M'}, {"memory-add", required_argument, 0, 'A'},
		{"memory-clear", no_argument, 0, 'X'}, {"memory-dir", required_argument, 0, 'D'},
		{"exclude", required_argument, 0, 'E'}, {"first", required_argument, 0, 'P'},
		{"memory-seed", required_argument, 0, 'S'}, {"memory-candidate", required_argument, 0, 'W'},
		{0, 0, 0, 0},
	};
	char *mquery = NULL, *madd = NULL, *mdir = NULL, *mexclude = NULL, *mfirst = NULL, *mseed = NULL, *mcand = NULL;
	int mclear = 0;
	int count = -1, json = 0, nocache = 0, c;
	char *corpus = NULL, *cache = NULL, *url = NULL, *topic = NULL, *out = "-", *html = NULL;
	while ((c = getopt_long(argc, argv, "n:c:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > 100)
				cko_die(CKO_BADINPUT, "-n %s: expected a count from 1 to 100", optarg);
			count = (int)v;
			break;
		}
		case 'c': corpus = optarg; break;
		case 'j': json = 1; break;
		case 'F': url = optarg; break;
		case 'C': cache = xstrdup(optarg); break;
		case 'N': nocache = 1; break;
		case 'R': topic = optarg; break;
		case 'o': out = optarg; break;
		case 'H': html = optarg; break;
		case 'M': mquery = optarg; break;
		case 'A': madd = optarg; break;
		case 'X': mclear = 1; break;
		case 'D': mdir = optarg; break;
		case 'E': mexclude = optarg; break;
		case 'P': mfirst = optarg; break;
		case 'S': mseed = optarg; break;
		case 'W': mcand = optarg; break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!!mquery + !!madd + mclear + !!mseed + !!mcand > 1 ||
	    ((mquery || madd || mclear || mseed || mcand) && optind != argc))
		usage(2);
	if ((mseed || mcand) && !strcmp(out, "-"))
		cko_die(CKO_BADINPUT, "%s: -o is required (%s)", mseed ? "--memory-seed" : "--memory-candidate",
			mseed ? "the seed file to write" : "the candidate folder to write");
	if (mcand) {
		cko_out_check(out);
		return cko_memory_candidate(mcand, out);
	}
	if (mquery || madd || mclear || mseed) {
		char *d = cko_memory_dir(mdir);
		cko_out_check(out);
		int st = madd ? memory_add(madd, d) : mclear ? memory_clear(d) : mseed ? cko_memory_seed(mseed, d, out)
					       : memory_search(d, mquery, count > 0 ? count : 2, mexclude, mfirst, out);
		free(d);
		return st;
	}
	if (html) {
		char *page = cko_read_file(html, MAX_PAGE, NULL), *title;
		char *text = html_to_text(page, &title);
		if (title && *title)
			printf("title: %s\n\n", title);
		fputs(text, stdout);
		free(page), free(text), free(title);
		return CKO_OK;
	}
	if (!cache && !nocache)
		cache = default_cache();
	if (url) {
		fetch(url, cache);
		if (optind == argc && !topic) {
			free(cache);
			return CKO_OK;
		}
	}
	char *query = join_args(argc - optind, argv + optind);
	cko_out_check(out);
	if (topic) {
		if (optind != argc)
			usage(2);
		if (!*topic || strspn(topic, " \t\n") == strlen(topic))
			cko_die(CKO_BADINPUT, "--research: the topic is empty");
	} else {
		if (optind == argc)
			usage(2);
		if (strspn(query, " \t\n") == strlen(query))
			cko_die(CKO_BADINPUT, "the query is empty");
	}
	char *dir = corpus ? xstrdup(corpus) : default_corpus();
	cko_corpus cp = {0};
	load_corpus(&cp, dir, nocache ? NULL : cache);
	int status = CKO_OK;
	if (topic) {
		research(&cp, topic, count > 0 ? count : 12, out);
	} else {
		if (count < 0)
			count = 5;
		cko_hit *hits = xcalloc((size_t)count, sizeof *hits);
		int n = cko_corpus_search(&cp, query, count, hits);
		if (n < 0)
			cko_die(CKO_BADINPUT, "the query '%s' has no words to search for (only stop words)", query);
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "tool", "cko-docs");
			cJSON_AddStringToObject(o, "status", n ? "ok" : "no_match");
			cJSON_AddStringToObject(o, "query", query);
			cJSON_AddStringToObject(o, "corpus", dir);
			cJSON_AddNumberToObject(o, "passages", cp.n);
			cJSON *r = cJSON_AddArrayToObject(o, "results");
			for (int i = 0; i < n; i++)
				cJSON_AddItemToArray(r, hit_json(&cp, &hits[i], i + 1));
			cko_json_write(out, o);
			cJSON_Delete(o);
		} else {
			cko_buf b = {0};
			buf_add(&b, "", 0);
			for (int i = 0; i < n; i++)
				print_hit(&b, &cp, &hits[i], i + 1);
			cko_write_file(out, b.s, b.len);
			buf_free(&b);
		}
		if (!n) {
			cko_warn("no passage matches '%s'", query);
			status = CKO_VERDICT;
		}
		free(hits);
	}
	cko_corpus_free(&cp);
	free(dir);
	free(query);
	free(cache);
	return status;
}
