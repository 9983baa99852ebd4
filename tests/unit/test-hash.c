/* test-hash.c: SHA-256 against the FIPS 180 examples and lengths around
 * the padding boundaries; FNV-1a 64 against its published values. */
#include "test.h"

#include <stdlib.h>

static int sha_is(const void *data, size_t len, const char *want)
{
	char out[65];
	cko_sha256_hex(data, len, out);
	if (strcmp(out, want))
		printf("# sha256 of %zu bytes: %s, want %s\n", len, out, want);
	return !strcmp(out, want);
}

int main(void)
{
	CHECK("sha256-empty", sha_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
	CHECK("sha256-abc", sha_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
	const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	CHECK("sha256-448-bits", sha_is(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
	const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	CHECK("sha256-896-bits", sha_is(m896, strlen(m896), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
	char *a = xmalloc(1000000);
	memset(a, 'a', 1000000);
	CHECK("sha256-million-a", sha_is(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
	/* 55 bytes fit one padded block, 56 need two; 64 and 119/120 likewise */
	static const struct {
		size_t n;
		const char *h;
	} pad[] = {
		{55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
		{56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
		{63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
		{64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
		{119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
		{120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
	};
	for (size_t i = 0; i < sizeof pad / sizeof pad[0]; i++) {
		char n[64];
		snprintf(n, sizeof n, "sha256-%zu-a", pad[i].n);
		CHECK(n, sha_is(a, pad[i].n, pad[i].h));
	}
	free(a);
	CHECK("fnv1a-empty", cko_fnv1a("", 0, CKO_FNV_INIT) == 0xcbf29ce484222325ULL);
	CHECK("fnv1a-a", cko_fnv1a("a", 1, CKO_FNV_INIT) == 0xaf63dc4c8601ec8cULL);
	CHECK("fnv1a-foobar", cko_fnv1a("foobar", 6, CKO_FNV_INIT) == 0x85944171f73967e8ULL);
	CHECK("fnv1a-chains", cko_fnv1a("bar", 3, cko_fnv1a("foo", 3, CKO_FNV_INIT)) == 0x85944171f73967e8ULL);
	TEST_END();
}
