-- One concurrent-COPY transaction (bench/copy.pl): a chunk of rows from
-- bench/copy-data.pl into the one table every client copies into.
COPY copy_target FROM ':datafile' WITH (FORMAT csv);
