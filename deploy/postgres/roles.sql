-- Muster's database and its two roles (ADR 0001: the application must not own the event table
-- nor be able to TRUNCATE it; the append-only triggers refuse UPDATE and DELETE to everyone).
--
--   owner_role  owns the database and its tables; runs `manage.py migrate` and nothing else.
--   app_role    what the web process, the worker and beat connect as: it reads and writes rows,
--               never changes the schema, and has no TRUNCATE.
--
-- Run once as a superuser with psql variables, e.g.
--   psql -v owner_role=muster_owner -v owner_password=... -v app_role=muster_app \
--        -v app_password=... -v database=muster -f roles.sql
\set ON_ERROR_STOP on

CREATE ROLE :"owner_role" LOGIN PASSWORD :'owner_password';
CREATE ROLE :"app_role" LOGIN PASSWORD :'app_password';
CREATE DATABASE :"database" OWNER :"owner_role";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"app_role";

\connect :"database"
ALTER SCHEMA public OWNER TO :"owner_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO :"app_role";
-- Every table and sequence the owner's migrations create: rows only, no TRUNCATE, no DDL.
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public
    GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner_role" IN SCHEMA public
    GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
