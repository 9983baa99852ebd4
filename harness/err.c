/* err.c: diagnostics prefixed with the tool's name (style(9) err/warn). */
#include "cko.h"

#include <setjmp.h>
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
