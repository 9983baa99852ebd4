#!/bin/sh
# help-man: every tool's --help and man page agree with each other and with
# the source. For each tool of tools/ (installed as bin/cko-*): --help exits
# 0 on standard output; its usage lines are the man page's SYNOPSIS; every
# option the source accepts (struct option tables and getopt strings of
# tools/*.c, case patterns and getopts strings of tools/*.sh) is explained
# in --help and in the man page's OPTIONS; bad usage prints the usage on
# standard error and exits 2. Each page is man(7) with the usual sections
# and renders without warnings (when groff is installed).
. "$(dirname "$0")/../lib.sh"

# unesc: man(7) escapes to plain text.
UNESC='
function unesc(s) {
	gsub(/\\f\([A-Z][A-Z]/, "", s); gsub(/\\f\[[^]]*\]/, "", s); gsub(/\\f[A-Z]/, "", s)
	gsub(/\\-/, "-", s); gsub(/\\\(dq/, "\"", s); gsub(/\\&/, "", s); gsub(/\\e/, "\\", s)
	gsub(/\\ /, " ", s)
	return s
}'

# synopsis MAN: the SYNOPSIS as text, one line per form (forms end at .br).
synopsis() {
	awk "$UNESC"'
	function args(s, a,   n, cur, inq, i, ch) {
		n = 0; cur = ""; inq = 0
		for (i = 1; i <= length(s); i++) {
			ch = substr(s, i, 1)
			if (ch == "\"") { inq = !inq; continue }
			if (ch == " " && !inq) { if (cur != "") a[++n] = cur; cur = ""; continue }
			cur = cur ch
		}
		if (cur != "") a[++n] = cur
		return n
	}
	function flush() { if (form != "") { gsub(/  +/, " ", form); sub(/^ /, "", form); sub(/ $/, "", form); print form }; form = "" }
	/^\.SH/ { if (on) { flush(); exit } on = ($0 ~ /^\.SH +"?SYNOPSIS/); next }
	!on { next }
	/^\.(br|PP|sp|LP|P)( |$)/ { flush(); next }
	/^\.[BI] / { m = substr($0, 4); n = args(m, a); t = ""; for (i = 1; i <= n; i++) t = t (i > 1 ? " " : "") a[i]; form = form " " unesc(t); next }
	/^\.(BR|RB|IR|RI|BI|IB) / { m = substr($0, 5); n = args(m, a); t = ""; for (i = 1; i <= n; i++) t = t a[i]; form = form " " unesc(t); next }
	/^\./ { next }
	{ form = form " " unesc($0) }
	END { flush() }' "$1"
}

# usage_forms HELP TOOL: the usage lines of --help, one line per form. The
# usage is the first line ("usage: ") and the indented lines after it up to
# the first option line (one starting with "-"); a line starting with the
# tool's name starts another form.
usage_forms() {
	awk -v tool="$2" '
	function flush() { if (form != "") { gsub(/  +/, " ", form); sub(/^ /, "", form); sub(/ $/, "", form); print form }; form = "" }
	NR == 1 { if (sub(/^usage: /, "")) { form = $0; next } exit }
	/^   +[^ -]/ { s = $0; sub(/^ +/, "", s); if (index(s, tool) == 1) { flush(); form = s } else form = form " " s; next }
	{ exit }
	END { flush() }' "$1"
}

# help_options HELP: --help after its usage lines.
help_options() {
	awk 'NR == 1 { next } !done && /^   +[^ -]/ { next } { done = 1; print }' "$1"
}

# man_options MAN: the OPTIONS section as text.
man_options() {
	awk "$UNESC"'
	/^\.SH/ { on = ($0 ~ /^\.SH +"?OPTIONS/); next }
	on { print unesc($0) }' "$1"
}

# source_options FILE: every option the source accepts, one a line (-x, --long).
source_options() {
	case $1 in
	*.c)
		grep -oE '\{"[a-zA-Z0-9][-a-zA-Z0-9]*", *(no|required|optional)_argument' "$1" |
			sed 's/^{"\([^"]*\)".*/--\1/'
		grep -oE 'strcmp\([a-z_]+(\[[a-z0-9]+\])?, "--[a-z][-a-z0-9]*"\)' "$1" | sed 's/.*"\(--[^"]*\)".*/\1/'
		grep -oE 'getopt(_long)?\([^,]*, *[^,]*, *"[^"]*"' "$1" | sed 's/.*"\([^"]*\)"$/\1/' |
			tr -d ':+-' | fold -w1
		;;
	*.sh)
		grep -oE '(^|[[:space:](])-[-a-zA-Z0-9|]+\)' "$1" | tr -d ' \t()' | tr '|' '\n' |
			grep -E '^--?[a-zA-Z0-9][-a-zA-Z0-9]*$'
		grep -oE 'getopts [a-zA-Z:]+' "$1" | sed 's/getopts //' | tr -d ':' | fold -w1
		;;
	esac | sed 's/^\([a-zA-Z0-9]\)$/-\1/' | sort -u
}

# has_opt OPT FILE: the option appears in the file as a word of its own.
has_opt() {
	grep -qE -- "(^|[^-a-zA-Z0-9])$1([^-a-zA-Z0-9]|\$)" "$2"
}

groff_ok=
command -v groff >/dev/null 2>&1 && groff_ok=1
[ -n "$groff_ok" ] || skip help-man-render "groff is not installed (Debian package groff-base): pages not rendered"

for src in "$CKO_TOP"/tools/cko-*.c "$CKO_TOP"/tools/cko-*.sh; do
	tool=$(basename "$src"); tool=${tool%.*}
	page=$CKO_TOP/man/$tool.1
	n=help-man-$tool
	[ -f "$page" ] || { fail "$n-page" "no man/$tool.1"; continue; }

	# --help: exit 0, the help on standard output, nothing on standard error.
	"$CKO_BIN/$tool" --help >"$T/help" 2>"$T/help.err"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$T/help" ] && [ ! -s "$T/help.err" ] && head -n 1 "$T/help" | grep -q '^usage: '; then
		ok "$n-help"
	else
		fail "$n-help" "exit $rc, stdout '$(head -c 200 "$T/help")', stderr '$(head -c 200 "$T/help.err")'"
	fi
	# -h where the source accepts it.
	if source_options "$src" | grep -qx -- -h; then
		"$CKO_BIN/$tool" -h >"$T/h" 2>&1 && cmp -s "$T/h" "$T/help" && ok "$n-h" ||
			fail "$n-h" "-h differs from --help or fails"
	fi

	# The usage lines are the SYNOPSIS.
	synopsis "$page" >"$T/syn"
	usage_forms "$T/help" "$tool" >"$T/use"
	if [ -s "$T/syn" ] && cmp -s "$T/syn" "$T/use"; then
		ok "$n-synopsis"
	else
		fail "$n-synopsis" "usage and man SYNOPSIS differ: $(diff "$T/use" "$T/syn" | grep '^[<>]' | head -n 6)"
	fi

	# Every option of the source is in --help's option lines and in OPTIONS.
	help_options "$T/help" >"$T/hopts"
	man_options "$page" >"$T/mopts"
	nohelp= noman=
	for o in $(source_options "$src"); do
		has_opt "$o" "$T/hopts" || nohelp="$nohelp $o"
		has_opt "$o" "$T/mopts" || noman="$noman $o"
	done
	[ -z "$nohelp" ] && ok "$n-help-options" || fail "$n-help-options" "not explained by --help:$nohelp"
	[ -z "$noman" ] && ok "$n-man-options" || fail "$n-man-options" "not in man/$tool.1 OPTIONS:$noman"

	# Bad usage: the usage on standard error, status 2, nothing on standard output.
	"$CKO_BIN/$tool" --no-such-option >"$T/bad" 2>"$T/bad.err" </dev/null
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$T/bad" ] && grep -q 'usage: ' "$T/bad.err"; then
		ok "$n-bad-usage"
	else
		fail "$n-bad-usage" "exit $rc, stdout '$(head -c 200 "$T/bad")', stderr '$(head -c 200 "$T/bad.err")'"
	fi

	# man(7) with the usual sections.
	missing=
	grep -q '^\.TH ' "$page" || missing="$missing .TH"
	grep -qE '^\.(Dd|Sh|Nm) ' "$page" && missing="$missing (mdoc macros)"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS'; do
		grep -qE "^\\.SH +\"?$s\"?\$" "$page" || missing="$missing '$s'"
	done
	[ -z "$missing" ] && ok "$n-sections" || fail "$n-sections" "man/$tool.1 lacks:$missing"

	if [ -n "$groff_ok" ]; then
		w=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
		[ -z "$w" ] && ok "$n-render" || fail "$n-render" "groff warns: $(echo "$w" | head -n 3)"
	fi
done

# Every page is a tool's.
for page in "$CKO_TOP"/man/*.1; do
	tool=$(basename "$page" .1)
	[ -f "$CKO_TOP/tools/$tool.c" ] || [ -f "$CKO_TOP/tools/$tool.sh" ] || fail "help-man-$tool-tool" "man/$tool.1 documents no tool"
done
finish
