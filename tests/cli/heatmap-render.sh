# cko-heatmap: PNG and SVG from the 30 x 10 fixture history (with invalid
# and skipped candidates); a history without a valid candidate and one
# without candidates still render; malformed histories are exit 2 naming
# the file; no gnuplot is exit 3.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/out" # outputs go into existing folders
H=$CKO_TOP/tests/data/heatmap/history.json
if ! command -v gnuplot >/dev/null 2>&1; then
	skip heatmap "gnuplot is not installed"
	expect_status heatmap/no-gnuplot 3 cko-heatmap -o "$T/x" "$H"
	finish
fi

# is_png FILE / is_svg FILE
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { grep -q '<svg' "$1"; }

cp "$H" "$T/history.json"
expect_status heatmap/default-prefix 0 cko-heatmap "$T/history.json"
if is_png "$T/heatmap.png"; then ok heatmap/png-magic; else fail heatmap/png-magic "$T/heatmap.png is no PNG"; fi
if is_svg "$T/heatmap.svg"; then ok heatmap/svg; else fail heatmap/svg "$T/heatmap.svg has no <svg"; fi
expect_status heatmap/prefix 0 cko-heatmap -o "$T/out/map" --title "sgemm tuning" --script "$T/map.gp" "$H"
if is_png "$T/out/map.png" && is_svg "$T/out/map.svg"; then ok heatmap/prefix-files; else fail heatmap/prefix-files "no $T/out/map.png/.svg"; fi
# The picture's content, through the script and the SVG text.
expect_grep heatmap/title "sgemm tuning" "$T/out/map.svg"
expect_grep heatmap/title-best "best iter-014/c1: 10\\.1x geomean speedup vs reference" "$T/map.gp"
expect_grep heatmap/best-box "rect from -0.5,27.5 to 9.5,28.5 fs empty border lc rgb '#000000' lw 3" "$T/map.gp"
expect_grep heatmap/invalid-marked "'x compile: kernel.cu\\(57\\): error: identifier \"BKX\" is undefined'" "$T/map.gp"
expect_grep heatmap/skipped-marked "'skipped: the proposer had nothing new'" "$T/map.gp"
expect_grep heatmap/case-names "rect_3072x1536" "$T/out/map.svg"
n=$(grep -c 'fc palette cb' "$T/map.gp")
expect_eq heatmap/valid-cells "$n" 240
ls "$T/out" | grep -q tmp && fail heatmap/no-temporaries "$(ls "$T/out")" || ok heatmap/no-temporaries

# No valid candidate, and no candidate at all: still drawn.
jq '.candidates |= map(.status = "invalid" | .stage = "compile" | .reason = "error" | .cases = [] | .geomean_ms = null) | .best = null' \
	"$H" >"$T/noval.json"
expect_status heatmap/no-valid 0 cko-heatmap -o "$T/noval" --script "$T/noval.gp" "$T/noval.json"
if is_png "$T/noval.png" && is_svg "$T/noval.svg"; then ok heatmap/no-valid-files; else fail heatmap/no-valid-files "missing"; fi
expect_grep heatmap/no-valid-title "no valid candidate" "$T/noval.gp"
jq '.candidates = [] | .best = null' "$H" >"$T/none.json"
expect_status heatmap/no-candidates 0 cko-heatmap -o "$T/none" "$T/none.json"

# Text from the model is quoted for gnuplot: no command substitution.
jq '.candidates[0].note = "it'"'"'s `touch '"$T"'/pwned` @x {y}^z"' "$H" >"$T/q.json"
expect_status heatmap/quoting 0 cko-heatmap -o "$T/q" "$T/q.json"
if [ -e "$T/pwned" ]; then fail heatmap/no-injection "a backquote in a note ran a command"; else ok heatmap/no-injection; fi

# Malformed input: exit 2 naming the file.
printf '{"perf_cases": [' >"$T/bad.json"
expect_status heatmap/malformed 2 cko-heatmap -o "$T/bad" "$T/bad.json"
expect_grep heatmap/malformed-named "bad.json" "$T/last.err"
jq 'del(.perf_cases)' "$H" >"$T/nopc.json"
expect_status heatmap/no-perf-cases 2 cko-heatmap -o "$T/x" "$T/nopc.json"
expect_grep heatmap/no-perf-cases-named 'nopc.json: perf_cases: missing' "$T/last.err"
jq '.reference.median_ms.square_1024 = "fast"' "$H" >"$T/badref.json"
expect_status heatmap/bad-reference 2 cko-heatmap -o "$T/x" "$T/badref.json"
expect_grep heatmap/bad-reference-named 'badref.json: reference.median_ms.square_1024' "$T/last.err"
jq '.candidates[2].cases[0].median_ms = "x"' "$H" >"$T/badms.json"
expect_status heatmap/bad-median 2 cko-heatmap -o "$T/x" "$T/badms.json"
expect_grep heatmap/bad-median-named 'candidates\[2\]\.cases\[0\]\.median_ms' "$T/last.err"
expect_status heatmap/missing-file 2 cko-heatmap -o "$T/x" "$T/nothere.json"

# No gnuplot: exit 3.
expect_status heatmap/no-gnuplot 3 env GNUPLOT="$T/nothere/gnuplot" cko-heatmap -o "$T/x" "$H"
expect_grep heatmap/no-gnuplot-message 'gnuplot' "$T/last.err"
cko-heatmap -h >"$T/help" 2>&1
expect_grep heatmap/help '^usage: cko-heatmap ' "$T/help"
finish
