# Completions kept in flight: ns per completion vs queue depth, a panel per
# operation, a line per setup flags and pattern (each CQE reaped and
# replaced alone, or per batch; backend, medians).
#   gnuplot -e "lib='bench'; data='completions.tsv'; out='completions.png'; ops='nop recv'; flagsets='none sqpoll'" bench/completions.gp
w = 1400; h = 600
load lib . "/terminal.gp"
set grid
set logscale xy 2
set xlabel "queue depth"
set ylabel "ns per completion"
set key below
set multiplot layout 1, words(ops) title titled("io_uring completions kept in flight, each replaced and reaped alone or per batch")
do for [o = 1:words(ops)] {
    op = word(ops, o)
    set title op
    plot for [f = 1:words(flagsets)] for [r in "each batch"] data every ::1 \
        using 3:((strcol(1) eq op && strcol(2) eq word(flagsets, f) && strcol(4) eq r) ? column(7) : 1/0) \
        with linespoints title word(flagsets, f) . " " . r
}
unset multiplot
