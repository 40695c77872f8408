#!/bin/sh
# menudeck's nightly job, for cron (Config/cron/crontab) or by hand:
#
#   Config/cron/nightly.sh [--rebuild] [DATE]
#
# 1. Adds the swipe logs waiting in spool/ (the days that ended, normally yesterday's) to the
#    snapshot that the config's "history" names (var/history.snap), then moves them to logs/.
#    A log the snapshot already holds is skipped (same content), so a rerun never counts a day
#    twice, and a night that was missed is caught up by the next one. A log whose name the
#    snapshot (or logs/) already has with other content stops the job before anything changes.
#    Swipes dated on or after DATE (a swipe stamped after midnight can reach yesterday's log)
#    wait in the snapshot for their day: the decks of the day after theirs count them.
# 2. Builds the decks for DATE (default: today in the config's time zone; also tomorrow, +N,
#    -N or YYYY-MM-DD) from the snapshot into decks/DATE.json (the date as YYYY-MM-DD),
#    replaced atomically. --strict makes a history that ends more than the config's
#    stale_history_days before DATE an error (exit 65): no decks are written for DATE, and cron
#    mails the message.
#
# --rebuild first makes the snapshot again from the logs in logs/ (after a day's log there was
# replaced by a corrected one; see docs/cron.md), then runs the night as above.
#
# The folder that holds Config/ and Data/ is found from this script's own place, and the
# config's paths are relative to the config's folder (Config/cron/), so the job runs from any
# directory, as cron runs it. menudeck must be on the PATH (the crontab sets it).
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
config="$root/Config/cron/menudeck.json"
rebuild=no
if [ "${1:-}" = "--rebuild" ]; then
  rebuild=yes
  shift
fi
date=${1:-today}

mkdir -p "$root/spool" "$root/logs" "$root/var" "$root/decks"
# One job at a time (a retry by hand while cron's still runs): menudeck locks the snapshot and
# the decks, but the list of waiting logs must not be taken while another job moves them. With
# flock(1) the lock is the kernel's; without it, a directory that only one mkdir can create
# (a job killed with SIGKILL leaves it behind: the message says so).
if command -v flock >/dev/null 2>&1; then
  exec 9>>"$root/var/.nightly.lock"
  if ! flock -w 600 9; then
    echo "nightly.sh: another nightly job still runs after 600 s; run this one again later" >&2
    exit 75
  fi
else
  lock="$root/var/.nightly.lock.d"
  waited=0
  until mkdir "$lock" 2>/dev/null; do
    if [ "$waited" -ge 600 ]; then
      echo "nightly.sh: another nightly job still runs after 600 s (or one was killed and left" \
        "$lock behind: remove it if no job runs); run this one again later" >&2
      exit 75
    fi
    sleep 1
    waited=$((waited + 1))
  done
  trap 'rmdir "$lock"' EXIT
  trap 'exit 129' HUP
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi

if [ "$rebuild" = yes ]; then
  set --
  for log in "$root"/logs/*.jsonl "$root"/logs/*.csv; do
    if [ -f "$log" ]; then set -- "$@" "$log"; fi
  done
  if [ $# -eq 0 ]; then
    echo "nightly.sh: no logs in $root/logs to rebuild the snapshot from" >&2
    exit 66
  fi
  # A new snapshot of every log, written beside the old one, then renamed over it: an ingest
  # that read the old one meanwhile finds it changed and writes nothing (exit 75).
  menudeck ingest --config "$config" --before "$date" --wait 600 \
    --out "$root/var/history.snap.rebuilt" "$@"
  mv -f "$root/var/history.snap.rebuilt" "$root/var/history.snap"
fi

# The waiting logs, listed once: exactly these are moved after the ingest.
set --
for log in "$root"/spool/*.jsonl "$root"/spool/*.csv; do
  if [ -f "$log" ]; then set -- "$@" "$log"; fi
done
# A log of logs/ is never replaced: one of the same name and other content stops the job first.
for log in "$@"; do
  kept="$root/logs/$(basename "$log")"
  if [ -e "$kept" ] && ! cmp -s "$log" "$kept"; then
    echo "nightly.sh: $log: logs/ already holds another log of that name ($kept), with other" \
      "content; nothing was ingested. If both are to be counted, rename the one in spool/; to" \
      "replace the day, see 'Replacing a day's log' in docs/cron.md" >&2
    exit 65
  fi
done
if [ $# -gt 0 ]; then
  menudeck ingest --config "$config" --before "$date" --wait 600 "$@"
  for log in "$@"; do
    kept="$root/logs/$(basename "$log")"
    if [ -e "$kept" ] && cmp -s "$log" "$kept"; then
      # The same bytes as the one kept: the snapshot holds it (it was skipped).
      rm -f "$log"
    elif ! mv -n "$log" "$kept" || [ -e "$log" ]; then
      echo "nightly.sh: $log was ingested but not moved to $kept (a file of that name" \
        "appeared there?); move it by hand: a rerun skips it (same content)" >&2
      exit 74
    fi
  done
fi
menudeck deck --config "$config" --date "$date" --strict --wait 600 \
  --out "$root/decks/{date}.json"
