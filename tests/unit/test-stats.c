/* test-stats.c: summary statistics on known arrays (quantiles as NumPy's
 * default linear interpolation) and their JSON. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * (1 + fabs(b)); }

int main(void)
{
	cko_stats st;
	double x[] = {5, 1, 4, 2, 3};
	cko_stats_compute(x, 5, &st);
	CHECK("stats-odd", st.n == 5 && st.median == 3 && st.mean == 3 && st.min == 1 && st.max == 5 &&
				   near(st.stdev, sqrt(2.5)) && near(st.p10, 1.4) && near(st.p90, 4.6) &&
				   near(st.cv, sqrt(2.5) / 3));
	CHECK("stats-input-untouched", x[0] == 5 && x[1] == 1);
	double y[] = {4, 1, 3, 2};
	cko_stats_compute(y, 4, &st);
	CHECK("stats-even", st.median == 2.5 && near(st.p10, 1.3) && near(st.p90, 3.7));
	double one[] = {7.5};
	cko_stats_compute(one, 1, &st);
	CHECK("stats-one", st.n == 1 && st.median == 7.5 && st.p10 == 7.5 && st.p90 == 7.5 && st.stdev == 0 && st.cv == 0);
	cko_stats_compute(NULL, 0, &st);
	CHECK("stats-empty", st.n == 0 && st.median == 0 && st.mean == 0);
	double z[100];
	for (int i = 0; i < 100; i++)
		z[i] = 100 - i; /* 100..1 */
	cko_stats_compute(z, 100, &st);
	CHECK("stats-hundred", st.median == 50.5 && near(st.p10, 10.9) && near(st.p90, 90.1) && st.min == 1 && st.max == 100);
	double same[] = {2, 2, 2};
	cko_stats_compute(same, 3, &st);
	CHECK("stats-constant", st.stdev == 0 && st.cv == 0 && st.p10 == 2);

	cko_stats_compute(x, 5, &st);
	cJSON *j = cko_stats_json(&st, "_ms");
	CHECK("stats-json", cJSON_GetObjectItem(j, "median_ms")->valuedouble == 3 &&
				    cJSON_GetObjectItem(j, "p90_ms") && cJSON_GetObjectItem(j, "stdev_ms") &&
				    cJSON_GetObjectItem(j, "min_ms") && cJSON_GetObjectItem(j, "max_ms") &&
				    cJSON_GetObjectItem(j, "mean_ms") && cJSON_GetObjectItem(j, "p10_ms") &&
				    cJSON_GetObjectItem(j, "cv") && cJSON_GetObjectItem(j, "n")->valuedouble == 5 &&
				    cJSON_GetArraySize(j) == 9);
	cJSON_Delete(j);
	TEST_END();
}
