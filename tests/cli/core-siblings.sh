# Tools that run other cko tools (cko-optimize, cko-lock, cko-sanitize, the
# run.mk cko-init writes) find them beside themselves, in the source tree's
# bin/ and after `make install`, whatever PATH holds: here PATH has no cko
# folder, only a decoy one whose cko-init, cko-run and cko-gen fail.
. "$(dirname "$0")/../lib.sh"
D=$DATA/run
mkdir -p "$T/decoy"
for t in cko-init cko-run cko-gen cko-lock; do
	printf '#!/bin/sh\necho "decoy %s ran" >&2\nexit 99\n' "$t" >"$T/decoy/$t"
	chmod +x "$T/decoy/$t"
done
bare=$T/decoy:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export CKO_LOCK_DIR=$T/locks

# The README's command, from the source tree (make -n: the plan only).
expect_status siblings/source-tree 0 env PATH="$bare" "$CKO_BIN/cko-optimize" --signature "$D/signature.json" \
	--input-cases "$D/cases.json" --reference "$D/reference.cu" --reference-launch "$D/reference-launch.json" \
	--initial-kernel "$D/initial.cu" --launch "$D/launch.json" --max-iterations 1 --results "$T/src" -- -n
expect_grep siblings/source-tree-plan 'cko-gen --hidden-seed' "$T/last.out"
grep -q decoy "$T/last.err" && fail siblings/source-tree-no-decoy "$(cat "$T/last.err")" || ok siblings/source-tree-no-decoy

# After make install (the real rule; the tools are already built), with
# the fake GPU tools put in the installed bin/.
inst=$T/inst
if ! make -s -C "$CKO_TOP" -o all install DESTDIR="$inst" PREFIX=/opt/cko BINDIR="$CKO_BIN" >"$T/install.log" 2>&1; then
	fail siblings/install "$(tail -5 "$T/install.log")"
	finish
fi
ib=$inst/opt/cko/bin
for f in cko-props cko-run cko-bench; do cp "$CKO_TOP/tests/fake-gpu/$f" "$ib/$f"; done
cp "$CKO_TOP/tests/fake-gpu/common.sh" "$ib/"
expect_status siblings/installed-run 0 env PATH="$bare" "$ib/cko-optimize" --signature "$D/signature.json" \
	--input-cases "$D/cases.json" --reference "$D/reference.cu" --reference-launch "$D/reference-launch.json" \
	--initial-kernel "$D/initial.cu" --launch "$D/launch.json" --max-iterations 1 --results "$T/res"
run=$T/res/run-001
expect_grep siblings/installed-run-mk "^CKO_BIN +:= $ib\$" "$run/run.mk"
expect_jq siblings/installed-summary '.counts.candidates == 2' "$run/summary.json"
expect_jq siblings/installed-fake-gpu '.gpu == "Fake GPU"' "$run/history.json"
grep -q decoy "$T/last.err" && fail siblings/installed-no-decoy "$(cat "$T/last.err")" || ok siblings/installed-no-decoy

# cko-lock runs the cko-run beside it, also through a link to it (a folder
# of links is its own tool folder: the tests' fake GPU folders are such).
mkdir -p "$T/links"
ln -s "$CKO_BIN/cko-lock" "$T/links/cko-lock"
printf '#!/bin/sh\necho linked-sibling\n' >"$T/links/cko-run"
chmod +x "$T/links/cko-run"
expect_status siblings/lock-link 0 env PATH="$T/links:$bare" cko-lock -- cko-run
expect_grep siblings/lock-link-ran 'linked-sibling' "$T/last.out"
expect_status siblings/lock-link-path 0 env PATH="$bare" "$T/links/cko-lock" -- cko-run
expect_grep siblings/lock-link-path-ran 'linked-sibling' "$T/last.out"
# Not beside it and not on PATH: said so, exit 3.
mkdir -p "$T/alone"
cp "$CKO_BIN/cko-lock" "$T/alone/"
expect_status siblings/lock-missing 3 env PATH=/usr/bin:/bin "$T/alone/cko-lock" -- cko-nosuch
expect_grep siblings/lock-missing-says 'cko-nosuch: not found beside cko-lock .* nor on PATH' "$T/last.err"
finish
