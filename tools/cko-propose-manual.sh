#!/bin/sh
# cko-propose-manual: the proposer for proposals written by hand. For
# iteration N it takes DIR/iter-NNN/cJ/{kernel.cu,launch.json[,note.txt]}
# (or DIR/NNN-J/...) for each candidate J; a missing one is "none".
usage() { # STATUS: 0 for --help (standard output), else standard error
	[ "$1" -eq 0 ] || exec >&2
	cat <<'EOF'
usage: cko-propose-manual -i iteration [-k count] -o iter-dir proposals-dir
  -i iteration  the iteration to propose for (N of iter-NNN)
  -k count      candidates to write, c0 to c(count-1) (default 1)
  -o iter-dir   the iteration's folder
  -h, --help    print this help and exit
EOF
	exit "$1"
}
case $1 in --help) usage 0 ;; esac
# shq WORD: WORD for the shell, in single quotes only when needed.
shq() { case $1 in '' | *[!A-Za-z0-9_@%+=:,./-]*) printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")" ;; *) printf %s "$1" ;; esac; }
iter= k=1 out=
while getopts :i:k:o:h o; do
	case $o in
	i) iter=$OPTARG ;; k) k=$OPTARG ;; o) out=$OPTARG ;; h) usage 0 ;;
	:) echo "cko-propose-manual: -$OPTARG needs a value" >&2; usage 2 ;;
	*) echo "cko-propose-manual: unknown option -$OPTARG" >&2; usage 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] && [ -n "$iter" ] && [ -n "$out" ] || usage 2
dir=$1
[ -d "$dir" ] || { echo "cko-propose-manual: $dir: no such folder" >&2; exit 2; }
p=$(dirname "$out")
[ -d "$p" ] || { echo "cko-propose-manual: $out: folder $p does not exist: create it first (mkdir -p $(shq "$p")) or write elsewhere" >&2; exit 2; }
case $iter in *[!0-9]*|'') usage 2 ;; esac
num=$(echo "$iter" | sed 's/^0*//; s/^$/0/')
n=$(printf %03d "$num")
j=0
list=
while [ "$j" -lt "$k" ]; do
	c=$out/c$j
	mkdir -p "$c" || exit 3
	src=
	for s in "$dir/iter-$n/c$j" "$dir/$n-$j"; do [ -f "$s/kernel.cu" ] && { src=$s; break; }; done
	if [ -n "$src" ]; then
		[ -f "$src/launch.json" ] || { echo "cko-propose-manual: $src: kernel.cu without launch.json" >&2; exit 2; }
		cp "$src/kernel.cu" "$c/kernel.cu" && cp "$src/launch.json" "$c/launch.json" || exit 3
		note=$(cat "$src/note.txt" 2>/dev/null)
		jq -n --arg note "${note:-proposal from $src}" '{proposer: "manual", status: "ok", note: $note, parent: null}' >"$c/proposal.json.tmp"
	else
		jq -n '{proposer: "manual", status: "none", note: "no proposal for this candidate"}' >"$c/proposal.json.tmp"
	fi
	mv "$c/proposal.json.tmp" "$c/proposal.json"
	list="$list\"c$j\","
	j=$((j + 1))
done
echo "{\"tool\": \"cko-propose-manual\", \"iteration\": $num, \"candidates\": [${list%,}]}" >"$out/proposed.json.tmp" &&
	mv "$out/proposed.json.tmp" "$out/proposed.json"
