/* html.c: an HTML page as markdown-ish text (cko-docs --fetch, --html). */
#include "docs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

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
char *cko_html_text(const char *html, char **title)
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

