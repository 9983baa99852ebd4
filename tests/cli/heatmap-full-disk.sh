# cko-heatmap on a full disk: gnuplot exits 0 with a PNG cut short and an
# empty SVG; cko-heatmap checks its outputs, exits 3 naming the file and the
# full disk, leaves no partial or temporary file and keeps the earlier
# complete heatmap; with space again it succeeds. The full disk is a small
# tmpfs mounted in a private mount namespace (unshare -rm).
. "$(dirname "$0")/../lib.sh"
H=$CKO_TOP/tests/data/heatmap/history.json
command -v gnuplot >/dev/null 2>&1 || { skip heatmap-full "gnuplot is not installed"; finish; }
if [ -z "$CKO_IN_NS" ]; then
	if ! unshare -rm true 2>/dev/null; then
		skip heatmap-full "cannot make a mount namespace (unshare -rm) for a small full tmpfs"
		finish
	fi
	export TEST_TMP CKO_BIN CKO_TOP
	CKO_IN_NS=1 exec unshare -rm sh "$0"
fi
M=$T/small
mkdir -p "$M"
if ! mount -t tmpfs -o size=2m tmpfs "$M" 2>"$T/mount.err"; then
	skip heatmap-full "cannot mount a tmpfs in the namespace: $(cat "$T/mount.err")"
	finish
fi
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# An earlier, complete heatmap.
expect_status heatmap-full/first 0 cko-heatmap -o "$M/heat" "$H"
cp "$M/heat.png" "$T/old.png" && cp "$M/heat.svg" "$T/old.svg"
# Fill the disk, leaving one page free (the PNG is cut at 4096 bytes).
head -c 4096 /dev/zero >"$M/page"
dd if=/dev/zero of="$M/fill" bs=4096 2>/dev/null
rm -f "$M/page"
expect_status heatmap-full/exit-3 3 cko-heatmap -o "$M/heat" "$H"
expect_grep heatmap-full/names-file 'heat\.png: .*cut short' "$T/last.err"
expect_grep heatmap-full/says-full 'the disk is full.*free some space' "$T/last.err"
grep -q wrote "$T/last.err" "$T/last.out" && fail heatmap-full/no-wrote "$(cat "$T/last.err")" || ok heatmap-full/no-wrote
cmp -s "$M/heat.png" "$T/old.png" && cmp -s "$M/heat.svg" "$T/old.svg" && ok heatmap-full/earlier-kept ||
	fail heatmap-full/earlier-kept "$(ls -l "$M")"
expect_eq heatmap-full/no-temporary "$(ls "$M" | grep -c tmp)" 0
# Space again: the next run succeeds and leaves exactly the two files.
rm -f "$M/fill"
expect_status heatmap-full/again 0 cko-heatmap -o "$M/heat" "$H"
is_png "$M/heat.png" && grep -q '</svg>' "$M/heat.svg" && ok heatmap-full/again-whole || fail heatmap-full/again-whole "$(ls -l "$M")"
expect_eq heatmap-full/again-only-outputs "$(ls "$M" | tr '\n' ' ')" "heat.png heat.svg "
umount "$M"
finish
