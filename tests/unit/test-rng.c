/* test-rng.c: the generator's streams are fixed (values from an
 * independent implementation of SplitMix64 and xoshiro256**), seeds mix
 * apart, and cko_rng_range stays within its inclusive bounds without bias. */
#include "test.h"

#include <math.h>
#include <stdlib.h>

int main(void)
{
	cko_rng r, s;
	cko_rng_seed(&r, 0);
	CHECK("rng-seed0-stream", cko_rng_next(&r) == 0x99ec5f36cb75f2b4ULL && cko_rng_next(&r) == 0xbf6e1f784956452aULL &&
					  cko_rng_next(&r) == 0x1a5f849d4933e6e0ULL && cko_rng_next(&r) == 0x6aa594f1262d2d2cULL);
	cko_rng_seed(&r, 42);
	CHECK("rng-seed42-stream", cko_rng_next(&r) == 0x15780b2e0c2ec716ULL && cko_rng_next(&r) == 0x6104d9866d113a7eULL &&
					   cko_rng_next(&r) == 0xae17533239e499a1ULL && cko_rng_next(&r) == 0xecb8ad4703b360a1ULL);
	cko_rng_seed(&r, 7);
	cko_rng_seed(&s, 7);
	int same = 1;
	for (int i = 0; i < 1000; i++)
		same = same && cko_rng_next(&r) == cko_rng_next(&s);
	CHECK("rng-deterministic", same);
	cko_rng_seed(&s, 8);
	CHECK("rng-seeds-differ", cko_rng_next(&r) != cko_rng_next(&s));

	CHECK("seed-mix-values", cko_seed_mix(1, "A", 0) == 0x413877edbac37aa9ULL &&
					 cko_seed_mix(7, "hidden", 3) == 0x6d2f55fbd233d782ULL);
	CHECK("seed-mix-separates", cko_seed_mix(1, "A", 0) != cko_seed_mix(1, "B", 0) &&
					    cko_seed_mix(1, "A", 0) != cko_seed_mix(1, "A", 1) &&
					    cko_seed_mix(1, "A", 0) != cko_seed_mix(2, "A", 0));

	/* range: inclusive bounds, every value reached, counts even */
	cko_rng_seed(&r, 1);
	int in = 1, hit[5] = {0};
	for (int i = 0; i < 5000; i++) {
		int64_t v = cko_rng_range(&r, 3, 7);
		in = in && v >= 3 && v <= 7;
		if (v >= 3 && v <= 7)
			hit[v - 3]++;
	}
	CHECK("range-inclusive", in && hit[0] && hit[1] && hit[2] && hit[3] && hit[4]);
	CHECK("range-single", cko_rng_range(&r, -9, -9) == -9 && cko_rng_range(&r, INT64_MAX, INT64_MAX) == INT64_MAX);
	in = 1;
	for (int i = 0; i < 1000; i++) {
		int64_t v = cko_rng_range(&r, -5, 5);
		in = in && v >= -5 && v <= 5;
	}
	CHECK("range-negative", in);
	int64_t lo = 0, hi = 0;
	for (int i = 0; i < 1000; i++) {
		int64_t v = cko_rng_range(&r, INT64_MIN, INT64_MAX);
		lo += v < 0, hi += v > 0;
	}
	CHECK("range-full", lo > 400 && hi > 400);
	int c[3] = {0};
	for (int i = 0; i < 300000; i++)
		c[cko_rng_range(&r, 0, 2)]++;
	CHECK("range-even-counts", abs(c[0] - 100000) < 1500 && abs(c[1] - 100000) < 1500 && abs(c[2] - 100000) < 1500);
	/* A span of 2/3 of 2^64: plain modulo would make values below a third
	 * of 2^64 twice as likely (2/3 of the draws below half the span);
	 * unbiased, half the draws fall below half the span. */
	const uint64_t span = 0xaaaaaaaaaaaaaaaaULL;
	int below = 0;
	in = 1;
	for (int i = 0; i < 20000; i++) {
		uint64_t v = (uint64_t)cko_rng_range(&r, INT64_MIN, 0x2aaaaaaaaaaaaaa9LL) - (uint64_t)INT64_MIN;
		in = in && v < span;
		below += v < span / 2;
	}
	CHECK("range-unbiased-large-span", in && below > 9600 && below < 10400);
	if (!(below > 9600 && below < 10400))
		printf("# %d of 20000 below half the span\n", below);

	double sum = 0, sq = 0, mn = 1, mx = 0;
	for (int i = 0; i < 100000; i++) {
		double u = cko_rng_uniform(&r);
		sum += u, mn = u < mn ? u : mn, mx = u > mx ? u : mx;
	}
	CHECK("uniform-in-unit-interval", mn >= 0 && mx < 1 && fabs(sum / 100000 - 0.5) < 0.01);
	sum = 0;
	int finite = 1;
	for (int i = 0; i < 100000; i++) {
		double z = cko_rng_normal(&r);
		finite = finite && isfinite(z);
		sum += z, sq += z * z;
	}
	CHECK("normal-moments", finite && fabs(sum / 100000) < 0.02 && fabs(sq / 100000 - 1) < 0.02);
	TEST_END();
}
