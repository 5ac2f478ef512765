# File extension: seconds per strategy, a bar per
# filesystem/interface/sessions, backend and bare process side by side.
#   gnuplot -e "data='extend-compare.tsv'; out='extend.png'" bench/extend.gp
set terminal pngcairo size 1400,700 font ",10"
set output out
set datafile separator "\t"
set termoption noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -40 scale 0
set yrange [0:*]
set ylabel "seconds (median)"
set title "Growing a file as a relation grows: random extensions of 1-64 blocks, data written"
label(fs, s, i, n) = fs . " " . s . " " . i . " x" . n
plot data every ::1 using 6:xtic(label(strcol(1), strcol(2), strcol(3), strcol(4))) title "backend", \
     '' every ::1 using 7 title "bare process"
