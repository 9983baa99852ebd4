# tests/lib.sh: helpers for test scripts (sourced). Each check prints one
# line: "ok NAME", "FAIL NAME: why" or "skip NAME: why".
# Environment from tests/run: CKO_BIN, CKO_TOP, TEST_TMP (a fresh folder).
: "${CKO_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CKO_BIN:=$CKO_TOP/bin}"
: "${TEST_TMP:=$(mktemp -d)}"
PATH="$CKO_BIN:$PATH"
# The memory across runs (cko-docs --memory-add) stays in the test's folder.
CKO_MEMORY_DIR=${CKO_MEMORY_DIR:-$TEST_TMP/memory}
export CKO_MEMORY_DIR
export CKO_QUIET=1
T=$TEST_TMP
DATA=$CKO_TOP/tests/data
_failed=0

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; _failed=1; }
skip() { echo "skip $1: $2"; }

# expect_status NAME STATUS command... : runs the command, checks its exit status.
expect_status() {
	name=$1 want=$2; shift 2
	"$@" >"$T/last.out" 2>"$T/last.err"
	got=$?
	if [ "$got" -eq "$want" ]; then ok "$name"; return 0; fi
	fail "$name" "exit $got, expected $want; stderr: $(head -c 400 "$T/last.err")"
	return 1
}

# expect_grep NAME PATTERN FILE : the file matches the extended regexp.
expect_grep() {
	if grep -Eq -- "$2" "$3"; then ok "$1"; else fail "$1" "no '$2' in $3: $(head -c 300 "$3")"; fi
}

# expect_jq NAME FILTER FILE : the jq filter yields true.
expect_jq() {
	r=$(jq -e "$2" "$3" 2>&1)
	if [ "$r" = true ]; then ok "$1"; else fail "$1" "jq '$2' gave '$(echo "$r" | head -c 200)' on $3"; fi
}

# expect_eq NAME GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# have_gpu: true when the driver and a GPU are present.
have_gpu() { cko-props >/dev/null 2>&1; }

# py: python3 with numpy, if present (for independent checks of .npy files).
have_numpy() { python3 -c 'import numpy' 2>/dev/null; }

# init_test_run [cko-init OPTION...]: cko-init on the test workload
# (tests/data/run: a copy kernel); prints the run folder.
init_test_run() {
	_d=$DATA/run
	cko-init --signature "$_d/signature.json" --input-cases "$_d/cases.json" --reference "$_d/reference.cu" \
		--reference-launch "$_d/reference-launch.json" --initial-kernel "$_d/initial.cu" --launch "$_d/launch.json" "$@"
}

# fake_gpu_bin DIR: DIR gets links to the tools, with tests/fake-gpu's
# cko-props, cko-run and cko-bench in place of the real ones.
fake_gpu_bin() {
	mkdir -p "$1"
	for _f in "$CKO_BIN"/cko-*; do ln -s "$_f" "$1/"; done
	for _f in cko-props cko-run cko-bench; do rm -f "$1/$_f"; cp "$CKO_TOP/tests/fake-gpu/$_f" "$1/$_f"; done
	cp "$CKO_TOP/tests/fake-gpu/common.sh" "$1/"
}

finish() { exit $_failed; }
