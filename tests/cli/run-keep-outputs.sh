# The kept-outputs policy through make (fake GPU tools): by default the
# candidates' cko-run compares on the device and keeps only failing
# outputs (no --keep-outputs), cko-init --keep-outputs (KEEP_OUTPUTS := 1)
# passes it for every candidate, and after summary.json the best
# candidate's replay requests run again with --keep-outputs, so its
# outputs are kept under replay/out.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
fake_gpu_bin "$T/bin"
export CKO_LOCK_DIR=$T/locks
for keep in 0 1; do
	run=$(init_test_run --max-iterations 1 --seed 7 --hidden-seed 11 --results "$T/r$keep" $( [ $keep = 1 ] && echo --keep-outputs ))
	expect_grep run-keep/run-mk-$keep "^KEEP_OUTPUTS := $keep\$" "$run/run.mk"
	FAKE_GPU_ARGS=$T/args$keep expect_status run-keep/make-$keep 0 make -C "$run" -f run.mk CKO_BIN="$T/bin"
	cand=$(grep -c ' iter-00[01]/c0/requests/' "$T/args$keep")
	kept=$(grep ' iter-00[01]/c0/requests/' "$T/args$keep" | grep -c -- '--keep-outputs')
	if [ $keep = 1 ]; then expect_eq run-keep/candidates-keep "$kept" "$cand"
	else expect_eq run-keep/candidates-compare "$kept" 0; fi
	[ "$cand" -ge 1 ] && ok run-keep/candidates-ran-$keep || fail run-keep/candidates-ran-$keep "$(cat "$T/args$keep")"
	expect_grep run-keep/replay-kept-$keep '^cko-run .*--keep-outputs -o replay-run.json replay/.*\.json' "$T/args$keep"
	[ -f "$run/replay-run.json" ] && ls "$run"/replay/out/*/0/*.npy >/dev/null 2>&1 && ok run-keep/replay-outputs-$keep ||
		fail run-keep/replay-outputs-$keep "$(ls -R "$run/replay" | head)"
	# replay-run.json is not taken for a replay request next time
	FAKE_GPU_ARGS=$T/again$keep expect_status run-keep/again-$keep 0 make -C "$run" -f run.mk CKO_BIN="$T/bin" -q
done
finish
