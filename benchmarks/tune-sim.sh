#!/bin/sh
# tune-sim.sh: how much of a space each cko-tune strategy evaluates before
# it reaches 95% of the best speed, simulated offline from a table of times
# (no GPU). See benchmarks/tune_sim.py for the table format and the options.
#
# usage: benchmarks/tune-sim.sh [space.json] [--table times.csv] [-k K] [--seeds N]
#                               [--strategies exhaustive,random,local,auto] [--write-table out.csv] ...
# The space defaults to workloads/sgemm/space.json, or to the test space
# tests/data/tune/sim/space.json while that does not exist. Without
# --table, a synthetic smooth-with-noise table stands in for measured times.
# The tools come from $CKO_BIN (default: the repository's bin/).
top=$(cd "$(dirname "$0")/.." && pwd)
: "${CKO_BIN:=$top/bin}"
if [ ! -x "$CKO_BIN/cko-tune" ]; then
	echo "tune-sim.sh: no $CKO_BIN/cko-tune (run make, or set CKO_BIN)" >&2
	exit 3
fi
case $1 in
"" | -*)
	space=$top/workloads/sgemm/space.json
	[ -f "$space" ] || space=$top/tests/data/tune/sim/space.json
	;;
*) space=$1; shift ;;
esac
exec python3 "$top/benchmarks/tune_sim.py" --tune "$CKO_BIN/cko-tune" "$space" "$@"
