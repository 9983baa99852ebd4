/* llm_trim.c: a context document cut to a budget of characters
 * (context_max_chars, docs/model.md), for models with a small context
 * window. The document is split at its headings (#, ## and ### outside
 * code blocks) into parts; parts are left out whole, the least needed
 * first and within a rank the last first, until the rest fits with a
 * note naming what was left out. The workload, the signature, the
 * candidate to repair and the kernels with their launch rules go last:
 * if they alone are too long, the end is cut at a line, an open code
 * block closed. */
#include "llm.h"

#include <stdlib.h>
#include <string.h>

#define NOTE_TITLES 240 /* characters of left-out titles named in the note */

typedef struct {
	size_t off, len;
	int rank;  /* 1 goes first; 4 only by the cut at the end */
	int kept;
} part;

/* How much a part is needed, from its heading line. */
static int rank_of(const char *h, size_t n, int first)
{
	static const struct {
		const char *text;
		int rank;
	} r[] = {
		{"## Examples from earlier runs", 1}, {"## Research notes", 1}, {"profiler summary", 1},
		{"## All candidates so far", 2},      {"## The last iteration", 2}, {"### Why ", 2},
		{"## Headroom to the speed", 2},      {"## The GPU", 2},            {"kernel.cu", 4},
		{"launch.json", 4},                   {"## The kernel's signature", 4},
		{"## The candidate to repair", 4},
	};
	if (first || (n > 2 && h[0] == '#' && h[1] == ' '))
		return 4; /* the workload's own text; a top heading is one line */
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
		size_t k = strlen(r[i].text);
		for (size_t j = 0; j + k <= n; j++)
			if (!memcmp(h + j, r[i].text, k))
				return r[i].rank;
	}
	return 3;
}

/* A line that opens or closes a code block (*open: the opening fence's
 * backticks, 0 outside): a block closes at a line of at least as many
 * backticks and nothing else, as the context writes them (longer than any
 * run of backticks inside). */
static int fence_line(const char *s, size_t n, size_t *open)
{
	size_t k = 0;
	while (k < n && s[k] == '`')
		k++;
	if (k < 3)
		return 0;
	if (!*open) {
		*open = k;
		return 1;
	}
	if (k < *open)
		return 0;
	while (k < n && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k < n)
		return 0;
	*open = 0;
	return 1;
}

static int is_heading(const char *s, size_t n)
{
	size_t h = 0;
	while (h < n && h < 4 && s[h] == '#')
		h++;
	return h >= 1 && h <= 3 && h < n && s[h] == ' ';
}

/* The note for the parts left out (NULL when none is). */
static char *note_for(const char *md, const part *p, int np, size_t max, int cut)
{
	cko_buf t = {0};
	int more = 0;
	for (int i = 0; i < np; i++) {
		if (p[i].kept)
			continue;
		const char *h = md + p[i].off;
		size_t n = strcspn(h, "\n");
		while (n && *h == '#')
			h++, n--;
		while (n && *h == ' ')
			h++, n--;
		if (t.len + n > NOTE_TITLES) {
			more++;
			continue;
		}
		buf_printf(&t, "%s%.*s", t.len ? "; " : "", (int)n, h);
	}
	if (!t.len && !more && !cut)
		return NULL;
	char *s = xasprintf("\n(Left out to keep this context within %zu characters: %s%s%s%s.)\n", max,
			    t.len ? t.s : "", more ? (t.len ? "; and " : "") : "", more ? "more" : "",
			    cut ? (t.len || more ? "; and the end of the rest" : "the end of the text") : "");
	buf_free(&t);
	return s;
}

char *llm_context_trim(const char *md, size_t max)
{
	size_t total = strlen(md);
	if (!max || total <= max)
		return xstrdup(md);
	/* The parts, at headings outside ``` blocks. */
	int np = 0, cap = 16;
	size_t fence = 0;
	part *p = xcalloc((size_t)cap, sizeof *p);
	p[np++] = (part){0, 0, 4, 1};
	for (size_t off = 0; off < total;) {
		size_t n = strcspn(md + off, "\n");
		if (fence_line(md + off, n, &fence))
			;
		else if (!fence && off && is_heading(md + off, n)) {
			if (np == cap)
				p = xrealloc(p, (size_t)(cap *= 2) * sizeof *p);
			p[np] = (part){off, 0, rank_of(md + off, n, 0), 1};
			np++;
		}
		off += n + (md[off + n] == '\n');
	}
	for (int i = 0; i < np; i++)
		p[i].len = (i + 1 < np ? p[i + 1].off : total) - p[i].off;
	p[0].rank = 4;

	size_t kept = total;
	char *note = NULL;
	for (int rank = 1; rank <= 3; rank++)
		for (int i = np - 1; i >= 0; i--) {
			free(note);
			note = note_for(md, p, np, max, 0);
			if (kept + (note ? strlen(note) : 0) <= max)
				goto fits;
			if (p[i].rank == rank) {
				p[i].kept = 0;
				kept -= p[i].len;
			}
		}
	free(note);
	note = note_for(md, p, np, max, 0);
fits:;
	cko_buf out = {0};
	buf_add(&out, "", 0);
	for (int i = 0; i < np; i++)
		if (p[i].kept)
			buf_add(&out, md + p[i].off, p[i].len);
	if (out.len + (note ? strlen(note) : 0) > max) {
		/* Still too long: the end goes, at a line, a block closed. */
		free(note);
		note = note_for(md, p, np, max, 1);
		size_t room = max > strlen(note) + 16 ? max - strlen(note) - 16 : 0;
		size_t n = cko_utf8_cut(out.s, out.len, room);
		while (n && out.s[n - 1] != '\n')
			n--;
		size_t open = 0;
		for (size_t off = 0; off < n;) {
			size_t k = strcspn(out.s + off, "\n");
			fence_line(out.s + off, k, &open);
			off += k + 1;
		}
		out.len = n;
		out.s[n] = 0;
		if (open) {
			for (size_t i = 0; i < open; i++)
				buf_puts(&out, "`");
			buf_puts(&out, "\n");
		}
	}
	if (note)
		buf_puts(&out, note);
	free(note);
	free(p);
	return out.s;
}
