# Connection churn vs max_connections, a line per server flavour/io_method:
# average connection time and the postmaster's CPU per connection (medians
# of the runs).
#   gnuplot -e "lib='bench'; data='churn.tsv'; out='churn.png'; series='pg18-separate/sync ...'" bench/churn.gp
w = 1400; h = 900
load lib . "/terminal.gp"
set grid
set key below
set yrange [0:*]
set xlabel "max_connections"
ok(s) = strcol(1) . "/" . strcol(2) eq s && strcol(5) eq "ok"
set multiplot layout 2,1 title titled("pgbench -C, one trivial query per connection")
set ylabel "average connection time (ms)"
plot for [s in series] data every ::1 using (ok(s) ? column(3) : 1/0):6 with linespoints title s
set ylabel "postmaster CPU per connection (us)"
plot for [s in series] data every ::1 using (ok(s) ? column(3) : 1/0):8 with linespoints title s
unset multiplot
