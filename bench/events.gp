# Event loop ping-pong: events per second per backend, in a backend and in
# a bare process (medians), one pipe.
#   gnuplot -e "lib='bench'; data='events.tsv'; out='events.png'" bench/events.gp
w = 1200; h = 600
load lib . "/terminal.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -30 scale 0
set yrange [0:*]
set ylabel "events per second (median)"
set title titled("write a byte, wait until readable, read it (Samba's local.event)")
plot data every ::1 using 5:xtic(strcol(1) . " x" . strcol(2)) title "backend", \
     '' every ::1 using 6 title "bare process"
