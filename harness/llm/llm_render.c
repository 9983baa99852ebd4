/* llm_render.c: prompt templates. A template is plain text with {{name}}
 * placeholders, {{> partial}} includes (partial.md beside the template)
 * and {{! comments }}. Values are inserted as they are: a kernel that
 * holds "{{" stays as it is. */
#include "llm.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEMPLATE_MAX (1u << 20)
#define PROMPT_MAX (8u << 20)

static int line_of(const char *s, const char *p)
{
	int n = 1;
	for (; s < p; s++)
		n += *s == '\n';
	return n;
}

static void expand(const char *path, const llm_var *vars, int nvars, int depth, cko_buf *out)
{
	if (depth > 8)
		cko_die(CKO_BADINPUT, "%s: partials nested too deep (a cycle?)", path);
	size_t len;
	char *t = cko_read_file(path, TEMPLATE_MAX, &len);
	if (memchr(t, 0, len))
		cko_die(CKO_BADINPUT, "%s: contains a NUL byte", path);
	char *dir = cko_dirname(path);
	const char *p = t;
	for (;;) {
		const char *o = strstr(p, "{{");
		if (!o) {
			buf_puts(out, p);
			break;
		}
		buf_add(out, p, (size_t)(o - p));
		const char *c = strstr(o + 2, "}}");
		const char *s = o + 2;
		while (*s == ' ')
			s++;
		if (c && *s == '!') {
			/* A comment; a comment alone on its line takes the line. */
			p = c + 2;
			if (*p == '\n' && (o == t || o[-1] == '\n'))
				p++;
			continue;
		}
		int partial = *s == '>';
		if (partial)
			for (s++; *s == ' '; s++)
				;
		const char *e = s;
		while (isalnum((unsigned char)*e) || *e == '_' || (partial && (*e == '-' || *e == '.')))
			e++;
		const char *f = e;
		while (*f == ' ')
			f++;
		if (!c || f != c || e == s) {
			/* Not a placeholder: literal text. */
			buf_add(out, o, 2);
			p = o + 2;
			continue;
		}
		char *name = strndup(s, (size_t)(e - s));
		if (partial) {
			char *fn = xasprintf("%s.md", name);
			char *pp = cko_path_join(dir, fn);
			if (!cko_exists(pp))
				cko_die(CKO_BADINPUT, "%s: line %d: no partial %s", path, line_of(t, o), pp);
			expand(pp, vars, nvars, depth + 1, out);
			/* A partial's text ends with its own newline. */
			if (out->len && out->s[out->len - 1] == '\n' && c[2] == '\n')
				c++;
			free(fn);
			free(pp);
		} else {
			const char *v = NULL;
			for (int i = 0; i < nvars && !v; i++)
				if (!strcmp(vars[i].name, name))
					v = vars[i].value;
			if (!v)
				cko_die(CKO_BADINPUT,
					"%s: line %d: no value for {{%s}} (give one with -v %s=FILE or -s %s=TEXT)", path,
					line_of(t, o), name, name, name);
			buf_puts(out, v);
		}
		free(name);
		p = c + 2;
		if (out->len > PROMPT_MAX)
			cko_die(CKO_BADINPUT, "%s: the prompt is larger than %u bytes", path, PROMPT_MAX);
	}
	free(dir);
	free(t);
}

char *llm_template_expand(const char *path, const llm_var *vars, int nvars)
{
	cko_buf out = {0};
	buf_add(&out, "", 0);
	expand(path, vars, nvars, 0, &out);
	return out.s;
}

static char *trimmed(const char *s, size_t n)
{
	/* Leading blank lines and trailing white space go. */
	const char *b = s, *e = s + n;
	for (const char *q = b; q < e && isspace((unsigned char)*q); q++)
		if (*q == '\n')
			b = q + 1;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	char *r = xmalloc((size_t)(e - b) + 2);
	memcpy(r, b, (size_t)(e - b));
	r[e - b] = '\n';
	r[e - b + 1] = 0;
	return r;
}

/* The offset just past a separator line "--- WORD ---" at line start. */
static const char *separator(const char *text, const char *word, const char **line_start)
{
	char pat[32];
	snprintf(pat, sizeof pat, "--- %s ---", word);
	size_t n = strlen(pat);
	for (const char *p = text; (p = strstr(p, pat)); p += n) {
		if (p != text && p[-1] != '\n')
			continue;
		const char *q = p + n;
		while (*q == ' ' || *q == '\t' || *q == '\r')
			q++;
		if (*q && *q != '\n')
			continue;
		*line_start = p;
		return *q ? q + 1 : q;
	}
	return NULL;
}

void llm_template_split(const char *text, char **system, char **user)
{
	const char *ls, *sys_ls;
	const char *start = text;
	const char *after_sys = separator(text, "system", &sys_ls);
	if (after_sys && sys_ls == text)
		start = after_sys;
	const char *u = separator(start, "user", &ls);
	if (!u) {
		*system = NULL;
		*user = trimmed(start, strlen(start));
		return;
	}
	*system = trimmed(start, (size_t)(ls - start));
	*user = trimmed(u, strlen(u));
}

const char *llm_prompts_dir(void)
{
	static char *dir;
	static int done;
	if (done)
		return dir;
	done = 1;
	const char *e = getenv("CKO_PROMPTS");
	if (e && *e)
		return dir = xstrdup(e);
	e = getenv("CKO_SHARE"); /* run.mk exports it */
	if (e && *e) {
		char *d = cko_path_join(e, "prompts");
		if (cko_is_dir(d))
			return dir = d;
		free(d);
	}
	char *top = cko_share_dir("prompts");
	if (top) {
		dir = cko_path_join(top, "prompts");
		free(top);
	}
	return dir;
}

char *llm_template_path(const char *arg)
{
	if (strchr(arg, '/') || cko_exists(arg))
		return xstrdup(arg);
	const char *d = llm_prompts_dir();
	if (!d)
		cko_die(CKO_BADINPUT, "template %s: no prompts folder (set CKO_PROMPTS)", arg);
	char *f = xasprintf("%s.md", arg);
	char *p = cko_path_join(d, f);
	free(f);
	if (!cko_exists(p))
		cko_die(CKO_BADINPUT, "template %s: no %s", arg, p);
	return p;
}
