/* cko-npy: makes a .npy file from numbers, or prints one as text. */
#include "cko.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-npy [-H] [-n count] file.npy\n"
		"       cko-npy -t dtype -s shape [--saturate] -o file.npy [value... | -]\n"
		"  -H, --header           print the header only (dtype, shape, element count)\n"
		"  -n, --count count      print only the first count values\n"
		"  -t, --type dtype       the dtype to write: f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64\n"
		"  -s, --shape shape      the shape to write, e.g. 2,3 (empty for a scalar)\n"
		"  -o, --output file.npy  write a .npy file of the values (zeros when none are given)\n"
		"      --saturate         store a value the dtype cannot hold clamped instead of refusing it\n"
		"  -h, --help             print this help and exit\n");
	exit(status);
}

static void print(const char *path, int header_only, long limit)
{
	cko_tensor t;
	cko_npy_read(path, &t);
	printf("%s %s (", path, cko_dtype_name(t.dtype));
	for (int i = 0; i < t.ndim; i++)
		printf("%s%lld", i ? ", " : "", (long long)t.shape[i]);
	printf(") %zu elements\n", t.count);
	if (!header_only)
		for (size_t i = 0; i < t.count && (limit < 0 || (long)i < limit); i++) {
			double v = cko_elem_get(t.dtype, t.data, i);
			if (cko_dtype_is_float(t.dtype))
				printf("%.9g\n", v);
			else if (t.dtype == CKO_U64)
				printf("%llu\n", (unsigned long long)((uint64_t *)t.data)[i]);
			else if (t.dtype == CKO_I64)
				printf("%lld\n", (long long)((int64_t *)t.data)[i]);
			else
				printf("%.0f\n", v);
		}
	cko_tensor_free(&t);
}

/* An integer dtype's range; long double holds every 64-bit integer exactly
 * (x86-64 and AArch64 Linux), so i64 and u64 values are not rounded. */
static void int_range(cko_dtype t, long double *lo, long double *hi)
{
	switch (t) {
	case CKO_I8: *lo = -128.0L, *hi = 127.0L; break;
	case CKO_I16: *lo = -32768.0L, *hi = 32767.0L; break;
	case CKO_I32: *lo = -2147483648.0L, *hi = 2147483647.0L; break;
	case CKO_I64: *lo = -9223372036854775808.0L, *hi = 9223372036854775807.0L; break;
	case CKO_U8: *lo = 0, *hi = 255.0L; break;
	case CKO_U16: *lo = 0, *hi = 65535.0L; break;
	case CKO_U32: *lo = 0, *hi = 4294967295.0L; break;
	default: *lo = 0, *hi = 18446744073709551615.0L; break;
	}
}

static double float_max(cko_dtype t)
{
	return t == CKO_F16 ? 65504.0 : t == CKO_F32 ? FLT_MAX : DBL_MAX;
}

static void put_int(cko_dtype t, void *data, size_t i, long double r)
{
	switch (t) {
	case CKO_I8: ((int8_t *)data)[i] = (int8_t)r; break;
	case CKO_I16: ((int16_t *)data)[i] = (int16_t)r; break;
	case CKO_I32: ((int32_t *)data)[i] = (int32_t)r; break;
	case CKO_I64: ((int64_t *)data)[i] = (int64_t)r; break;
	case CKO_U8: ((uint8_t *)data)[i] = (uint8_t)r; break;
	case CKO_U16: ((uint16_t *)data)[i] = (uint16_t)r; break;
	case CKO_U32: ((uint32_t *)data)[i] = (uint32_t)r; break;
	default: ((uint64_t *)data)[i] = (uint64_t)r; break;
	}
}

/* Stores value i (text) as the dtype. A value the dtype cannot hold (out of
 * an integer's range, nan or inf as an integer, a finite number too large
 * for a float) is refused naming it, unless saturate: then it is clamped
 * (nan as an integer is 0). Integers are rounded to nearest, ties to even. */
static void put(const cko_tensor *t, size_t i, const char *text, int saturate, const char *out)
{
	char *end;
	errno = 0;
	long double v = strtold(text, &end);
	if (end == text || *end)
		cko_die(CKO_BADINPUT, "%s: the value '%s' at index %zu is not a number", out, text, i);
	const char *name = cko_dtype_name(t->dtype);
	if (cko_dtype_is_float(t->dtype)) {
		double m = float_max(t->dtype);
		int over = errno == ERANGE && isinf(v); /* beyond even long double */
		if (isfinite(v) && fabsl(v) > (long double)m) {
			/* past the largest finite value: too large when it rounds to inf */
			double d = (double)v;
			over = t->dtype == CKO_F16   ? isinf(cko_half_to_float(cko_float_to_half((float)d)))
			       : t->dtype == CKO_F32 ? isinf((float)d)
						     : isinf(d);
		}
		if (over && !saturate)
			cko_die(CKO_BADINPUT,
				"%s: the value %s at index %zu is out of %s's range (-%g to %g, or inf, -inf, nan): "
				"give a smaller value, or --saturate to store %s%g",
				out, text, i, name, m, m, v < 0 ? "-" : "", m);
		double d = over ? copysign(m, (double)v) : (double)v;
		cko_elem_set(t->dtype, t->data, i, d);
		return;
	}
	long double lo, hi, r = nearbyintl(v);
	int_range(t->dtype, &lo, &hi);
	if (isnan(r) || r < lo || r > hi) {
		if (!saturate)
			cko_die(CKO_BADINPUT,
				"%s: the value %s at index %zu is out of %s's range (%.0Lf to %.0Lf): "
				"give a value in range, or --saturate to clamp it",
				out, text, i, name, lo, hi);
		r = isnan(r) ? 0 : r < lo ? lo : hi;
	}
	put_int(t->dtype, t->data, i, r);
}

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"type", required_argument, 0, 't'}, {"shape", required_argument, 0, 's'},
		{"output", required_argument, 0, 'o'}, {"header", no_argument, 0, 'H'},
		{"count", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'},
		{"saturate", no_argument, 0, 'S'},  {0, 0, 0, 0},
	};
	const char *type = NULL, *shape = NULL, *out = NULL;
	int header = 0, saturate = 0, c;
	long limit = -1;
	while ((c = getopt_long(argc, argv, "t:s:o:Hn:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': type = optarg; break;
		case 's': shape = optarg; break;
		case 'o': out = optarg; break;
		case 'H': header = 1; break;
		case 'S': saturate = 1; break;
		case 'n': limit = atol(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!out) {
		if (type || shape || saturate || optind != argc - 1)
			usage(2);
		print(argv[optind], header, limit);
		return 0;
	}
	if (!type || !shape)
		usage(2);
	cko_out_check(out);
	cko_tensor t = {0};
	if (!cko_dtype_parse(type, &t.dtype))
		cko_die(CKO_BADINPUT, "-t %s: unknown dtype", type);
	t.count = 1;
	for (char *save, *s = xstrdup(shape), *tok = strtok_r(s, ",x", &save); tok; tok = strtok_r(NULL, ",x", &save)) {
		char *end;
		long long d = strtoll(tok, &end, 10);
		if (*end || d < 0 || t.ndim == CKO_MAXDIM || (d && t.count > ((size_t)1 << 40) / (size_t)d))
			cko_die(CKO_BADINPUT, "-s %s: expected up to %d sizes like 2,3", shape, CKO_MAXDIM);
		t.shape[t.ndim++] = d;
		t.count *= (size_t)d;
	}
	t.data = xcalloc(t.count, cko_dtype_size(t.dtype));
	int from_stdin = optind == argc - 1 && !strcmp(argv[optind], "-");
	size_t n = 0;
	for (int i = optind; !from_stdin && i < argc; i++, n++) {
		if (n >= t.count)
			cko_die(CKO_BADINPUT, "more values than the shape holds (%zu)", t.count);
		put(&t, n, argv[i], saturate, out);
	}
	if (from_stdin) {
		char w[128];
		while (n < t.count && scanf("%127s", w) == 1)
			put(&t, n++, w, saturate, out);
	}
	if (n != t.count && n != 0)
		cko_die(CKO_BADINPUT, "%zu values for %zu elements", n, t.count);
	cko_npy_write(out, &t);
	cko_tensor_free(&t);
	return 0;
}
