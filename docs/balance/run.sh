#!/bin/sh
# Regenerates the balance reports of the house edition (docs/balance/README.md says what they show).
# Every seat is the greedy bot (one determinization, a 10-command horizon), rotated over the seats, one
# process per run; the game counts keep each run to a few minutes on two cores.
set -e
cd "$(dirname "$0")/../.."
sim() { .venv/bin/python -m service simulate --jobs 1 --samples 1 --horizon 10 --bots greedy "$@"; }
case "${1:-all}" in
all|bazaar)
  sim --game bazaar --players 1 --games 100 --out docs/balance/bazaar-1p
  sim --game bazaar --players 2 --games 500 --out docs/balance/bazaar-2p
  for n in 3 4 5 6; do sim --game bazaar --players $n --games 120 --out docs/balance/bazaar-${n}p; done ;;
esac
case "${1:-all}" in
all|basari) for n in 3 4 5; do sim --game basari --players $n --games 50 --out docs/balance/basari-${n}p; done ;;
esac
case "${1:-all}" in
all|johari) for n in 2 3 4; do sim --game johari --players $n --games 100 --out docs/balance/johari-${n}p; done ;;
esac
