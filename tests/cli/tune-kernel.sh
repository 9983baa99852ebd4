#!/bin/sh
# cko-tune --kernel K -l launch.json: a model's candidate that declares
# tunables; the tuner sweeps them, keeping the kernel's source.
. "$(dirname "$0")/../lib.sh"
. "$DATA/tune/history.sh"
K=$DATA/tune/model/kernel.cu
L=$DATA/tune/model/launch.json

expect_status tune-kernel.run 0 cko-tune --kernel "$K" -l "$L" -i 1 -k 7 --strategy exhaustive -o "$T/a"
# BM in 32 64 128 times BK in 8 16, with BM * BK <= 1024: 5 configurations.
expect_jq tune-kernel.size '.space_size == 5' "$T/a/proposed.json"
expect_eq tune-kernel.ok "$(cat "$T"/a/c*/proposal.json | jq -r .status | sort | uniq -c | tr -s ' ' | tr '\n' ,)" \
	" 2 none, 5 ok,"
same=0
for c in 0 1 2 3 4; do cmp -s "$K" "$T/a/c$c/kernel.cu" && same=$((same + 1)); done
expect_eq tune-kernel.source "$same" 5
expect_jq tune-kernel.launch '.defines == {"VEC": 2, "BM": 32, "BK": 8} and .smem == "BK * 4" and .block == ["BM"]
	and (has("tunables") | not) and (has("constraints") | not)' "$T/a/c0/launch.json"
expect_jq tune-kernel.variant '.variant == "kernel"' "$T/a/c0/proposal.json"
bad=$(cat "$T"/a/c*/launch.json | jq -s '[.[] | select(.defines.BM * .defines.BK > 1024)] | length')
expect_eq tune-kernel.constraints "$bad" 0

# The model's own candidate (BM=64, BK=8) is in the history under its own
# hash, with no variant name: the tuner knows it and moves from it.
h=$(cko-tune --kernel "$K" -l "$L" --list | jq -r 'select(.defines.BM == 64 and .defines.BK == 8) | .hash')
jq -n --arg h "$h" --slurpfile l "$L" '{candidates: [{id: "iter-001/c0", iteration: 1, status: "ok", hash: $h,
	variant: null, defines: $l[0].defines, geomean_ms: 2.5}]}' >"$T/history.json"
expect_status tune-kernel.local 0 cko-tune --kernel "$K" -l "$L" -H "$T/history.json" -i 2 -k 3 --strategy local -o "$T/b"
expect_eq tune-kernel.local_parent "$(cat "$T"/b/c*/proposal.json | jq -r .parent | sort -u)" iter-001/c0
expect_eq tune-kernel.local_moves "$(cat "$T"/b/c*/launch.json | jq -r '"\(.defines.BM)x\(.defines.BK)"' | sort | tr '\n' ' ')" \
	"128x8 32x8 64x16 "
expect_jq tune-kernel.local_seen '.seen == 1 and .space_size == 5' "$T/b/proposed.json"

# A launch.json name names the variant.
jq '. + {name: "mine"}' "$L" >"$T/named.json"
cko-tune --kernel "$K" -l "$T/named.json" -o "$T/c" 2>"$T/err"
expect_jq tune-kernel.named '.variant == "mine"' "$T/c/c0/proposal.json"
finish
