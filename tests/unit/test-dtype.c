/* test-dtype.c: dtype names and descriptors, element access with rounding
 * and saturation, and the f16 conversions checked exhaustively: every half
 * round-trips, every float between two halves rounds to the nearer (ties
 * to even), overflow gives infinity, subnormals are kept. */
#include "test.h"

#include <float.h>
#include <math.h>

static float bits_f(uint32_t b)
{
	float f;
	memcpy(&f, &b, 4);
	return f;
}

static int half_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/* The value of a half computed independently of dtype.c. */
static double half_value(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
	return h & 0x8000 ? -v : v;
}

static void half_exhaustive(void)
{
	int value_bad = 0, trip_bad = 0, nan_bad = 0;
	for (uint32_t h = 0; h < 65536; h++) {
		float f = cko_half_to_float((uint16_t)h);
		double want = half_value((uint16_t)h);
		if (half_is_nan((uint16_t)h)) {
			uint16_t back = cko_float_to_half(f);
			if (!isnan(f) || !half_is_nan(back) || (back & 0x8000) != (h & 0x8000) ||
			    !!signbit(f) != !!(h & 0x8000))
				nan_bad++;
			continue;
		}
		if ((double)f != want || !!signbit(f) != !!(h & 0x8000))
			value_bad++;
		if (cko_float_to_half(f) != h)
			trip_bad++;
	}
	CHECK("f16-all-values-exact", value_bad == 0);
	CHECK("f16-all-round-trip", trip_bad == 0);
	CHECK("f16-nan-stays-nan", nan_bad == 0);
	if (value_bad + trip_bad + nan_bad)
		printf("# %d values, %d round trips, %d NaNs wrong\n", value_bad, trip_bad, nan_bad);
}

/* Between consecutive halves lo and lo+1 (same sign, both finite or the
 * upper one infinity): the midpoint goes to the even one, anything below it
 * to lo, anything above to lo+1. */
static void half_rounding(void)
{
	int bad = 0;
	for (uint32_t s = 0; s < 2; s++) {
		for (uint32_t lo = 0; lo < 0x7c00; lo++) {
			uint16_t a = (uint16_t)(lo | s << 15), b = (uint16_t)((lo + 1) | s << 15);
			double va = half_value(a), vb = lo + 1 == 0x7c00 ? (s ? -65536.0 : 65536.0) : half_value(b);
			float mid = (float)((va + vb) / 2); /* exact: 12 significant bits */
			uint16_t even = (lo & 1) ? b : a;
			if (cko_float_to_half(mid) != even)
				bad++;
			float below = nextafterf(mid, (float)va), above = nextafterf(mid, (float)vb);
			if (cko_float_to_half(below) != a || cko_float_to_half(above) != b)
				bad++;
			/* a quarter of the way up is still lo */
			if (cko_float_to_half((float)(va + (vb - va) / 4)) != a)
				bad++;
		}
	}
	CHECK("f16-round-to-nearest-even", bad == 0);
	if (bad)
		printf("# %d rounding cases wrong\n", bad);
}

static void half_edges(void)
{
	CHECK("f16-overflow-inf", cko_float_to_half(1e5f) == 0x7c00 && cko_float_to_half(-1e5f) == 0xfc00);
	CHECK("f16-flt-max-inf", cko_float_to_half(FLT_MAX) == 0x7c00);
	CHECK("f16-65519-is-max", cko_float_to_half(65519.0f) == 0x7bff);
	CHECK("f16-65520-ties-to-inf", cko_float_to_half(65520.0f) == 0x7c00);
	CHECK("f16-inf", cko_float_to_half(INFINITY) == 0x7c00 && cko_float_to_half(-INFINITY) == 0xfc00);
	CHECK("f16-nan", half_is_nan(cko_float_to_half(NAN)) && half_is_nan(cko_float_to_half(-NAN)) &&
				 (cko_float_to_half(-NAN) & 0x8000));
	/* a float NaN whose payload sits only in the low bits stays NaN */
	CHECK("f16-nan-low-payload", half_is_nan(cko_float_to_half(bits_f(0x7f800001u))));
	CHECK("f16-smallest-subnormal", cko_float_to_half(0x1p-24f) == 0x0001);
	CHECK("f16-half-of-smallest-ties-to-zero", cko_float_to_half(0x1p-25f) == 0x0000);
	CHECK("f16-above-half-of-smallest", cko_float_to_half(nextafterf(0x1p-25f, 1)) == 0x0001);
	CHECK("f16-tiny-to-zero", cko_float_to_half(0x1p-26f) == 0 && cko_float_to_half(1e-45f) == 0);
	CHECK("f16-tiny-negative-to-negzero", cko_float_to_half(-1e-45f) == 0x8000);
	CHECK("f16-1.5-smallest-ties-to-even", cko_float_to_half(0x1.8p-24f) == 0x0002);
	CHECK("f16-largest-subnormal", cko_float_to_half(0x3ffp-24f) == 0x03ff);
	CHECK("f16-subnormal-rounds-up-to-normal", cko_float_to_half(0x3ff.cp-24f) == 0x0400);
	CHECK("f16-smallest-normal", cko_float_to_half(0x1p-14f) == 0x0400 && cko_half_to_float(0x0400) == 0x1p-14f);
	CHECK("f16-zeros", cko_float_to_half(0.0f) == 0 && cko_float_to_half(-0.0f) == 0x8000);
	CHECK("f16-one", cko_float_to_half(1.0f) == 0x3c00 && cko_half_to_float(0x3c00) == 1.0f);
	CHECK("f16-mantissa-carry", cko_float_to_half(nextafterf(2.0f, 0)) == 0x4000);
}

static void names(void)
{
	static const char *const n[] = {"f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"};
	static const char *const d[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8"};
	static const size_t sz[] = {2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 8};
	int ok = 1;
	for (int i = 0; i < CKO_NDTYPES; i++) {
		cko_dtype t, u;
		ok = ok && cko_dtype_parse(n[i], &t) && t == (cko_dtype)i && !strcmp(cko_dtype_name(t), n[i]) &&
		     !strcmp(cko_dtype_descr(t), d[i]) && cko_dtype_size(t) == sz[i] && cko_dtype_from_descr(d[i], &u) &&
		     u == t;
	}
	CHECK("dtype-names-descrs-sizes", ok);
	cko_dtype t;
	CHECK("dtype-parse-unknown", !cko_dtype_parse("f128", &t) && !cko_dtype_parse("", &t) && !cko_dtype_parse("F32", &t));
	CHECK("descr-byte-types-any-order", cko_dtype_from_descr("<i1", &t) && t == CKO_I8 &&
						    cko_dtype_from_descr("=u1", &t) && t == CKO_U8);
	CHECK("descr-native-order", cko_dtype_from_descr("=f4", &t) && t == CKO_F32);
	CHECK("descr-rejects", !cko_dtype_from_descr(">f4", &t) && !cko_dtype_from_descr("|f4", &t) &&
				       !cko_dtype_from_descr("<f16", &t) && !cko_dtype_from_descr("|b1", &t) &&
				       !cko_dtype_from_descr("", &t) && !cko_dtype_from_descr("<U2", &t));
	CHECK("dtype-kinds", cko_dtype_is_float(CKO_F16) && !cko_dtype_is_float(CKO_I8) && cko_dtype_is_signed(CKO_I64) &&
				     !cko_dtype_is_signed(CKO_U8) && cko_dtype_is_signed(CKO_F32));
}

static void elements(void)
{
	unsigned char buf[64];
	cko_elem_set(CKO_I8, buf, 0, 300);
	cko_elem_set(CKO_I8, buf, 1, -300);
	cko_elem_set(CKO_I8, buf, 2, 2.5);
	cko_elem_set(CKO_I8, buf, 3, 3.5);
	cko_elem_set(CKO_I8, buf, 4, NAN);
	cko_elem_set(CKO_I8, buf, 5, -2.5);
	int8_t *i8 = (int8_t *)buf;
	CHECK("elem-i8-saturate-round-even", i8[0] == 127 && i8[1] == -128 && i8[2] == 2 && i8[3] == 4 && i8[4] == 0 &&
						     i8[5] == -2);
	cko_elem_set(CKO_U8, buf, 0, -1);
	cko_elem_set(CKO_U8, buf, 1, 256);
	CHECK("elem-u8-saturate", buf[0] == 0 && buf[1] == 255);
	int64_t *i64 = (int64_t *)buf;
	cko_elem_set(CKO_I64, buf, 0, 1e300);
	cko_elem_set(CKO_I64, buf, 1, -1e300);
	cko_elem_set(CKO_I64, buf, 2, INFINITY);
	CHECK("elem-i64-saturate", i64[0] > 9223372036854774000LL && i64[1] == INT64_MIN && i64[2] == i64[0]);
	uint64_t *u64 = (uint64_t *)buf;
	cko_elem_set(CKO_U64, buf, 0, 1e300);
	cko_elem_set(CKO_U64, buf, 1, -5);
	CHECK("elem-u64-saturate", u64[0] > 18446744073709549000ULL && u64[1] == 0);
	cko_elem_set(CKO_U32, buf, 0, 4294967295.0);
	cko_elem_set(CKO_I32, buf, 1, -2147483648.0);
	CHECK("elem-32-extremes", ((uint32_t *)buf)[0] == UINT32_MAX && ((int32_t *)buf)[1] == INT32_MIN &&
					  cko_elem_get(CKO_U32, buf, 0) == 4294967295.0);
	cko_elem_set(CKO_F16, buf, 0, 1.0 / 3);
	cko_elem_set(CKO_F16, buf, 1, 1e6);
	CHECK("elem-f16", ((uint16_t *)buf)[0] == 0x3555 && isinf(cko_elem_get(CKO_F16, buf, 1)));
	cko_elem_set(CKO_F32, buf, 0, 0.1);
	cko_elem_set(CKO_F64, buf, 1, 0.1);
	CHECK("elem-f32-f64", cko_elem_get(CKO_F32, buf, 0) == (double)0.1f && cko_elem_get(CKO_F64, buf, 1) == 0.1);
	int16_t s16[2] = {-32768, 32767};
	uint16_t u16[1] = {65535};
	CHECK("elem-get-16", cko_elem_get(CKO_I16, s16, 0) == -32768 && cko_elem_get(CKO_I16, s16, 1) == 32767 &&
				     cko_elem_get(CKO_U16, u16, 0) == 65535);
}

int main(void)
{
	half_exhaustive();
	half_rounding();
	half_edges();
	names();
	elements();
	TEST_END();
}
