/* ncu.h: Nsight Compute CSV exports and the metrics cko-profile keeps.
 *
 * `ncu --import R --csv --page raw` prints one header row of column names
 * (ID, Process ID, ..., Kernel Name, ..., then metric names), one row of
 * units, and one row per profiled kernel, every field quoted. The details
 * page (one row per metric with "Metric Name", "Metric Unit" and "Metric
 * Value" columns) is accepted too and pivoted into the same table. Values
 * may carry thousands separators ("1,234.5"). */
#ifndef CKO_NCU_H
#define CKO_NCU_H

#include "cko.h"

typedef struct {
	int ncols, nrows;
	char **names; /* [ncols] */
	char **units; /* [ncols], "" where none */
	char **cells; /* [nrows * ncols], "" where none */
} cko_ncu_table;

/* Parses CSV text; lines before the header (==PROF== messages, program
 * output) are skipped. 0, or -1 with a message in err. */
int cko_ncu_parse_csv(const char *text, cko_ncu_table *t, char *err, size_t errlen);
void cko_ncu_table_free(cko_ncu_table *t);
/* Column index of a name, or -1. */
int cko_ncu_col(const cko_ncu_table *t, const char *name);
const char *cko_ncu_cell(const cko_ncu_table *t, int row, int col);
/* A number as ncu prints it: "1,234.5", "1.234,5", "12", "3.1e+05".
 * 0 and *v on success; -1 for "", "n/a" and anything else. */
int cko_ncu_number(const char *s, double *v);
/* The first row of the kernel named entry ("entry", "entry(...)" or
 * "entry<...>"); the only row of a table without a "Kernel Name" column;
 * else -1. */
int cko_ncu_find_kernel(const cko_ncu_table *t, const char *entry);

/* The metrics cko-profile asks ncu for, NULL-terminated. */
extern const char *const cko_ncu_metrics[];
/* Comma-separated list of cko_ncu_metrics, for --metrics; allocated. */
char *cko_ncu_metric_list(void);

/* Adds "kernel", "device", "metrics" (name -> {value, unit}), "missing"
 * and "derived" for row `row` of t to the profile object. */
void cko_ncu_profile(const cko_ncu_table *t, int row, cJSON *profile);
/* A short plain-text summary (10-15 lines) of a profile for a language
 * model; allocated. */
char *cko_ncu_summary(const cJSON *profile);

#endif
