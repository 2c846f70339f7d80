#!/bin/sh
# The Nmax sweep of issue 22 at one seed: the ablation preset's five arms (two at a time on two
# cores), then k = 4 evaluations (`npm run eval`) at the Nmax the sweep's figures need, two at a
# time: each arm at its own Nmax (the gains, paired by `npm run compare`), and every arm but Nmax 0
# at 2 and 4 (calls per answer at 4 by training budget; the gain from eval 2 -> 4 by arm). The full
# 5 x 5 matrix takes about twice as long; EVAL_ALL=1 asks for it. Then the comparison, and where DIR
# holds the reports of other seeds' sweeps too, every seed's gains with their mean over seeds.
# Long: run it with nohup. Usage: scripts/nmaxSweep.sh SEED DIR [BASE]
set -eu
seed=$1
dir=$2
base=${3:-public/models/base}
mkdir -p "$dir"
npm run --silent train -- --preset ablation --seed "$seed" --base "$base" --nmax 0,1,2,4,8 --out "$dir/abl-s$seed"
evalNmax() {
  if [ "${EVAL_ALL:-0}" = 1 ]; then echo 0,1,2,4,8
  elif [ "$1" = 0 ]; then echo 0
  else printf '%s\n' "$1" 2 4 | sort -nu | paste -sd, -
  fi
}
for n in 0 1 2 4 8; do echo "$n $(evalNmax "$n")"; done | xargs -P "$(nproc)" -L 1 sh -c \
  'npm run --silent eval -- --checkpoint "$0/abl-s$1/nmax-$2/checkpoint" --nmax "$3" --k 4 --out "$0/eval-s$1-n$2.json"' "$dir" "$seed"
npm run --silent compare -- $(for n in 0 1 2 4 8; do printf -- '--eval %s ' "$dir/eval-s$seed-n$n.json"; done) \
  $(for n in 0 1 2 4 8; do printf '%s ' "$dir/abl-s$seed/nmax-$n"; done) > "$dir/compare-s$seed.md"
seeds=$(ls "$dir" | sed -n 's/^eval-s\([0-9]*\)-n[0-9]*\.json$/\1/p' | sort -nu)
if [ "$(echo "$seeds" | wc -l)" -gt 1 ]; then
  npm run --silent compare -- $(for s in $seeds; do for n in 0 1 2 4 8; do f="$dir/eval-s$s-n$n.json"; [ -f "$f" ] && printf -- '--eval %s ' "$f"; done; done) > "$dir/compare-seeds.md"
fi
