#!/bin/sh
# docs-commands: every command of README.md and docs/ (*.md, */*.md) runs as written
# or is listed below as skipped with the reason.
#
# What a command is: a line of a code block (indented by 4 or more spaces
# after a blank line, or fenced with no info string or sh, shell, bash or
# console) whose first word is make, sh, jq, sed, cd, env, python3, sudo,
# apt-get, run=$(..., or a tool (bin/cko-NAME or cko-NAME for each
# tools/cko-NAME.*); a line ending in a backslash goes on with the next.
# Fenced json, c, cu and other blocks are never read; file layouts,
# grammars and JSON in indented blocks do not start with these words, and
# a line indented by a tab inside its block is a makefile rule's recipe
# (docs/model.md shows run.mk's rules), not a command.
# `Inline code` in prose names options and files and is not extracted.
#
# Each command is in PLAN: the group that runs it, or a skip-* group that
# reports it as skipped with the reason. A command in the docs that is in
# neither fails the test, as does an entry of PLAN no doc holds any more.
# A group runs its commands in the order of the docs, in one shell (so
# run=$(...) reaches the next lines), each command's text taken from the
# doc, and checks each exit status and what the docs say it makes.
#
# The groups: the README's run by hand, cko-optimize and the several-GPU
# run run in a scratch repository folder ($T/NAME: bin/ holds the tools with
# tests/fake-gpu's cko-props, cko-run and cko-bench; CKO_SHARE holds mk/
# and the test workload tests/data/run standing in for sgemm and softmax,
# whose cases are gigabytes). docs/workloads.md's checks run in the checkout
# with NAME replaced by each built-in workload (cko-compile uses NVRTC, no
# GPU), output under TMPDIR=$T.
. "$(dirname "$0")/../lib.sh"

PLAN='skip-gpu README.md: sh tools/install-deps.sh && make demo
skip-tests README.md: sh tools/install-deps.sh --tests && make test
byhand README.md: run=$(bin/cko-init --workload sgemm --max-iterations 7 --candidates 4)
byhand README.md: make -C "$run" -f run.mk -j4          # proposals and compiles in parallel; GPU steps take turns
byhand README.md: make -C "$run" -f run.mk ITER=9       # two more iterations
byhand README.md: make -C "$run" -f run.mk show         # the summary again
byhand README.md: make -C "$run" -f run.mk export       # the best kernel as code to build: export/ (cko-export)
byhand README.md: make -C "$run" -f run.mk -n           # what would run
optimize README.md: bin/cko-optimize --workload softmax --max-iterations 5 -- -j2
gpus README.md: run=$(bin/cko-init --workload sgemm --gpus 4 --candidates 8)
gpus README.md: make -C "$run" -f run.mk -j12
synopsis docs/model.md: cko-llm render -t TEMPLATE [-a KIND] [--schema FILE | --no-schema] [-v NAME=FILE]... [-s NAME=TEXT]... -o prompt.json
synopsis docs/model.md: cko-llm context -r RUNDIR -i N [-c config.json] [--max-chars n] [-o context.md] [--meta meta.json] [--which]
synopsis docs/model.md: cko-llm ask [-c config.json] [--tools manifest.json] [--enable NAME,...] [--allow PATH]...
synopsis docs/model.md: cko-llm extract -s signature.json -C cases-dir [--parent ID] -o candidate-dir response.json
synopsis docs/model.md: cko-llm extract -w signature|cases|reference|initial [-s signature.json] [-C cases-dir] [-l launch.json] -o FILE response.json
workload docs/workloads.md: cko-gen --lint workloads/NAME/signature.json workloads/NAME/cases.json
workload docs/workloads.md: cko-compile --arch sm_90 -s workloads/NAME/signature.json \
lint docs/workloads.md: sh tests/run workloads-lint'

reason() {
	case $1 in
	skip-gpu) echo "needs an NVIDIA GPU and driver, and root for apt-get (run on the H200: make demo)" ;;
	skip-tests) echo "needs root and the network (apt-get); make test is what runs this test (tests/cli/core-install-deps.sh checks install-deps.sh)" ;;
	esac
}

# extract: "ID<tab>FILE: FIRST-LINE<tab>FILE:LINE: FIRST-LINE" for each
# command, one a line (the second field is its key in PLAN); the command's
# whole text (continuation lines included) goes to $T/cmd/ID.
mkdir -p "$T/cmd"
tools=$(cd "$CKO_TOP/tools" && ls cko-*.c cko-*.sh 2>/dev/null | sed 's/\.[a-z]*$//' | tr '\n' ' ')
cd "$CKO_TOP" || exit 1
for f in README.md docs/*.md docs/*/*.md; do
	awk -v file="$f" -v tools=" $tools " -v dir="$T/cmd" '
	function start(s,   w, t) {
		w = s; sub(/[ ;)].*/, "", w)
		if (w ~ /^(make|sh|jq|sed|cd|env|python3|sudo|apt-get)$/) return 1
		if (s ~ /^run=\$\(/) { t = substr(s, 7); sub(/[ )].*/, "", t); w = t }
		sub(/^bin\//, "", w)
		return w ~ /^cko-/ && index(tools, " " w " ") > 0
	}
	function line(s) {
		if (s ~ /^ *\t/) { out = ""; cont = 0; return }	# a makefile recipe
		sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s)
		if (cont) { print s >> out; close(out) }
		else if (start(s)) {
			n = FILENAME "." FNR; gsub(/[^A-Za-z0-9.]/, "_", n); out = dir "/" n
			print s > out; close(out)
			print n "\t" file ": " s "\t" file ":" FNR ": " s
		} else
			out = ""
		cont = out != "" && s ~ /\\$/
	}
	fence == "" && /^ ? ? ?(```+|~~~+)[^`]*$/ {
		fence = $0; sub(/^ */, "", fence); info = fence
		sub(/^(`+|~+)/, "", info); sub(/^ */, "", info); sub(/[ {].*/, "", info)
		fence = substr(fence, 1, 3); shell = info ~ /^(|sh|shell|bash|console)$/
		cont = 0; next
	}
	fence != "" {
		if (index($0, fence) && $0 ~ /^ ? ? ?(```+|~~~+) *$/) { fence = ""; cont = 0; next }
		if (shell) line($0)
		next
	}
	/^[ \t]*$/ { blank = 1; cont = 0; next }
	/^    / && (blank || inblock) { inblock = 1; blank = 0; line($0); next }
	{ inblock = 0; blank = 0; cont = 0 }' "$f"
done >"$T/index"
cut -f2 "$T/index" >"$T/found"

# Every found command is planned; every planned one is found.
echo "$PLAN" | sed 's/^[^ ]* //' >"$T/planned"
while IFS= read -r c; do
	grep -Fxq -- "$c" "$T/planned" || fail docs-commands/unplanned "a command in the docs that this test neither runs nor lists as skipped: $c"
done <"$T/found"
while IFS= read -r c; do
	grep -Fxq -- "$c" "$T/found" || fail docs-commands/stale-plan "PLAN lists a command no doc holds: $c"
done <"$T/planned"
[ -s "$T/found" ] && ok docs-commands/extracted || fail docs-commands/extracted "no commands found"

# ID GROUP KEY for each found command, in the order of the docs.
echo "$PLAN" >"$T/plan"
awk -F'\t' 'NR == FNR { g = $0; sub(/ .*/, "", g); k = $0; sub(/^[^ ]* /, "", k); grp[k] = g; next }
	($2 in grp) { print $1 "\t" grp[$2] "\t" $2 "\t" $3 }' "$T/plan" "$T/index" >"$T/groups"

# The skipped ones, said so.
awk -F'\t' '$2 ~ /^skip-/ { print $2 "\t" $4 }' "$T/groups" | while IFS="$(printf '\t')" read -r g key; do
	skip "docs-commands/$key" "$(reason "$g")"
done

# run_group GROUP DIR [SED [LABEL]]: the group's commands, in one shell in
# DIR, each followed by a line recording its exit status (SED edits the
# text: placeholders); each status must be 0. Command ID's standard output
# and error go to $T/out/GROUP.ID and $T/err/GROUP.ID.
run_group() {
	_g=$1 _dir=$2 _sed=${3:-} _label=${4:-}
	mkdir -p "$T/out" "$T/err"
	awk -F'\t' -v g="$_g" '$2 == g { print $1 }' "$T/groups" | while read -r id; do
		printf 'exec >"%s" 2>"%s"\n' "$T/out/$_g.$id" "$T/err/$_g.$id"
		if [ -n "$_sed" ]; then sed "$_sed" "$T/cmd/$id"; else cat "$T/cmd/$id"; fi
		printf 'echo "$? %s" >&3\n' "$id"
	done >"$T/$_g.sh"
	_t0=$(date +%s)
	(cd "$_dir" && sh "$T/$_g.sh" 3>"$T/$_g.status" >"$T/$_g.out" 2>"$T/$_g.err")
	echo "info docs-commands/$_g$_label: $(($(date +%s) - _t0)) s"
	[ -s "$T/$_g.status" ] || { fail "docs-commands/$_g" "nothing ran: $(tail -n 5 "$T/$_g.err")"; return 1; }
	_bad=0
	while read -r st id; do
		key=$(awk -F'\t' -v id="$id" '$1 == id { print $4 }' "$T/groups")
		if [ "$st" -eq 0 ]; then ok "docs-commands/$key$_label"; else
			fail "docs-commands/$key$_label" "exit $st; stderr: $(tail -n 5 "$T/err/$_g.$id")"; _bad=1
		fi
	done <"$T/$_g.status"
	return $_bad
}

# output GROUP TEXT: the standard output of the group's command holding TEXT.
output() {
	echo "$T/out/$1.$(awk -F'\t' -v g="$1" -v t="$2" '$2 == g && index($3, t) { print $1; exit }' "$T/groups")"
}

# scratch DIR: a repository folder with the fake GPU tools in bin/ (cko-init
# copied: run.mk names the folder of the cko-init that made it) and a share
# folder where the test workload stands in for sgemm and softmax.
scratch() {
	fake_gpu_bin "$1/bin"
	rm -f "$1/bin/cko-init"
	cp "$CKO_BIN/cko-init" "$1/bin/"
	mkdir -p "$1/share/workloads"
	ln -s "$CKO_TOP/mk" "$1/share/mk"
	ln -s "$CKO_TOP/prompts" "$1/share/prompts"
	for w in sgemm softmax; do ln -s "$DATA/run" "$1/share/workloads/$w"; done
}

# The README's three runs, at the same time (each in its own folder, with
# its own GPU pool); what each says goes to $T/report.NAME, shown in order.
byhand() { # a run by hand: the results it names, two more iterations
	rd=$T/byhand/results/run-001
	miss= heat=
	command -v gnuplot >/dev/null && heat=heatmap.png	# cko-heatmap draws with gnuplot
	for f in history.json summary.json best.cu best-launch.json $heat iter-009/proposed.json; do
		[ -s "$rd/$f" ] || miss="$miss $f"
	done
	ls "$rd"/replay/*.json >/dev/null 2>&1 || miss="$miss replay/CASE.json"
	[ -z "$miss" ] && ok docs-commands/byhand-results || fail docs-commands/byhand-results "not in $rd:$miss"
	expect_jq docs-commands/byhand-iterations '[.candidates[].iteration] | max == 9' "$rd/history.json"
	expect_grep docs-commands/byhand-show '^candidates: 37 ' "$(output byhand 'run.mk show')"
	expect_grep docs-commands/byhand-dry-run 'Nothing to be done' "$(output byhand 'run.mk -n')"
	miss=
	n=$(jq -r .entry "$rd/workload/signature.json") # the test workload's kernel stands in for sgemm
	for f in "$n.cu" "$n.h" "$n.cubin" "${n}_driver.c" README.md; do [ -s "$rd/export/$f" ] || miss="$miss $f"; done
	[ -z "$miss" ] && ok docs-commands/byhand-export || fail docs-commands/byhand-export "not in $rd/export:$miss ($(ls "$rd/export" 2>&1 | tr '\n' ' '))"
}
optimize() { # cko-optimize: init and make in one command
	rd=$T/optimize/results/run-001
	expect_jq docs-commands/optimize-summary '.counts.candidates > 1' "$rd/summary.json"
	expect_jq docs-commands/optimize-iterations '[.candidates[].iteration] | max == 5' "$rd/history.json"
}
gpus() { # several GPUs: a pool of 4 (fake) GPUs
	rd=$T/gpus/results/run-001
	expect_grep docs-commands/gpus-pool '^GPUS +[?]= *4' "$rd/run.mk"
	expect_jq docs-commands/gpus-summary '.counts.candidates > 1' "$rd/summary.json"
}
for g in byhand optimize gpus; do
	scratch "$T/$g"
	(CKO_SHARE=$T/$g/share CKO_LOCK_DIR=$T/locks-$g run_group $g "$T/$g" && $g) >"$T/report.$g" 2>&1 &
done
wait
for g in byhand optimize gpus; do
	cat "$T/report.$g"
	grep -q '^FAIL ' "$T/report.$g" && _failed=1
done

# docs/model.md's synopses: each option they name is one of cko-llm's.
cko-llm --help >"$T/llm-help" 2>&1
awk -F'\t' '$2 == "synopsis" { print $4 }' "$T/groups" | while IFS= read -r key; do
	miss=
	for o in $(echo "$key" | grep -oE '(^| |\[)--?[a-z][a-z-]*' | tr -d ' ['); do
		grep -q -- "$o[ ,]" "$T/llm-help" || miss="$miss $o"
	done
	[ -z "$miss" ] && ok "docs-commands/$key" || fail "docs-commands/$key" "options not in cko-llm --help:$miss"
done

# docs/workloads.md's checks, for each built-in workload, in the checkout.
for d in "$CKO_TOP"/workloads/*/; do
	w=$(basename "$d")
	[ -f "$d/cases.json" ] || continue
	rm -f "$T/x.cubin"
	TMPDIR=$T run_group workload "$CKO_TOP" "s/NAME/$w/g" " ($w)" && [ -s "$T/x.cubin" ] ||
		fail "docs-commands/workload-$w" "no $T/x.cubin"
done
TMPDIR=$T run_group lint "$CKO_TOP"
expect_grep docs-commands/lint-passed ' 0 failed' "$(output lint workloads-lint)"
finish
