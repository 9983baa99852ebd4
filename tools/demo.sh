#!/bin/sh
# make demo: the built-in default. Tunes workloads/sgemm with the built-in
# tuner (no model, no API key) for 7 iterations of 4 candidates, then shows
# the summary and where the results are.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${CKO_BIN:-$top/bin}
run=$("$bin/cko-init" --workload sgemm --max-iterations "${ITER:-7}" --candidates "${CANDIDATES:-4}" --results "${RESULTS:-$top/results}")
make -C "$run" -f run.mk ${MAKEFLAGS_DEMO:-}
echo
"$bin/cko-rank" --print "$run/summary.json"
echo "run folder:  $run"
[ -f "$run/best.cu" ] && echo "best kernel: $run/best.cu (launch rules: $run/best-launch.json)"
[ -f "$run/heatmap.png" ] && echo "heatmap:     $run/heatmap.png ($run/heatmap.svg)"
[ -f "$run/heatmap.png" ] || echo "heatmap:     none (gnuplot is not installed here; run cko-heatmap $run/history.json where it is)"
