/* cko-docs: ranked retrieval (BM25) over the project's optimization
 * guidance (the .md files of docs/guidance) and over NVIDIA documentation
 * pages fetched into a local cache; also writes research notes for a topic
 * and keeps the memory across runs. This file: the options, the corpus
 * folders and the search's output; the rest is in harness/search (docs.h)
 * and harness/core (memory.h). */
#include "cko.h"
#include "docs.h"
#include "memory.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOC (8u << 20)

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

/* The count passages of c best for query, as text or JSON, to out;
 * CKO_VERDICT when none matches. */
static int search(cko_corpus *c, const char *dir, const char *query, int count, int json, const char *out)
{
	cko_hit *hits = xcalloc((size_t)count, sizeof *hits);
	int n = cko_corpus_search(c, query, count, hits);
	if (n < 0)
		cko_die(CKO_BADINPUT, "the query '%s' has no words to search for (only stop words)", query);
	if (json) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "tool", "cko-docs");
		cJSON_AddStringToObject(o, "status", n ? "ok" : "no_match");
		cJSON_AddStringToObject(o, "query", query);
		cJSON_AddStringToObject(o, "corpus", dir);
		cJSON_AddNumberToObject(o, "passages", c->n);
		cJSON *r = cJSON_AddArrayToObject(o, "results");
		for (int i = 0; i < n; i++)
			cJSON_AddItemToArray(r, hit_json(c, &hits[i], i + 1));
		cko_json_write(out, o);
		cJSON_Delete(o);
	} else {
		cko_buf b = {0};
		buf_add(&b, "", 0);
		for (int i = 0; i < n; i++)
			print_hit(&b, c, &hits[i], i + 1);
		cko_write_file(out, b.s, b.len);
		buf_free(&b);
	}
	free(hits);
	if (!n) {
		cko_warn("no passage matches '%s'", query);
		return CKO_VERDICT;
	}
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
		int st = madd ? cko_memory_add(madd, d) : mclear ? cko_memory_clear(d) : mseed ? cko_memory_seed(mseed, d, out)
					       : cko_memory_search(d, mquery, count > 0 ? count : 2, mexclude, mfirst, out);
		free(d);
		return st;
	}
	if (html) {
		char *page = cko_read_file(html, CKO_DOCS_MAX_PAGE, NULL), *title;
		char *text = cko_html_text(page, &title);
		if (title && *title)
			printf("title: %s\n\n", title);
		fputs(text, stdout);
		free(page), free(text), free(title);
		return CKO_OK;
	}
	if (!cache && !nocache)
		cache = default_cache();
	if (url) {
		cko_docs_fetch(url, cache);
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
	if (topic)
		cko_docs_research(&cp, topic, count > 0 ? count : 12, out);
	else
		status = search(&cp, dir, query, count > 0 ? count : 5, json, out);
	cko_corpus_free(&cp);
	free(dir);
	free(query);
	free(cache);
	return status;
}

