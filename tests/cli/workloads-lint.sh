#!/bin/sh
# The built-in workloads: every file is there and parses, cases.json lints
# clean, the reference and initial kernels compile for sm_90, and both
# launch rules give valid grids and blocks for every case (and for the
# corners of the hidden ranges).
. "$(dirname "$0")/../lib.sh"
WL=$CKO_TOP/workloads
have_request=0
command -v cko-request >/dev/null 2>&1 && have_request=1

for dir in "$WL"/*/; do
	w=$(basename "$dir")
	[ -f "$dir/cases.json" ] || continue
	for f in description.txt signature.json cases.json reference.cu reference-launch.json initial.cu launch.json; do
		[ -s "$dir/$f" ] || fail "wl-$w-files" "missing or empty: $f"
	done
	ok "wl-$w-files"
	expect_status "wl-$w-lint" 0 cko-gen --lint "$dir/signature.json" "$dir/cases.json"
	expect_jq "wl-$w-cases" '([.cases[] | select(.kind == "correctness")] | length) >= 3 and
		([.cases[] | select(.kind == "performance")] | length) >= 2 and .hidden.count >= 1 and has("bytes")' "$dir/cases.json"
	entry=$(jq -r .entry "$dir/signature.json")
	for k in initial:launch reference:reference-launch; do
		src=${k%%:*} lj=${k#*:}
		if expect_status "wl-$w-compile-$src" 0 cko-compile --arch sm_90 -s "$dir/signature.json" -l "$dir/$lj.json" \
			-o "$T/$w-$src.cubin" -j "$T/$w-$src.json" "$dir/$src.cu"; then
			expect_jq "wl-$w-compile-$src-json" ".status == \"ok\" and .entry == \"$entry\" and (.spill_stores // 0) == 0" \
				"$T/$w-$src.json"
		fi
	done

	# Launch rules, evaluated by cko-request over case folders made from
	# cases.json (scalars only: no inputs are needed for that).
	if [ $have_request = 0 ]; then
		skip "wl-$w-launch" "cko-request is not built"
		continue
	fi
	c=$T/$w-cases
	mkdir -p "$c"
	jq '[.cases[] | {name, kind, hidden: false, scalars, sets: 1}] +
	    ([.cases[] | select(.kind == "correctness")][0].scalars as $s | (.hidden.scalars // {}) as $r |
	     [(["corner-lo", 0], ["corner-hi", 1]) as [$n, $v] |
	      {name: $n, kind: "correctness", hidden: true, sets: 1, scalars: ($s + ($r | map_values(.[$v])))}])' \
		"$dir/cases.json" >"$T/$w-all.json" 2>"$T/jq.err" ||
		{ fail "wl-$w-launch" "jq: $(cat "$T/jq.err")"; continue; }
	jq 'map({name, kind, hidden, sets})' "$T/$w-all.json" >"$c/index.json"
	n=$(jq length "$T/$w-all.json")
	i=0
	while [ $i -lt "$n" ]; do
		name=$(jq -r ".[$i].name" "$T/$w-all.json")
		mkdir -p "$c/$name"
		jq ".[$i] + {tolerance: {}}" "$T/$w-all.json" >"$c/$name/case.json"
		i=$((i + 1))
	done
	for lj in launch reference-launch; do
		if expect_status "wl-$w-$lj-eval" 0 cko-request -s "$dir/signature.json" -l "$dir/$lj.json" \
			-b "$T/$w-initial.cubin" -c "$c" -o "$T/$w-$lj-req"; then
			for r in "$T/$w-$lj-req"/*.json; do
				[ "$(basename "$r")" = index.json ] && continue
				jq -e '(.block | .[0] * .[1] * .[2]) <= 1024 and .grid[1] <= 65535 and .grid[2] <= 65535 and
					(.grid | all(. >= 1)) and (.smem // 0) <= 49152' "$r" >/dev/null ||
					{ fail "wl-$w-$lj-sane" "$(basename "$r"): grid $(jq -c .grid "$r") block $(jq -c .block "$r")"; continue 2; }
			done
			ok "wl-$w-$lj-sane"
		fi
	done
done
finish
