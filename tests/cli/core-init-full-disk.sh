# cko-init on a full disk: exit 3 naming the file and the cause, and no run
# folder (it is built in a hidden sibling, renamed into place only when
# complete); the unfinished folder of an init killed with -9 is removed by
# the next cko-init. The full disk is a small tmpfs mounted in a private
# mount namespace (unshare -rm). Concurrent inits take distinct numbers.
. "$(dirname "$0")/../lib.sh"
if [ -z "$CKO_IN_NS" ]; then
	if ! unshare -rm true 2>/dev/null; then
		skip init-full "cannot make a mount namespace (unshare -rm) for a small full tmpfs"
		finish
	fi
	export TEST_TMP CKO_BIN CKO_TOP
	CKO_IN_NS=1 exec unshare -rm sh "$0"
fi
M=$T/small
mkdir -p "$M"
if ! mount -t tmpfs -o size=256k tmpfs "$M" 2>"$T/mount.err"; then
	skip init-full "cannot mount a tmpfs in the namespace: $(cat "$T/mount.err")"
	finish
fi
R=$M/results
mkdir -p "$R"
# Room for a page or two: signature.json fits, the rest does not.
dd if=/dev/zero of="$M/fill" bs=4096 count=62 2>/dev/null
expect_status init-full/exit-3 3 init_test_run --results "$R"
expect_grep init-full/says-why 'No space left on device' "$T/last.err"
expect_grep init-full/says-nothing-made 'no run folder was made' "$T/last.err"
expect_eq init-full/no-run-folder "$(ls -A "$R" | tr '\n' ' ')" ""
[ -s "$T/last.out" ] && fail init-full/prints-no-folder "$(cat "$T/last.out")" || ok init-full/prints-no-folder

# An init killed with -9 left .run-new.PID (PID gone): the next one, with
# room again, removes it and makes run-001, complete.
rm -f "$M/fill"
sh -c 'exit 0' &
dead=$!
wait $dead
mkdir -p "$R/.run-new.$dead/workload"
echo '{}' >"$R/.run-new.$dead/workload/signature.json"
expect_status init-full/again 0 init_test_run --results "$R"
expect_eq init-full/again-folder "$(cat "$T/last.out")" "$R/run-001"
expect_eq init-full/again-only-run "$(ls -A "$R" | tr '\n' ' ')" "run-001 "
[ -f "$R/run-001/run.mk" ] && [ -f "$R/run-001/config.json" ] && [ -f "$R/run-001/workload/launch.json" ] &&
	ok init-full/again-complete || fail init-full/again-complete "$(ls -R "$R/run-001")"
expect_grep init-full/run-mk-names-folder "^# run.mk for $R/run-001, made by cko-init" "$R/run-001/run.mk"
expect_status init-full/next-number 0 init_test_run --results "$R"
expect_eq init-full/next-number-folder "$(cat "$T/last.out")" "$R/run-002"
umount "$M"
# Concurrent inits take distinct numbers, each folder complete.
for i in 1 2 3 4; do init_test_run --results "$T/par" >"$T/par.$i" 2>&1 & done
wait
expect_eq init-full/concurrent "$(cat "$T"/par.[1-4] | sort | tr '\n' ' ')" \
	"$T/par/run-001 $T/par/run-002 $T/par/run-003 $T/par/run-004 "
bad=
for i in 1 2 3 4; do grep -q "^# run.mk for $T/par/run-00$i," "$T/par/run-00$i/run.mk" || bad="$bad run-00$i"; done
[ -z "$bad" ] && ok init-full/concurrent-complete || fail init-full/concurrent-complete "$bad"
finish
