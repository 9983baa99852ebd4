/* err.c: diagnostics prefixed with the tool's name (style(9) err/warn). */
#include "cko.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "cko", *argv0_given;
static void (*die_hook)(int);

void cko_setprog(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	prog = s ? s + 1 : argv0;
	argv0_given = argv0;
}

const char *cko_prog(void) { return prog; }

const char *cko_argv0(void) { return argv0_given; }

void cko_atexit_die(void (*fn)(int)) { die_hook = fn; }

/* An active cko_try: cko_die records its message there and jumps back. */
static jmp_buf *try_jmp;
static char *try_err;
static size_t try_errlen;
static int try_status;

int cko_try(void (*fn)(void *), void *arg, char *err, size_t errlen)
{
	jmp_buf here, *outer = try_jmp;
	char *oerr = try_err;
	size_t olen = try_errlen;
	try_jmp = &here;
	try_err = err;
	try_errlen = errlen;
	int r = 0;
	if (setjmp(here) == 0)
		fn(arg);
	else
		r = try_status;
	try_jmp = outer;
	try_err = oerr;
	try_errlen = olen;
	return r;
}

/* Length of the UTF-8 character at s (at most n bytes) and its code point;
 * 0 for a byte that starts no valid character. */
static size_t utf8_char(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (!len || len > n || s[0] > 0xf4)
		return 0;
	unsigned c = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0; /* overlong, beyond Unicode, or a surrogate */
	*cp = c;
	return len;
}

size_t cko_visible(char *out, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		unsigned c = s[i], cp;
		size_t len = c < 0x80 ? 1 : utf8_char(s + i, n - i, &cp);
		if (c < 0x80 && (c >= 0x20 || c == '\n' || c == '\t') && c != 0x7f) {
			out[o++] = (char)c;
		} else if (c < 0x80 || !len) {
			/* a C0 control, DEL, or a byte that is no UTF-8 */
			memcpy(out + o, "\\x", 2);
			out[o + 2] = hex[c >> 4];
			out[o + 3] = hex[c & 15];
			o += 4;
			len = 1;
		} else if (cp >= 0x80 && cp <= 0x9f) {
			/* a C1 control (0x9b is CSI on some terminals) */
			memcpy(out + o, "\\u00", 4);
			out[o + 4] = hex[cp >> 4];
			out[o + 5] = hex[cp & 15];
			o += 6;
		} else {
			memcpy(out + o, s + i, len);
			o += len;
		}
		i += len;
	}
	out[o] = 0;
	return o;
}

char *cko_text_visible(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(4 * n + 1);
	cko_visible(out, s, n);
	return out;
}

/* Messages may quote what a model wrote: controls are shown, never sent
 * to the terminal. Without memory, the message goes out as it is. */
static void vmsg(const char *fmt, va_list ap)
{
	char *m = NULL, *v = NULL;
	int n = vasprintf(&m, fmt, ap);
	if (n >= 0)
		v = malloc(4 * (size_t)n + 1);
	if (v)
		cko_visible(v, m, (size_t)n);
	fprintf(stderr, "%s: %s\n", prog, v ? v : n >= 0 ? m : fmt);
	free(v);
	if (n >= 0)
		free(m);
}

void cko_die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (try_jmp) {
		vsnprintf(try_err, try_errlen, fmt, ap);
		va_end(ap);
		try_status = status ? status : 1;
		longjmp(*try_jmp, 1);
	}
	vmsg(fmt, ap);
	va_end(ap);
	if (die_hook) {
		void (*fn)(int) = die_hook;
		die_hook = NULL;
		fn(status);
	}
	exit(status);
}

void cko_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void cko_info(const char *fmt, ...)
{
	static int quiet = -1;
	if (quiet < 0)
		quiet = getenv("CKO_QUIET") && *getenv("CKO_QUIET");
	if (quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}
