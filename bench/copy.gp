# Concurrent COPY: execution time vs clients, a line per configuration
# (server/io_method/file_extend_method), a panel per filesystem.
#   gnuplot -e "lib='bench'; data='copy.tsv'; out='copy.png'; ncols=N; filesystems='xfs ext4'" bench/copy.gp
w = 1400; h = 600
load lib . "/terminal.gp"
set grid
set logscale x 2
set xlabel "clients"
set ylabel "execution time (s)"
set yrange [0:*]
set key below
set multiplot layout 1, words(filesystems) title titled("COPY of a fixed volume into one table (median seconds)")
do for [f = 1:words(filesystems)] {
    fs = word(filesystems, f)
    set title fs
    plot for [i = 4:ncols:2] data using 2:(strcol(1) eq fs ? column(i) : 1/0) with linespoints title columnhead(i)
}
unset multiplot
