# cko-docs: ranked retrieval over docs/guidance: each query's first passage
# must be the one written for it; JSON and text output; usage errors.
. "$(dirname "$0")/../lib.sh"
G=$CKO_TOP/docs/guidance

# first QUERY HEADING: the top passage's heading for the query.
first() {
	q=$1 want=$2
	h=$(cko-docs -c "$G" -n 3 --json "$q" 2>"$T/err" | jq -r '.results[0].heading')
	expect_eq "docs/first: $q" "$h" "$want"
}
first "bank conflicts shared memory padding" "Padding a tile to avoid bank conflicts"
first "float4 alignment vectorized loads" "float4 loads and 16-byte alignment"
first "deterministic reduction across blocks" "Deterministic reduction across blocks (partials and the last block)"
first "occupancy registers launch bounds" "Capping registers with __launch_bounds__"
first "cp.async double buffering" "Double buffering with cp.async"
first "online softmax" "Online softmax in one pass"
first "welford variance layernorm" "One-pass mean and variance (Welford)"
first "transpose coalesced shared memory tile" "Transposing through a shared-memory tile"
first "TF32 accuracy FP32 tolerance" "TF32 and FP32 accuracy"
first "thread block clusters __cluster_dims__" "Thread block clusters"
first "warp shuffle reduction" "Warp-level reduction with shuffles"
first "coalesced global memory access" "Coalescing: how a warp's global accesses become memory transactions"
first "streaming stores L2 cache eviction" "Streaming loads and stores (cache hints)"
first "long scoreboard stall" "Warp stall reasons"
first "gemm thread tile register blocking" "Thread tiles: register blocking"
first "tail effect waves" "Waves and the tail effect"
first "TMA bulk copy mbarrier" "TMA, the tensor memory accelerator"

# JSON shape and -n.
cko-docs -c "$G" -n 4 --json "shared memory bank conflicts" >"$T/r.json"
expect_jq docs/json-shape '.tool == "cko-docs" and .status == "ok" and (.results | length) == 4 and
	(.results | map(.rank) == [1,2,3,4]) and (.results[0] | (.file | endswith(".md")) and .score > 0 and
	(.text | length) > 100 and (.title | length) > 0)' "$T/r.json"
expect_jq docs/json-sorted '[.results[].score] as $s | $s == ($s | sort | reverse)' "$T/r.json"

# Text output names file and heading; -o writes a file.
cko-docs -c "$G" -n 1 "online softmax" >"$T/r.txt"
expect_grep docs/text-output '^1\. softmax-layernorm\.md: Online softmax in one pass \[score [0-9.]+\]$' "$T/r.txt"
cko-docs -c "$G" -n 2 -o "$T/out.txt" "online softmax"
expect_grep docs/output-file '^2\. ' "$T/out.txt"

# The default corpus comes from CKO_SHARE.
CKO_SHARE=$CKO_TOP cko-docs -n 1 --json "warp shuffle" >"$T/share.json" 2>"$T/err"
expect_jq docs/cko-share '.results | length == 1' "$T/share.json"

# Usage and input errors.
expect_status docs/empty-query 2 cko-docs -c "$G" ""
expect_status docs/no-query 2 cko-docs -c "$G"
expect_status docs/stop-words-only 2 cko-docs -c "$G" "the of and"
expect_status docs/missing-corpus 2 cko-docs -c "$T/nowhere" "bank conflicts"
expect_grep docs/missing-corpus-named "$T/nowhere" "$T/last.err"
mkdir -p "$T/emptydir"
expect_status docs/empty-corpus 2 cko-docs -c "$T/emptydir" "bank conflicts"
expect_status docs/missing-share 2 env CKO_SHARE="$T/noshare" cko-docs "bank conflicts"
expect_grep docs/missing-share-named "$T/noshare/docs/guidance" "$T/last.err"
expect_status docs/bad-count 2 cko-docs -c "$G" -n 0 "bank conflicts"
expect_status docs/no-match 1 cko-docs -c "$G" --no-cache "zzzqqqxx"
cko-docs -h >"$T/help" 2>&1
expect_grep docs/help '^usage: cko-docs ' "$T/help"
finish
