#!/bin/sh
# cko-gen --lint: each problem exits 2 with "FILE: FIELD: what is wrong",
# and nothing is written when generating from a spec that does not lint.
. "$(dirname "$0")/../lib.sh"
SIG=$DATA/gen/signature.json CASES=$DATA/gen/cases.json
cp "$DATA/gen/a34.npy" "$DATA/gen/a34_f64.npy" "$T/"

expect_status lint-clean 0 cko-gen --lint "$SIG" "$CASES"

# bad NAME PATTERN JQ-ON-CASES: the edited cases.json fails lint with PATTERN on stderr.
bad() {
	jq "$3" "$CASES" >"$T/$1.json" || { fail "$1" "jq failed"; return; }
	if expect_status "$1" 2 cko-gen --lint "$SIG" "$T/$1.json"; then
		expect_grep "$1-msg" "$2" "$T/last.err"
	fi
}
# badsig NAME PATTERN JQ-ON-SIGNATURE
badsig() {
	jq "$3" "$SIG" >"$T/$1-sig.json" || { fail "$1" "jq failed"; return; }
	if expect_status "$1" 2 cko-gen --lint "$T/$1-sig.json" "$CASES"; then
		expect_grep "$1-msg" "$2" "$T/last.err"
	fi
}

badsig lint-dtype 'lint-dtype-sig.json: params\[1\].dtype: unknown dtype .f33.' '.params[1].dtype = "f33"'
badsig lint-sig-role 'lint-sig-role-sig.json: params\[4\].role: ' '.params[4].role = "output"'
bad lint-file-shape 'lint-file-shape.json: cases\[1\].inputs.a.path: .*a34.npy has shape \(3, 4\), the buffer.s shape is \(4, 4\)' \
	'.cases[1].scalars.M = 4'
bad lint-file-dtype 'lint-file-dtype.json: cases\[1\].inputs.a.path: .*a34_f64.npy has dtype f64, the buffer is f32' \
	'.cases[1].inputs.a.path = "a34_f64.npy"'
bad lint-file-missing 'lint-file-missing.json: cases\[1\].inputs.a.path: .*nothere.npy' '.cases[1].inputs.a.path = "nothere.npy"'
bad lint-no-generator 'lint-no-generator.json: cases\[0\].inputs.idx: no generator for input buffer idx' 'del(.inputs.idx)'
bad lint-inout-generator 'lint-inout-generator.json: cases\[0\].inputs.acc: no generator' 'del(.inputs.acc)'
bad lint-zero-size 'lint-zero-size.json: cases\[0\].scalars: shape of a: dimension 0 is 0 \(must be >= 1\)' '.cases[0].scalars.M = 0'
bad lint-negative-size 'lint-negative-size.json: cases\[2\].scalars: shape of a: dimension 1 is -3' '.cases[2].scalars.K = -3'
bad lint-2g 'lint-2g.json: cases\[2\].scalars: buffer a has 2147483648 elements .*index64' \
	'.cases[2].scalars.M = 65536 | .cases[2].scalars.K = 32768'
bad lint-2g-bytes 'lint-2g-bytes.json: cases\[2\].scalars: buffer a has 536870912 elements \(2147483648 bytes\)' \
	'.cases[2].scalars.M = 16384 | .cases[2].scalars.K = 32768'
bad lint-constant 'lint-constant.json: inputs.a: this input is one value everywhere' '.inputs.a = {"dist": "constant", "value": 1}'
bad lint-constant-range 'lint-constant-range.json: cases\[0\].inputs.b: this input is one value' \
	'.cases[0].inputs = {"b": {"dist": "uniform", "low": 2, "high": 2}}'
bad lint-constant-std 'lint-constant-std.json: inputs.b: this input is one value' '.inputs.b.std = 0'
bad lint-unknown-key 'lint-unknown-key.json: cases\[0\].sead: unknown key' '.cases[0].sead = 1'
bad lint-unknown-top 'lint-unknown-top.json: tolerances: unknown key' '.tolerances = {}'
bad lint-gen-key 'lint-gen-key.json: inputs.a.mean: unknown key' '.inputs.a.mean = 0'
bad lint-tol-comment 'lint-tol-comment.json: tolerance.out.comment: unknown key' '.tolerance.out.comment = "why"'
bad lint-tol-input 'lint-tol-input.json: tolerance.a: not an out or inout buffer' '.tolerance.a = {"rtol": 1}'
bad lint-tol-negative 'lint-tol-negative.json: cases\[1\].tolerance.out.atol: expected a finite number >= 0' '.cases[1].tolerance.out.atol = -1'
bad lint-dist 'lint-dist.json: inputs.a.dist: unknown generator .gauss.' '.inputs.a.dist = "gauss"'
bad lint-normal-int 'lint-normal-int.json: inputs.idx.dist: normal needs a float buffer' '.inputs.idx = {"dist": "normal"}'
bad lint-int-range 'lint-int-range.json: inputs.idx.high: 3000000000 does not fit i32' '.inputs.idx.high = 3000000000'
bad lint-int-frac 'lint-int-frac.json: inputs.idx.low: expected an integer' '.inputs.idx.low = 0.5'
bad lint-low-high 'lint-low-high.json: inputs.a: low 1 is above high -1' '.inputs.a = {"dist": "uniform", "low": 1, "high": -1}'
bad lint-input-out 'lint-input-out.json: inputs.out: not an in or inout buffer' '.inputs.out = {"dist": "uniform"}'
bad lint-missing-scalar 'lint-missing-scalar.json: cases\[0\].scalars.K: missing' 'del(.cases[0].scalars.K)'
bad lint-extra-scalar 'lint-extra-scalar.json: cases\[0\].scalars.Z: not a scalar' '.cases[0].scalars.Z = 1'
bad lint-scalar-frac 'lint-scalar-frac.json: cases\[0\].scalars.M: expected an integer' '.cases[0].scalars.M = 2.5'
bad lint-scalar-range 'lint-scalar-range.json: cases\[0\].scalars.N: 4294967296 does not fit i32' '.cases[0].scalars.N = 4294967296'
bad lint-scalar-f32 'lint-scalar-f32.json: cases\[0\].scalars.alpha: 1e\+39 does not fit f32' '.cases[0].scalars.alpha = 1e39'
bad lint-dup-name 'lint-dup-name.json: cases\[1\].name: .small. is also the name of cases\[0\]' '.cases[1].name = "small"'
bad lint-bad-name 'lint-bad-name.json: cases\[0\].name: ' '.cases[0].name = "../up"'
bad lint-hidden-name 'lint-hidden-name.json: cases\[0\].name: names hidden-\* are kept' '.cases[0].name = "hidden-1"'
bad lint-no-perf 'lint-no-perf.json: cases: needs at least one correctness and one performance case' 'del(.cases[2])'
bad lint-no-corr 'lint-no-corr.json: cases: needs at least one correctness' '.cases |= map(select(.kind == "performance"))'
bad lint-kind 'lint-kind.json: cases\[0\].kind: expected correctness or performance' '.cases[0].kind = "perf"'
bad lint-seed 'lint-seed.json: cases\[0\].seed: missing' 'del(.cases[0].seed)'
bad lint-seed-neg 'lint-seed-neg.json: cases\[0\].seed: expected an integer >= 0' '.cases[0].seed = -1'
bad lint-flops 'lint-flops.json: flops: ' '.flops = "2*M*"'
bad lint-flops-name 'lint-flops-name.json: flops: .*Q.*\(case small\)' '.flops = "2*Q"'
bad lint-rotations 'lint-rotations.json: rotations: expected 1 to 16' '.rotations = 0'
bad lint-index64-type 'lint-index64-type.json: cases\[2\].index64: expected true or false' '.cases[2].index64 = 1'
bad lint-arange-overflow 'lint-arange-overflow.json: inputs.idx: the last value .* does not fit i32' '.inputs.idx = {"dist": "arange", "start": 2147483600, "step": 1}'

# What is allowed: constants with allow_constant, and big buffers with index64
# (lint only: nothing is generated).
jq '.inputs.a = {"dist": "constant", "value": 1, "allow_constant": true}' "$CASES" >"$T/const-ok.json"
expect_status lint-constant-allowed 0 cko-gen --lint "$SIG" "$T/const-ok.json"
jq '.cases[2].scalars.M = 16384 | .cases[2].scalars.K = 32768 | .cases[2].index64 = true' "$CASES" >"$T/i64.json"
expect_status lint-index64 0 cko-gen --lint "$SIG" "$T/i64.json"

# Malformed JSON: file, line and column.
head -c 200 "$CASES" >"$T/trunc.json"
expect_status lint-malformed 2 cko-gen --lint "$SIG" "$T/trunc.json"
expect_grep lint-malformed-msg 'trunc.json: malformed JSON: line [0-9]+, column [0-9]+' "$T/last.err"
expect_status lint-missing-file 2 cko-gen --lint "$SIG" "$T/nothere.json"
expect_grep lint-missing-file-msg 'nothere.json' "$T/last.err"

# Generating from a bad spec writes nothing.
expect_status lint-before-write 2 cko-gen -o "$T/out" "$SIG" "$T/lint-no-perf.json"
[ ! -e "$T/out" ] && ok lint-before-write-nothing || fail lint-before-write-nothing "wrote $T/out"

# Usage.
expect_status lint-usage 2 cko-gen "$SIG"
expect_status lint-help 0 cko-gen --help
expect_grep lint-help-synopsis '^usage: cko-gen \[--hidden-seed N\] \[--lint\]' "$T/last.out"
finish
