/* compare_elem.h: the verdict on one element, shared word for word by the
 * host comparison (compare.c) and the device one (gpu_compare.cu), so that
 * a tensor passes on the GPU exactly when it would pass on the CPU.
 * Plain C that nvcc also compiles (built with -fmad=false: no fused
 * multiply-add, the same rounding as the host's double arithmetic). */
#ifndef CKO_COMPARE_ELEM_H
#define CKO_COMPARE_ELEM_H

#ifdef __CUDACC__
#define CKO_HD __host__ __device__
#else
#include <math.h>
#define CKO_HD
#endif

/* What one element contributes to the statistics. */
typedef struct {
	int ok;
	int nan;   /* the actual value is NaN */
	int inf;   /* the actual value is infinite */
	double d;  /* |a - e| when both are finite, else -1 */
	double rel; /* d / |e| when both are finite and e != 0, else -1 */
} cko_elem_verdict;

/* |a - e| <= atol + rtol * |e|; NaN matches NaN when nan_equal; an
 * infinity only the same infinity. */
static inline CKO_HD cko_elem_verdict cko_elem_check(double e, double a, double atol, double rtol, int nan_equal)
{
	cko_elem_verdict v = {0, 0, 0, -1, -1};
	if (isnan(a) || isnan(e)) {
		v.nan = isnan(a) ? 1 : 0;
		v.ok = isnan(a) && isnan(e) && nan_equal;
	} else if (isinf(a) || isinf(e)) {
		v.inf = isinf(a) ? 1 : 0;
		v.ok = a == e;
	} else {
		v.d = fabs(a - e);
		v.ok = v.d <= atol + rtol * fabs(e);
		if (e != 0)
			v.rel = v.d / fabs(e);
	}
	return v;
}

#endif
