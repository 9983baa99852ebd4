#!/bin/sh
# cko-tune --strategy local: moves from the fastest valid configuration of
# the history to its unseen neighbours (one tunable one step, or another
# variant keeping shared tunables), then from the next fastest; never from
# an invalid one; random while the history has no valid configuration.
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
S=$DATA/tune/grid/space.json
cko-tune -s "$S" --list >"$T/list"

# entry ID VARIANT DEFINES STATUS MS: a history entry for a grid point.
entry() {
	jq -c --arg id "$1" --arg v "$2" --argjson d "$3" --arg st "$4" --argjson ms "$5" \
		'select(.variant == $v and .defines == $d) | {id: $id, iteration: 1, status: $st, hash, variant,
		 defines, geomean_ms: $ms}' "$T/list"
}
history() { jq -s '{tool: "cko-rank", candidates: .}' >"$T/history.json"; }
{
	entry iter-001/c0 grid '{"X": 1, "Y": 1}' ok 5
	entry iter-001/c1 grid '{"X": 4, "Y": 5}' ok 1
	entry iter-001/c2 grid '{"X": 7, "Y": 2}' ok 3
	entry iter-001/c3 grid '{"X": 8, "Y": 8}' invalid 0.1
} | history

tune() { cko-tune -s "$S" -H "$T/history.json" -i 2 -k "$1" --seed 9 --strategy local -o "$2" 2>"$T/err" ||
	fail tune-local.run "$(cat "$T/err")"; }
tune 4 "$T/a"
# Neighbours of (4, 5): X or Y one step, or variant alt with X = 4.
near='.defines as $d | if .variant == "grid" then ((($d.X - 4) | fabs) + (($d.Y - 5) | fabs)) == 1 else $d.X == 4 end'
n=0
for c in 0 1 2 3; do
	jq -s ".[1] + {variant: .[0].variant} | $near" "$T/a/c$c/proposal.json" "$T/a/c$c/launch.json" | grep -q true &&
		n=$((n + 1))
done
expect_eq tune-local.neighbours "$n" 4
expect_eq tune-local.parent "$(cat "$T"/a/c*/proposal.json | jq -r .parent | sort -u)" iter-001/c1
expect_eq tune-local.strategy "$(cat "$T"/a/c*/proposal.json | jq -r .strategy | sort -u)" local
expect_grep tune-local.note '"note":.*grid X=[0-9] Y=[0-9] \(from iter-001/c1: [XY] [0-9]->[0-9]\)|variant grid->alt' \
	"$T/a/c0/proposal.json"

# The neighbourhood of (4, 5) has 5 points (4 in grid, 1 switch to alt):
# k = 7 takes them all and continues at the next fastest, (7, 2).
tune 7 "$T/b"
expect_eq tune-local.next_best "$(cat "$T"/b/c*/proposal.json | jq -r .parent | sort | uniq -c | tr -s ' ' | sed 's/^ //' | tr '\n' ,)" \
	"5 iter-001/c1,2 iter-001/c2,"

# Once the best's neighbours are in the history, it moves from the next.
for c in 0 1 2 3 4; do
	jq -c --arg id "iter-002/c$c" --slurpfile l "$T/b/c$c/launch.json" \
		'{id: $id, iteration: 1, status: "ok", hash, variant, defines: $l[0].defines, geomean_ms: 2}' "$T/b/c$c/proposal.json"
done >"$T/more"
{ jq -c '.candidates[]' "$T/history.json"; cat "$T/more"; } | history
tune 3 "$T/c"
# Fastest now: (4, 5) at 1 (used up), then the five at 2: their fresh neighbours.
expect_eq tune-local.moved "$(cat "$T"/c/c*/proposal.json | jq -r '.parent | startswith("iter-002/")' | sort -u)" true

# The invalid entry (0.1 ms) is never an origin; with only invalid entries: random.
entry iter-001/c3 grid '{"X": 8, "Y": 8}' invalid 0.1 | history
tune 3 "$T/d"
expect_eq tune-local.no_valid "$(cat "$T"/d/c*/proposal.json | jq -r '.strategy + " " + (.parent | tostring)' | sort -u)" \
	"random null"
expect_grep tune-local.no_valid_note 'no valid candidate in the history yet' "$T/d/c0/proposal.json"

# A climber per variant: with both variants in the history, some slots go
# to the neighbours of alt's best although grid's best is faster...
{
	entry iter-001/c0 grid '{"X": 4, "Y": 5}' ok 1
	entry iter-001/c1 grid '{"X": 2, "Y": 2}' ok 2
	entry iter-001/c2 alt '{"X": 6, "Z": 2}' ok 1.8
} | history
tune 4 "$T/e"
expect_eq tune-local.per_variant "$(cat "$T"/e/c*/proposal.json | jq -r .parent | sort -u | tr '\n' ' ')" \
	"iter-001/c0 iter-001/c2 "
# Same inputs, same proposals.
tune 4 "$T/e2"
# ... and not when alt's best is more than twice as slow and alt has been
# climbed 16 times (entries whose parent is in alt: here all from a70).
{
	entry iter-001/c0 grid '{"X": 4, "Y": 5}' ok 1
	entry iter-001/c1 grid '{"X": 2, "Y": 2}' ok 2
	jq -c 'select(.variant == "alt" and .defines.X >= 3) | {id: "iter-001/a\(.index)", iteration: 1, status: "ok", hash,
		variant, defines, geomean_ms: (4 + .defines.X), parent: "iter-001/a70"}' "$T/list"
} | history
tune 4 "$T/f"
expect_eq tune-local.per_variant_slow "$(cat "$T"/f/c*/proposal.json | jq -r .parent | sort -u)" iter-001/c0

expect_eq tune-local.deterministic "$(diff -r "$T/e" "$T/e2" && echo same)" same
finish
