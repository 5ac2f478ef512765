-- One trivial query per connection: with pgbench -C, the cost measured is
-- the connection itself (the postmaster forking a backend, and its exit).
SELECT 1;
