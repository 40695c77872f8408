#!/bin/sh
# menudeck's nightly job, for cron (Config/cron/crontab) or by hand:
#
#   Config/cron/nightly.sh [DATE]
#
# 1. Adds the swipe logs waiting in spool/ (the days that ended, normally yesterday's) to the
#    snapshot that the config's "history" names (var/history.snap), then moves them to logs/.
#    A log the snapshot already holds is skipped (same content), so a rerun never counts a day
#    twice, and a night that was missed is caught up by the next one. Swipes dated on or after
#    DATE are left out, with a warning (--before): a snapshot that holds a swipe of DATE cannot
#    build DATE's decks, and a swipe stamped after midnight can reach yesterday's log.
# 2. Builds the decks for DATE (default: today in the config's time zone; also tomorrow, +N,
#    -N or YYYY-MM-DD) from the snapshot into decks/DATE.json, replaced atomically. --strict
#    makes a history that ends more than the config's stale_history_days before DATE an error
#    (exit 65): the decks of the day before stay, and cron mails the message.
#
# The folder that holds Config/ and Data/ is found from this script's own place, and the
# config's paths are relative to the config's folder (Config/cron/), so the job runs from any
# directory, as cron runs it. menudeck must be on the PATH (the crontab sets it).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
config="$root/Config/cron/menudeck.json"
date=${1:-today}

mkdir -p "$root/spool" "$root/logs" "$root/var" "$root/decks"
# One job at a time (a retry by hand while cron's still runs): menudeck locks the snapshot and
# the decks, but the list of waiting logs must not be taken while another job moves them.
if command -v flock >/dev/null 2>&1; then
  exec 9>>"$root/var/.nightly.lock"
  if ! flock -w 600 9; then
    echo "nightly.sh: another nightly job still runs after 600 s; run this one again later" >&2
    exit 75
  fi
fi
# The waiting logs, listed once: exactly these are moved after the ingest.
set --
for log in "$root"/spool/*.jsonl "$root"/spool/*.csv; do
  if [ -f "$log" ]; then set -- "$@" "$log"; fi
done
if [ $# -gt 0 ]; then
  menudeck ingest --config "$config" --before "$date" --wait 600 "$@"
  mv "$@" "$root/logs/"
fi
menudeck deck --config "$config" --date "$date" --strict --wait 600 \
  --out "$root/decks/$date.json"
