# cko-llm extract: the answer checked locally and written as a candidate
# (kernel.cu, launch.json, proposal.json), or as one generated file.
. "$(dirname "$0")/../lib.sh"
. "$CKO_TOP/tests/data/llm/fake.sh"
mkdir -p "$T/gen" # outputs go into existing folders
SIG=$LLMDATA/signature.json
CASES=$LLMDATA/cases

# resp KERNEL-FILE LAUNCH-JSON: a response.json with that answer.
resp() {
	jq -n --rawfile k "$1" --argjson l "$2" \
		'{tool: "cko-llm", status: "ok", model: "fake-model", answer: {note: "a note", kernel: $k, launch: $l}}' >"$T/response.json"
}
L=$(cat "$LLMDATA/launch.json")
extract() { cko-llm extract -s "$SIG" -C "$CASES" --parent iter-001/c0 -o "$T/c" "$T/response.json"; }

resp "$LLMDATA/kernel.cu" "$L"
expect_status llm-extract-ok 0 extract
expect_eq llm-extract-kernel "$(cmp -s "$LLMDATA/kernel.cu" "$T/c/kernel.cu" && echo same)" same
expect_jq llm-extract-launch ". == $(jq -c . "$LLMDATA/launch.json")" "$T/c/launch.json"
expect_jq llm-extract-proposal '. == {proposer: "cko-llm", status: "ok", reason: null, note: "a note", parent: "iter-001/c0", model: "fake-model"}' "$T/c/proposal.json"

# The structured (list) form of launch is accepted too.
resp "$LLMDATA/kernel.cu" "$(cat "$LLMDATA/launch-wire.json")"
expect_status llm-extract-wire 0 extract
expect_jq llm-extract-wire-launch '.defines == {"BX": 32, "BY": 8} and .overrides == {"odd": {"block": [16, 8]}}' "$T/c/launch.json"

# invalid NAME 'KERNEL' 'LAUNCH' REASON-REGEXP
invalid() {
	printf '%s\n' "$2" >"$T/k.cu"
	resp "$T/k.cu" "$3"
	expect_status "$1" 1 extract
	expect_jq "$1-status" '.status == "invalid"' "$T/c/proposal.json"
	expect_jq "$1-reason" ".reason | test(\"$4\")" "$T/c/proposal.json"
}
invalid llm-extract-no-linkage '__global__ void scale2d(int M, int N, const float *X, float *Y) {}' "$L" 'C linkage'
invalid llm-extract-wrong-name 'extern "C" __global__ void scale(int M, int N, const float *X, float *Y) {}' "$L" 'no kernel extern .C. __global__ void scale2d'
invalid llm-extract-not-void 'extern "C" __global__ int scale2d(int M) { return 0; }' "$L" 'must return void'
invalid llm-extract-comment-only '// extern "C" __global__ void scale2d(int M)
/* extern "C" __global__ void scale2d( */ const char *s = "extern \"C\" __global__ void scale2d(";' "$L" 'defines no kernel'
expect_eq llm-extract-invalid-kernel-kept "$(grep -c scale2d "$T/c/kernel.cu")" 2

# Declarations that are fine.
ok_kernel() {
	printf '%s\n' "$2" >"$T/k.cu"
	resp "$T/k.cu" "$L"
	expect_status "$1" 0 extract
}
ok_kernel llm-extract-block 'extern "C" {
__global__ void helper() {}
__global__ void __launch_bounds__(256, 2) scale2d(int M, int N, const float *X, float *Y) {}
}'
ok_kernel llm-extract-attrs-first 'extern "C" __launch_bounds__(128) __global__ void scale2d(int M, int N, const float *X, float *Y) {}'
ok_kernel llm-extract-spacing 'extern   "C"
__global__
void
scale2d (int M, int N, const float *X, float *Y) {}'

# Runs of __global__ and brackets never closed, in front of the kernel (the
# reply is untrusted): each declaration is scanned once, in time linear in
# the source (these took 40 s and over 2 minutes; tests/fuzz/RESULTS.md).
awk 'BEGIN {
	for (i = 0; i < 30000; i++) printf "__global__ a ";
	for (i = 0; i < 8000; i++) printf "__global__ void scale2d ( ) ) ";
	for (i = 0; i < 8000; i++) printf "__global__ [[ ";
	for (i = 0; i < 6000; i++) printf "{ __global__ __launch_bounds__ ( ";
	print ""
}' >"$T/k.cu"
cat "$LLMDATA/kernel.cu" >>"$T/k.cu"
resp "$T/k.cu" "$L"
expect_status llm-extract-linear 0 timeout 10 cko-llm extract -s "$SIG" -C "$CASES" -o "$T/c" "$T/response.json"
awk 'BEGIN { for (i = 0; i < 80000; i++) printf "__global__ "; print "void scale2d(int M) {}" }' >"$T/k.cu"
resp "$T/k.cu" "$L"
expect_status llm-extract-linear-linkage 1 timeout 10 cko-llm extract -s "$SIG" -C "$CASES" -o "$T/c" "$T/response.json"
expect_jq llm-extract-linear-linkage-reason '.reason | test("C linkage")' "$T/c/proposal.json"

K=$LLMDATA/kernel.cu
ikernel() { # NAME LAUNCH REASON
	resp "$K" "$2"
	expect_status "$1" 1 extract
	expect_jq "$1-reason" ".reason | test(\"$3\")" "$T/c/proposal.json"
}
ikernel llm-extract-big-block '{"defines": {"BX": 64, "BY": 32}, "grid": [1], "block": ["BX", "BY"]}' 'block .64, 32, 1. has 2048 threads for case odd.*max_threads_per_block'
ikernel llm-extract-bad-expr '{"grid": ["ceil_div(N, Q)"], "block": [32]}' 'grid\\[0\\]: .*Q'
ikernel llm-extract-bad-key '{"grid": [1], "block": [32], "blocks": [1]}' 'blocks: unknown key'
ikernel llm-extract-tunable-missing '{"defines": {"BX": 32}, "grid": [1], "block": ["BX"], "tunables": {"BX": [16, 64]}}' 'value 32 is not among'
ikernel llm-extract-tunable-undefined '{"grid": [1], "block": [32], "tunables": {"BZ": [16, 64]}}' 'tunables.BZ: not in defines'
ikernel llm-extract-define-param '{"defines": {"N": 4}, "grid": [1], "block": [32]}' 'defines.N: .*parameter'
ikernel llm-extract-constraint '{"defines": {"BX": 32}, "grid": [1], "block": ["BX"], "constraints": ["BX > 64"]}' 'constraints\\[0\\].*does not hold'
ikernel llm-extract-override-unknown '{"grid": [1], "block": [32], "overrides": {"nosuch": {"grid": [2]}}}' 'overrides.nosuch: there is no such case'
ikernel llm-extract-override-hidden '{"grid": [1], "block": [32], "overrides": {"hidden-1": {"grid": [2]}}}' 'overrides.hidden-1: there is no such case'
ikernel llm-extract-no-launch 'null' 'no launch object'
# Fails only for the hidden case (M == 3): told by class, no name, no sizes.
ikernel llm-extract-hidden '{"defines": {"BY": 8}, "grid": ["ceil_div(N, 32)", "ceil_div(M, BY) - (M == 3)"], "block": [32, "BY"]}' 'grid fails for a hidden correctness case'
expect_jq llm-extract-hidden-quiet '.reason | (test("hidden-1") or test("289") or test("is 0")) | not' "$T/c/proposal.json"

# No answer in the response: invalid, and no stale kernel.cu is left.
jq -n '{tool: "cko-llm", status: "ok", model: "m", answer: null, answer_error: "the reply has no ```cuda block with the kernel"}' >"$T/response.json"
expect_status llm-extract-no-answer 1 extract
expect_jq llm-extract-no-answer-reason '.reason | test("no answer could be read.*cuda block")' "$T/c/proposal.json"
expect_eq llm-extract-no-stale "$(ls "$T/c")" proposal.json

echo '{"tool": "other"}' >"$T/response.json"
expect_status llm-extract-not-response 2 extract
expect_status llm-extract-usage 2 cko-llm extract -o "$T/c" "$T/response.json"

# --what: one generated file.
jq -n --slurpfile s "$SIG" '{tool: "cko-llm", status: "ok", model: "m", answer: {note: "", signature: $s[0]}}' >"$T/response.json"
expect_status llm-extract-signature 0 cko-llm extract -w signature -o "$T/gen/signature.json" "$T/response.json"
expect_jq llm-extract-signature-file '.entry == "scale2d" and (.params | length) == 4' "$T/gen/signature.json"
jq '.answer.signature.params[2].dtype = "f128"' "$T/response.json" >"$T/r2.json"
expect_status llm-extract-signature-bad 1 cko-llm extract -w signature -o "$T/gen/sig2.json" "$T/r2.json"
expect_grep llm-extract-signature-bad-why "params\[2\].dtype: unknown dtype 'f128'" "$T/last.err"
expect_eq llm-extract-signature-bad-nofile "$(test -e "$T/gen/sig2.json" && echo yes || echo no)" no

jq -n --rawfile k "$K" --slurpfile l "$LLMDATA/launch.json" '{tool: "cko-llm", status: "ok", model: "m", answer: {note: "", kernel: $k, launch: $l[0]}}' >"$T/response.json"
expect_status llm-extract-initial 0 cko-llm extract -w initial -s "$SIG" -C "$CASES" -l "$T/gen/launch.json" -o "$T/gen/initial.cu" "$T/response.json"
expect_eq llm-extract-initial-files "$(cmp -s "$K" "$T/gen/initial.cu" && jq -r .grid[0] "$T/gen/launch.json")" 'ceil_div(N, BX)'
expect_status llm-extract-reference 0 cko-llm extract -w reference -s "$SIG" -l "$T/gen/reference-launch.json" -o "$T/gen/reference.cu" "$T/response.json"
jq '.answer.kernel = "__global__ void scale2d() {}"' "$T/response.json" >"$T/r2.json"
expect_status llm-extract-reference-bad 1 cko-llm extract -w reference -s "$SIG" -l "$T/gen/rl2.json" -o "$T/gen/ref2.cu" "$T/r2.json"

cat >"$T/cases.json" <<'CASES'
{"inputs": {"X": {"dist": "uniform", "low": -1, "high": 1}},
 "cases": [{"name": "odd", "kind": "correctness", "seed": 1, "scalars": {"M": 7, "N": 13}},
           {"name": "big", "kind": "performance", "seed": 2, "scalars": {"M": 1024, "N": 1024}}]}
CASES
jq -n --slurpfile c "$T/cases.json" '{tool: "cko-llm", status: "ok", model: "m", answer: {note: "", cases: $c[0]}}' >"$T/response.json"
jq '.answer.cases.inputs.X = {"dist": "file", "path": "/etc/passwd"}' "$T/response.json" >"$T/r2.json"
expect_status llm-extract-cases-file 1 cko-llm extract -w cases -s "$SIG" -o "$T/gen/cases2.json" "$T/r2.json"
if command -v cko-gen >/dev/null 2>&1; then
	expect_status llm-extract-cases 0 cko-llm extract -w cases -s "$SIG" -o "$T/gen/cases.json" "$T/response.json"
	expect_jq llm-extract-cases-file-ok '.cases | length == 2' "$T/gen/cases.json"
	jq '.answer.cases.cases[1].kind = "correctness"' "$T/response.json" >"$T/r2.json"
	expect_status llm-extract-cases-lint 1 cko-llm extract -w cases -s "$SIG" -o "$T/gen/cases3.json" "$T/r2.json"
	expect_grep llm-extract-cases-lint-why 'cko-gen --lint' "$T/last.err"
	expect_eq llm-extract-cases-no-temp "$(ls "$T/gen" | grep -c lint)" 0
else
	skip llm-extract-cases "cko-gen is not built"
fi
finish
