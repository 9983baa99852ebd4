#!/bin/sh
# cko-tune --strategy random: deterministic for a seed, different across
# seeds and iterations, distinct valid configurations, never the history's.
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
S=$DATA/tune/sim/space.json

run() { cko-tune -s "$S" -k 8 --strategy random "$@" 2>"$T/err" || fail tune-random.run "$*: $(cat "$T/err")"; }
run --seed 5 -i 1 -o "$T/a"
run --seed 5 -i 1 -o "$T/b"
run --seed 6 -i 1 -o "$T/c"
run --seed 5 -i 2 -o "$T/d"
expect_eq tune-random.same_seed "$(diff -r "$T/a" "$T/b" && echo same)" same
hashes "$T/a" >"$T/ha"
hashes "$T/c" >"$T/hc"
hashes "$T/d" >"$T/hd"
[ "$(cat "$T/ha")" != "$(cat "$T/hc")" ] && ok tune-random.other_seed || fail tune-random.other_seed "seeds 5 and 6 gave the same"
[ "$(cat "$T/ha")" != "$(cat "$T/hd")" ] && ok tune-random.other_iteration || fail tune-random.other_iteration "same proposals"
expect_eq tune-random.distinct "$(sort -u "$T/ha" | wc -l)" 8

# Every proposal is a valid configuration of the space.
cko-tune -s "$S" --list | jq -r .hash | sort >"$T/all"
expect_eq tune-random.valid "$(sort "$T/ha" | comm -23 - "$T/all" | wc -l)" 0
expect_jq tune-random.manifest '.strategy == "random" and .space_size == 2317 and .seen == 0' "$T/a/proposed.json"
expect_jq tune-random.proposal '.strategy == "random" and .parent == null' "$T/a/c3/proposal.json"

# With a history: nothing proposed twice over many iterations.
H=$T/history.json
echo '{"candidates": []}' >"$H"
for i in 1 2 3 4 5 6; do
	cko-tune -s "$S" -H "$H" -i $i -k 16 --seed 3 --strategy random -o "$T/it$i" 2>"$T/err" ||
		fail tune-random.loop "$(cat "$T/err")"
	record "$H" "$T/it$i" $i
done
expect_eq tune-random.no_repeat "$(jq -r '.candidates[].hash' "$H" | sort -u | wc -l)" 96
expect_jq tune-random.seen '.seen == 80' "$T/it6/proposed.json"

# auto: random for the first iterations of a larger space, then local.
cko-tune -s "$S" -H "$H" -i 1 -k 2 -o "$T/auto1" 2>"$T/err"
expect_jq tune-random.auto_early '.strategy == "random"' "$T/auto1/proposed.json"
cko-tune -s "$S" -H "$H" -i 7 -k 2 -o "$T/auto7" 2>"$T/err"
expect_jq tune-random.auto_later '.strategy == "local"' "$T/auto7/proposed.json"
finish
