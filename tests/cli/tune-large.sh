#!/bin/sh
# cko-tune on a space too large to walk whole (16^6 points): random samples
# and exhaustive scans lazily, and the size is an estimate.
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
S=$DATA/tune/large/space.json
valid='.defines | (.A + .B + .C + .D + .E + .F) % 3 == 0'

expect_status tune-large.random 0 cko-tune -s "$S" -k 8 --seed 4 --strategy random -o "$T/a"
expect_eq tune-large.random_valid "$(cat "$T"/a/c*/launch.json | jq "$valid" | sort -u)" true
expect_eq tune-large.random_distinct "$(hashes "$T/a" | sort -u | wc -l)" 8
expect_jq tune-large.size '.space_size > 5000000 and .space_size < 6200000' "$T/a/proposed.json"
cko-tune -s "$S" -k 8 --seed 4 --strategy random -o "$T/b" 2>"$T/err"
expect_eq tune-large.deterministic "$(diff -r "$T/a" "$T/b" && echo same)" same

# Exhaustive: the first valid points in order, then the next ones.
echo '{"candidates": []}' >"$T/history.json"
expect_status tune-large.exhaustive 0 cko-tune -s "$S" -H "$T/history.json" -i 1 -k 4 --strategy exhaustive -o "$T/e1"
expect_eq tune-large.first "$(cat "$T"/e1/c*/launch.json | jq -c '.defines | [.E, .F]' | tr '\n' ' ')" \
	"[0,0] [0,3] [0,6] [0,9] "
record "$T/history.json" "$T/e1" 1
cko-tune -s "$S" -H "$T/history.json" -i 2 -k 4 --strategy exhaustive -o "$T/e2" 2>"$T/err"
expect_eq tune-large.next "$(cat "$T"/e2/c*/launch.json | jq -c '.defines | [.E, .F]' | tr '\n' ' ')" \
	"[0,12] [0,15] [1,2] [1,5] "
expect_jq tune-large.seen '.seen == 4' "$T/e2/proposed.json"

# Local search from the history, and auto (random, then local).
record "$T/history.json" "$T/e2" 2 '.F + 1'
expect_status tune-large.local 0 cko-tune -s "$S" -H "$T/history.json" -i 3 -k 4 --strategy local -o "$T/l"
expect_eq tune-large.local_parent "$(cat "$T"/l/c*/proposal.json | jq -r .parent | sort -u)" iter-1/c0
expect_eq tune-large.local_valid "$(cat "$T"/l/c*/launch.json | jq "$valid" | sort -u)" true

expect_status tune-large.list 2 cko-tune -s "$S" --list
finish
