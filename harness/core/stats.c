/* stats.c: summary statistics of timing samples. */
#include "cko.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks (NumPy's default). */
static double quantile(const double *s, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;
	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

void cko_stats_compute(const double *x, int n, cko_stats *st)
{
	memset(st, 0, sizeof *st);
	st->n = n;
	if (n <= 0)
		return;
	double *s = xmalloc((size_t)n * sizeof *s);
	memcpy(s, x, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_d);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += s[i];
	st->mean = sum / n;
	double ss = 0;
	for (int i = 0; i < n; i++)
		ss += (s[i] - st->mean) * (s[i] - st->mean);
	st->stdev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	st->min = s[0];
	st->max = s[n - 1];
	st->median = quantile(s, n, 0.5);
	st->p10 = quantile(s, n, 0.1);
	st->p90 = quantile(s, n, 0.9);
	st->cv = st->mean > 0 ? st->stdev / st->mean : 0;
	free(s);
}

cJSON *cko_stats_json(const cko_stats *st, const char *sfx)
{
	cJSON *o = cJSON_CreateObject();
	char k[32];
#define PUT(name, v)                                                                                               \
	snprintf(k, sizeof k, "%s%s", name, sfx);                                                                  \
	cJSON_AddNumberToObject(o, k, v)
	PUT("median", st->median);
	PUT("mean", st->mean);
	PUT("min", st->min);
	PUT("max", st->max);
	PUT("stdev", st->stdev);
	PUT("p10", st->p10);
	PUT("p90", st->p90);
#undef PUT
	cJSON_AddNumberToObject(o, "cv", st->cv);
	cJSON_AddNumberToObject(o, "n", st->n);
	return o;
}
