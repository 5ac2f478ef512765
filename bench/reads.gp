# What io_uring buys against how long the device makes each read wait: a
# cold sequential scan's speed over sync's (sync's median seconds over the
# io_method's, with its 95% bootstrap interval), per io_method, against the
# latency the storage adds (0: the machine's disk).
#   gnuplot -e "lib='bench'; data='reads-speedup.tsv'; methods='worker io_uring'; out='reads.png'" bench/reads.gp
w = 1000; h = 600
load lib . "/terminal.gp"
set grid
set key top left
set xrange [-0.1:*]
set offsets 0, graph 0.05, 0, 0
set yrange [0:*]
set xlabel "latency the storage adds to every request (ms; 0: the machine's disk)"
set ylabel "cold sequential scan: speed over sync"
set title titled("what io_uring buys: PostgreSQL 18 cold sequential scans under each io_method")
plot for [m in methods] data every ::1 using (strcol(3) eq m ? $2 : 1/0):4:5:6 with yerrorlines lw 2 title m, \
     1 with lines dt 2 lc "gray" title "sync"
