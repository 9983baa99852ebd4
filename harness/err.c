/* err.c: diagnostics prefixed with the tool's name (style(9) err/warn). */
#include "cko.h"

#include <stdlib.h>
#include <string.h>

static const char *prog = "cko";
static void (*die_hook)(int);

void cko_setprog(const char *argv0)
{
	const char *s = strrchr(argv0, '/');
	prog = s ? s + 1 : argv0;
}

const char *cko_prog(void) { return prog; }

void cko_atexit_die(void (*fn)(int)) { die_hook = fn; }

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cko_die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
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
