# cko-compile without a GPU: a good kernel gives a CUBIN and its
# resource usage; a broken one exits 1 with a log naming the line; includes
# outside the CUDA headers are refused; bad options exit 2.
. "$(dirname "$0")/../lib.sh"
D=$DATA/core
cd "$T" || exit 1

expect_status compile/good 0 cko-compile --arch sm_90 -D FACTOR=2 -e scale -o k.cubin -j k.json "$D/good.cu"
[ -s k.cubin ] && head -c 4 k.cubin | od -An -c | grep -q 'E   L   F' && ok compile/cubin-is-elf || fail compile/cubin-is-elf "no ELF cubin"
expect_jq compile/json '.status == "ok" and .arch == "sm_90" and .entry == "scale" and .registers > 0 and .spill_stores == 0 and .cubin_bytes > 0 and (.time_s | type) == "number"' k.json
expect_jq compile/defines-recorded '.defines == ["FACTOR=2"]' k.json
expect_status compile/launch-defines 0 cko-compile --arch sm_90 -l "$D/launch.json" -s "$D/sig.json" -o k2.cubin -j k2.json "$D/good.cu"
expect_jq compile/launch-defines-json '.defines == ["FACTOR=2", "BLOCK=128"]' k2.json

expect_status compile/broken-exit 1 cko-compile --arch sm_90 -e scale -o b.cubin -j b.json "$D/broken.cu"
expect_jq compile/broken-log-names-line '.status == "error" and (.log | test("broken.cu\\(5\\): error"))' b.json
expect_grep compile/broken-log-on-stderr 'broken.cu\(5\): error' "$T/last.err"
[ ! -e b.cubin ] && ok compile/no-cubin-on-error || fail compile/no-cubin-on-error "b.cubin exists"

expect_status compile/missing-define 1 cko-compile --arch sm_90 -o m.cubin -j m.json "$D/good.cu"
expect_status compile/extern-c-required 1 cko-compile --arch sm_90 -e scale -o x.cubin -j x.json "$D/mangled.cu"
expect_jq compile/extern-c-message '.log | test("extern \"C\"")' x.json
expect_status compile/entry-missing 1 cko-compile --arch sm_90 -D FACTOR=1 -e nosuch -o x.cubin -j x.json "$D/good.cu"
expect_status compile/include-refused 1 cko-compile --arch sm_90 -o x.cubin -j x.json "$D/sneaky-include.cu"
expect_jq compile/include-message '.log | test("sneaky-include.cu\\(2\\): error: this #include is not allowed")' x.json

expect_status compile/bad-define 2 cko-compile --arch sm_90 -D 'X=1;system' -o x.cubin "$D/good.cu"
expect_status compile/reserved-define 2 cko-compile --arch sm_90 -D __CUDA_ARCH__=1 -o x.cubin "$D/good.cu"
expect_status compile/bad-arch 2 cko-compile --arch compute_90 -o x.cubin "$D/good.cu"
expect_status compile/missing-source 2 cko-compile --arch sm_90 -o x.cubin nosuch.cu
expect_grep compile/missing-source-named 'nosuch.cu' "$T/last.err"
echo '{"grid": [1], "block": [' >bad.json
expect_status compile/malformed-launch 2 cko-compile --arch sm_90 -l bad.json -o x.cubin "$D/good.cu"
expect_grep compile/malformed-launch-named 'bad.json: malformed JSON: line 1' "$T/last.err"
expect_status compile/usage 2 cko-compile
expect_status compile/help 0 cko-compile --help
expect_grep compile/help-usage '^usage: cko-compile' "$T/last.out"
if ! have_gpu; then
	expect_status compile/no-gpu-needs-arch 3 cko-compile -o x.cubin "$D/good.cu"
	expect_grep compile/no-gpu-message 'give the architecture with --arch' "$T/last.err"
fi
finish
