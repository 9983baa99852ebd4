#!/bin/sh
# cko-tune --memory seed.json (cko-docs --memory-seed): candidate c0 is the
# remembered kernel with its launch rules (proposer memory), the others
# come after it, from a local search around it (auto), never the same
# point; a seed with no kernel changes nothing.
. "$(dirname "$0")/../lib.sh"
S=$DATA/tune/grid/space.json
# The remembered point: grid X=4 Y=5, as cko-tune writes such a candidate.
cko-tune -s "$S" -i 1 -k 1 --strategy exhaustive -o "$T/p" 2>"$T/err" || fail tune-memory.point "$(cat "$T/err")"
jq -n --rawfile k "$T/p/c0/kernel.cu" --slurpfile l "$T/p/c0/launch.json" \
	'{tool: "cko-docs", status: "ok", entry: "run-00000000000000aa", run: "/earlier/run-001",
	  note: "the remembered best of /earlier/run-001", kernel: $k, launch: ($l[0] | .defines = {X: 4, Y: 5})}' >"$T/seed.json"
hash=$(cko-tune -s "$S" --list | jq -r 'select(.variant == "grid" and .defines == {X: 4, Y: 5}) | .hash')

expect_status tune-memory.run 0 cko-tune -s "$S" -i 1 -k 4 --seed 9 --memory "$T/seed.json" -o "$T/a"
cmp -s "$T/a/c0/kernel.cu" "$T/p/c0/kernel.cu" && ok tune-memory.c0-kernel || fail tune-memory.c0-kernel "kernel.cu differs"
expect_eq tune-memory.c0-launch "$(jq -cS . "$T/a/c0/launch.json")" "$(jq -cS .launch "$T/seed.json")"
expect_jq tune-memory.c0-proposal '.proposer == "memory" and .status == "ok" and .memory == "run-00000000000000aa"
	and .memory_run == "/earlier/run-001" and .parent == null' "$T/a/c0/proposal.json"
expect_jq tune-memory.manifest '.memory == "run-00000000000000aa" and .candidates == ["c0", "c1", "c2", "c3"] and .strategy == "local"' \
	"$T/a/proposed.json"
n=0
for c in 1 2 3; do
	jq -s '.[0] as $p | .[1].defines as $d | $p.parent == "iter-001/c0" and $p.strategy == "local" and
		(if $p.variant == "grid" then ((($d.X - 4) | fabs) + (($d.Y - 5) | fabs)) == 1 else $d.X == 4 end)' \
		"$T/a/c$c/proposal.json" "$T/a/c$c/launch.json" | grep -q true && n=$((n + 1))
	[ "$(jq -r .hash "$T/a/c$c/proposal.json")" != "$hash" ] || fail tune-memory.not-again "c$c is the remembered point"
done
expect_eq tune-memory.around-it "$n" 3
# One candidate: only the remembered one.
expect_status tune-memory.one 0 cko-tune -s "$S" -i 1 -k 1 --seed 9 --memory "$T/seed.json" -o "$T/b"
expect_jq tune-memory.one-c0 '.proposer == "memory"' "$T/b/c0/proposal.json"
expect_jq tune-memory.one-manifest '.candidates == ["c0"]' "$T/b/proposed.json"
# A seed without a kernel: as without --memory.
echo '{"tool": "cko-docs", "status": "none", "reason": "the memory holds no runs", "skipped": []}' >"$T/none.json"
expect_status tune-memory.none 0 cko-tune -s "$S" -i 1 -k 3 --seed 9 --memory "$T/none.json" -o "$T/c"
expect_status tune-memory.plain 0 cko-tune -s "$S" -i 1 -k 3 --seed 9 -o "$T/d"
diff -r "$T/c" "$T/d" >"$T/diff" && ok tune-memory.none-same || fail tune-memory.none-same "$(head -c 300 "$T/diff")"
finish
