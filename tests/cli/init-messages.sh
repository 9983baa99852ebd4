# cko-init's messages: the hint to run a run folder is a command the shell
# takes as written (paths quoted only when needed), and so are the
# commands other messages suggest; --from a folder that is not a run folder
# says so.
. "$(dirname "$0")/../lib.sh"
cd "$T" || exit 1
mkdir -p "with space/it's" plain
for d in "with space/it's" plain; do
	what=init-hint-$(echo "$d" | tr -c 'a-z\n' -)
	CKO_QUIET= expect_status "$what" 0 cko-init --workload softmax --max-iterations 1 --results "$T/$d/results"
	run=$(cat "$T/last.out")
	h=$(sed -n 's/.*run it with  //p' "$T/last.err")
	eval "set -- $h"
	if [ "$1" = make ] && [ "$2" = -C ] && [ "$3" = "$run" ] && [ "$4 $5" = "-f run.mk" ] && [ $# -eq 5 ]; then
		ok "$what-quoted"
	else
		fail "$what-quoted" "hint '$h' does not give make -C '$run'"
	fi
done
expect_grep init-hint-plain-unquoted "run it with  make -C $T/plain/results/run-001 -f run.mk" "$T/last.err"

mkdir manual
expect_status quote-propose-manual 2 cko-propose-manual -i 1 -o "$T/no such/iter-001" manual
expect_grep quote-propose-manual-says "mkdir -p '$T/no such'" "$T/last.err"
expect_status quote-out-folder 2 cko-npy -t f32 -s 1 -o "$T/no such/x.npy" 1
expect_grep quote-out-folder-says "mkdir -p '$T/no such'" "$T/last.err"

mkdir notrun && echo x >notrun/other.txt
expect_status init-from-not-a-run 2 cko-init --from "$T/notrun"
expect_grep init-from-not-a-run-says "--from $T/notrun: $T/notrun is not a run folder \(no run.mk, workload/ or summary.json\)" "$T/last.err"
expect_status init-from-missing 2 cko-init --from "$T/nosuch"
expect_grep init-from-missing-says "--from $T/nosuch: no such run folder" "$T/last.err"
expect_status init-from-run 0 cko-init --from "$T/plain/results/run-001" --results "$T/again"
finish
