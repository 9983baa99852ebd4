#!/bin/sh
# The kernel families of the memory-bound workloads (reduce_sum, softmax,
# transpose, layernorm: workloads/W/space.json): every point cko-tune can
# propose compiles for sm_90 without spills, and its launch rules, as
# cko-request evaluates them, give a valid launch for every case of
# cases.json and for every corner of the hidden ranges. Every point of
# every space is checked (about 350 NVRTC compiles, about a minute on
# 2 cores); SPACES_SAMPLE=N checks every N-th point of each space instead.
# sgemm's space is tests/cli/sweep-compile.sh's.
. "$(dirname "$0")/../lib.sh"
for t in cko-tune cko-compile cko-request; do
	command -v $t >/dev/null || { skip spaces-compile "$t is not built"; finish; }
done
WL=$CKO_TOP/workloads
step=${SPACES_SAMPLE:-1}

# The case folder cko-request reads: scalars only (as workloads-lint.sh
# makes it), with the hidden ranges' corners, every scalar at its low or
# high end.
cases_dir() { # workload dir
	jq '[.cases[] | {name, kind, hidden: false, scalars, sets: 1}] +
	    ([.cases[] | select(.kind == "correctness")][0].scalars as $s | (.hidden.scalars // {}) as $r |
	     ($r | keys) as $k | [range(0; pow(2; $k | length))] | map(. as $m |
	     {name: "corner-\($m)", kind: "correctness", hidden: true, sets: 1,
	      scalars: ($s + ([range(0; $k | length) as $i | {($k[$i]): $r[$k[$i]][(($m / pow(2; $i)) | floor) % 2]}] | add))}))' \
		"$WL/$1/cases.json" >"$T/$1-all.json" || return 1
	mkdir -p "$2"
	jq 'map({name, kind, hidden, sets})' "$T/$1-all.json" >"$2/index.json"
	jq -c '.[]' "$T/$1-all.json" | while read -r c; do
		n=$(echo "$c" | jq -r .name)
		mkdir -p "$2/$n"
		echo "$c" | jq '. + {tolerance: {}}' >"$2/$n/case.json"
	done
}

# One point: compile, then the launch of every case.
cat >"$T/point.sh" <<'PT'
cd "$1" || exit 1
cko-compile --arch sm_90 -s "$2" -l launch.json -o kernel.cubin -j compile.json kernel.cu >compile.log 2>&1 || exit 0
cko-request -s "$2" -l launch.json -b kernel.cubin -c "$3" -o requests >request.log 2>&1
echo $? >request.rc
PT

for w in reduce_sum softmax transpose layernorm; do
	S=$WL/$w/space.json
	if [ ! -f "$S" ]; then
		fail "spaces-$w" "no $S"
		continue
	fi
	cases_dir $w "$T/$w-cases" || { fail "spaces-$w-cases" "jq failed"; continue; }
	echo '{"candidates": []}' >"$T/h0.json"
	expect_status "spaces-$w-propose" 0 cko-tune -s "$S" -H "$T/h0.json" -i 1 -k 1000 --strategy exhaustive -o "$T/$w"
	size=$(jq .space_size "$T/$w/proposed.json")
	# (past the end of the space cko-tune fills the batch with "exhausted"
	# placeholders, which have no hash)
	grep -l '"hash"' "$T/$w"/c*/proposal.json | sed 's|/proposal.json$||' | sort -V >"$T/$w.all"
	expect_eq "spaces-$w-all-proposed" "$(wc -l <"$T/$w.all")" "$size"
	awk -v s="$step" '(NR - 1) % s == 0' "$T/$w.all" >"$T/$w.pts"
	xargs -P 2 -I{} sh "$T/point.sh" {} "$WL/$w/signature.json" "$T/$w-cases" <"$T/$w.pts"
	bad=0 checked=0 ncases=$(ls "$T/$w-cases" | grep -vc index.json)
	while read -r p; do
		checked=$((checked + 1))
		what="$(jq -r .note "$p/proposal.json")"
		if ! jq -e '.status == "ok" and (.spill_stores // 0) == 0 and (.spill_loads // 0) == 0 and
			(.stack_bytes // 0) == 0' "$p/compile.json" >/dev/null 2>&1; then
			fail "spaces-$w-compile" "$what: $(jq -c '{status, registers, spill_stores, stack_bytes}' "$p/compile.json" 2>&1)"
			bad=$((bad + 1))
			continue
		fi
		if [ "$(cat "$p/request.rc")" != 0 ]; then
			fail "spaces-$w-request" "$what: $(tail -n 2 "$p/request.log")"
			bad=$((bad + 1))
			continue
		fi
		regs=$(jq .registers "$p/compile.json")
		# A valid launch on the H200: at most 1024 threads, and as many
		# registers as the block can have (64K per SM); grid.y, grid.z at
		# most 65535; static shared memory only. reduce_sum's rowsplit: a
		# split row (grid.y > 1) needs R < 4096 and R*grid.y <= 8192 (its
		# static arrays); the kernel copes otherwise, but the rules must
		# never ask for that.
		nreq=$(ls "$p"/requests/*.json | grep -vc '/index.json$')
		badreq=$(ls "$p"/requests/*.json | grep -v '/index.json$' | xargs jq -r --argjson regs "$regs" \
			--arg v "$(jq -r .variant "$p/proposal.json")" '(.block | .[0] * .[1] * .[2]) as $nt |
			([.params[] | select(.name == "R")][0].value) as $R |
			select(($nt <= 1024 and $nt >= 1 and $nt * $regs <= 65536 and .grid[0] <= 2147483647 and
				.grid[1] <= 65535 and .grid[2] <= 65535 and (.grid | all(. >= 1)) and (.smem // 0) == 0 and
				($v != "rowsplit" or .grid[1] == 1 or ($R < 4096 and $R * .grid[1] <= 8192))) | not) |
			"\(.case): grid \(.grid) block \(.block)"' | head -n 3)
		if [ -n "$badreq" ] || [ "$nreq" != "$ncases" ]; then
			fail "spaces-$w-launch" "$what ($nreq of $ncases requests): $badreq"
			bad=$((bad + 1))
		fi
	done <"$T/$w.pts"
	[ $bad = 0 ] && ok "spaces-$w ($checked of $size points, $ncases cases each)"

	# The tuner plans a run on it without a GPU: cko-init takes the space
	# by default, iteration 1 proposes distinct points, and with those
	# four in the history (as if timed) iteration 3 proposes four more,
	# none seen before (local search from the fastest; exhaustive where
	# the space has 64 points or fewer, as transpose's).
	run=$(cko-init --workload $w --max-iterations 7 --candidates 4 --results "$T/res-$w" 2>/dev/null)
	expect_grep "spaces-$w-init-space" '^SPACE *:= workload/space.json' "$run/run.mk"
	expect_status "spaces-$w-tune-1" 0 cko-tune -s "$run/workload/space.json" -H "$T/h0.json" -i 1 -k 4 -o "$T/$w-i1"
	expect_eq "spaces-$w-tune-1-distinct" "$(jq -r 'select(.status == "ok") | .hash' "$T/$w-i1"/c*/proposal.json | sort -u | wc -l)" 4
	jq -s '{candidates: [to_entries[] | {id: "iter-001/c\(.key)", iteration: 1, status: "ok", hash: .value.hash,
		variant: .value.variant, geomean_ms: (1 + .key)}]}' "$T/$w-i1"/c0/proposal.json "$T/$w-i1"/c1/proposal.json \
		"$T/$w-i1"/c2/proposal.json "$T/$w-i1"/c3/proposal.json >"$T/$w-h1.json"
	expect_status "spaces-$w-tune-3" 0 cko-tune -s "$run/workload/space.json" -H "$T/$w-h1.json" -i 3 -k 4 -o "$T/$w-i3"
	expect_eq "spaces-$w-tune-3-new" "$( (jq -r .hash "$T/$w-i1"/c*/proposal.json; jq -r 'select(.status == "ok") | .hash' \
		"$T/$w-i3"/c*/proposal.json) | sort -u | wc -l)" 8
	expect_jq "spaces-$w-tune-3-local" '.strategy == (if .space_size <= 64 then "exhaustive" else "local" end) and .seen == 4' "$T/$w-i3/proposed.json"
	rm -rf "$T/$w" "$T/res-$w"
done
finish
