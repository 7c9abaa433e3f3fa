#!/bin/sh
# Seeds the fuzz corpora from the repository's own inputs (the corpora are not committed):
#   corpus/scenario   the example scenarios
#   corpus/ios        the studied IOS configurations
#   corpus/overrides  for each example, its index byte and a few `--set` lines
# Run from anywhere; existing corpus files are kept.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
mkdir -p "$here/corpus/scenario" "$here/corpus/ios" "$here/corpus/overrides"
cp "$repo"/examples/*.yaml "$here/corpus/scenario/"
cp "$repo"/tests/ios/*.txt "$repo"/examples/ios/*.txt "$here/corpus/ios/"
# The overrides target picks the example by its first byte, in file-name order.
i=0
for example in "$repo"/examples/*.yaml; do
    name=$(basename "$example" .yaml)
    octal=$(printf '%03o' "$i")
    printf "\\$octal%s\n%s\n" "run.seed=2" "traffic.0.dscp=EF" >"$here/corpus/overrides/$name-dscp"
    printf "\\$octal%s\n%s\n" "topology.links[0].rate=64kbps" "run.warmup=0s" >"$here/corpus/overrides/$name-rate"
    i=$((i + 1))
done
echo "seeded $(ls "$here/corpus/scenario" | wc -l) scenarios, $(ls "$here/corpus/ios" | wc -l) IOS configurations, $(ls "$here/corpus/overrides" | wc -l) override sets"
