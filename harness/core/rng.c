/* rng.c: xoshiro256** seeded through SplitMix64 (Blackman and Vigna's
 * published algorithms), so generated inputs are the same everywhere. */
#include "cko.h"

#include <math.h>

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void cko_rng_seed(cko_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t cko_rng_next(cko_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double cko_rng_uniform(cko_rng *r) { return (double)(cko_rng_next(r) >> 11) * 0x1.0p-53; }

double cko_rng_normal(cko_rng *r)
{
	/* Box-Muller; u1 in (0, 1] so the log is finite. */
	double u1 = 1.0 - cko_rng_uniform(r), u2 = cko_rng_uniform(r);
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int64_t cko_rng_range(cko_rng *r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
	if (span == 0)
		return (int64_t)cko_rng_next(r);
	uint64_t limit = UINT64_MAX - UINT64_MAX % span, x;
	do
		x = cko_rng_next(r);
	while (x >= limit);
	return (int64_t)((uint64_t)lo + x % span);
}

uint64_t cko_seed_mix(uint64_t seed, const char *label, uint64_t index)
{
	uint64_t h = cko_fnv1a(label, __builtin_strlen(label), CKO_FNV_INIT ^ seed);
	h = cko_fnv1a(&index, sizeof index, h);
	return splitmix(&h);
}
