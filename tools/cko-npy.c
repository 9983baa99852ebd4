/* cko-npy: makes a .npy file from numbers, or prints one as text. */
#include "cko.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: cko-npy [-H] [-n count] file.npy\n"
		"       cko-npy -t dtype -s shape -o file.npy [value... | -]\n"
		"  -H, --header           print the header only (dtype, shape, element count)\n"
		"  -n, --count count      print only the first count values\n"
		"  -t, --type dtype       the dtype to write: f16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64\n"
		"  -s, --shape shape      the shape to write, e.g. 2,3 (empty for a scalar)\n"
		"  -o, --output file.npy  write a .npy file of the values (zeros when none are given)\n"
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

int main(int argc, char **argv)
{
	cko_setprog(argv[0]);
	static const struct option lo[] = {
		{"type", required_argument, 0, 't'}, {"shape", required_argument, 0, 's'},
		{"output", required_argument, 0, 'o'}, {"header", no_argument, 0, 'H'},
		{"count", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'},
		{0, 0, 0, 0},
	};
	const char *type = NULL, *shape = NULL, *out = NULL;
	int header = 0, c;
	long limit = -1;
	while ((c = getopt_long(argc, argv, "t:s:o:Hn:h", lo, NULL)) != -1) {
		switch (c) {
		case 't': type = optarg; break;
		case 's': shape = optarg; break;
		case 'o': out = optarg; break;
		case 'H': header = 1; break;
		case 'n': limit = atol(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!out) {
		if (type || shape || optind != argc - 1)
			usage(2);
		print(argv[optind], header, limit);
		return 0;
	}
	if (!type || !shape)
		usage(2);
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
		char *end;
		double v = !strcmp(argv[i], "nan") ? NAN : !strcmp(argv[i], "inf") ? INFINITY
						    : !strcmp(argv[i], "-inf")   ? -INFINITY
										 : strtod(argv[i], &end);
		if (isfinite(v) && *end)
			cko_die(CKO_BADINPUT, "'%s' is not a number", argv[i]);
		cko_elem_set(t.dtype, t.data, n, v);
	}
	if (from_stdin) {
		double v;
		while (n < t.count && scanf("%lf", &v) == 1)
			cko_elem_set(t.dtype, t.data, n++, v);
	}
	if (n != t.count && n != 0)
		cko_die(CKO_BADINPUT, "%zu values for %zu elements", n, t.count);
	cko_npy_write(out, &t);
	cko_tensor_free(&t);
	return 0;
}
