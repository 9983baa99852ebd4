/* fuzz-npy.c: libFuzzer harness for cko_npy_parse. Any input must either
 * be refused with a message or parse into a tensor whose size agrees with
 * its shape, whose image parses back to the same tensor, and which
 * compares equal to itself. */
#include "cko.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cko_tensor t, u;
	char err[256] = "";
	if (cko_npy_parse(data, size, &t, err, sizeof err)) {
		if (!err[0] || t.data)
			abort(); /* a refusal must say why and own nothing */
		return 0;
	}
	size_t n = 1;
	for (int i = 0; i < t.ndim; i++)
		n *= (size_t)t.shape[i];
	if (t.ndim < 0 || t.ndim > CKO_MAXDIM || n != t.count || t.dtype >= CKO_NDTYPES)
		abort();
	size_t len;
	void *img = cko_npy_image(&t, &len);
	if (cko_npy_parse(img, len, &u, err, sizeof err) || u.dtype != t.dtype || u.ndim != t.ndim ||
	    u.count != t.count || memcmp(u.shape, t.shape, sizeof t.shape[0] * (size_t)t.ndim) ||
	    memcmp(u.data, t.data, cko_tensor_bytes(&t)))
		abort();
	cko_tol tol;
	cko_tol_default(t.dtype, &tol);
	cko_cmp r;
	cko_compare(&t, &u, &tol, CKO_MAX_FIRST, &r);
	if (!r.ok)
		abort();
	cJSON_Delete(cko_cmp_json(&r, &t, &tol));
	free(img);
	cko_tensor_free(&t);
	cko_tensor_free(&u);
	return 0;
}
