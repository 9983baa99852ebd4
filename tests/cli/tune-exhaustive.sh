#!/bin/sh
# cko-tune --strategy exhaustive: every valid configuration once across
# iterations, constraints respected, then "space exhausted".
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
S=$DATA/tune/small/space.json
H=$T/history.json

echo '{"candidates": []}' >"$H"
for i in 1 2 3 4 5; do
	if ! cko-tune -s "$S" -H "$H" -i $i -k 4 --strategy exhaustive -o "$T/it$i" 2>"$T/err"; then
		fail tune-exhaustive.run "iteration $i: $(cat "$T/err")"
	fi
	record "$H" "$T/it$i" $i
done

cko-tune -s "$S" --list | jq -r .hash | sort >"$T/all"
for i in 1 2 3 4 5; do hashes "$T/it$i"; done >"$T/proposed"
expect_eq tune-exhaustive.count "$(wc -l <"$T/proposed")" 14
expect_eq tune-exhaustive.distinct "$(sort -u "$T/proposed" | wc -l)" 14
expect_eq tune-exhaustive.covers "$(sort "$T/proposed" | cmp - "$T/all" && echo same)" same
expect_eq tune-exhaustive.order "$(jq -r .note "$T/it1/c0/proposal.json")" "naive BS=32 UNROLL=1"

# Iteration 4 has 2 left; iteration 5 nothing.
expect_jq tune-exhaustive.partial '.status == "ok"' "$T/it4/c1/proposal.json"
expect_jq tune-exhaustive.none '.status == "none" and .note == "space exhausted" and .proposer == "cko-tune"' \
	"$T/it4/c2/proposal.json"
if [ -e "$T/it4/c2/kernel.cu" ] || [ -e "$T/it4/c2/launch.json" ]; then
	fail tune-exhaustive.none_files "a candidate with nothing to propose has kernel or launch files"
else
	ok tune-exhaustive.none_files
fi
expect_eq tune-exhaustive.all_none "$(cat "$T"/it5/c*/proposal.json | jq -r .status | sort -u)" none

# Constraints: never BS * UNROLL > 512.
bad=$(cat "$T"/it*/c*/launch.json | jq -s '[.[] | .defines | select(.BS != null and .BS * .UNROLL > 512)] | length')
expect_eq tune-exhaustive.constraints "$bad" 0

# Concrete candidates: the variant's source, its launch rule, the defines.
expect_eq tune-exhaustive.source "$(cmp "$T/it1/c0/kernel.cu" "$DATA/tune/small/kernels/naive.cu" && echo same)" same
expect_jq tune-exhaustive.launch_keys 'keys == ["block", "defines", "grid"] and .defines == {"BS": 32, "UNROLL": 1}' \
	"$T/it1/c0/launch.json"
tiled=$(grep -l '"tiled"' "$T"/it*/c*/proposal.json | head -1)
tiled=$(dirname "$tiled")
expect_jq tune-exhaustive.fixed_defines '.defines.VEC == 4 and (.defines.TILE | IN(8, 16, 32)) and .smem == 0
	and .overrides.tiny.grid == [1] and (has("tunables") | not) and (has("constraints") | not)' "$tiled/launch.json"
expect_eq tune-exhaustive.tiled_source "$(cmp "$tiled/kernel.cu" "$DATA/tune/small/kernels/tiled.cu" && echo same)" same
expect_jq tune-exhaustive.proposal '.proposer == "cko-tune" and .status == "ok" and .parent == null and
	.variant == "naive" and .strategy == "exhaustive" and (.hash | test("^[0-9a-f]{64}$"))' "$T/it1/c0/proposal.json"

# The manifest.
expect_jq tune-exhaustive.manifest '. == {"tool": "cko-tune", "iteration": 2, "candidates": ["c0", "c1", "c2", "c3"],
	"strategy": "exhaustive", "space_size": 14, "seen": 4}' "$T/it2/proposed.json"

# Redoing an iteration with a history that already holds it (and later
# ones) proposes the same files again: entries of iteration >= -i are ignored.
cko-tune -s "$S" -H "$H" -i 2 -k 4 --strategy exhaustive -o "$T/redo2" 2>"$T/err"
expect_eq tune-exhaustive.redo "$(diff -r "$T/it2" "$T/redo2" && echo same)" same

# auto walks a space this small in order.
cko-tune -s "$S" -k 2 -o "$T/auto" 2>"$T/err"
expect_jq tune-exhaustive.auto '.strategy == "exhaustive"' "$T/auto/proposed.json"
finish
