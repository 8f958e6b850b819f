#!/bin/sh
# Runs once, when the PostgreSQL container first creates its data directory.
set -eu
psql --username "$POSTGRES_USER" --dbname postgres \
  -v owner_role=muster_owner -v owner_password="$MUSTER_OWNER_DB_PASSWORD" \
  -v app_role=muster_app -v app_password="$MUSTER_APP_DB_PASSWORD" \
  -v database=muster \
  -f /etc/muster/roles.sql
