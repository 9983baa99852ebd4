/* mem.c: allocation that never returns NULL, and a string buffer. */
#include "cko.h"

#include <stdlib.h>
#include <string.h>

static void oom(size_t n) { cko_die(CKO_ENV, "out of memory (%zu bytes)", n); }

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}

void buf_add(cko_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		b->s = xrealloc(b->s, cap);
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void buf_puts(cko_buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_printf(cko_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	buf_add(b, s, (size_t)n);
	free(s);
}

void buf_free(cko_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

size_t cko_utf8_cut(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--; /* s[max] continues a character: cut before it starts */
	return max;
}
