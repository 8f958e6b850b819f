#!/bin/sh
# A dump of the database every BACKUP_INTERVAL_SECONDS (default a day) into BACKUP_DIR (default
# /backups), keeping the newest BACKUP_KEEP dumps (default 14); BACKUP_ONCE=1 makes one and stops.
# Dumps are PostgreSQL's custom format: restore them with pg_restore (docs/deployment.md). The
# event log is the whole truth; every other table can be rebuilt from it.
set -eu
interval="${BACKUP_INTERVAL_SECONDS:-86400}"
keep="${BACKUP_KEEP:-14}"
dir="${BACKUP_DIR:-/backups}"
mkdir -p "$dir"
while true; do
  stamp="$(date -u +%Y%m%dT%H%M%SZ)"
  if pg_dump --format=custom --file="$dir/muster-$stamp.dump.partial" "$BACKUP_DATABASE_URL"; then
    mv "$dir/muster-$stamp.dump.partial" "$dir/muster-$stamp.dump"
    echo "backup written: $dir/muster-$stamp.dump"
  else
    rm -f "$dir/muster-$stamp.dump.partial"
    echo "backup FAILED at $stamp" >&2
    [ -z "${BACKUP_ONCE:-}" ] || exit 1
  fi
  # shellcheck disable=SC2012  # the names are ours: no spaces or newlines
  ls -1t "$dir"/muster-*.dump 2>/dev/null | tail -n "+$((keep + 1))" | xargs -r rm -f
  [ -z "${BACKUP_ONCE:-}" ] || exit 0
  sleep "$interval"
done
