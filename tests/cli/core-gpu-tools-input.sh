# cko-run, cko-bench and cko-props on bad input: exit 2 naming the file
# before touching the GPU; with no GPU, exit 3 saying so. The options
# cko-run and cko-bench share: -t takes seconds > 0 and nothing else;
# --after a record that is not ok writes the skipped record and exits 0,
# with or without requests; --after an ok record still needs requests.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
echo '{"case": "x", "cubin": "k.cubin"' >trunc.json
echo '{"tool": "cko-compare", "status": "fail"}' >compare.json
echo '{"tool": "cko-compile", "status": "ok"}' >compile.json
for tool in cko-run cko-bench; do
	expect_status "$tool/malformed" 2 $tool trunc.json
	expect_grep "$tool/malformed-named" 'trunc.json: malformed JSON' "$T/last.err"
	expect_status "$tool/missing" 2 $tool nosuch.json
	expect_grep "$tool/missing-named" 'nosuch.json' "$T/last.err"
	expect_status "$tool/usage" 2 $tool
	expect_status "$tool/help" 0 $tool --help
	for t in 0 -1 abc 5x nan; do
		expect_status "$tool/timeout-$t" 2 $tool -t "$t" trunc.json
		expect_grep "$tool/timeout-$t-named" "^$tool: --timeout $t: expected seconds > 0" "$T/last.err"
	done
	rm -f skip.json
	expect_status "$tool/after-skips" 0 $tool --after compare.json -o skip.json
	expect_jq "$tool/after-skipped-record" '.tool == "'$tool'" and .status == "skipped" and .reason == "compare: fail"' skip.json
	expect_status "$tool/after-skips-requests" 0 $tool --after compare.json -o skip.json trunc.json
	expect_status "$tool/after-ok-usage" 2 $tool --after compile.json -o skip.json
	expect_status "$tool/after-ok-checks" 2 $tool --after compile.json -o skip.json trunc.json
	expect_grep "$tool/after-ok-checks-named" 'trunc.json: malformed JSON' "$T/last.err"
done
cat >typo.json <<'J'
{"case": "x", "cubin": "k.cubin", "entry": "k", "grid": [1], "blok": [1], "params": [], "sets": [{"in": "."}]}
J
expect_status run/unknown-key 2 cko-run typo.json
expect_grep run/unknown-key-named 'typo.json: blok: unknown key' "$T/last.err"
cat >zero.json <<'J'
{"case": "x", "cubin": "k.cubin", "entry": "k", "grid": [0], "block": [1], "params": [], "sets": [{"in": "."}]}
J
expect_status run/zero-grid 2 cko-run zero.json
expect_grep run/zero-grid-named 'zero.json: grid\[0\]: expected an integer >= 1' "$T/last.err"
if ! have_gpu; then
	cat >ok.json <<'J'
{"case": "x", "cubin": "k.cubin", "entry": "k", "grid": [1], "block": [1], "params": [], "sets": [{"in": "."}]}
J
	expect_status run/no-gpu 3 cko-run -o r.json ok.json
	expect_grep run/no-gpu-message 'no CUDA driver|no usable GPU' "$T/last.err"
	[ ! -e r.json ] && ok run/no-gpu-no-result || fail run/no-gpu-no-result "r.json written"
	expect_status props/no-gpu 3 cko-props
fi
finish
