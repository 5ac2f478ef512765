-- One pgbench client's share of bench/extend.pl's second part: :mb MB
-- grown in its own scratch file in :dir by :strategy, random extension
-- sizes seeded by the client, each new block written.
SELECT status FROM uringprobe_extend(':dir', ':strategy', 'sync', min_blocks => 1, max_blocks => 64,
    total_mb => :mb, write_data => true, seed => :client_id);
