#!/bin/sh
# cko-gen --check-expected: expected outputs that are all one value, or hold
# NaN or Inf, or are missing, exit 2 naming the file; good ones pass.
. "$(dirname "$0")/../lib.sh"
D=$T/cases
mkdir -p "$D/one/expected/0" "$D/two/expected/0" "$D/two/expected/1"
cat >"$D/index.json" <<'J'
[{"name": "one", "kind": "correctness", "hidden": false, "sets": 1},
 {"name": "two", "kind": "performance", "hidden": false, "sets": 2}]
J
for c in one two; do
	echo '{"name": "'$c'", "kind": "correctness", "hidden": false, "scalars": {}, "sets": 1,
	       "tolerance": {"y": {"rtol": 1e-5, "atol": 1e-6}}}' >"$D/$c/case.json"
done
jq '.kind = "performance" | .sets = 2' "$D/two/case.json" >"$T/x" && mv "$T/x" "$D/two/case.json"
good() { for f in one/expected/0 two/expected/0 two/expected/1; do cp "$DATA/gen/ok23.npy" "$D/$f/y.npy"; done; }

good
expect_status expected-good 0 cko-gen --check-expected "$D"
cp "$DATA/gen/zeros23.npy" "$D/two/expected/1/y.npy"
expect_status expected-zeros 2 cko-gen --check-expected "$D"
expect_grep expected-zeros-msg 'two/expected/1/y.npy: all 6 elements are 0' "$T/last.err"
good; cp "$DATA/gen/nan23.npy" "$D/one/expected/0/y.npy"
expect_status expected-nan 2 cko-gen --check-expected "$D"
expect_grep expected-nan-msg 'one/expected/0/y.npy: element \[1, 0\] is NaN' "$T/last.err"
good; cp "$DATA/gen/inf23.npy" "$D/two/expected/0/y.npy"
expect_status expected-inf 2 cko-gen --check-expected "$D"
expect_grep expected-inf-msg 'two/expected/0/y.npy: element \[0, 2\] is infinite' "$T/last.err"
good; rm "$D/two/expected/1/y.npy"
expect_status expected-missing 2 cko-gen --check-expected "$D"
expect_grep expected-missing-msg 'two/expected/1/y.npy: missing' "$T/last.err"
good; printf 'not a npy' >"$D/one/expected/0/y.npy"
expect_status expected-garbage 2 cko-gen --check-expected "$D"
expect_grep expected-garbage-msg 'one/expected/0/y.npy: not a .npy file' "$T/last.err"
# One element is no degenerate case (a sum of one row, a 1x1 softmax).
good; head -c 128 "$DATA/gen/ok23.npy" | sed "s/(2, 3)/(1,)  /" >"$D/one/expected/0/y.npy"
printf '\0\0\0\0' >>"$D/one/expected/0/y.npy"
expect_status expected-single 0 cko-gen --check-expected "$D"
good; echo '[{"name": "../x", "kind": "correctness", "hidden": false, "sets": 1}]' >"$D/index.json"
expect_status expected-bad-index 2 cko-gen --check-expected "$D"
expect_status expected-no-folder 2 cko-gen --check-expected "$T/none"
finish
