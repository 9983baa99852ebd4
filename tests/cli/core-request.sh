# cko-request: requests from a signature, cases and launch.json;
# a launch rule that fails for a case is a verdict (exit 1); bad files exit 2.
. "$(dirname "$0")/../lib.sh"
D=$DATA/core
cd "$T" || exit 1
: >k.cubin
mkdir cand ref
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
# JSON nested too deeply is named as such, with the file and position.
awk 'BEGIN { for (i = 0; i < 1001; i++) printf "["; for (i = 0; i < 1001; i++) printf "]"; print "" }' >deep.json
expect_status request/deep-json 2 cko-request -s "$D/sig.json" -l deep.json -b k.cubin -c "$D/cases" -o deep
expect_grep request/deep-json-says 'deep.json: malformed JSON: line 1, column 1001: nested deeper than 1000 levels' "$T/last.err"
# CUDA's limits: threads per block, each block and grid dimension, and the
# GPU's shared memory per block (props.json) are verdicts naming the limit.
printf '{"grid": [1], "block": [1024, 1024, 64]}' >big-block.json
expect_status request/threads-per-block 1 cko-request -s "$D/sig.json" -l big-block.json -b k.cubin -c "$D/cases" -o bigblock
expect_jq request/threads-per-block-json '.status == "launch_error" and .limit == "max_threads_per_block" and (.message | test("67108864 threads .*at most 1024 threads per block"))' bigblock/index.json
expect_grep request/threads-per-block-said 'big-block.json: launch rule fails for case one: block \[1024, 1024, 64\].*make the block smaller' "$T/last.err"
printf '{"grid": [1], "block": [1, 1, 65]}' >block-z.json
expect_status request/block-z 1 cko-request -s "$D/sig.json" -l block-z.json -b k.cubin -c "$D/cases" -o blockz
expect_jq request/block-z-json '.limit == "max_block_z" and (.message | test("block\\[2\\] is 65 .*1 to 64"))' blockz/index.json
printf '{"grid": [1, 65536], "block": [32]}' >grid-y.json
expect_status request/grid-y 1 cko-request -s "$D/sig.json" -l grid-y.json -b k.cubin -c "$D/cases" -o gridy
expect_jq request/grid-y-json '.limit == "max_grid_y" and (.message | test("grid\\[1\\] is 65536 .*1 to 65535"))' gridy/index.json
printf '{"grid": [2147483648], "block": [32]}' >grid-x.json
expect_status request/grid-x 1 cko-request -s "$D/sig.json" -l grid-x.json -b k.cubin -c "$D/cases" -o gridx
expect_jq request/grid-x-json '.limit == "max_grid_x"' gridx/index.json
printf '{"grid": [1], "block": [1024]}' >max-block.json
expect_status request/threads-1024-ok 0 cko-request -s "$D/sig.json" -l max-block.json -b k.cubin -c "$D/cases" -o maxblock
printf '{"grid": [1], "block": [32], "smem": [65536]}' >smem.json
echo '{"tool": "cko-props", "arch": "sm_90", "smem_per_block": 49152, "smem_per_block_optin": 49152}' >props.json
expect_status request/smem-props 1 cko-request --props props.json -s "$D/sig.json" -l smem.json -b k.cubin -c "$D/cases" -o smem
expect_jq request/smem-props-json '.limit == "smem_per_block_optin" and (.message | test("65536 bytes .*at most 49152 bytes"))' smem/index.json
expect_status request/smem-no-props 0 cko-request -s "$D/sig.json" -l smem.json -b k.cubin -c "$D/cases" -o smem2
# A request written by hand is held to the same limits (bad input).
jq '.block = [1024, 2, 1]' cand/requests/one.json >cand/requests/big.json
expect_status request/hand-request 2 cko-run cand/requests/big.json
expect_grep request/hand-request-named "big.json: block: block \\[1024, 2, 1\\] has 2048 threads" "$T/last.err"
finish
