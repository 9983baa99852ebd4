# cko-docs --research: notes for a topic from several derived queries,
# each passage once.
. "$(dirname "$0")/../lib.sh"
G=$CKO_TOP/docs/guidance

expect_status docs/research 0 cko-docs -c "$G" --research "softmax over rows of a matrix" -o "$T/notes.md"
expect_grep docs/research-title '^# Research notes: softmax over rows of a matrix$' "$T/notes.md"
expect_grep docs/research-online-softmax '^## [0-9]+\. Online softmax in one pass$' "$T/notes.md"
expect_grep docs/research-shuffle '^## [0-9]+\. Warp-level reduction with shuffles$' "$T/notes.md"
n=$(grep -c '^## ' "$T/notes.md")
u=$(grep '^## ' "$T/notes.md" | sed 's/^## [0-9]*\. //' | sort -u | wc -l)
expect_eq docs/research-deduplicated "$u" "$n"
expect_eq docs/research-count "$n" 12
cko-docs -c "$G" --research "sgemm" -n 5 -o "$T/n5.md"
expect_eq docs/research-n "$(grep -c '^## ' "$T/n5.md")" 5
expect_grep docs/research-gemm '^## [0-9]+\. .*' "$T/n5.md"
expect_status docs/research-empty 2 cko-docs -c "$G" --research " " -o "$T/x.md"
finish
