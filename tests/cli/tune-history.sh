#!/bin/sh
# cko-tune never proposes a configuration of the history: matched by hash
# (valid, invalid or skipped alike), or by variant and defines when an
# entry has no hash.
. "$(dirname "$0")/../lib.sh"
S=$DATA/tune/small/space.json
cko-tune -s "$S" --list >"$T/list"

# Five entries with hashes (two invalid, one with no time), one without.
jq -s '{tool: "cko-rank", candidates: [
	(.[0] | {id: "iter-001/c0", iteration: 1, status: "ok", hash, variant, defines, geomean_ms: 3}),
	(.[2] | {id: "iter-001/c1", iteration: 1, status: "invalid", hash, variant, defines, geomean_ms: null}),
	(.[5] | {id: "iter-001/c2", iteration: 1, status: "invalid", hash, stage: "compile"}),
	(.[7] | {id: "iter-002/c0", iteration: 2, status: "ok", hash, variant, defines, geomean_ms: 1.5}),
	(.[12] | {id: "iter-002/c1", iteration: 2, status: "skipped", hash}),
	(.[13] | {id: "iter-002/c2", iteration: 2, status: "ok", variant, defines, geomean_ms: 2}),
	{id: "iter-002/c3", iteration: 2, status: "skipped", hash: null}]}' "$T/list" >"$T/history.json"
jq -r '.candidates[] | .hash // empty' "$T/history.json" >"$T/seen"
jq -sr '.[13].hash' "$T/list" >>"$T/seen"

for s in exhaustive random local; do
	cko-tune -s "$S" -H "$T/history.json" -i 3 -k 10 --strategy $s -o "$T/$s" 2>"$T/err" ||
		fail tune-history.$s "$(cat "$T/err")"
	cat "$T"/$s/c*/proposal.json | jq -r 'select(.status == "ok") | .hash' | sort >"$T/$s.h"
	expect_eq tune-history.$s.fresh "$(sort "$T/seen" | comm -12 - "$T/$s.h" | wc -l)" 0
	expect_eq tune-history.$s.count "$(sort -u "$T/$s.h" | wc -l)" 8
	expect_jq tune-history.$s.manifest '.seen == 6 and .space_size == 14' "$T/$s/proposed.json"
	expect_jq tune-history.$s.exhausted '.status == "none"' "$T/$s/c9/proposal.json"
done

# A history that is not a cko-rank history is bad input.
echo '{"candidates": {}}' >"$T/bad.json"
expect_status tune-history.bad 2 cko-tune -s "$S" -H "$T/bad.json" -o "$T/x"
expect_grep tune-history.bad_msg 'bad.json: candidates: expected an array' "$T/last.err"
echo '{"candidates": [{"hash": 5}]}' >"$T/bad.json"
expect_status tune-history.bad_hash 2 cko-tune -s "$S" -H "$T/bad.json" -o "$T/x"
expect_grep tune-history.bad_hash_msg 'candidates\[0\]\.hash' "$T/last.err"
expect_status tune-history.missing 2 cko-tune -s "$S" -H "$T/nonexistent.json" -o "$T/x"
finish
