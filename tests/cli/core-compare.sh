# cko-compare: files and folders, tolerances, NaN/Inf/-0, exit 0
# ok / 1 fail / 2 bad input (shape or dtype mismatch, missing files).
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
mk() { f=$1 t=$2 s=$3; shift 3; cko-npy -t "$t" -s "$s" -o "$f" -- "$@"; }
mk e.npy f32 2,2 1 2 3 4
mk same.npy f32 2,2 1 2 3 4
mk off.npy f32 2,2 1 2 3 4.5
expect_status compare/equal 0 cko-compare -o v.json e.npy same.npy
expect_jq compare/equal-json '.status == "ok" and .tensors["same.npy"].mismatches == 0' v.json
expect_status compare/differ 1 cko-compare -o v.json e.npy off.npy
expect_jq compare/differ-json '.status == "fail" and .tensors["off.npy"].mismatches == 1 and .tensors["off.npy"].first[0].index == [1, 1] and .tensors["off.npy"].max_abs == 0.5' v.json
expect_status compare/atol-flag 0 cko-compare --atol 0.5 -o discard.json e.npy off.npy
expect_status compare/rtol-boundary 0 cko-compare --rtol 0.125 --atol 0 -o discard.json e.npy off.npy
expect_status compare/rtol-below 1 cko-compare --rtol 0.12 --atol 0 -o discard.json e.npy off.npy
mk en.npy f32 4 nan inf -inf 0
mk an.npy f32 4 nan inf -inf -0
mk an2.npy f32 4 1 inf inf 0
expect_status compare/nan-inf-zero 0 cko-compare -o discard.json en.npy an.npy
expect_status compare/no-nan-equal 1 cko-compare --no-nan-equal -o discard.json en.npy an.npy
expect_status compare/nan-inf-mismatch 1 cko-compare -o v.json en.npy an2.npy
expect_jq compare/nan-inf-counts '.tensors["an2.npy"].mismatches == 2 and .tensors["an2.npy"].inf == 2' v.json
mk shape.npy f32 4 1 2 3 4
mk dtype.npy f64 2,2 1 2 3 4
expect_status compare/shape-mismatch 2 cko-compare e.npy shape.npy
expect_grep compare/shape-message 'shape differs' "$T/last.err"
expect_status compare/dtype-mismatch 2 cko-compare e.npy dtype.npy
expect_status compare/missing 2 cko-compare e.npy nosuch.npy
printf 'not an npy' >junk.npy
expect_status compare/malformed 2 cko-compare e.npy junk.npy
expect_grep compare/malformed-named 'junk.npy: not a .npy file' "$T/last.err"
mk i.npy i32 3 1 2 3
mk i2.npy i32 3 1 2 4
expect_status compare/int-exact 1 cko-compare -o discard.json i.npy i2.npy
mkdir -p ex/0 ac/0
cp e.npy ex/0/C.npy; cp same.npy ac/0/C.npy
expect_status compare/folders 0 cko-compare -o v.json ex ac
expect_jq compare/folders-key '.tensors | has("0/C.npy")' v.json
cp off.npy ac/0/C.npy
expect_status compare/folders-fail 1 cko-compare -o discard.json ex ac
rm ac/0/C.npy
expect_status compare/folders-missing 2 cko-compare ex ac
# Request mode: a missing actual output is a failed verdict, not bad input.
mkdir -p r/cases/x/in/0 r/cases/x/expected/0 r/req r/out/x/0
cp e.npy r/cases/x/expected/0/y.npy
cat >r/req/x.json <<'J'
{"case": "x", "cubin": "k.cubin", "entry": "k", "grid": [1], "block": [1],
 "params": [{"name": "y", "kind": "buffer", "dtype": "f32", "role": "out", "shape": [2, 2], "atol": 0.6}],
 "sets": [{"in": "../cases/x/in/0", "expected": "../cases/x/expected/0"}], "out": "../out/x"}
J
expect_status compare/requests-missing-output 1 cko-compare --requests -o v.json r/req/x.json
expect_jq compare/requests-missing-json '.status == "fail" and (.cases[0].sets[0].tensors.y.problem | test("y.npy"))' v.json
cp off.npy r/out/x/0/y.npy
expect_status compare/requests-tolerance 0 cko-compare --requests -o v.json r/req/x.json
expect_status compare/requests-flag-override 1 cko-compare --requests --atol 0 -o discard.json r/req/x.json
# An output cko-run did not keep: out/x/0/y.json records the comparison it
# made on the device (docs/formats.md), which answers for the same expected
# file, unchanged, and the same tolerances only.
rm r/out/x/0/y.npy
verdict() { # STATUS [EXPECTED-PATH]
	e=${2:-../../../cases/x/expected/0/y.npy}
	jq -n --arg st "$1" --arg e "$e" --arg ns "$(date -r r/cases/x/expected/0/y.npy +%s%N)" \
		--argjson b "$(stat -c %s r/cases/x/expected/0/y.npy)" \
		'{tool: "cko-run", tensor: "y", set: 0, expected: $e, expected_stamp: {bytes: $b, mtime_ns: $ns},
		  digest: "0123456789abcdef", nan_equal: true,
		  compare: {status: $st, count: 4, mismatches: (if $st == "fail" then 1 else 0 end), max_abs: 0.5,
			    max_abs_index: [1, 1], max_rel: 0.125, nan: 0, inf: 0, poison: 0, rtol: 1e-05, atol: 0.6, first: []}}' \
		>r/out/x/0/y.json
}
verdict ok
expect_status compare/device-verdict 0 cko-compare --requests -o v.json r/req/x.json
expect_jq compare/device-verdict-json '.status == "ok" and .cases[0].sets[0].tensors.y.compared_on == "device" and .cases[0].sets[0].tensors.y.max_abs == 0.5' v.json
# The legacy word of older run folders' records ("pass") is still taken,
# and compare.json says "ok" for it.
verdict pass
expect_status compare/device-verdict-legacy 0 cko-compare --requests -o v.json r/req/x.json
expect_jq compare/device-verdict-legacy-json '.status == "ok" and .cases[0].status == "ok" and .cases[0].sets[0].status == "ok" and .cases[0].sets[0].tensors.y.status == "ok"' v.json
verdict fail
expect_status compare/device-verdict-fail 1 cko-compare --requests -o discard.json r/req/x.json
verdict ok
expect_status compare/device-verdict-tolerance 2 cko-compare --requests --atol 0 -o discard.json r/req/x.json
expect_grep compare/device-verdict-tolerance-says 'y.json: compared on the device with rtol 1e-05, atol 0.6.*--keep-outputs' "$T/last.err"
verdict ok ../../../cases/x/in/0/y.npy
cp e.npy r/cases/x/in/0/y.npy
expect_status compare/device-verdict-other-file 2 cko-compare --requests -o discard.json r/req/x.json
expect_grep compare/device-verdict-other-file-says 'compared with .*in/0/y.npy, not .*expected/0/y.npy' "$T/last.err"
verdict ok
touch -d '2001-01-01' r/cases/x/expected/0/y.npy
expect_status compare/device-verdict-changed 2 cko-compare --requests -o discard.json r/req/x.json
expect_grep compare/device-verdict-changed-says 'expected/0/y.npy: changed since cko-run compared' "$T/last.err"
# Kept outputs win over a record beside them (cko-run leaves only one).
verdict fail
cp e.npy r/out/x/0/y.npy
expect_status compare/outputs-over-verdict 0 cko-compare --requests -o discard.json r/req/x.json
finish
