# Event loop ping-pong: events per second per loop, pipes and peer
# (self: the waiter writes its own bytes once armed; process: a child
# writes them), in a backend and in a bare process (medians).
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
set title titled("a byte written (by the waiter or a peer process), wait until readable, read it (Samba's local.event)")
plot data every ::1 using 6:xtic(strcol(1) . " x" . strcol(2) . " " . strcol(3)) title "backend", \
     '' every ::1 using 7 title "bare process"
