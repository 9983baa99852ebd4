/* npy.c: NumPy .npy files (format versions 1, 2 and 3), C order,
 * little-endian, the dtypes of dtype.c. The header dictionary is parsed
 * strictly: exactly the keys descr, fortran_order and shape. */
#include "cko.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <errno.h>
#include <unistd.h>

size_t cko_tensor_bytes(const cko_tensor *t) { return t->count * cko_dtype_size(t->dtype); }

void cko_tensor_free(cko_tensor *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	else
		free(t->data);
	t->data = t->map = NULL;
	t->map_len = 0;
}

typedef struct {
	const char *p, *end;
} scan;

static void skip_ws(scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

static int eat(scan *s, char c)
{
	skip_ws(s);
	if (s->p < s->end && *s->p == c) {
		s->p++;
		return 1;
	}
	return 0;
}

/* A quoted Python string (no escapes needed for our keys and descrs). */
static int quoted(scan *s, char *out, size_t n)
{
	skip_ws(s);
	if (s->p >= s->end || (*s->p != '\'' && *s->p != '"'))
		return 0;
	char q = *s->p++;
	size_t i = 0;
	while (s->p < s->end && *s->p != q) {
		if (i + 1 >= n || *s->p == '\\')
			return 0;
		out[i++] = *s->p++;
	}
	if (s->p >= s->end)
		return 0;
	s->p++;
	out[i] = 0;
	return 1;
}

/* Validates the header; sets everything but t->data, and the data offset. */
static int parse(const void *img, size_t len, cko_tensor *t, size_t *data_at, char *err, size_t errlen)
{
	const unsigned char *b = img;
	memset(t, 0, sizeof *t);
	if (len < 10 || memcmp(b, "\x93NUMPY", 6)) {
		snprintf(err, errlen, "not a .npy file (bad magic)");
		return -1;
	}
	int major = b[6];
	size_t hlen, hstart;
	if (major == 1) {
		hlen = (size_t)b[8] | (size_t)b[9] << 8;
		hstart = 10;
	} else if (major == 2 || major == 3) {
		if (len < 12) {
			snprintf(err, errlen, "truncated header");
			return -1;
		}
		hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
		hstart = 12;
	} else {
		snprintf(err, errlen, "unsupported .npy version %d", major);
		return -1;
	}
	if (hlen > 1 << 20) {
		snprintf(err, errlen, "header of %zu bytes is longer than 1 MiB", hlen);
		return -1;
	}
	if (hlen > len - hstart) {
		snprintf(err, errlen, "truncated header");
		return -1;
	}
	scan s = {(const char *)b + hstart, (const char *)b + hstart + hlen};
	char key[32], descr[16] = "";
	int have_descr = 0, have_order = 0, have_shape = 0;
	if (!eat(&s, '{'))
		goto bad;
	while (!eat(&s, '}')) {
		if (!quoted(&s, key, sizeof key) || !eat(&s, ':'))
			goto bad;
		if (!strcmp(key, "descr") && !have_descr) {
			if (!quoted(&s, descr, sizeof descr))
				goto bad;
			have_descr = 1;
		} else if (!strcmp(key, "fortran_order") && !have_order) {
			skip_ws(&s);
			if (s.end - s.p >= 5 && !memcmp(s.p, "False", 5)) {
				s.p += 5;
			} else if (s.end - s.p >= 4 && !memcmp(s.p, "True", 4)) {
				snprintf(err, errlen, "Fortran-order arrays are not supported (save C order)");
				return -1;
			} else {
				goto bad;
			}
			have_order = 1;
		} else if (!strcmp(key, "shape") && !have_shape) {
			if (!eat(&s, '('))
				goto bad;
			while (!eat(&s, ')')) {
				skip_ws(&s);
				if (s.p >= s.end || !isdigit((unsigned char)*s.p))
					goto bad;
				int64_t v = 0;
				while (s.p < s.end && isdigit((unsigned char)*s.p)) {
					if (v > (INT64_MAX - 9) / 10)
						goto toobig;
					v = v * 10 + (*s.p++ - '0');
				}
				if (s.p < s.end && *s.p == 'L')
					s.p++;
				if (t->ndim == CKO_MAXDIM) {
					snprintf(err, errlen, "more than %d dimensions", CKO_MAXDIM);
					return -1;
				}
				t->shape[t->ndim++] = v;
				if (!eat(&s, ',')) {
					if (!eat(&s, ')'))
						goto bad;
					break;
				}
			}
			have_shape = 1;
		} else {
			snprintf(err, errlen, "unexpected or repeated header key '%s'", key);
			return -1;
		}
		if (!eat(&s, ',')) {
			if (!eat(&s, '}'))
				goto bad;
			break;
		}
	}
	/* Only NumPy's padding may follow the dictionary. */
	while (s.p < s.end && (*s.p == ' ' || *s.p == '\t' || *s.p == '\r' || *s.p == '\n'))
		s.p++;
	if (s.p < s.end)
		goto bad;
	if (!have_descr || !have_order || !have_shape) {
		snprintf(err, errlen, "header lacks %s", !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
		return -1;
	}
	if (!cko_dtype_from_descr(descr, &t->dtype)) {
		snprintf(err, errlen, "unsupported dtype '%s'%s", descr, descr[0] == '>' ? " (big-endian)" : "");
		return -1;
	}
	size_t count = 1, es = cko_dtype_size(t->dtype);
	for (int i = 0; i < t->ndim; i++) {
		if (t->shape[i] && count > SIZE_MAX / es / (size_t)t->shape[i])
			goto toobig;
		count *= (size_t)t->shape[i];
	}
	t->count = count;
	size_t data_off = hstart + hlen, need = count * es;
	if (len - data_off != need) {
		snprintf(err, errlen, "data is %zu bytes, the header's shape and dtype need %zu", len - data_off, need);
		return -1;
	}
	*data_at = data_off;
	return 0;
bad:
	/* The header is not NUL-terminated: print at most what is left of it. */
	snprintf(err, errlen, "malformed header near '%.*s'", s.end - s.p < 20 ? (int)(s.end - s.p) : 20,
		 s.p < s.end ? s.p : "");
	return -1;
toobig:
	snprintf(err, errlen, "shape too large");
	return -1;
}

int cko_npy_parse(const void *img, size_t len, cko_tensor *t, char *err, size_t errlen)
{
	size_t at;
	if (parse(img, len, t, &at, err, errlen))
		return -1;
	size_t need = cko_tensor_bytes(t);
	t->data = xmalloc(need);
	memcpy(t->data, (const unsigned char *)img + at, need);
	return 0;
}

/* Regular files are mapped, not read: the GPU tools upload gigabytes
 * straight from the page cache, and a tensor costs no copy on the heap.
 * The mapping is private and writable (copy on write): the file never
 * changes. Pipes and other files are read. */
static int map_file(const char *path, cko_tensor *t, int readonly, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 1; /* not a regular file: read it */
	}
	size_t len = (size_t)st.st_size, at;
	/* Read-only, the pages are faulted in at once (for the upload: a
	 * writable private mapping would copy every page when it is pinned). */
	void *img = readonly ? mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0)
			     : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return 1;
	if (!readonly)
		madvise(img, len, MADV_WILLNEED);
	char e[512];
	if (parse(img, len, t, &at, e, sizeof e)) {
		munmap(img, len);
		snprintf(err, errlen, "%s: %s", path, e);
		return -1;
	}
	t->data = (unsigned char *)img + at;
	t->map = img;
	t->map_len = len;
	return 0;
}

static int try_read(const char *path, cko_tensor *t, int readonly, char *err, size_t errlen)
{
	size_t len, at;
	char e[512];
	memset(t, 0, sizeof *t);
	if (strcmp(path, "-")) {
		int m = map_file(path, t, readonly, err, errlen);
		if (m <= 0)
			return m;
	}
	char *img = cko_try_read_file(path, (size_t)1 << 40, &len, e, sizeof e);
	if (!img) {
		snprintf(err, errlen, "%s", e);
		return -1;
	}
	if (parse(img, len, t, &at, e, sizeof e)) {
		free(img);
		snprintf(err, errlen, "%s: %s", path, e);
		return -1;
	}
	/* The data moves to the front of the file's buffer: no second copy of a
	 * tensor that may be gigabytes. */
	memmove(img, img + at, len - at);
	t->data = img;
	return 0;
}

int cko_npy_try_read(const char *path, cko_tensor *t, char *err, size_t errlen)
{
	return try_read(path, t, 0, err, errlen);
}

void cko_npy_map(const char *path, cko_tensor *t)
{
	char err[768];
	if (try_read(path, t, 1, err, sizeof err))
		cko_die(CKO_BADINPUT, "%s", err);
}

void cko_npy_read(const char *path, cko_tensor *t)
{
	char err[768];
	if (cko_npy_try_read(path, t, err, sizeof err))
		cko_die(CKO_BADINPUT, "%s", err);
}

/* The header: magic, version, length and the padded dictionary. */
static unsigned char *header(const cko_tensor *t, size_t *hlen)
{
	cko_buf h = {0};
	buf_printf(&h, "{'descr': '%s', 'fortran_order': False, 'shape': (", cko_dtype_descr(t->dtype));
	for (int i = 0; i < t->ndim; i++)
		buf_printf(&h, "%lld%s", (long long)t->shape[i], t->ndim == 1 ? "," : i + 1 < t->ndim ? ", " : "");
	buf_puts(&h, "), }");
	size_t pre = 10, total = pre + h.len + 1;
	int v2 = 0;
	if (((total + 63) / 64) * 64 - pre > 65535) {
		v2 = 1;
		pre = 12;
		total = pre + h.len + 1;
	}
	size_t padded = (total + 63) / 64 * 64;
	while (h.len + pre + 1 < padded)
		buf_puts(&h, " ");
	buf_puts(&h, "\n");
	*hlen = pre + h.len;
	unsigned char *img = xmalloc(*hlen);
	memcpy(img, "\x93NUMPY", 6);
	img[6] = v2 ? 2 : 1;
	img[7] = 0;
	if (v2) {
		for (int i = 0; i < 4; i++)
			img[8 + i] = (unsigned char)(h.len >> (8 * i));
	} else {
		img[8] = (unsigned char)(h.len & 255);
		img[9] = (unsigned char)(h.len >> 8);
	}
	memcpy(img + pre, h.s, h.len);
	buf_free(&h);
	return img;
}

void *cko_npy_image(const cko_tensor *t, size_t *len)
{
	size_t hl, data = cko_tensor_bytes(t);
	unsigned char *h = header(t, &hl);
	*len = hl + data;
	unsigned char *img = xrealloc(h, *len);
	if (data)
		memcpy(img + hl, t->data, data);
	return img;
}

void cko_npy_write(const char *path, const cko_tensor *t)
{
	size_t hl;
	unsigned char *h = header(t, &hl);
	cko_write_file2(path, h, hl, t->data, cko_tensor_bytes(t));
	free(h);
}
