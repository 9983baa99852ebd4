#!/bin/sh
# make demo: the built-in default. Tunes workloads/sgemm with the built-in
# tuner (no model, no API key) for 7 iterations of 4 candidates in
# results/demo-run, then shows the summary and where the results are. It
# needs an NVIDIA GPU and says so up front, making nothing, when there is
# none. A second make demo resumes the first (make's file targets: what is
# done, the ~1 GB of sgemm cases included, is not made again); remove
# results/demo-run to start over.
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${CKO_BIN:-$top/bin}
results=${RESULTS:-$top/results}
run=$results/demo-run
say() { echo "make demo: $*" >&2; }
# shq WORD: WORD for the shell, in single quotes only when needed.
shq() { case $1 in '' | *[!A-Za-z0-9_@%+=:,./-]*) printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")" ;; *) printf %s "$1" ;; esac; }

if ! why=$("$bin/cko-props" 2>&1 >/dev/null); then
	say "needs an NVIDIA GPU and its driver, and found none here:"
	say "  $(printf '%s' "$why" | head -n 3)"
	say "nothing was made. The tests run without a GPU: make test"
	exit 3
fi
if [ -f "$run/run.mk" ]; then
	say "resuming $run (what is done stays done; remove the folder to start over)"
else
	# --patience 0 (PATIENCE unset): the demo always runs its 7 iterations, so that what it
	# gives compares across sessions (on the H200 the tuner found nothing
	# better in iterations 2-4 and its best in 5 and 7: the tuner's default
	# patience, 5, would have run them all; the model's 3 would have stopped
	# after iteration 4).
	"$bin/cko-init" --workload sgemm --max-iterations "${ITER:-7}" --candidates "${CANDIDATES:-4}" --patience "${PATIENCE:-0}" \
		--run-dir "$run" >/dev/null || exit $?
fi
make -C "$run" -f run.mk CKO_BIN="$bin" ${ITER:+ITER="$ITER"} ${MAKEFLAGS_DEMO:-} || exit $?
echo
"$bin/cko-rank" --print "$run/summary.json" || exit $?
echo "run folder:  $run"
[ -f "$run/best.cu" ] && echo "best kernel: $run/best.cu (launch rules: $run/best-launch.json)"
if [ -f "$run/heatmap.png" ]; then
	echo "heatmap:     $run/heatmap.png ($run/heatmap.svg)"
else
	echo "heatmap:     none (gnuplot is not installed here; run  cko-heatmap $(shq "$run/history.json")  where it is)"
fi
