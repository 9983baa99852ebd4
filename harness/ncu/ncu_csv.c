/* ncu_csv.c: Nsight Compute's CSV exports read into a table (see ncu.h). */
#include "ncu.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- CSV ---- */

typedef struct {
	char **f;
	int n, cap;
} record;

static void rec_add(record *r, cko_buf *field)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->f = xrealloc(r->f, (size_t)r->cap * sizeof *r->f);
	}
	r->f[r->n++] = field->s ? field->s : xstrdup("");
	memset(field, 0, sizeof *field);
}

static void rec_free(record *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof *r);
}

/* One record from *p (RFC 4180: quotes, doubled quotes, newlines inside
 * quotes). Returns 0 at the end of input, -1 on an unterminated quote. */
static int next_record(const char **p, record *r)
{
	const char *s = *p;
	memset(r, 0, sizeof *r);
	if (!*s)
		return 0;
	cko_buf f = {0};
	buf_add(&f, "", 0);
	for (;;) {
		if (*s == '"') {
			s++;
			for (;;) {
				if (!*s) {
					buf_free(&f);
					rec_free(r);
					return -1;
				}
				if (*s == '"' && s[1] == '"') {
					buf_add(&f, "\"", 1);
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					buf_add(&f, s++, 1);
				}
			}
			/* Text after a closing quote is kept, as lenient parsers do. */
		}
		while (*s && *s != ',' && *s != '\n' && *s != '\r')
			buf_add(&f, s++, 1);
		if (*s == ',') {
			rec_add(r, &f);
			buf_add(&f, "", 0);
			s++;
			continue;
		}
		rec_add(r, &f);
		if (*s == '\r')
			s++;
		if (*s == '\n')
			s++;
		break;
	}
	*p = s;
	return 1;
}

static int find(const record *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->f[i], name))
			return i;
	return -1;
}

static int add_col(cko_ncu_table *t, const char *name, const char *unit)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return i;
	t->names = xrealloc(t->names, (size_t)(t->ncols + 1) * sizeof *t->names);
	t->units = xrealloc(t->units, (size_t)(t->ncols + 1) * sizeof *t->units);
	t->names[t->ncols] = xstrdup(name);
	t->units[t->ncols] = xstrdup(unit ? unit : "");
	return t->ncols++;
}

static void set_cell(cko_ncu_table *t, int row, int col, const char *v)
{
	free(t->cells[(size_t)row * (size_t)t->ncols + (size_t)col]);
	t->cells[(size_t)row * (size_t)t->ncols + (size_t)col] = xstrdup(v);
}

/* The long (details page) form: rows of ID, ..., Metric Name, Metric Unit,
 * Metric Value, pivoted into one row per ID. */
static int pivot(record *hdr, record *rows, int nrows, cko_ncu_table *t, char *err, size_t errlen)
{
	int cid = find(hdr, "ID"), cname = find(hdr, "Metric Name"), cunit = find(hdr, "Metric Unit"),
	    cval = find(hdr, "Metric Value");
	/* Columns: the descriptive ones before "Section Name"/"Metric Name". */
	int ndesc = find(hdr, "Section Name") >= 0 ? find(hdr, "Section Name") : cname;
	for (int i = 0; i < ndesc; i++)
		add_col(t, hdr->f[i], "");
	char **ids = xcalloc((size_t)nrows + 1, sizeof *ids);
	int nid = 0;
	for (int r = 0; r < nrows; r++) {
		if (rows[r].n <= cval || rows[r].n <= cname)
			continue;
		add_col(t, rows[r].f[cname], cunit >= 0 && rows[r].n > cunit ? rows[r].f[cunit] : "");
		int k = 0;
		while (k < nid && strcmp(ids[k], rows[r].f[cid]))
			k++;
		if (k == nid)
			ids[nid++] = rows[r].f[cid];
	}
	if (!nid) {
		free(ids);
		snprintf(err, errlen, "no metric rows after the header");
		return -1;
	}
	t->nrows = nid;
	t->cells = xcalloc((size_t)nid * (size_t)t->ncols, sizeof *t->cells);
	for (int r = 0; r < nrows; r++) {
		if (rows[r].n <= cval || rows[r].n <= cname)
			continue;
		int k = 0;
		while (strcmp(ids[k], rows[r].f[cid]))
			k++;
		for (int i = 0; i < ndesc && i < rows[r].n; i++)
			set_cell(t, k, i, rows[r].f[i]);
		set_cell(t, k, cko_ncu_col(t, rows[r].f[cname]), rows[r].f[cval]);
	}
	free(ids);
	return 0;
}

int cko_ncu_parse_csv(const char *text, cko_ncu_table *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	const char *p = text;
	record hdr = {0};
	/* The header: the first record whose first field is "ID". Lines of
	 * other output before it are skipped whole. */
	for (;;) {
		const char *line = p;
		int k = next_record(&p, &hdr);
		if (k == 0) {
			snprintf(err, errlen, "no header row (a first column named \"ID\"): not ncu CSV output");
			return -1;
		}
		if (k < 0) {
			/* An unbalanced quote in a noise line: skip the line. */
			const char *nl = strchr(line, '\n');
			if (!nl) {
				snprintf(err, errlen, "no header row (a first column named \"ID\"): not ncu CSV output");
				return -1;
			}
			p = nl + 1;
			continue;
		}
		if (hdr.n > 1 && !strcmp(hdr.f[0], "ID"))
			break;
		rec_free(&hdr);
	}
	int cap = 16, n = 0, rc = 0;
	record *rows = xcalloc((size_t)cap, sizeof *rows);
	for (;;) {
		record r;
		int k = next_record(&p, &r);
		if (k == 0)
			break;
		if (k < 0) {
			snprintf(err, errlen, "record %d after the header: unterminated quoted field", n + 1);
			rc = -1;
			break;
		}
		if (r.n == 1 && !*r.f[0]) { /* a blank line */
			rec_free(&r);
			continue;
		}
		if (r.n == 1 && !strncmp(r.f[0], "==", 2)) { /* a trailing ==PROF== line */
			rec_free(&r);
			continue;
		}
		if (n == cap)
			rows = xrealloc(rows, (size_t)(cap *= 2) * sizeof *rows);
		rows[n++] = r;
	}
	if (!rc && find(&hdr, "Metric Name") >= 0 && find(&hdr, "Metric Value") >= 0) {
		rc = pivot(&hdr, rows, n, t, err, errlen);
	} else if (!rc) {
		/* The raw form: an optional units row (empty ID), then kernels. */
		int first = 0;
		for (int i = 0; i < hdr.n; i++)
			add_col(t, hdr.f[i], n > 0 && !*rows[0].f[0] && rows[0].n > i ? rows[0].f[i] : "");
		if (t->ncols != hdr.n) {
			snprintf(err, errlen, "the header repeats a column name");
			rc = -1;
		}
		if (!rc && n > 0 && !*rows[0].f[0])
			first = 1;
		t->nrows = n - first;
		t->cells = xcalloc((size_t)(t->nrows > 0 ? t->nrows : 1) * (size_t)t->ncols, sizeof *t->cells);
		for (int r = first; !rc && r < n; r++) {
			if (rows[r].n != hdr.n) {
				snprintf(err, errlen, "row %d has %d fields, the header %d", r + 2, rows[r].n, hdr.n);
				rc = -1;
				break;
			}
			for (int i = 0; i < hdr.n; i++)
				set_cell(t, r - first, i, rows[r].f[i]);
		}
		if (!rc && t->nrows <= 0) {
			snprintf(err, errlen, "no kernel rows: ncu profiled nothing");
			rc = -1;
		}
	}
	for (int i = 0; i < n; i++)
		rec_free(&rows[i]);
	free(rows);
	rec_free(&hdr);
	if (rc)
		cko_ncu_table_free(t);
	return rc;
}

void cko_ncu_table_free(cko_ncu_table *t)
{
	for (int i = 0; i < t->ncols; i++) {
		free(t->names[i]);
		free(t->units[i]);
	}
	if (t->cells)
		for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++)
			free(t->cells[i]);
	free(t->names);
	free(t->units);
	free(t->cells);
	memset(t, 0, sizeof *t);
}

int cko_ncu_col(const cko_ncu_table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->names[i], name))
			return i;
	return -1;
}

const char *cko_ncu_cell(const cko_ncu_table *t, int row, int col)
{
	if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols)
		return "";
	const char *c = t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
	return c ? c : "";
}

int cko_ncu_number(const char *s, double *v)
{
	char buf[128];
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (!n || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	char *lc = strrchr(buf, ','), *ld = strrchr(buf, '.');
	int commas = 0, dots = 0;
	for (char *q = buf; *q; q++)
		commas += *q == ',', dots += *q == '.';
	char dec = '.', group = ',';
	if (commas && dots)
		dec = lc > ld ? ',' : '.', group = lc > ld ? '.' : ',';
	else if (commas == 1 && !(strlen(lc + 1) == 3 && strspn(lc + 1, "0123456789") == 3))
		dec = ',', group = '.'; /* "65,77": a decimal comma */
	else if (dots > 1)
		dec = ',', group = '.'; /* "27.595.520": dots group thousands */
	char clean[128];
	size_t k = 0;
	for (char *q = buf; *q; q++) {
		if (*q == group)
			continue;
		clean[k++] = *q == dec ? '.' : *q;
	}
	clean[k] = 0;
	char *end;
	double x = strtod(clean, &end);
	if (end == clean || *end || isnan(x) || isinf(x))
		return -1;
	*v = x;
	return 0;
}

int cko_ncu_find_kernel(const cko_ncu_table *t, const char *entry)
{
	int col = cko_ncu_col(t, "Kernel Name"), found = -1;
	size_t n = strlen(entry);
	for (int r = 0; col >= 0 && r < t->nrows; r++) {
		const char *k = cko_ncu_cell(t, r, col);
		if (found < 0 && !strncmp(k, entry, n) && (k[n] == 0 || k[n] == '(' || k[n] == '<'))
			found = r;
	}
	if (found >= 0)
		return found; /* the first launch of the entry */
	return t->nrows == 1 && col < 0 ? 0 : -1;
}
