#!/bin/sh
# space.json's "starts": auto proposes them first, in their order, never
# twice and never again once seen; its strategy fills the other slots; a
# start that verified sends auto to local search at once. Bad starts exit
# 2 naming the file, the start and the field.
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
cp -R "$DATA/tune/small" "$T/small"
jq '.starts = [{variant: "tiled", defines: {TILE: 16}, comment: "known good"}, {variant: "naive", defines: {BS: 128, UNROLL: 2}}]' \
	"$DATA/tune/small/space.json" >"$T/small/starts.json"
S=$T/small/starts.json H=$T/history.json
echo '{"candidates": []}' >"$H"

expect_status tune-starts/first 0 cko-tune -s "$S" -H "$H" -i 1 -k 4 -o "$T/it1"
expect_eq tune-starts/first-order "$(jq -r .note "$T/it1/c0/proposal.json") / $(jq -r .note "$T/it1/c1/proposal.json")" \
	"tiled TILE=16 / naive BS=128 UNROLL=2"
expect_jq tune-starts/first-strategy '.strategy == "start"' "$T/it1/c1/proposal.json"
expect_jq tune-starts/fill '.strategy == "exhaustive" and .note == "naive BS=32 UNROLL=1"' "$T/it1/c2/proposal.json"
expect_jq tune-starts/manifest '.starts == 2 and .strategy == "exhaustive"' "$T/it1/proposed.json"
CKO_QUIET= cko-tune -s "$S" -H "$H" -i 1 -k 4 -o "$T/again" 2>"$T/info.err"
expect_grep tune-starts/says "exhaustive over 14 configurations .*the space's starts first" "$T/info.err"
expect_eq tune-starts/same-again "$(hashes "$T/again")" "$(hashes "$T/it1")"
expect_eq tune-starts/distinct "$(hashes "$T/it1" | sort -u | wc -l)" 4
record "$H" "$T/it1" 1
for i in 2 3 4; do
	cko-tune -s "$S" -H "$H" -i $i -k 4 -o "$T/it$i" 2>/dev/null
	record "$H" "$T/it$i" $i
done
expect_jq tune-starts/once '.starts == 0' "$T/it2/proposed.json"
expect_eq tune-starts/all-once "$(for i in 1 2 3 4; do hashes "$T/it$i"; done | sort | uniq -d | wc -l) $(for i in 1 2 3 4; do hashes "$T/it$i"; done | wc -l)" "0 14"

# Only auto uses them.
cko-tune -s "$S" -i 1 -k 2 --strategy exhaustive -o "$T/ex" 2>/dev/null
expect_jq tune-starts/not-exhaustive '.strategy == "exhaustive" and .note == "naive BS=32 UNROLL=1"' "$T/ex/c0/proposal.json"

# A larger space: the starts, random for the rest; once a start verified,
# local search from it in the next iteration.
cp -R "$DATA/tune/large" "$T/large"
jq '.starts = [{variant: "big", defines: {A: 1, B: 2, C: 3, D: 4, E: 5, F: 6}}]' "$DATA/tune/large/space.json" >"$T/large/starts.json"
L=$T/large/starts.json HL=$T/hl.json
echo '{"candidates": []}' >"$HL"
cko-tune -s "$L" -H "$HL" -i 1 -k 3 -o "$T/l1" 2>/dev/null
expect_jq tune-starts/large-first '.strategy == "start" and .note == "big A=1 B=2 C=3 D=4 E=5 F=6"' "$T/l1/c0/proposal.json"
expect_jq tune-starts/large-fill '.strategy == "random" and .starts == 1' "$T/l1/proposed.json"
record "$HL" "$T/l1" 1 '.A + .B + .C + .D + .E + .F + 1'
cko-tune -s "$L" -H "$HL" -i 2 -k 3 -o "$T/l2" 2>/dev/null
expect_jq tune-starts/large-local '.strategy == "local" and .starts == 0' "$T/l2/proposed.json"
# Without starts, iteration 2 is still random.
cko-tune -s "$DATA/tune/large/space.json" -H "$HL" -i 2 -k 3 -o "$T/l3" 2>/dev/null
expect_jq tune-starts/no-starts-random '.strategy == "random"' "$T/l3/proposed.json"

# Bad starts.
bad() {
	jq "$2" "$DATA/tune/small/space.json" >"$T/small/bad.json"
	expect_status tune-starts/bad-$1 2 cko-tune -s "$T/small/bad.json" -o "$T/out" &&
		expect_grep tune-starts/bad-$1-msg "$3" "$T/last.err"
}
bad variant '.starts = [{variant: "nope", defines: {}}]' "bad.json: starts\[0\]: variant: 'nope' is not a variant"
bad value '.starts = [{variant: "tiled", defines: {TILE: 16}}, {variant: "naive", defines: {BS: 100, UNROLL: 1}}]' \
	"bad.json: starts\[1\]: defines: expected a listed value of each of naive's tunables"
bad missing '.starts = [{variant: "naive", defines: {BS: 64}}]' "starts\[0\]: defines: expected a listed value"
bad constraint '.starts = [{variant: "naive", defines: {BS: 256, UNROLL: 4}}]' "starts\[0\]: defines: breaks a constraint of naive"
bad key '.starts = [{variant: "naive", define: {BS: 64}}]' "starts\[0\]: define: unknown key"
bad type '.starts = {}' "bad.json: starts: expected an array"
finish
