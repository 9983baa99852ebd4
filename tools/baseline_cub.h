/* baseline_cub.h: the C interface of baseline_cub.cu (CUB's row sums,
 * cko-baseline's reduce_sum baseline). Errors: -1 with err filled. */
#ifndef CKO_BASELINE_CUB_H
#define CKO_BASELINE_CUB_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CKO_CUB_SEGMENTED, CKO_CUB_PER_ROW };
typedef struct cko_cub_rows cko_cub_rows;
/* Offsets and temporary storage for summing R rows of N floats. */
int cko_cub_rows_init(cko_cub_rows **h, int method, long long R, long long N, char *err, size_t errlen);
/* Enqueues y[r] = sum of row r of x on the stream (a CUstream). */
int cko_cub_rows_run(cko_cub_rows *h, const float *x, float *y, void *stream, char *err, size_t errlen);
void cko_cub_rows_free(cko_cub_rows *h);
int cko_cub_version(void); /* CUB_VERSION, e.g. 300001 */

#ifdef __cplusplus
}
#endif
#endif
