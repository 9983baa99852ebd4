# Outputs named on the command line (-o and the like) must be in an
# existing folder: every tool exits 2 saying "folder X does not exist" and
# creates nothing; a tool that writes a folder makes only that folder.
. "$(dirname "$0")/../lib.sh"
D=$DATA/core
cd "$T" || exit 1
N=$T/no/such
cko-npy -t f32 -s 2 -o e.npy -- 1 2
: >k.cubin
echo '{"candidates": []}' >history.json
# NAME command...: exit 2, the message, and nothing made under $T/no.
refuses() {
	what=out-folder/$1; shift
	expect_status "$what" 2 "$@" &&
		expect_grep "$what-says" "folder $N does not exist: create it first \(mkdir -p $N\)" "$T/last.err"
	[ ! -e "$T/no" ] && ok "$what-made-nothing" || { fail "$what-made-nothing" "$(find "$T/no")"; rm -rf "$T/no"; }
}
refuses compile cko-compile --arch sm_90 -e scale -D FACTOR=2 -o "$N/x.cubin" "$D/good.cu"
refuses compile-json cko-compile --arch sm_90 -e scale -D FACTOR=2 -o k2.cubin -j "$N/k.json" "$D/good.cu"
refuses npy cko-npy -t f32 -s 2 -o "$N/x.npy" -- 1 2
refuses compare cko-compare -o "$N/c.json" e.npy e.npy
refuses request cko-request -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" -o "$N/requests"
refuses request-outputs cko-request -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" --outputs "$N/out" -o requests
refuses gen cko-gen -o "$N/cases" "$DATA/run/signature.json" "$DATA/run/cases.json"
refuses rank cko-rank --candidate "$T" -o "$N/r.json"
refuses heatmap cko-heatmap -o "$N/heat" history.json
refuses tune cko-tune -s "$DATA/tune/small/space.json" -H history.json -i 1 -k 1 -o "$N/it"
refuses init cko-init --workload softmax --results "$N/results"
refuses run cko-run -o "$N/run.json" any.json
refuses bench cko-bench -o "$N/bench.json" any.json
refuses props cko-props -o "$N/props.json"
refuses profile cko-profile -o "$N/p.json" any.json
refuses llm-context cko-llm context -r "$T" -i 1 -o "$N/ctx.md"
refuses docs cko-docs -o "$N/d.txt" shared memory
refuses sanitize cko-sanitize -o "$N/s.json" any.json
mkdir manual
refuses propose-manual cko-propose-manual -i 1 -k 1 -o "$N/iter-001" manual
# A folder output in an existing folder is made (with what is inside it).
expect_status out-folder/request-makes-its-folder 0 cko-request -s "$D/sig.json" -l "$D/launch.json" -b k.cubin -c "$D/cases" -o requests/
[ -f requests/one.json ] && ok out-folder/request-folder-filled || fail out-folder/request-folder-filled "$(ls requests)"
: >plain
expect_status out-folder/not-a-folder 2 cko-npy -t f32 -s 2 -o plain/x.npy -- 1 2
expect_grep out-folder/not-a-folder-says 'plain/x.npy: .*plain is not a folder' "$T/last.err"
finish
