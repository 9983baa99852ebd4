/* bm25.c: markdown passages and Okapi BM25 ranking (see bm25.h). */
#include "bm25.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define K1 1.2
#define B 0.75

/* Common English words that carry no topic; domain words (down, up, load,
 * block, ...) are deliberately absent. Sorted, for bsearch. */
static const char *const stop[] = {
	"about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
	"because", "been", "before", "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing",
	"e.g", "each", "eg", "etc", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
	"hers", "him", "his", "how", "i.e", "ie", "if", "in", "into", "is", "it", "its", "itself", "just", "may",
	"me", "might", "more", "most", "much", "must", "my", "nor", "of", "off", "on", "once", "one", "only",
	"or", "other", "our", "ours", "out", "own", "same", "she", "should", "so", "some", "such", "than", "that",
	"the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "thus",
	"to", "too", "very", "via", "vs", "was", "we", "were", "what", "when", "where", "which", "while", "who",
	"whom", "why", "will", "with", "would", "you", "your", "yours",
};

static int cmp_stop(const void *k, const void *e) { return strcmp(k, *(const char *const *)e); }

static int is_stop(const char *w)
{
	return bsearch(w, stop, sizeof stop / sizeof *stop, sizeof *stop, cmp_stop) != NULL;
}

static int ends(const char *w, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && !memcmp(w + n - k, suf, k);
}

static size_t undouble(const char *w, size_t n)
{
	if (n >= 3 && w[n - 1] == w[n - 2] && !strchr("aeioulsz", w[n - 1]))
		n--;
	return n;
}

void cko_bm25_stem(char *w)
{
	size_t n = strlen(w);
	if (n <= 3 || !isalpha((unsigned char)w[n - 1]))
		return; /* short words and names like float4 stay as they are */
	if (n > 4 && ends(w, n, "ies"))
		w[n - 3] = 'y', n -= 2;
	else if (ends(w, n, "sses"))
		n -= 2;
	else if (ends(w, n, "s") && !ends(w, n, "ss") && !ends(w, n, "us") && !ends(w, n, "is"))
		n--;
	if (n > 5 && ends(w, n, "ing"))
		n = undouble(w, n - 3);
	else if (n > 4 && ends(w, n, "ed"))
		n = undouble(w, n - 2);
	else if (n > 6 && ends(w, n, "ation"))
		n -= 5;
	else if (n > 6 && ends(w, n, "tion"))
		n -= 4;
	else if (n > 6 && ends(w, n, "ment"))
		n -= 4;
	if (n > 4 && w[n - 1] == 'e')
		n--;
	w[n] = 0;
}

static void emit(char *w, void (*fn)(const char *, void *), void *arg)
{
	size_t n = strlen(w);
	if (!n || (n == 1 && !isdigit((unsigned char)w[0])) || is_stop(w))
		return;
	cko_bm25_stem(w);
	fn(w, arg);
}

void cko_bm25_tokens(const char *s, void (*fn)(const char *tok, void *arg), void *arg)
{
	char word[128];
	while (*s) {
		while (*s && !isalnum((unsigned char)*s))
			s++;
		size_t n = 0;
		/* A word: letters, digits and the joiners '_' and '.', trimmed. */
		while (*s && (isalnum((unsigned char)*s) || *s == '_' || *s == '.')) {
			if (n < sizeof word - 1)
				word[n++] = (char)tolower((unsigned char)*s);
			s++;
		}
		while (n && (word[n - 1] == '.' || word[n - 1] == '_'))
			n--;
		word[n] = 0;
		if (!n)
			continue;
		if (strpbrk(word, "._")) {
			char whole[128];
			strcpy(whole, word);
			emit(whole, fn, arg);
			for (char *save, *t = strtok_r(word, "._", &save); t; t = strtok_r(NULL, "._", &save))
				emit(t, fn, arg);
		} else {
			emit(word, fn, arg);
		}
	}
}

/* ---- vocabulary ---- */

static int term_id(cko_corpus *c, const char *t, int add)
{
	if (c->hcap < 2 * (size_t)(c->nvocab + 1)) {
		size_t cap = c->hcap ? c->hcap * 2 : 1024;
		int *h = xcalloc(cap, sizeof *h);
		for (int i = 0; i < c->nvocab; i++) {
			size_t k = cko_fnv1a(c->vocab[i], strlen(c->vocab[i]), CKO_FNV_INIT) & (cap - 1);
			while (h[k])
				k = (k + 1) & (cap - 1);
			h[k] = i + 1;
		}
		free(c->htab);
		c->htab = h;
		c->hcap = cap;
	}
	size_t k = cko_fnv1a(t, strlen(t), CKO_FNV_INIT) & (c->hcap - 1);
	while (c->htab[k]) {
		if (!strcmp(c->vocab[c->htab[k] - 1], t))
			return c->htab[k] - 1;
		k = (k + 1) & (c->hcap - 1);
	}
	if (!add)
		return -1;
	if (c->nvocab == c->capvocab) {
		c->capvocab = c->capvocab ? 2 * c->capvocab : 1024;
		c->vocab = xrealloc(c->vocab, (size_t)c->capvocab * sizeof *c->vocab);
		c->df = xrealloc(c->df, (size_t)c->capvocab * sizeof *c->df);
	}
	c->vocab[c->nvocab] = xstrdup(t);
	c->df[c->nvocab] = 0;
	c->htab[k] = c->nvocab + 1;
	return c->nvocab++;
}

/* Token counts of one passage while it is built. */
typedef struct {
	cko_corpus *c;
	int *term, *tf;
	int n, cap, weight, len;
} counter;

static void count_tok(const char *tok, void *arg)
{
	counter *k = arg;
	int id = term_id(k->c, tok, 1);
	k->len += k->weight;
	for (int i = 0; i < k->n; i++)
		if (k->term[i] == id) {
			k->tf[i] += k->weight;
			return;
		}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->term = xrealloc(k->term, (size_t)k->cap * sizeof *k->term);
		k->tf = xrealloc(k->tf, (size_t)k->cap * sizeof *k->tf);
	}
	k->term[k->n] = id;
	k->tf[k->n++] = k->weight;
}

static char *trim(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

static void add_passage(cko_corpus *c, const char *file, const char *url, const char *title, const char *heading,
			const char *body, size_t blen)
{
	char *text = trim(body, blen);
	if (!*text) {
		free(text);
		return;
	}
	counter k = {.c = c};
	k.weight = 1;
	cko_bm25_tokens(text, count_tok, &k);
	k.weight = 3;
	cko_bm25_tokens(heading, count_tok, &k);
	if (strcmp(heading, title)) {
		k.weight = 1;
		cko_bm25_tokens(title, count_tok, &k);
	}
	/* Ascending term ids, so lookups can bisect. */
	for (int i = 1; i < k.n; i++)
		for (int j = i; j > 0 && k.term[j - 1] > k.term[j]; j--) {
			int t = k.term[j];
			k.term[j] = k.term[j - 1], k.term[j - 1] = t;
			t = k.tf[j];
			k.tf[j] = k.tf[j - 1], k.tf[j - 1] = t;
		}
	for (int i = 0; i < k.n; i++)
		c->df[k.term[i]]++;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->p = xrealloc(c->p, (size_t)c->cap * sizeof *c->p);
	}
	cko_passage *p = &c->p[c->n++];
	p->file = xstrdup(file);
	p->url = url ? xstrdup(url) : NULL;
	p->title = xstrdup(title);
	p->heading = xstrdup(heading);
	p->text = text;
	p->len = k.len;
	p->nterms = k.n;
	p->term = k.term;
	p->tf = k.tf;
}

static int count_words(const char *s, size_t n)
{
	int w = 0, in = 0;
	for (size_t i = 0; i < n; i++) {
		int sp = isspace((unsigned char)s[i]);
		w += !sp && !in;
		in = !sp;
	}
	return w;
}

/* One section's body: a passage, or parts of about PART_WORDS words cut
 * at blank lines. */
static void add_section(cko_corpus *c, const char *file, const char *url, const char *title, const char *heading,
			const char *body, size_t blen)
{
	if (count_words(body, blen) <= CKO_BM25_PART_WORDS * 3 / 2) {
		add_passage(c, file, url, title, heading, body, blen);
		return;
	}
	int part = 1;
	const char *start = body, *end = body + blen;
	while (start < end) {
		const char *p = start;
		int words = 0;
		while (p < end && words < CKO_BM25_PART_WORDS) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl + 1 : end;
			words += count_words(p, (size_t)(le - p));
			p = le;
			/* Prefer a paragraph break once most of a part is gathered. */
			if (words >= CKO_BM25_PART_WORDS * 3 / 4 && p < end && *p == '\n')
				break;
		}
		if (end - p > 0 && count_words(p, (size_t)(end - p)) < CKO_BM25_PART_WORDS / 4)
			p = end; /* no tiny last part */
		char *h = xasprintf("%s (part %d)", heading, part++);
		add_passage(c, file, url, title, h, start, (size_t)(p - start));
		free(h);
		start = p;
	}
}

static int heading_level(const char *line, size_t n, const char **text)
{
	size_t i = 0;
	while (i < n && line[i] == '#')
		i++;
	if (i < 1 || i > 6 || i >= n || (line[i] != ' ' && line[i] != '\t'))
		return 0;
	*text = line + i;
	return (int)i;
}

void cko_corpus_add(cko_corpus *c, const char *file, const char *text, const char *url)
{
	const char *base = strrchr(file, '/');
	char *title = NULL, *heading = NULL;
	const char *body = text;
	int fence = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *next = nl ? nl + 1 : p + n, *h;
		if (!strncmp(p, "```", 3) || !strncmp(p, "~~~", 3))
			fence = !fence;
		int lv = fence ? 0 : heading_level(p, n, &h);
		if (lv) {
			char *ht = trim(h, n - (size_t)(h - p));
			if (heading || p > body)
				add_section(c, file, url, title ? title : (base ? base + 1 : file),
					    heading ? heading : (title ? title : (base ? base + 1 : file)), body,
					    (size_t)(p - body));
			free(heading);
			heading = NULL;
			if (lv == 1 && !title)
				title = xstrdup(ht);
			else
				heading = xstrdup(ht);
			free(ht);
			body = next;
		}
		p = next;
	}
	const char *t = title ? title : (base ? base + 1 : file);
	add_section(c, file, url, t, heading ? heading : t, body, strlen(body));
	free(title);
	free(heading);
}

/* ---- ranking ---- */

static int tf_of(const cko_passage *p, int id)
{
	int lo = 0, hi = p->nterms - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (p->term[mid] == id)
			return p->tf[mid];
		if (p->term[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return 0;
}

typedef struct {
	char **t;
	int n, cap;
} toklist;

static void collect(const char *tok, void *arg)
{
	toklist *l = arg;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->t[i], tok))
			return;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->t = xrealloc(l->t, (size_t)l->cap * sizeof *l->t);
	}
	l->t[l->n++] = xstrdup(tok);
}

static int cmp_hit(const void *a, const void *b)
{
	const cko_hit *x = a, *y = b;
	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->passage - y->passage;
}

int cko_corpus_search(cko_corpus *c, const char *query, int max, cko_hit *out)
{
	toklist q = {0};
	cko_bm25_tokens(query, collect, &q);
	if (!q.n)
		return -1;
	double total = 0;
	for (int i = 0; i < c->n; i++)
		total += c->p[i].len;
	c->avglen = c->n ? total / c->n : 1;
	cko_hit *all = xcalloc((size_t)c->n + 1, sizeof *all);
	for (int i = 0; i < c->n; i++)
		all[i].passage = i;
	for (int j = 0; j < q.n; j++) {
		int id = term_id(c, q.t[j], 0);
		if (id < 0)
			continue;
		double df = c->df[id];
		double idf = log(1 + (c->n - df + 0.5) / (df + 0.5));
		for (int i = 0; i < c->n; i++) {
			int tf = tf_of(&c->p[i], id);
			if (!tf)
				continue;
			double norm = K1 * (1 - B + B * c->p[i].len / c->avglen);
			all[i].score += idf * tf * (K1 + 1) / (tf + norm);
		}
	}
	qsort(all, (size_t)c->n, sizeof *all, cmp_hit);
	int n = 0;
	while (n < max && n < c->n && all[n].score > 0) {
		out[n] = all[n];
		n++;
	}
	free(all);
	for (int j = 0; j < q.n; j++)
		free(q.t[j]);
	free(q.t);
	return n;
}

void cko_corpus_free(cko_corpus *c)
{
	for (int i = 0; i < c->n; i++) {
		cko_passage *p = &c->p[i];
		free(p->file);
		free(p->url);
		free(p->title);
		free(p->heading);
		free(p->text);
		free(p->term);
		free(p->tf);
	}
	free(c->p);
	for (int i = 0; i < c->nvocab; i++)
		free(c->vocab[i]);
	free(c->vocab);
	free(c->df);
	free(c->htab);
	memset(c, 0, sizeof *c);
}
