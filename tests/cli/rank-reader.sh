# The run-folder reader (docs/formats.md, "Reading a run folder") through
# cko-rank, cko-llm context and cko-heatmap on a hand-made run: which
# folders are candidates and in what order, the best (ties, the sanitizer,
# none verified), what the other readers do with history.json's best (an
# invalid one, none, no history), a result.json that is no JSON, and the
# legacy status word "pass" of older run folders.
. "$(dirname "$0")/../lib.sh"
R=$T/run
mkdir -p "$R/cases" "$R/reference"
echo '[{"name": "big", "kind": "performance", "hidden": false}]' >"$R/cases/index.json"
echo '{"tool": "cko-bench", "status": "ok", "cases": [{"case": "big", "status": "ok", "median_ms": 8}]}' \
	>"$R/reference/bench.json"
# cand ID STATUS [GEOMEAN]: iter-NNN/cJ with its result.json
cand() {
	mkdir -p "$R/$1"
	if [ -n "$3" ]; then
		jq -n --arg id "$1" --arg st "$2" --argjson g "$3" '{tool: "cko-rank", id: $id, status: $st, stage: null,
			reason: null, geomean_ms: $g, note: ("note of " + $id),
			cases: [{case: "big", kind: "performance", hidden: false, status: "ok", median_ms: $g}]}'
	else
		jq -n --arg id "$1" --arg st "$2" '{tool: "cko-rank", id: $id, status: $st, stage: "compile",
			reason: "it did not compile", cases: []}'
	fi >"$R/$1/result.json"
	echo "// kernel of $1" >"$R/$1/kernel.cu"
	echo '{}' >"$R/$1/launch.json"
}
cand iter-000/c0 ok 4
cand iter-001/c0 ok 2
cand iter-001/c1 ok 2
cand iter-001/c2 invalid
cand iter-001/c10 ok 3
cand iter-002/c0 ok 2
# Not candidates: a folder without result.json, a name that is not cJ, a file.
mkdir -p "$R/iter-001/c3" "$R/iter-001/cfoo"
echo '{"proposer": "cko-llm", "status": "invalid", "reason": "no kernel"}' >"$R/iter-001/c3/proposal.json"
cp "$R/iter-001/c0/result.json" "$R/iter-001/cfoo/result.json"
echo '{}' >"$R/iter-001/c7"
echo '{"tool": "make", "iteration": 1}' >"$R/iter-001/proposed.json"

expect_status rank-reader/run 0 cko-rank --run "$R" --upto 2 -o "$T/h.json" --summary "$T/s.json" --best "$T/best.cu"
expect_eq rank-reader/best-file "$(cat "$T/best.cu")" "// kernel of iter-001/c0"
expect_jq rank-reader/order '[.candidates[].id] == ["iter-000/c0", "iter-001/c0", "iter-001/c1", "iter-001/c2", "iter-001/c10", "iter-002/c0"]' "$T/h.json"
expect_jq rank-reader/tie-first '.best == "iter-001/c0"' "$T/h.json"
expect_jq rank-reader/initial '.initial.id == "iter-000/c0"' "$T/h.json"
expect_jq rank-reader/reference '.reference == {median_ms: {big: 8}, geomean_ms: 8}' "$T/h.json"
expect_jq rank-reader/counts '.counts == {candidates: 6, ok: 5, invalid: 1, skipped: 0} and .best == "iter-001/c0"' "$T/s.json"
# --upto bounds the iterations.
cko-rank --run "$R" --upto 0 -o "$T/h0.json"
expect_jq rank-reader/upto '[.candidates[].id] == ["iter-000/c0"] and .best == "iter-000/c0"' "$T/h0.json"
# The sanitizer's rejected candidates are never best: the next of the tie.
echo '{"tool": "cko-sanitize", "status": "fail", "rejected": ["iter-001/c0"]}' >"$T/san.json"
cko-rank --run "$R" --upto 2 --summary "$T/s2.json" --sanitize "$T/san.json"
expect_jq rank-reader/sanitized '.best == "iter-001/c1" and .sanitizer.rejected == ["iter-001/c0"]' "$T/s2.json"

# The context takes history.json's best, never its own: here a slower one.
mkdir -p "$R/iter-003"
jq '.best = "iter-001/c10"' "$T/h.json" >"$R/iter-003/history.json"
expect_status rank-reader/context 0 cko-llm context -r "$R" -i 3 -o "$T/c3.md" --meta "$T/m3.json"
expect_grep rank-reader/context-best 'best kernel so far: iter-001/c10, geomean 3 ms \(2.67x the reference' "$T/c3.md"
expect_grep rank-reader/context-row '^\| iter-001/c10 \(best\) \| ok \| 3 \|' "$T/c3.md"
if grep -q 'cfoo\|iter-001/c3\b\|iter-001/c7' "$T/c3.md"; then
	fail rank-reader/context-not-candidates "a folder that is no candidate is in $T/c3.md"
else
	ok rank-reader/context-not-candidates
fi
expect_jq rank-reader/context-parent '.parent == "iter-001/c10"' "$T/m3.json"
# A best that is not ok is no best.
jq '.best = "iter-001/c2"' "$T/h.json" >"$R/iter-003/history.json"
cko-llm context -r "$R" -i 3 -o "$T/c3i.md" --meta "$T/m3i.json"
expect_grep rank-reader/context-invalid-best 'No candidate has passed every case yet' "$T/c3i.md"
expect_jq rank-reader/context-invalid-best-parent '.parent == null' "$T/m3i.json"
# No history at all: the candidates, but no best and no reference times.
rm "$R/iter-003/history.json"
cko-llm context -r "$R" -i 3 -o "$T/c3n.md" --meta "$T/m3n.json"
expect_grep rank-reader/context-no-history 'No history.json ranks these candidates yet, so no best kernel is named' "$T/c3n.md"
expect_grep rank-reader/context-no-history-rows '^\| iter-002/c0 \| ok \| 2 \|' "$T/c3n.md"
expect_jq rank-reader/context-no-history-parent '.parent == null' "$T/m3n.json"
if grep -Eq 'x the reference|reference [0-9]' "$T/c3n.md"; then fail rank-reader/context-no-history-reference "a reference time in $T/c3n.md"; else ok rank-reader/context-no-history-reference; fi

# The heatmap marks history.json's best only.
if command -v gnuplot >/dev/null 2>&1; then
	jq '.best = "iter-001/c10"' "$T/h.json" >"$T/hb.json"
	expect_status rank-reader/heatmap 0 cko-heatmap -o "$T/hm" --script "$T/hm.gp" "$T/hb.json"
	expect_grep rank-reader/heatmap-best 'best iter-001/c10: 2.67x geomean speedup' "$T/hm.gp"
	expect_grep rank-reader/heatmap-best-box 'rect from -0.5,3.5 to 0.5,4.5 fs empty border' "$T/hm.gp"
	jq '.best = null' "$T/h.json" >"$T/hn.json"
	cko-heatmap -o "$T/hn" --script "$T/hn.gp" "$T/hn.json"
	expect_grep rank-reader/heatmap-no-best 'no best candidate in the history' "$T/hn.gp"
	jq '.best = "iter-001/c2"' "$T/h.json" >"$T/hi.json"
	cko-heatmap -o "$T/hi" --script "$T/hi.gp" "$T/hi.json"
	if grep -q 'fs empty border' "$T/hi.gp"; then fail rank-reader/heatmap-invalid-best "an invalid best is marked"; else ok rank-reader/heatmap-invalid-best; fi
else
	skip rank-reader/heatmap "gnuplot is not installed"
fi

# No verified candidate: no best, and no best.cu left behind.
N=$T/none
for c in iter-000/c0 iter-001/c0; do
	mkdir -p "$N/$c"
	jq '.status = "invalid" | .stage = "run" | del(.geomean_ms)' "$R/$c/result.json" >"$N/$c/result.json"
done
cp -r "$R/cases" "$N/"
expect_status rank-reader/none 0 cko-rank --run "$N" --upto 1 -o "$T/hn2.json" --summary "$T/sn.json" --best "$T/best.cu"
expect_jq rank-reader/none-best '.best == null and .sol.candidate == null' "$T/hn2.json"
expect_jq rank-reader/none-summary '.best == null and .counts.invalid == 2' "$T/sn.json"
[ ! -e "$T/best.cu" ] && [ ! -e "$T/best-launch.json" ] && ok rank-reader/none-no-best-file || fail rank-reader/none-no-best-file "best.cu is still there"

# A result.json that is no JSON: exit 2 naming it.
printf '{"status": ' >"$N/iter-001/c0/result.json"
expect_status rank-reader/bad-result 2 cko-rank --run "$N" --upto 1 -o "$T/x.json"
expect_grep rank-reader/bad-result-named 'iter-001/c0/result.json' "$T/last.err"
expect_status rank-reader/bad-result-context 2 cko-llm context -r "$N" -i 2 -o "$T/x.md"

# The legacy "pass" of an older run folder's compare.json still counts as
# ok; any other word does not.
C=$T/old/iter-001/c0
mkdir -p "$C/requests"
cp -r "$R/cases" "$T/old/"
echo '{"proposer": "cko-tune", "status": "ok"}' >"$C/proposal.json"
echo '{"tool": "cko-compile", "status": "ok", "registers": 16}' >"$C/compile.json"
echo '{"tool": "cko-request", "status": "ok", "requests": []}' >"$C/requests/index.json"
echo '{"tool": "cko-run", "status": "ok", "cases": [{"case": "big", "status": "ok"}]}' >"$C/run.json"
echo '{"tool": "cko-compare", "status": "pass", "cases": [{"case": "big", "status": "pass"}]}' >"$C/compare.json"
echo '{"tool": "cko-bench", "status": "ok", "cases": [{"case": "big", "status": "ok", "median_ms": 2, "check": "pass"}]}' >"$C/bench.json"
echo '{}' >"$C/launch.json"
expect_status rank-reader/legacy-pass 0 cko-rank --candidate "$C" -o "$T/r.json"
expect_jq rank-reader/legacy-pass-ok '.status == "ok" and .geomean_ms == 2 and .cases[0].status == "ok"' "$T/r.json"
sed -i 's/"pass"/"passed"/g' "$C/compare.json"
cko-rank --candidate "$C" -o "$T/r2.json"
expect_jq rank-reader/other-word-fails '.status == "invalid" and .stage == "compare"' "$T/r2.json"
# The --after chain asks the same: a legacy record lets the step run.
echo '{"tool": "cko-compare", "status": "pass"}' >"$T/prev.json"
cko-compare --after "$T/prev.json" -o "$T/after.json" "$T/nothere.npy" "$T/nothere2.npy" 2>"$T/after.err"
expect_grep rank-reader/after-legacy 'nothere.npy: no such file' "$T/after.err"
echo '{"tool": "cko-compare", "status": "passed"}' >"$T/prev.json"
expect_status rank-reader/after-other 0 cko-compare --after "$T/prev.json" -o "$T/after.json" "$T/nothere.npy" "$T/nothere2.npy"
expect_jq rank-reader/after-other-skipped '.status == "skipped" and .reason == "prev: passed"' "$T/after.json"
finish
