# cko-request (issue 2/4): requests from a signature, cases and launch.json;
# a launch rule that fails for a case is a verdict (exit 1); bad files exit 2.
. "$(dirname "$0")/../lib.sh"
D=$DATA/core
cd "$T" || exit 1
: >k.cubin
expect_status request/make 0 cko-request -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" -o cand/requests
expect_jq request/index '.status == "ok" and .requests == ["one.json", "many.json"]' cand/requests/index.json
expect_jq request/one '.case == "one" and .grid == [1, 1, 1] and .block == [128, 1, 1] and .smem == 0 and .entry == "scale" and .cubin == "../../k.cubin" and .out == "../out/one"' cand/requests/one.json
expect_jq request/params '.params[0].shape == [1000] and .params[2].value == 1000 and (.sets | length) == 2 and .flops == 1000' cand/requests/many.json
expect_jq request/tolerance '.params[1].rtol == 0 and .params[1].atol == 0' cand/requests/one.json
jq -r '.sets[1].in' cand/requests/many.json >p.txt
[ -f "cand/requests/$(cat p.txt)/x.npy" ] && ok request/relative-paths || fail request/relative-paths "$(cat p.txt) does not resolve"
expect_status request/reference 0 cko-request --reference -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" -o ref/requests
expect_jq request/reference-out '(.out | endswith("cases/many/expected")) and (.sets[0] | has("expected") | not)' ref/requests/many.json
expect_status request/only-case 0 cko-request -C one -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" -o only
expect_jq request/only-case-index '.requests == ["one.json"]' only/index.json
expect_status request/rule-fails 1 cko-request -s "$D/sig.json" -l "$D/launch-bad-rule.json" -b k.cubin -c "$D/cases" -o badrule
expect_jq request/rule-fails-json '.status == "launch_error" and .case == "one" and (.message | test("grid\\[0\\] is 0"))' badrule/index.json
expect_status request/unknown-key 2 cko-request -s "$D/sig.json" -l "$D/launch-typo.json" -b k.cubin -c "$D/cases" -o x
expect_grep request/unknown-key-named 'launch-typo.json: blocks: unknown key' "$T/last.err"
echo '{"entry": "scale", "params": [{"name": "x", "kind": "buffer", "dtype": "f33", "role": "in", "shape": ["n"]}]}' >badsig.json
expect_status request/bad-dtype 2 cko-request -s badsig.json -l "$D/launch.json" -b k.cubin -c "$D/cases" -o x
expect_grep request/bad-dtype-named "badsig.json: params\[0\].dtype: unknown dtype 'f33'" "$T/last.err"
finish
