# make bench PERF=1: per cell of one benchmark, the share of its samples
# (the experiment's threads) in each family of kernel functions that is its
# report's evidence (bench/perf-profile.pl), as clustered bars.
#   gnuplot -e "lib='bench'; data='perf-rings.tsv'; out='perf-rings.png'; bench='rings'; cells=12; columns=4" bench/perf.gp
# (columns: the file's, the cell's name and one per family)
if (!exists("cells")) cells = 10
w = 1400 > 60 * cells + 300 ? 1400 : 60 * cells + 300; h = 700
load lib . "/terminal.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by 40 right scale 0 font ",8"
set yrange [0:*]
set ylabel "share of the cell's samples (%)"
set key top left
set bmargin 16
set lmargin 24
set title titled("kernel profile of " . bench . ": the report's evidence per cell (perf record -e cpu-clock)")
plot for [f = 2:columns] data using f:xtic(1) title columnheader(f)
