/* test-npy.c: .npy images: round trips for every dtype and rank, files
 * written by NumPy (tests/data/npy, made by make-fixtures.py), headers of
 * format versions 2 and 3, and malformed files, each of which must fail
 * with a message and no crash.
 *
 * With "--write DIR" it writes one file per dtype and rank into DIR instead,
 * for tests/cli/npy-numpy.sh to load with NumPy. */
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static const char *top(void)
{
	const char *t = getenv("CKO_TOP");
	return t && *t ? t : ".";
}

static char *fixture(const char *name) { return xasprintf("%s/tests/data/npy/%s.npy", top(), name); }

/* A .npy image with the given version and header text taken as is (no
 * padding added), followed by data. Allocated with its exact length so that
 * ASan sees any read past its end. */
static unsigned char *image(int major, const char *hdr, const void *data, size_t dlen, size_t *len)
{
	size_t hl = strlen(hdr), pre = major == 1 ? 10 : 12;
	*len = pre + hl + dlen;
	unsigned char *b = xmalloc(*len);
	memcpy(b, "\x93NUMPY", 6);
	b[6] = (unsigned char)major;
	b[7] = 0;
	for (size_t i = 0; i < pre - 8; i++)
		b[8 + i] = (unsigned char)(hl >> (8 * i));
	memcpy(b + pre, hdr, hl);
	if (dlen)
		memcpy(b + pre + hl, data, dlen);
	return b;
}

/* Parses an image that must fail; the message must contain want. */
static void bad(const char *name, const void *img, size_t len, const char *want)
{
	cko_tensor t;
	char err[256] = "";
	int r = cko_npy_parse(img, len, &t, err, sizeof err);
	char n[128];
	snprintf(n, sizeof n, "npy-reject-%s", name);
	CHECK(n, r == -1 && t.data == NULL && err[0] && strstr(err, want));
	if (r == 0)
		cko_tensor_free(&t);
	else if (!strstr(err, want))
		printf("# %s: message was '%s', expected '%s'\n", name, err, want);
}

static void bad_hdr(const char *name, const char *hdr, size_t dlen, const char *want)
{
	size_t len;
	void *zero = xcalloc(1, dlen + 1);
	unsigned char *img = image(1, hdr, zero, dlen, &len);
	bad(name, img, len, want);
	free(img);
	free(zero);
}

static void fill(cko_tensor *t, unsigned seed)
{
	size_t n = cko_tensor_bytes(t);
	t->data = xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		((unsigned char *)t->data)[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static void round_trips(void)
{
	static const int64_t shapes[][4] = {{0}, {1, 5}, {3, 2, 3, 4}, {1, 1}, {2, 3, 0}};
	for (int d = 0; d < CKO_NDTYPES; d++) {
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
			cko_tensor t = {.dtype = (cko_dtype)d, .ndim = (int)shapes[s][0], .count = 1};
			for (int i = 0; i < t.ndim; i++)
				t.count *= (size_t)(t.shape[i] = shapes[s][i + 1]);
			fill(&t, (unsigned)(d * 10 + s));
			size_t len;
			unsigned char *img = cko_npy_image(&t, &len);
			size_t hl = (size_t)img[8] | (size_t)img[9] << 8;
			cko_tensor u;
			char err[256] = "", name[64];
			int r = cko_npy_parse(img, len, &u, err, sizeof err);
			snprintf(name, sizeof name, "npy-roundtrip-%s-%dd", cko_dtype_name(t.dtype), t.ndim);
			int same = r == 0 && u.dtype == t.dtype && u.ndim == t.ndim && u.count == t.count &&
				   !memcmp(u.shape, t.shape, sizeof t.shape[0] * (size_t)t.ndim) &&
				   !memcmp(u.data, t.data, cko_tensor_bytes(&t));
			CHECK(name, same);
			if (r)
				printf("# %s\n", err);
			/* NumPy's layout: version 1, header padded with spaces to a
			 * multiple of 64 bytes and ended by a newline. */
			snprintf(name, sizeof name, "npy-header-layout-%s-%dd", cko_dtype_name(t.dtype), t.ndim);
			CHECK(name, img[6] == 1 && img[7] == 0 && (10 + hl) % 64 == 0 && img[10 + hl - 1] == '\n' &&
					    len == 10 + hl + cko_tensor_bytes(&t));
			if (r == 0)
				cko_tensor_free(&u);
			free(img);
			cko_tensor_free(&t);
		}
	}
}

static void file_round_trip(void)
{
	const char *tmp = getenv("TEST_TMP");
	char *dir = tmp && *tmp ? xstrdup(tmp) : xstrdup("/tmp");
	char *path = xasprintf("%s/sub/dir/rt.npy", dir);
	cko_tensor t = {.dtype = CKO_F32, .ndim = 2, .shape = {3, 5}, .count = 15};
	fill(&t, 3);
	cko_npy_write(path, &t);
	cko_tensor u;
	cko_npy_read(path, &u);
	CHECK("npy-file-roundtrip", u.count == 15 && u.ndim == 2 && !memcmp(u.data, t.data, 60));
	cko_tensor_free(&u);
	char err[512] = "";
	char *missing = xasprintf("%s/no-such.npy", dir);
	CHECK("npy-missing-file-names-path", cko_npy_try_read(missing, &u, err, sizeof err) == -1 && strstr(err, missing));
	/* a parse error names the file too */
	cko_write_file(path, "\x93NUMPY\x01\x00\x02\x00{}", 12);
	CHECK("npy-bad-file-names-path",
	      cko_npy_try_read(path, &u, err, sizeof err) == -1 && strstr(err, path) && strstr(err, "lacks"));
	unlink(path);
	free(missing);
	free(path);
	free(dir);
	cko_tensor_free(&t);
}

/* Reads a NumPy-written fixture; on success its image must be byte for byte
 * what cko_npy_image writes for the same tensor. */
static int load_fixture(const char *name, cko_tensor *t, char *err, size_t errlen)
{
	char *p = fixture(name);
	int r = cko_npy_try_read(p, t, err, errlen);
	free(p);
	return r;
}

static void numpy_fixtures(void)
{
	static const struct {
		const char *name;
		double v[6];
	} ints[] = {
		{"i8", {0, 1, -1, -128, 127, 42}},
		{"i16", {0, 1, -1, -32768, 32767, 42}},
		{"i32", {0, 1, -1, -2147483648.0, 2147483647.0, 42}},
		{"i64", {0, 1, -1, -9223372036854775808.0, 9223372036854775807.0, 42}},
		{"u8", {0, 1, 2, 0, 255, 42}},
		{"u16", {0, 1, 2, 0, 65535, 42}},
		{"u32", {0, 1, 2, 0, 4294967295.0, 42}},
		{"u64", {0, 1, 2, 0, 18446744073709551615.0, 42}},
		{"f16", {0, 1, -2.5, 0.5, -0.0, 65504}},
		{"f32", {0, 1, -2.5, 0.5, -0.0, 65504}},
		{"f64", {0, 1, -2.5, 0.5, -0.0, 65504}},
	};
	char err[512], name[64];
	for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
		cko_tensor t;
		cko_dtype want;
		cko_dtype_parse(ints[k].name, &want);
		int r = load_fixture(ints[k].name, &t, err, sizeof err);
		snprintf(name, sizeof name, "npy-numpy-%s", ints[k].name);
		int ok = r == 0 && t.dtype == want && t.ndim == 2 && t.shape[0] == 2 && t.shape[1] == 3 && t.count == 6;
		for (int i = 0; ok && i < 6; i++)
			ok = cko_elem_get(t.dtype, t.data, (size_t)i) == ints[k].v[i];
		CHECK(name, ok);
		if (r)
			printf("# %s\n", err);
		if (r == 0) {
			/* The signed zero survives. */
			if (cko_dtype_is_float(t.dtype)) {
				snprintf(name, sizeof name, "npy-numpy-%s-negzero", ints[k].name);
				CHECK(name, signbit(cko_elem_get(t.dtype, t.data, 4)));
			}
			size_t len, flen;
			void *img = cko_npy_image(&t, &len);
			char *p = fixture(ints[k].name);
			char *file = cko_read_file(p, 1 << 20, &flen);
			snprintf(name, sizeof name, "npy-same-bytes-as-numpy-%s", ints[k].name);
			CHECK(name, len == flen && !memcmp(img, file, len));
			free(file);
			free(p);
			free(img);
			cko_tensor_free(&t);
		}
	}

	cko_tensor t;
	int r = load_fixture("scalar-f64", &t, err, sizeof err);
	CHECK("npy-numpy-0d", r == 0 && t.ndim == 0 && t.count == 1 && t.dtype == CKO_F64 &&
				      cko_elem_get(t.dtype, t.data, 0) == 3.25);
	if (!r) {
		size_t len, flen;
		void *img = cko_npy_image(&t, &len);
		char *p = fixture("scalar-f64");
		char *file = cko_read_file(p, 1 << 20, &flen);
		CHECK("npy-same-bytes-as-numpy-0d", len == flen && !memcmp(img, file, len));
		free(file), free(p), free(img);
		cko_tensor_free(&t);
	}
	r = load_fixture("vec-i32", &t, err, sizeof err);
	int ok = r == 0 && t.ndim == 1 && t.shape[0] == 7 && t.count == 7 && t.dtype == CKO_I32;
	for (int i = 0; ok && i < 7; i++)
		ok = cko_elem_get(t.dtype, t.data, (size_t)i) == i;
	CHECK("npy-numpy-1d", ok);
	if (!r) {
		size_t len, flen;
		void *img = cko_npy_image(&t, &len);
		char *p = fixture("vec-i32");
		char *file = cko_read_file(p, 1 << 20, &flen);
		CHECK("npy-same-bytes-as-numpy-1d", len == flen && !memcmp(img, file, len));
		free(file), free(p), free(img);
		cko_tensor_free(&t);
	}
	r = load_fixture("cube-f32", &t, err, sizeof err);
	ok = r == 0 && t.ndim == 3 && t.shape[0] == 2 && t.shape[1] == 3 && t.shape[2] == 4 && t.count == 24;
	for (int i = 0; ok && i < 24; i++)
		ok = cko_elem_get(t.dtype, t.data, (size_t)i) == i;
	CHECK("npy-numpy-3d", ok);
	if (!r)
		cko_tensor_free(&t);
	r = load_fixture("empty-f32", &t, err, sizeof err);
	CHECK("npy-numpy-empty", r == 0 && t.ndim == 2 && t.shape[1] == 0 && t.count == 0);
	if (!r)
		cko_tensor_free(&t);
	static const char *const versions[] = {"v2-f32", "v3-f32"};
	for (int v = 0; v < 2; v++) {
		r = load_fixture(versions[v], &t, err, sizeof err);
		ok = r == 0 && t.ndim == 2 && t.count == 6 && t.dtype == CKO_F32;
		for (int i = 0; ok && i < 6; i++)
			ok = cko_elem_get(t.dtype, t.data, (size_t)i) == i;
		snprintf(name, sizeof name, "npy-numpy-%s", versions[v]);
		CHECK(name, ok);
		if (!r)
			cko_tensor_free(&t);
	}

	/* NumPy files we refuse, with the reason. */
	static const struct {
		const char *file, *want;
	} refused[] = {
		{"fortran-f32", "Fortran"},
		{"bigendian-f32", "big-endian"},
		{"bool", "unsupported dtype '|b1'"},
		{"unicode", "unsupported dtype '<U2'"},
		{"dims9-f32", "more than 8 dimensions"},
	};
	for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
		err[0] = 0;
		r = load_fixture(refused[k].file, &t, err, sizeof err);
		snprintf(name, sizeof name, "npy-numpy-refuses-%s", refused[k].file);
		CHECK(name, r == -1 && t.data == NULL && strstr(err, refused[k].want) && strstr(err, refused[k].file));
		if (r == 0)
			cko_tensor_free(&t);
		else if (!strstr(err, refused[k].want))
			printf("# %s: '%s'\n", refused[k].file, err);
	}
}

static void big_headers(void)
{
	/* A version 2 header of 70000 bytes (more than version 1's 65535). */
	cko_buf h = {0};
	buf_puts(&h, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }");
	while (h.len < 70000 - 1)
		buf_puts(&h, " ");
	buf_puts(&h, "\n");
	int16_t d[2] = {-7, 9};
	size_t len;
	unsigned char *img = image(2, h.s, d, sizeof d, &len);
	cko_tensor t;
	char err[256] = "";
	int r = cko_npy_parse(img, len, &t, err, sizeof err);
	CHECK("npy-v2-large-header", r == 0 && t.count == 2 && ((int16_t *)t.data)[0] == -7 && ((int16_t *)t.data)[1] == 9);
	if (!r)
		cko_tensor_free(&t);
	free(img);
	img = image(3, h.s, d, sizeof d, &len);
	r = cko_npy_parse(img, len, &t, err, sizeof err);
	CHECK("npy-v3-large-header", r == 0 && t.count == 2);
	if (!r)
		cko_tensor_free(&t);
	free(img);
	/* The same header cannot be told by a version 1 length. */
	img = image(1, h.s, d, sizeof d, &len);
	bad("v1-length-wraps", img, len, "");
	free(img);
	/* Headers beyond 1 MiB are refused rather than scanned. */
	while (h.len < (2u << 20))
		buf_puts(&h, "                                ");
	img = image(2, h.s, d, sizeof d, &len);
	bad("header-over-1MiB", img, len, "header");
	free(img);
	buf_free(&h);
}

static void malformed(void)
{
	const char *ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }\n";
	float d[6] = {0};
	size_t len;
	unsigned char *img = image(1, ok, d, sizeof d, &len);
	cko_tensor t;
	char err[256];
	CHECK("npy-handmade-header-ok", cko_npy_parse(img, len, &t, err, sizeof err) == 0 && t.count == 6);
	cko_tensor_free(&t);

	bad("empty", img, 0, "magic");
	bad("short", img, 9, "magic");
	unsigned char m[sizeof d + 200];
	memcpy(m, img, len);
	m[1] = 'n';
	bad("bad-magic", m, len, "magic");
	memcpy(m, img, len);
	m[6] = 4;
	bad("version-4", m, len, "version 4");
	memcpy(m, img, len);
	m[6] = 0;
	bad("version-0", m, len, "version 0");
	bad("truncated-header", img, 30, "truncated header");
	bad("truncated-v2-length", "\x93NUMPY\x02\x00\x10\x00", 10, "truncated");
	bad("no-header", "\x93NUMPY\x01\x00\x00\x00", 10, "malformed header");
	bad("data-shorter", img, len - 1, "data is 23 bytes");
	free(img);
	img = image(1, ok, d, sizeof d - 4, &len);
	bad("data-much-shorter", img, len, "need 24");
	free(img);
	float more[7] = {0};
	img = image(1, ok, more, sizeof more, &len);
	bad("data-longer", img, len, "data is 28 bytes");
	free(img);

	bad_hdr("fortran-true", "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n", 8, "Fortran");
	bad_hdr("big-endian", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", 8, "big-endian");
	bad_hdr("unknown-descr", "{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }\n", 16, "'<c8'");
	bad_hdr("pipe-multibyte", "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }\n", 8, "'|f4'");
	bad_hdr("long-descr", "{'descr': '<f4xxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'fortran_order': False, 'shape': (2,), }\n", 8,
		"malformed");
	bad_hdr("shape-overflow",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }\n", 0,
		"shape too large");
	bad_hdr("shape-overflow-bytes", "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }\n", 0,
		"shape too large");
	bad_hdr("dim-too-many-digits",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,), }\n", 0,
		"shape too large");
	bad_hdr("negative-dim", "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n", 0, "malformed");
	bad_hdr("missing-descr", "{'fortran_order': False, 'shape': (2,), }\n", 8, "lacks descr");
	bad_hdr("missing-order", "{'descr': '<f4', 'shape': (2,), }\n", 8, "lacks fortran_order");
	bad_hdr("missing-shape", "{'descr': '<f4', 'fortran_order': False, }\n", 4, "lacks shape");
	bad_hdr("empty-dict", "{}\n", 4, "lacks");
	bad_hdr("repeated-key", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n", 8,
		"repeated");
	bad_hdr("unknown-key", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", 8, "'x'");
	bad_hdr("not-a-dict", "['descr', '<f4']\n", 8, "malformed");
	bad_hdr("garbage-after-dict", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk\n", 8,
		"malformed");
	bad_hdr("two-dicts", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }{}\n", 8, "malformed");
	bad_hdr("garbage-in-shape", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }\n", 8, "malformed");
	bad_hdr("shape-no-comma", "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }\n", 24, "malformed");
	bad_hdr("shape-unclosed", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,\n", 8, "malformed");
	bad_hdr("shape-not-tuple", "{'descr': '<f4', 'fortran_order': False, 'shape': 2, }\n", 8, "malformed");
	bad_hdr("order-garbage", "{'descr': '<f4', 'fortran_order': Nope, 'shape': (2,), }\n", 8, "malformed");
	bad_hdr("unterminated-string", "{'descr': '<f4", 0, "malformed");
	bad_hdr("escape-in-string", "{'descr': '<f\\4', 'fortran_order': False, 'shape': (2,), }\n", 8, "malformed");
	bad_hdr("nine-dims", "{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }\n", 1,
		"more than 8 dimensions");
	bad_hdr("no-closing-brace", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\n", 8, "malformed");
	/* A header that stops mid-key right at the end of the image: the
	 * message must not read past it (ASan checks). */
	img = image(1, "{'descr", NULL, 0, &len);
	bad("ends-mid-key", img, len, "malformed");
	free(img);
	img = image(1, "{'descr': '<f4', 'fortran_order': Fals", NULL, 0, &len);
	bad("ends-mid-word", img, len, "malformed");
	free(img);

	/* Accepted variants NumPy or other writers produce. */
	static const char *const variants[] = {
		"{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2, 3)}\n",
		"{'shape': (2, 3), 'fortran_order': False, 'descr': '<f4'}\n",
		"{'descr':'<f4','fortran_order':False,'shape':(2,3,),}   \n",
		"{'descr': '=f4', 'fortran_order': False, 'shape': (2L, 3L), }\n",
	};
	for (int v = 0; v < 4; v++) {
		img = image(1, variants[v], d, sizeof d, &len);
		char name[64];
		snprintf(name, sizeof name, "npy-accepts-variant-%d", v);
		err[0] = 0;
		int r = cko_npy_parse(img, len, &t, err, sizeof err);
		CHECK(name, r == 0 && t.count == 6 && t.ndim == 2);
		if (r)
			printf("# variant %d: %s\n", v, err);
		else
			cko_tensor_free(&t);
		free(img);
	}
}

/* Writes one file per dtype for tests/cli/npy-numpy.sh: DTYPE-RANKd.npy
 * holding element i = i % 7 - 3 (unsigned: i % 7). */
static int write_samples(const char *dir)
{
	static const int64_t shapes[][4] = {{0}, {1, 5}, {3, 2, 3, 4}};
	for (int d = 0; d < CKO_NDTYPES; d++)
		for (int s = 0; s < 3; s++) {
			cko_tensor t = {.dtype = (cko_dtype)d, .ndim = (int)shapes[s][0], .count = 1};
			for (int i = 0; i < t.ndim; i++)
				t.count *= (size_t)(t.shape[i] = shapes[s][i + 1]);
			t.data = xcalloc(t.count, cko_dtype_size(t.dtype));
			for (size_t i = 0; i < t.count; i++)
				cko_elem_set(t.dtype, t.data, i,
					     cko_dtype_is_signed(t.dtype) ? (double)(i % 7) - 3 : (double)(i % 7));
			char *p = xasprintf("%s/%s-%dd.npy", dir, cko_dtype_name(t.dtype), t.ndim);
			cko_npy_write(p, &t);
			free(p);
			cko_tensor_free(&t);
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--write"))
		return write_samples(argv[2]);
	round_trips();
	file_round_trip();
	numpy_fixtures();
	big_headers();
	malformed();
	TEST_END();
}
