/* test-tune.c: cko-tune's space module: point numbering, validity, and a
 * hash that is the same whether computed from the point or from the files
 * written for it. */
#include "test.h"
#include "tune.h"

#include <stdlib.h>

static cJSON *parse(const char *s)
{
	char err[256];
	cJSON *j = cko_json_parse(s, strlen(s), err, sizeof err);
	if (!j)
		printf("FAIL parse: %s\n", err);
	return j;
}

int main(void)
{
	const char *top = getenv("CKO_TOP") ? getenv("CKO_TOP") : ".";
	char *small = xasprintf("%s/tests/data/tune/small/space.json", top);
	char *sim = xasprintf("%s/tests/data/tune/sim/space.json", top);
	tune_space sp;

	tune_space_load(small, &sp);
	CHECK("tune.total", sp.total == 15 && sp.nvar == 2 && sp.var[1].first == 12);
	int valid = 0, hash_ok = 1, roundtrip = 1;
	for (uint64_t g = 0; g < sp.total; g++) {
		tune_point pt;
		char h1[65], h2[65];
		tune_point_decode(&sp, g, &pt);
		roundtrip &= tune_point_encode(&sp, &pt) == g;
		if (!tune_point_valid(&sp, &pt))
			continue;
		valid++;
		tune_point_hash(&sp, &pt, h1);
		cJSON *l = tune_point_launch(&sp, &pt);
		char *text = cko_json_print(l);
		cJSON *back = parse(text);
		cko_candidate_hash(sp.var[pt.var].src, sp.var[pt.var].srclen, back, h2);
		hash_ok &= !strcmp(h1, h2);
		free(text);
		cJSON_Delete(back);
		cJSON_Delete(l);
	}
	CHECK("tune.valid_count", valid == 14);
	CHECK("tune.roundtrip", roundtrip);
	CHECK("tune.hash_matches_files", hash_ok);

	/* Defines mapped back from a history entry. */
	tune_point pt;
	cJSON *d = parse("{\"UNROLL\": 2, \"BS\": 128}");
	CHECK("tune.from_defines", tune_point_from_defines(&sp, 0, d, &pt) && tune_point_encode(&sp, &pt) == 7);
	cJSON_Delete(d);
	d = parse("{\"TILE\": 16, \"VEC\": 2}");
	CHECK("tune.from_defines_fixed_differs", !tune_point_from_defines(&sp, 1, d, &pt));
	cJSON_Delete(d);
	d = parse("{\"BS\": 48, \"UNROLL\": 2}");
	CHECK("tune.from_defines_unlisted", !tune_point_from_defines(&sp, 0, d, &pt));
	cJSON_Delete(d);
	tune_space_free(&sp);

	/* What enters the hash and what does not. */
	const char *src = "x";
	cJSON *a = parse("{\"defines\": {\"A\": 1, \"B\": \"s\"}, \"grid\": [1], \"block\": [32]}");
	cJSON *b = parse("{\"block\": [32], \"defines\": {\"B\": \"s\", \"A\": 1}, \"grid\": [1], \"smem\": 0,"
			 " \"tunables\": {\"A\": [1, 2]}, \"constraints\": [\"A > 0\"], \"comment\": \"c\"}");
	cJSON *c = parse("{\"defines\": {\"A\": 1, \"B\": \"s\"}, \"grid\": [1], \"block\": [32], \"smem\": 4}");
	cJSON *e = parse("{\"defines\": {\"A\": 2, \"B\": \"s\"}, \"grid\": [1], \"block\": [32]}");
	char ha[65], hb[65], hc[65], he[65], hs[65];
	cko_candidate_hash(src, 1, a, ha);
	cko_candidate_hash(src, 1, b, hb);
	cko_candidate_hash(src, 1, c, hc);
	cko_candidate_hash(src, 1, e, he);
	cko_candidate_hash("y", 1, a, hs);
	CHECK("tune.hash_canonical", !strcmp(ha, hb));
	CHECK("tune.hash_smem", strcmp(ha, hc) != 0);
	CHECK("tune.hash_define", strcmp(ha, he) != 0);
	CHECK("tune.hash_source", strcmp(ha, hs) != 0);
	CHECK("tune.hash_hex", strlen(ha) == 64 && strspn(ha, "0123456789abcdef") == 64);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
	cJSON_Delete(e);

	/* The larger space: numbering covers it once. */
	tune_space_load(sim, &sp);
	uint64_t want = 0;
	for (int v = 0; v < sp.nvar; v++)
		want += sp.var[v].npoints;
	int ok = sp.total == want;
	for (uint64_t g = 0; g < sp.total && ok; g += 7) {
		tune_point q;
		tune_point_decode(&sp, g, &q);
		ok = tune_point_encode(&sp, &q) == g;
	}
	CHECK("tune.sim_roundtrip", ok);
	tune_space_free(&sp);
	free(small);
	free(sim);
	TEST_END();
}
