# Connection churn, one bar per cell: average connection time and the
# postmaster's CPU per connection (medians of the runs).
#   gnuplot -e "data='churn-medians.tsv'; out='churn.png'" bench/churn.gp
set terminal pngcairo size 1400,900 font ",10"
set output out
set datafile separator "\t"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid ytics
set xtics rotate by -40 scale 0
set key off
set termoption noenhanced
set yrange [0:*]
set rmargin 12
label(s, m, mc) = s . " " . m . " mc=" . mc
set multiplot layout 2,1 title "pgbench -C, one trivial query per connection"
set ylabel "average connection time (ms)"
plot data every ::1 using (strcol(5) eq "ok" ? column(6) : 1/0):xtic(label(strcol(1), strcol(2), strcol(3))) linecolor rgb "#4477aa"
set ylabel "postmaster CPU per connection (us)"
plot data every ::1 using (strcol(5) eq "ok" ? column(8) : 1/0):xtic(label(strcol(1), strcol(2), strcol(3))) linecolor rgb "#cc6677"
unset multiplot
