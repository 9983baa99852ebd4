#!/bin/sh
# cko-sanitize: compute-sanitizer (memcheck, racecheck) over launch requests,
# or over the best candidates of a run until one is clean (--history).
usage() { # [STATUS]: 0 for --help (standard output), else 2 (standard error)
	[ "${1:-2}" -eq 0 ] || exec >&2
	cat <<'EOF'
usage: cko-sanitize [--tools list] [--tries n] [--no-sandbox] [-o sanitize.json] (--history history.json | request.json...)
      --tools list            the compute-sanitizer tools, comma-separated (default memcheck,racecheck)
      --tries n               with --history, the most candidates to check (default 3)
      --no-sandbox            run the checked cko-run without Landlock
  -o sanitize.json            the result (default: standard output)
      --history history.json  check a run's verified candidates, fastest first, until one is clean
  -h, --help                  print this help and exit
EOF
	exit "${1:-2}"
}
# The cko-run beside this script comes first, whatever PATH holds.
here=$(dirname -- "$0")
[ -x "$here/cko-run" ] && PATH=$(cd "$here" && pwd):$PATH
# shq WORD: WORD for the shell, in single quotes only when needed.
shq() { case $1 in '' | *[!A-Za-z0-9_@%+=:,./-]*) printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")" ;; *) printf %s "$1" ;; esac; }
tools=memcheck,racecheck tries=3 out=- history=
while [ $# -gt 0 ]; do
	case $1 in
	--tools) tools=$2; shift ;;
	--tries) tries=$2; shift ;;
	--history) history=$2; shift ;;
	-o) out=$2; shift ;;
	--no-sandbox) export CKO_SANDBOX=off ;; # for the cko-run it checks
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ -n "$history" ] || [ $# -gt 0 ] || usage
say() { echo "cko-sanitize: $*" >&2; }
if [ "$out" != - ] && ! [ -d "$(dirname "$out")" ]; then
	say "$out: folder $(dirname "$out") does not exist: create it first (mkdir -p $(shq "$(dirname "$out")")) or write elsewhere"
	exit 2
fi
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cko-sanitize.XXXXXX") || exit 3
trap 'rm -rf "$tmp"' EXIT
emit() { # JSON
	if [ "$out" = - ]; then printf '%s\n' "$1"; else printf '%s\n' "$1" >"$out.tmp" && mv "$out.tmp" "$out"; fi
}
if [ -z "$CS" ]; then
	say "compute-sanitizer not found (set COMPUTE_SANITIZER): no sanitizer check"
	emit '{"tool": "cko-sanitize", "status": "unavailable", "message": "compute-sanitizer not found"}'
	exit 3
fi
# check REQUEST...: runs each tool over each request; prints a JSON array of
# checks; exit 0 clean, 1 errors, 3 the sanitizer could not run.
check() {
	res=0 items=
	for t in $(echo "$tools" | tr ',' ' '); do
		for r in "$@"; do
			"$CS" --tool "$t" --error-exitcode 99 --print-limit 10 \
				cko-run --no-double --no-write --no-compare --sets 1 -o "$tmp/run.json" "$r" >"$tmp/log" 2>&1
			s=$?
			case $s in
			0) st=clean ;;
			99) st=errors; res=1 ;;
			*) if grep -qi 'not supported\|unable to\|failed to' "$tmp/log"; then st=unavailable; [ $res -eq 0 ] && res=3; else st=errors; res=1; fi ;;
			esac
			log=$(grep -E 'ERROR|Invalid|Race|race|hazard|out of bounds' "$tmp/log" | head -n 8)
			items="$items$(jq -n -c --arg r "$r" --arg t "$t" --arg s "$st" --arg l "$log" '{request: $r, tool: $t, status: $s, log: $l}'),"
			[ $st = clean ] || say "$t on $r: $st"
		done
	done
	printf "[%s]\n" "${items%,}"
	return $res
}
if [ -z "$history" ]; then
	checks=$(check "$@"); s=$?
	st=$([ $s -eq 0 ] && echo clean || { [ $s -eq 1 ] && echo errors || echo unavailable; })
	emit "$(jq -n --argjson c "$checks" --arg s "$st" '{tool: "cko-sanitize", status: $s, checks: $c}')"
	exit $s
fi
# The best candidates first; each checked on its visible correctness cases.
run=$(dirname "$history")
ids=$(jq -r '[.candidates[] | select(.status == "ok" and .geomean_ms != null)] | sort_by(.geomean_ms) | .[].id' "$history" | head -n "$tries")
passed= rejected=[] all=[]
for id in $ids; do
	reqs=$(jq -r '.cases[] | select(.kind == "correctness" and (.hidden | not)) | .case' "$run/$id/result.json" |
		while read -r c; do printf '%s ' "$run/$id/requests/$c.json"; done)
	[ -n "$reqs" ] || continue
	say "checking $id"
	checks=$(check $reqs); s=$?
	all=$(printf "%s\n" "$all" | jq -c --arg id "$id" --argjson c "$checks" '. + [{id: $id, checks: $c}]')
	if [ $s -eq 0 ]; then passed=$id; break; fi
	if [ $s -eq 3 ]; then
		emit "$(jq -n --argjson a "$all" '{tool: "cko-sanitize", status: "unavailable", checked: $a, rejected: []}')"
		exit 3
	fi
	rejected=$(printf "%s\n" "$rejected" | jq -c --arg id "$id" '. + [$id]')
done
emit "$(jq -n --arg p "$passed" --argjson r "$rejected" --argjson a "$all" \
	'{tool: "cko-sanitize", status: (if $p == "" then "none_clean" else "ok" end), passed: (if $p == "" then null else $p end), rejected: $r, checked: $a}')"
[ -n "$passed" ] || [ "$ids" = "" ]
