/* dtype.c: element types, their .npy descriptors, and element access. */
#include "cko.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name, *descr;
	size_t size;
} types[CKO_NDTYPES] = {
	[CKO_F16] = {"f16", "<f2", 2}, [CKO_F32] = {"f32", "<f4", 4}, [CKO_F64] = {"f64", "<f8", 8},
	[CKO_I8] = {"i8", "|i1", 1},   [CKO_I16] = {"i16", "<i2", 2}, [CKO_I32] = {"i32", "<i4", 4},
	[CKO_I64] = {"i64", "<i8", 8}, [CKO_U8] = {"u8", "|u1", 1},   [CKO_U16] = {"u16", "<u2", 2},
	[CKO_U32] = {"u32", "<u4", 4}, [CKO_U64] = {"u64", "<u8", 8},
};

int cko_dtype_parse(const char *name, cko_dtype *out)
{
	for (int i = 0; i < CKO_NDTYPES; i++)
		if (!strcmp(name, types[i].name)) {
			*out = (cko_dtype)i;
			return 1;
		}
	return 0;
}

const char *cko_dtype_name(cko_dtype t) { return types[t].name; }
size_t cko_dtype_size(cko_dtype t) { return types[t].size; }
const char *cko_dtype_descr(cko_dtype t) { return types[t].descr; }

int cko_dtype_from_descr(const char *d, cko_dtype *out)
{
	/* Single-byte types may be written with '|', '<' or '='. */
	for (int i = 0; i < CKO_NDTYPES; i++) {
		const char *td = types[i].descr;
		int ok = !strcmp(d, td);
		if (!ok && strlen(d) == 3 && (d[0] == '<' || d[0] == '|' || d[0] == '=') &&
		    !strcmp(d + 1, td + 1))
			ok = types[i].size == 1 || d[0] != '|';
		if (ok) {
			*out = (cko_dtype)i;
			return 1;
		}
	}
	return 0;
}

int cko_dtype_is_float(cko_dtype t) { return t <= CKO_F64; }
int cko_dtype_is_signed(cko_dtype t) { return t <= CKO_I64; }

float cko_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31, man = h & 1023;
	uint32_t bits;
	if (exp == 31) {
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp == 0) {
		float f = ldexpf((float)man, -24);
		return sign ? -f : f;
	} else {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	}
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t cko_float_to_half(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t ax = x & 0x7fffffffu;
	if (ax >= 0x7f800000u) /* Inf or NaN (NaN stays quiet) */
		return sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 | ((ax >> 13) & 0x3ff) : 0);
	if (ax >= 0x477ff000u) /* rounds to >= 65520: overflow */
		return sign | 0x7c00;
	if (ax < 0x38800000u) { /* subnormal half: round to nearest even on the 2^-24 grid */
		float a;
		memcpy(&a, &ax, 4);
		float q = nearbyintf(a * 16777216.0f);
		return sign | (uint16_t)q;
	}
	uint32_t e = (ax >> 23) - 112, m = ax & 0x7fffff;
	uint32_t h = (e << 10) | (m >> 13);
	uint32_t rest = m & 0x1fff;
	if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
		h++;
	return sign | (uint16_t)h;
}

double cko_elem_get(cko_dtype t, const void *data, size_t i)
{
	switch (t) {
	case CKO_F16: return cko_half_to_float(((const uint16_t *)data)[i]);
	case CKO_F32: return ((const float *)data)[i];
	case CKO_F64: return ((const double *)data)[i];
	case CKO_I8: return ((const int8_t *)data)[i];
	case CKO_I16: return ((const int16_t *)data)[i];
	case CKO_I32: return ((const int32_t *)data)[i];
	case CKO_I64: return (double)((const int64_t *)data)[i];
	case CKO_U8: return ((const uint8_t *)data)[i];
	case CKO_U16: return ((const uint16_t *)data)[i];
	case CKO_U32: return ((const uint32_t *)data)[i];
	case CKO_U64: return (double)((const uint64_t *)data)[i];
	default: return 0;
	}
}

static double clampd(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	return v < lo ? lo : v > hi ? hi : v;
}

void cko_elem_set(cko_dtype t, void *data, size_t i, double v)
{
	switch (t) {
	case CKO_F16: ((uint16_t *)data)[i] = cko_float_to_half((float)v); break;
	case CKO_F32: ((float *)data)[i] = (float)v; break;
	case CKO_F64: ((double *)data)[i] = v; break;
	case CKO_I8: ((int8_t *)data)[i] = (int8_t)clampd(nearbyint(v), -128, 127); break;
	case CKO_I16: ((int16_t *)data)[i] = (int16_t)clampd(nearbyint(v), -32768, 32767); break;
	case CKO_I32: ((int32_t *)data)[i] = (int32_t)clampd(nearbyint(v), -2147483648.0, 2147483647.0); break;
	case CKO_I64:
		((int64_t *)data)[i] = (int64_t)clampd(nearbyint(v), -9223372036854775808.0, 9223372036854774784.0);
		break;
	case CKO_U8: ((uint8_t *)data)[i] = (uint8_t)clampd(nearbyint(v), 0, 255); break;
	case CKO_U16: ((uint16_t *)data)[i] = (uint16_t)clampd(nearbyint(v), 0, 65535); break;
	case CKO_U32: ((uint32_t *)data)[i] = (uint32_t)clampd(nearbyint(v), 0, 4294967295.0); break;
	case CKO_U64: ((uint64_t *)data)[i] = (uint64_t)clampd(nearbyint(v), 0, 18446744073709549568.0); break;
	default: break;
	}
}
