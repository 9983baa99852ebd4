#!/bin/sh
# cko-gen: hidden cases are drawn from a seed: odd sizes where the range
# allows, constraints honoured, undrawn scalars from the first correctness
# case, the same cases for the same seed, and clear errors when the hidden
# section cannot be satisfied.
. "$(dirname "$0")/../lib.sh"
SIG=$DATA/gen/signature.json CASES=$DATA/gen/cases.json
cp "$DATA/gen/a34.npy" "$T/"

# 200 hidden cases: every draw within the rules.
jq '.hidden.count = 200' "$CASES" >"$T/h200.json"
expect_status gen-hidden-200 0 cko-gen --hidden-seed 11 -o "$T/a" "$SIG" "$T/h200.json"
for i in $(seq 1 200); do cat "$T/a/hidden-$i/case.json"; done | jq -s . >"$T/all.json"
expect_jq gen-hidden-count 'length == 200 and (map(.name) | unique | length) == 200' "$T/all.json"
expect_jq gen-hidden-kind 'all(.kind == "correctness" and .hidden == true and .sets == 1)' "$T/all.json"
expect_jq gen-hidden-odd 'all(.scalars.M % 2 == 1 and .scalars.N % 2 == 1)' "$T/all.json"
expect_jq gen-hidden-ranges 'all(.scalars.M >= 1 and .scalars.M <= 40 and .scalars.N >= 2 and .scalars.N <= 31)' "$T/all.json"
expect_jq gen-hidden-even-only-range 'all(.scalars.K == 8)' "$T/all.json"
expect_jq gen-hidden-constraints 'all(.scalars.M * .scalars.N <= 600 and .scalars.N != 7)' "$T/all.json"
expect_jq gen-hidden-undrawn 'all(.scalars.alpha == 0.5)' "$T/all.json"
expect_jq gen-hidden-varied '(map(.scalars.M) | unique | length) > 10 and (map(.scalars.N) | unique | length) > 8' "$T/all.json"
expect_jq gen-hidden-tolerance 'all(.tolerance.out == {"rtol": 0.0001, "atol": 1e-06})' "$T/all.json"
expect_jq gen-hidden-flops 'all(.flops == 2 * .scalars.M * .scalars.N * .scalars.K)' "$T/all.json"
expect_jq gen-hidden-index '[.[] | select(.hidden)] | length == 200' "$T/a/index.json"
expect_grep gen-hidden-shape "'shape': \($(jq .scalars.M "$T/a/hidden-3/case.json"), 8\)" "$T/a/hidden-3/in/0/a.npy"

# Same seed, same hidden cases (sizes and bytes); the first 8 of 200 equal the 8 of count 8.
expect_status gen-hidden-again 0 cko-gen --hidden-seed 11 -o "$T/b" "$SIG" "$CASES"
same=1
for i in 1 2 3 4 5 6 7 8; do
	cmp -s "$T/a/hidden-$i/case.json" "$T/b/hidden-$i/case.json" && cmp -s "$T/a/hidden-$i/in/0/a.npy" "$T/b/hidden-$i/in/0/a.npy" || same=0
done
[ $same = 1 ] && ok gen-hidden-deterministic || fail gen-hidden-deterministic "hidden cases differ for the same seed"
# Each hidden case has its own seed: two cases of equal sizes still differ.
cmp -s "$T/a/hidden-1/in/0/b.npy" "$T/a/hidden-2/in/0/b.npy" && fail gen-hidden-fresh-seeds "hidden-1 and hidden-2 share inputs" || ok gen-hidden-fresh-seeds

# A buffer without a top-level generator: hidden cases take the first
# correctness case's (here uniform(5, 6) for b).
jq 'del(.inputs.b) | .cases[0].inputs = {"b": {"dist": "uniform", "low": 5, "high": 6}} |
    .cases[1].inputs.b = {"dist": "uniform"}' "$CASES" >"$T/fallback.json"
expect_status gen-hidden-input-fallback 0 cko-gen --hidden-seed 2 -o "$T/fb" "$SIG" "$T/fallback.json"
hlen=$(od -An -j8 -N2 -tu2 "$T/fb/hidden-1/in/0/b.npy" | tr -d ' ')
out=$(od -An -v -j$((10 + hlen)) -tf4 -w4 "$T/fb/hidden-1/in/0/b.npy" | awk '$1 < 5 || $1 > 6' | wc -l)
expect_eq gen-hidden-input-fallback-values "$out" 0

# A constraint no draw meets: exit 2 naming it.
jq '.hidden.constraints = ["M*N <= 600", "M > 100"]' "$CASES" >"$T/imp.json"
expect_status gen-hidden-impossible 2 cko-gen --hidden-seed 1 -o "$T/c" "$SIG" "$T/imp.json"
expect_grep gen-hidden-impossible-msg 'imp.json: hidden.constraints\[1\]: "M > 100" rejected' "$T/last.err"
[ ! -e "$T/c/index.json" ] && ok gen-hidden-impossible-nothing || fail gen-hidden-impossible-nothing "wrote index.json after a lint error"
# Checked by --lint too, without a seed.
expect_status gen-hidden-impossible-lint 2 cko-gen --lint "$SIG" "$T/imp.json"
# Drawn sizes that make no buffer: exit 2 naming the hidden case.
jq '.hidden.scalars.M = [-5, -1]' "$CASES" >"$T/neg.json"
expect_status gen-hidden-bad-size 2 cko-gen --lint "$SIG" "$T/neg.json"
expect_grep gen-hidden-bad-size-msg 'neg.json: hidden.scalars: shape of a: dimension 0 is -[0-9]+ .*hidden case hidden-1' "$T/last.err"
# Only integer scalars of the signature are drawn; ranges are [low, high].
jq '.hidden.scalars.alpha = [1, 2]' "$CASES" >"$T/f.json"
expect_status gen-hidden-float 2 cko-gen --lint "$SIG" "$T/f.json"
expect_grep gen-hidden-float-msg 'f.json: hidden.scalars.alpha: only integer scalars' "$T/last.err"
jq '.hidden.scalars.Q = [1, 2]' "$CASES" >"$T/q.json"
expect_status gen-hidden-unknown 2 cko-gen --lint "$SIG" "$T/q.json"
expect_grep gen-hidden-unknown-msg 'q.json: hidden.scalars.Q: not a scalar' "$T/last.err"
jq '.hidden.scalars.M = [9, 3]' "$CASES" >"$T/r.json"
expect_status gen-hidden-reversed 2 cko-gen --lint "$SIG" "$T/r.json"
expect_grep gen-hidden-reversed-msg 'r.json: hidden.scalars.M: low 9 is above high 3' "$T/last.err"
jq '.hidden.constraints = ["M <"]' "$CASES" >"$T/s.json"
expect_status gen-hidden-syntax 2 cko-gen --lint "$SIG" "$T/s.json"
expect_grep gen-hidden-syntax-msg 's.json: hidden.constraints\[0\]: ' "$T/last.err"
jq '.hidden.cuont = 3' "$CASES" >"$T/k.json"
expect_status gen-hidden-unknown-key 2 cko-gen --lint "$SIG" "$T/k.json"
expect_grep gen-hidden-unknown-key-msg 'k.json: hidden.cuont: unknown key' "$T/last.err"
expect_status gen-hidden-seed-bad 2 cko-gen --hidden-seed -3 -o "$T/x" "$SIG" "$CASES"
finish
