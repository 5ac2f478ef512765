# File extension per strategy, a bar group per filesystem/interface/
# sessions: seconds in a backend and in a bare process (medians) above, the
# latency of single extensions in the backend (p99 and the largest) below.
#   gnuplot -e "lib='bench'; data='extend.tsv'; out='extend.png'" bench/extend.gp
w = 1400; h = 1000
load lib . "/terminal.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -40 scale 0
label(fs, s, i, n) = fs . " " . s . " " . i . " x" . n
set multiplot layout 2,1 title titled("Growing a file as a relation grows: random extensions of 1-64 blocks, data written")
set yrange [0:*]
set ylabel "seconds (median)"
plot data every ::1 using 7:xtic(label(strcol(1), strcol(2), strcol(3), strcol(4))) title "backend", \
     '' every ::1 using 8 title "bare process"
set logscale y
set yrange [*:*]
set ylabel "one extension (us, log scale)"
plot data every ::1 using 14:xtic(label(strcol(1), strcol(2), strcol(3), strcol(4))) title "p99", \
     '' every ::1 using ($15 * 1000) title "largest"
unset multiplot
