# The output of every bench/*.gp plot, loaded by each after it sets w and h
# (pixels). Variables from the command line: out (the file), fmt ("png",
# the default, or "svg") and machine (a line naming the machine, kernel and
# servers, added under each plot's title by titled()).
if (!exists("fmt")) fmt = "png"
if (!exists("machine")) machine = ""
if (fmt eq "svg") {
    set terminal svg size w,h dynamic font "sans,10" background "white"
} else {
    set terminal pngcairo size w,h font ",10"
}
set output out
set datafile separator "\t"
set termoption noenhanced
titled(t) = machine eq "" ? t : t . "\n" . machine
