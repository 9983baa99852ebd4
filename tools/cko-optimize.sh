#!/bin/sh
# cko-optimize: the one-liner: cko-init with the given options, then make in
# the new run folder. Options after "--" go to make (e.g. -- -j4 ITER=9).
#   cko-optimize --workload sgemm --max-iterations 7 -- -j2
# The cko tools beside this script come first, whatever PATH holds.
here=$(dirname -- "$0")
[ -x "$here/cko-init" ] && PATH=$(cd "$here" && pwd):$PATH
case $1 in -h|--help)
	cat <<'EOF'
usage: cko-optimize [cko-init-options] [-- make-arguments]
  cko-init-options   the options of cko-init(1), passed to it as they are
  -- make-arguments  arguments for make in the new run folder, e.g. -j2 ITER=9
  -h, --help         print this help and exit (as the first argument)
EOF
	exit 0 ;;
esac
init_args=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	init_args="$init_args $(printf "%s" "$1" | sed "s/'/'\\\\''/g; s/^/'/; s/\$/'/")"
	shift
done
[ "$1" = "--" ] && shift
run=$(eval "cko-init $init_args") || exit $?
echo "cko-optimize: $run" >&2
exec make -C "$run" -f run.mk "$@"
