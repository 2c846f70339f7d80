#!/bin/sh
# The Nmax sweep of issue 22 at one seed: the ablation preset's five arms (two at a time on two
# cores), each arm's evaluation at Nmax 0, 1, 2, 4 and 8 (k = 4, each arm scored at its own Nmax by
# `npm run compare`), then the comparison. Long: run it with nohup. Usage: scripts/nmaxSweep.sh SEED DIR [BASE]
set -eu
seed=$1
dir=$2
base=${3:-public/models/base}
mkdir -p "$dir"
npm run --silent train -- --preset ablation --seed "$seed" --base "$base" --nmax 0,1,2,4,8 --out "$dir/abl-s$seed"
for n in 0 1 2 4 8; do echo "$n"; done | xargs -P "$(nproc)" -I N \
  npm run --silent eval -- --checkpoint "$dir/abl-s$seed/nmax-N/checkpoint" --nmax 0,1,2,4,8 --k 4 --out "$dir/eval-s$seed-nN.json"
npm run --silent compare -- $(for n in 0 1 2 4 8; do printf -- '--eval %s ' "$dir/eval-s$seed-n$n.json"; done) \
  $(for n in 0 1 2 4 8; do printf '%s ' "$dir/abl-s$seed/nmax-$n"; done) > "$dir/compare-s$seed.md"
