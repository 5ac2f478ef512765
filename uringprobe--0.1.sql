/* uringprobe--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION uringprobe" to load this file. \quit

-- Preflight: can this backend use io_uring, what the kernel accepts, and what
-- io_method=io_uring costs with this server's settings (or with the
-- max_connections / io_max_concurrency given).
CREATE FUNCTION uringprobe_environment(
    max_connections integer DEFAULT NULL,
    io_max_concurrency integer DEFAULT NULL,
    OUT name text,
    OUT value text,
    OUT detail text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'uringprobe_environment'
LANGUAGE C CALLED ON NULL INPUT VOLATILE PARALLEL UNSAFE;

REVOKE ALL ON FUNCTION uringprobe_environment(integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION uringprobe_environment(integer, integer) TO pg_monitor;
