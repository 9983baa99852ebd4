#!/bin/sh
# benchmarks/tune-sim.sh runs end to end on a small space (a smoke test;
# its numbers are not checked, only that it simulates and reports).
. "$(dirname "$0")/../lib.sh"
if ! command -v python3 >/dev/null 2>&1; then
	skip tune-sim "no python3"
	finish
fi
sim() { CKO_BIN=$CKO_BIN sh "$CKO_TOP/benchmarks/tune-sim.sh" "$DATA/tune/grid/space.json" "$@"; }
expect_status tune-sim.runs 0 sim --strategies exhaustive,local --seeds 2 -k 4 --write-table "$T/table.csv"
expect_grep tune-sim.header '^space .*: 88 configurations' "$T/last.out"
expect_grep tune-sim.local '^local +2 +2 ' "$T/last.out"
expect_grep tune-sim.exhaustive '^exhaustive +1 +1 ' "$T/last.out"
expect_eq tune-sim.table "$(wc -l <"$T/table.csv")" 89
# A measured table keyed by variant and defines (no hashes) works the same.
cut -d, -f2- "$T/table.csv" | sed '1s/.*/variant,defines,ms/' >"$T/bydefines.csv"
expect_status tune-sim.by_defines 0 sim --table "$T/bydefines.csv" --strategies local --seeds 1
expect_grep tune-sim.by_defines_all '^local +1 +1 ' "$T/last.out"
if grep -q 'not in the table' "$T/last.out"; then fail tune-sim.by_defines_found "$(cat "$T/last.out")"; else ok tune-sim.by_defines_found; fi
finish
