# One make at a time in a run folder: a second make says another make (its
# pid) is running there and exits 2, leaving the first unharmed; the lock of
# a make killed with -9 is taken over. ITER and CANDIDATES are checked
# (whole numbers, bounded) before anything is made, in run.mk and cko-init;
# an ITER below the iterations a run has says what it does. Fake GPU tools
# (tests/fake-gpu).
. "$(dirname "$0")/../lib.sh"
command -v flock >/dev/null || { skip run-lock "flock (util-linux) is not installed"; finish; }
cd "$T" || exit 1
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks
mk() { d=$1; shift; make -C "$d" -f run.mk CKO_BIN="$T/bin" "$@"; }
new_run() { init_test_run --space "$DATA/run/space.json" --candidates 2 --max-iterations 3 --seed 7 --hidden-seed 11 "$@"; }

# Two makes: the second is refused while the first goes on.
run=$(new_run --results "$T/a")
FAKE_GPU_SLEEP=0.3 make -C "$run" -f run.mk CKO_BIN="$T/bin" >a.out 2>&1 &
first=$!
n=0
while [ "$(cat "$run/.make.lock" 2>/dev/null)" != "$first" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
expect_status run-lock/second-refused 2 mk "$run"
expect_grep run-lock/second-says "another make \\(pid $first\\) is running in this run folder \\($run\\)" "$T/last.err"
expect_status run-lock/dry-run-allowed 0 mk "$run" -n
wait $first
st=$?
[ $st -eq 0 ] && ! grep -q 'cannot stat' a.out && ok run-lock/first-unharmed || fail run-lock/first-unharmed "exit $st: $(tail -5 a.out)"
expect_jq run-lock/first-complete '(.candidates | length) == 7' "$run/history.json"
expect_eq run-lock/no-temporary "$(find "$run" -name '*.tmp*' | wc -l)" 0
expect_status run-lock/after-first 0 mk "$run" -q

# A make killed with -9 (its process group, as ^C or a killed job would):
# the next make takes the lock over and completes the run.
run2=$(new_run --results "$T/b")
FAKE_GPU_SLEEP=0.3 setsid make -C "$run2" -f run.mk CKO_BIN="$T/bin" >/dev/null 2>&1 &
pid=$!
n=0
while [ "$(cat "$run2/.make.lock" 2>/dev/null)" != "$pid" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
sleep 1
kill -9 -$pid 2>/dev/null
wait $pid 2>/dev/null
expect_status run-lock/stale-taken-over 0 mk "$run2"
expect_jq run-lock/stale-run-complete '(.candidates | length) == 7' "$run2/history.json"
# A lock file naming a dead make, no one holding it.
sh -c 'exit 0' &
dead=$!
wait $dead
echo $dead >"$run2/.make.lock"
expect_status run-lock/stale-file 0 mk "$run2"

# ITER and CANDIDATES checked before anything is planned.
run3=$(new_run --results "$T/c")
expect_status run-lock/iter-abc 2 mk "$run3" ITER=abc
expect_grep run-lock/iter-abc-says 'ITER=abc: expected a whole number >= 0' "$T/last.err"
grep -q 'seq\|printf' "$T/last.err" && fail run-lock/iter-abc-clean "$(cat "$T/last.err")" || ok run-lock/iter-abc-clean
expect_status run-lock/iter-negative 2 mk "$run3" ITER=-1
expect_status run-lock/iter-huge 2 mk "$run3" -n ITER=1000000
expect_grep run-lock/iter-huge-says 'ITER=1000000: at most 1000 iterations' "$T/last.err"
expect_status run-lock/candidates-zero 2 mk "$run3" CANDIDATES=0
expect_grep run-lock/candidates-zero-says 'CANDIDATES=0: expected a whole number >= 1' "$T/last.err"
[ ! -e "$run3/props.json" ] && [ ! -e "$run3/cases" ] && ok run-lock/bad-makes-nothing || fail run-lock/bad-makes-nothing "$(ls "$run3")"

# ITER below the iterations the run has: said, nothing remade.
cp "$run/history.json" h.json
expect_status run-lock/iter-below 0 mk "$run" ITER=2
expect_grep run-lock/iter-below-says 'ITER=2, but iterations 1\.\.3 exist: ITER=2 makes nothing new; history.json and summary.json cover iterations 0\.\.3\. Give ITER=4 or more' "$T/last.out"
cmp -s h.json "$run/history.json" && ok run-lock/iter-below-kept || fail run-lock/iter-below-kept "history.json changed"

# cko-init bounds the same, making nothing.
expect_status run-lock/init-iter-huge 2 init_test_run --max-iterations 1000000 --results "$T/d"
expect_grep run-lock/init-iter-huge-says '--max-iterations 1000000: expected 0 to 1000' "$T/last.err"
expect_status run-lock/init-candidates-huge 2 init_test_run --candidates 65 --results "$T/d"
expect_grep run-lock/init-candidates-huge-says '--candidates 65: expected 1 to 64' "$T/last.err"
expect_status run-lock/init-total 2 init_test_run --candidates 64 --max-iterations 1000 --results "$T/d"
[ ! -e "$T/d" ] || [ -z "$(ls -A "$T/d")" ] && ok run-lock/init-bad-makes-nothing || fail run-lock/init-bad-makes-nothing "$(ls -A "$T/d")"
finish
