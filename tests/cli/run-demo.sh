# make demo (tools/demo.sh): without a GPU it says up front that an NVIDIA
# GPU and driver are needed and that make test runs without one, exits
# non-zero and makes no run folder; a second make demo resumes the first
# in results/demo-run instead of starting over. The resume runs the test
# workload standing in for sgemm (CKO_SHARE) with the fake GPU tools.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
# No GPU, whatever this machine has: a cko-props that finds no driver.
mkdir -p nogpu
for f in "$CKO_BIN"/cko-*; do ln -s "$f" nogpu/; done
rm -f nogpu/cko-props
printf '#!/bin/sh\necho "cko-props: no CUDA driver (libcuda.so.1: cannot open shared object file)" >&2\nexit 3\n' >nogpu/cko-props
chmod +x nogpu/cko-props
expect_status demo/no-gpu 3 env CKO_BIN="$T/nogpu" RESULTS="$T/res" sh "$CKO_TOP/tools/demo.sh"
expect_grep demo/no-gpu-says-gpu 'needs an NVIDIA GPU and its driver' "$T/last.err"
expect_grep demo/no-gpu-says-test 'make test' "$T/last.err"
expect_grep demo/no-gpu-says-why 'no CUDA driver' "$T/last.err"
[ ! -e "$T/res" ] && ok demo/no-gpu-makes-nothing || fail demo/no-gpu-makes-nothing "$(ls -R "$T/res")"
# The same through the top-level make demo (its build is up to date: -o all).
make -s -C "$CKO_TOP" -o all demo BINDIR="$T/nogpu" RESULTS="$T/res" >make.out 2>make.err
st=$?
[ $st -ne 0 ] && grep -q 'needs an NVIDIA GPU' make.err && ok demo/make-demo-no-gpu ||
	fail demo/make-demo-no-gpu "exit $st: $(cat make.err)"
[ ! -e "$T/res" ] && ok demo/make-demo-makes-nothing || fail demo/make-demo-makes-nothing "$(ls -R "$T/res")"

# Resume: the first demo stops on trouble (exit 3 from the fake cko-run),
# the second goes on in the same folder.
fake_gpu_bin "$T/fake"
mkdir -p share/workloads
ln -s "$CKO_TOP/mk" share/mk
ln -s "$DATA/run" share/workloads/sgemm
export CKO_SHARE=$T/share CKO_LOCK_DIR=$T/locks
FAKE_RUN_EXIT=3 CKO_BIN="$T/fake" RESULTS="$T/res" ITER=1 CANDIDATES=1 sh "$CKO_TOP/tools/demo.sh" >first.out 2>&1
st=$?
[ $st -ne 0 ] && [ -f res/demo-run/run.mk ] && [ -f res/demo-run/cases/index.json ] && ok demo/first-stops ||
	fail demo/first-stops "exit $st: $(tail -5 first.out)"
cases_before=$(stat -c %Y res/demo-run/cases/index.json)
sleep 1
expect_status demo/resume 0 env CKO_BIN="$T/fake" RESULTS="$T/res" ITER=1 CANDIDATES=1 sh "$CKO_TOP/tools/demo.sh"
expect_grep demo/resume-says "resuming $T/res/demo-run" "$T/last.err"
expect_grep demo/resume-summary "run folder: +$T/res/demo-run" "$T/last.out"
expect_eq demo/resume-same-folder "$(ls res | tr '\n' ' ')" "demo-run "
expect_eq demo/resume-cases-kept "$(stat -c %Y res/demo-run/cases/index.json)" "$cases_before"
expect_jq demo/resume-complete '.counts.candidates == 2' res/demo-run/summary.json
expect_eq demo/no-temporary "$(find res -name '*.tmp*' | wc -l)" 0
# The demo runs all its iterations (patience 0) unless PATIENCE says
# otherwise; the reference is timed with its own, fewer launches.
expect_grep demo/patience-off '^PATIENCE    := 0$' res/demo-run/run.mk
expect_grep demo/ref-timed '^REF_TIMED   [?]= 20$' res/demo-run/run.mk
expect_status demo/patience-given 0 env CKO_BIN="$T/fake" RESULTS="$T/res2" ITER=1 CANDIDATES=1 PATIENCE=5 sh "$CKO_TOP/tools/demo.sh"
expect_grep demo/patience-5 '^PATIENCE    := 5$' res2/demo-run/run.mk
make -n -C res2/demo-run -f run.mk -W reference/run.json reference/bench.json >ref.n 2>&1
expect_grep demo/ref-bench-launches 'cko-bench -w 2 -n 20 ' ref.n
finish
