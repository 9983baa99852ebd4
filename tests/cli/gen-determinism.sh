#!/bin/sh
# cko-gen: the same spec and seed give the same bytes, whatever the thread
# count; another hidden seed or case seed gives other bytes; the case
# folder has the files docs/formats.md names.
. "$(dirname "$0")/../lib.sh"
SIG=$DATA/gen/signature.json CASES=$DATA/gen/cases.json

expect_status gen-writes 0 cko-gen --hidden-seed 5 -j 1 -o "$T/a" "$SIG" "$CASES"
expect_status gen-writes-threads 0 cko-gen --hidden-seed 5 -j 3 -o "$T/b" "$SIG" "$CASES"
expect_status gen-writes-again 0 cko-gen --hidden-seed 5 -o "$T/c" "$SIG" "$CASES"

# Every file of a, b and c is the same (the "big" case spans two chunks).
same=1
for f in $(cd "$T/a" && find . -type f | sort); do
	cmp -s "$T/a/$f" "$T/b/$f" && cmp -s "$T/a/$f" "$T/c/$f" || { same=0; echo "# differs: $f"; }
done
nb=$(cd "$T/b" && find . -type f | wc -l) na=$(cd "$T/a" && find . -type f | wc -l)
[ $same = 1 ] && [ "$na" = "$nb" ] && ok gen-same-bytes || fail gen-same-bytes "outputs differ between runs or thread counts"

# The layout: index.json in order, case.json, one in/SET per set.
expect_jq gen-index '[.[].name] == ["small","file_input","big","hidden-1","hidden-2","hidden-3","hidden-4","hidden-5","hidden-6","hidden-7","hidden-8"]' "$T/a/index.json"
expect_jq gen-index-sets '[.[] | select(.name == "big") | .sets] == [3] and ([.[] | select(.kind == "correctness") | .sets] | all(. == 1))' "$T/a/index.json"
expect_jq gen-case-json '.name == "big" and .kind == "performance" and .hidden == false and .sets == 3 and .scalars == {"M":1100,"N":300,"K":1000,"alpha":2} and .flops == 660000000 and .bytes == 5734000 and (keys == ["bytes","flops","hidden","kind","name","scalars","sets","tolerance"])' "$T/a/big/case.json"
# Tolerance: the case's over the top level's over the dtype's default, per field.
expect_jq gen-tolerance '.tolerance == {"acc": {"rtol": 1e-12, "atol": 1e-14}, "out": {"rtol": 0.0001, "atol": 0.25}}' "$T/a/file_input/case.json"
expect_jq gen-tolerance-top '.tolerance.out == {"rtol": 0.0001, "atol": 1e-06}' "$T/a/small/case.json"
files=$(cd "$T/a/big/in" && find . -name '*.npy' | sort | tr '\n' ' ')
expect_eq gen-sets-files "$files" "./0/a.npy ./0/acc.npy ./0/b.npy ./0/idx.npy ./1/a.npy ./1/acc.npy ./1/b.npy ./1/idx.npy ./2/a.npy ./2/acc.npy ./2/b.npy ./2/idx.npy "
[ ! -e "$T/a/big/in/0/out.npy" ] && ok gen-no-output-inputs || fail gen-no-output-inputs "an out buffer got an input file"
# The .npy header: dtype and shape of the buffer.
expect_grep gen-npy-header "'descr': '<f4', 'fortran_order': False, 'shape': \(1100, 1000\)" "$T/a/big/in/0/a.npy"
expect_grep gen-npy-header-1d "'descr': '<i4', 'fortran_order': False, 'shape': \(300,\)" "$T/a/big/in/0/idx.npy"
# A file input is copied as is (same data after the header).
tail -c 48 "$DATA/gen/a34.npy" >"$T/want.bin"; tail -c 48 "$T/a/file_input/in/0/a.npy" >"$T/got.bin"
cmp -s "$T/want.bin" "$T/got.bin" && ok gen-file-input || fail gen-file-input "file input data differs"

# Sets of a performance case differ; another case seed or hidden seed gives other bytes.
cmp -s "$T/a/big/in/0/a.npy" "$T/a/big/in/1/a.npy" && fail gen-sets-differ "set 0 and 1 are the same" || ok gen-sets-differ
jq '.cases[2].seed = 4' "$CASES" >"$T/cases4.json"
cp "$DATA/gen/a34.npy" "$T/"
expect_status gen-other-seed-runs 0 cko-gen --hidden-seed 5 -o "$T/d" "$SIG" "$T/cases4.json"
cmp -s "$T/a/big/in/0/a.npy" "$T/d/big/in/0/a.npy" && fail gen-other-seed "same bytes for another case seed" || ok gen-other-seed
cmp -s "$T/a/small/in/0/a.npy" "$T/d/small/in/0/a.npy" && ok gen-other-case-unchanged || fail gen-other-case-unchanged "changing one case's seed changed another case"
expect_status gen-other-hidden-runs 0 cko-gen --hidden-seed 6 -o "$T/e" "$SIG" "$CASES"
cmp -s "$T/a/small/in/0/a.npy" "$T/e/small/in/0/a.npy" && ok gen-hidden-seed-keeps-cases || fail gen-hidden-seed-keeps-cases "the hidden seed changed a visible case"
cmp -s "$T/a/hidden-1/case.json" "$T/e/hidden-1/case.json" && cmp -s "$T/a/hidden-1/in/0/a.npy" "$T/e/hidden-1/in/0/a.npy" &&
	fail gen-hidden-seed-differs "hidden-1 is the same for seeds 5 and 6" || ok gen-hidden-seed-differs

# Without --hidden-seed the hidden cases are checked but not written.
expect_status gen-no-seed 0 cko-gen -o "$T/f" "$SIG" "$CASES"
expect_jq gen-no-seed-index 'map(.name) == ["small","file_input","big"]' "$T/f/index.json"
finish
