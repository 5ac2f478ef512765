# The report of a make bench run, from its results directory:
#
#   report.md    plain-text tables for a mailing list: the machine, kernel,
#                profile and servers, every benchmark's tables, and per
#                benchmark the spread of its cells (median, min-max over the
#                repetitions; cells spread more than 10% are flagged)
#   report.html  the same, self-contained, with the plots inline (SVG, and
#                the PNG embedded as a download)
#   results.json the configuration echo, the environment report of every server, the
#                cells with their repetitions, and the latency histograms
#
#   perl bench/report.pl RESULTS_DIR [--baseline DIR] [--threshold PCT]
#   perl bench/report.pl --findings-md RESULTS_DIR
#
# --findings-md prints what the run found of each report as a markdown
# table (the README's), from the run's runs files and run.tsv alone.
#
# With --baseline (the results directory of an earlier run), every cell the
# two runs share gets the ratio of the medians, and a cell worse by more
# than --threshold percent (default 10) is a regression: the report lists
# them and this script exits with status 3. A baseline that shares no cell
# with the run, or measures a benchmark over other parameters, is refused.
#
# RESULTS_DIR holds what tools/run-bench wrote: run.tsv (the run: machine,
# profile, variables, servers), report.list (the report's sections, tables
# and plots in order), the TSVs and plots. Outputs are written beside them
# under temporary names and renamed when complete.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../tools/perl";
use Getopt::Long;
use JSON::PP;
use MIME::Base64;
use Uringprobe::TextTable;
use Uringprobe::Stats;
use Uringprobe::Findings;
use Uringprobe::Benchmarks qw(runs_specs heading);

my $format = 'uringprobe-results/1';
my $usage = "usage: report.pl RESULTS_DIR [--baseline DIR] [--threshold PCT]\n"
  . "       report.pl --findings-md RESULTS_DIR\n"
  . "       report.pl --check-baseline DIR --benchmarks 'NAME ...' [--machine M --cpu MODEL]\n";
my ($baseline_dir, $threshold, $check_baseline, $benchmarks, $machine, $cpu, $findings_md) = (undef, 10);
GetOptions(
	'findings-md' => \$findings_md,
	'baseline=s' => \$baseline_dir,
	'threshold=f' => \$threshold,
	'check-baseline=s' => \$check_baseline,
	'benchmarks=s' => \$benchmarks,
	'machine=s' => \$machine,
	'cpu=s' => \$cpu) or die $usage;

# The results.json of an earlier run, or a clear refusal.
sub load_baseline
{
	my ($bdir) = @_;
	my $json_file = "$bdir/results.json";
	die "BASELINE $bdir is not a directory\n" unless -d $bdir;
	die "BASELINE $bdir is not the results directory of a make bench run (no results.json)\n"
	  unless -f $json_file;
	my $base = eval { decode_json(do { local (@ARGV, $/) = $json_file; <> }) };
	die "BASELINE $json_file is not readable as JSON: $@" unless $base;
	die "BASELINE $json_file is not a make bench result (format '" . ($base->{format} // 'none')
	  . "', expected '$format')\n" unless ($base->{format} // '') eq $format;
	return $base;
}

# Before a run: is the baseline usable, and does it have any of the
# benchmarks about to run?
if (defined $check_baseline)
{
	my $base = load_baseline($check_baseline);
	my %had = map { $_ => 1 } split ' ', $base->{run}{benchmarks} // '';
	my @common = grep { $had{$_} } split ' ', $benchmarks // '';
	die "BASELINE $check_baseline ran none of the benchmarks '" . ($benchmarks // '')
	  . "' (it ran: $base->{run}{benchmarks}): incompatible matrix\n" unless @common;
	# Figures are compared only with figures from the same hardware (a
	# kernel or server upgrade on it is what a baseline is for).
	my $base_machine = ($base->{run}{machine} // '') =~ s/, kernel .*//r;
	die "BASELINE $check_baseline was measured on another machine ($base_machine"
	  . (defined $base->{run}{cpu} ? ", $base->{run}{cpu}" : '') . "; this one: $machine"
	  . (defined $cpu ? ", $cpu" : '') . "): its figures cannot be compared with this machine's;"
	  . " make a baseline here with the same profile first\n"
	  if defined $machine
	  && ($base_machine ne $machine || (defined $cpu && defined $base->{run}{cpu} && $cpu ne $base->{run}{cpu}));
	exit 0;
}

# The findings as the README's table: report, verdict, what was measured.
if ($findings_md)
{
	my $dir = shift @ARGV or die $usage;
	-f "$dir/run.tsv" or die "$dir has no run.tsv: not the results of a make bench run\n";
	my %r = map { $_->[0] => $_->[1] } read_tsv("$dir/run.tsv");
	my $cell = sub { return $_[0] =~ s/\|/\\|/gr; };
	print "| report | verdict | measured here |\n|---|---|---|\n";
	print '| ' . join(' | ', map { $cell->($_) } "$_->{report}: $_->{title}", $_->{verdict}, $_->{here}) . " |\n"
	  for findings($dir, $r{benchmarks}, $r{kernel} // '', $r{cpus});
	exit 0;
}

my $dir = shift @ARGV or die $usage;
-d $dir or die "$dir is not a directory\n";
-f "$dir/run.tsv" && -f "$dir/report.list"
  or die "$dir is not the results directory of a make bench run (no run.tsv and report.list)\n";
$threshold > 0 or die "the threshold must be a positive percentage, got $threshold\n";

# How each benchmark's runs are told apart and what they measure: the
# columns naming a cell, and each metric with the direction that is better
# (Uringprobe::Benchmarks declares them).
my @specs = runs_specs();

# run.tsv: "key<TAB>value" lines; env and server lines repeat.
my (%run, %config, @servers, %timing);
for my $row (read_tsv("$dir/run.tsv"))
{
	my ($k, @v) = @$row;
	if ($k eq 'env') { my ($n, $v) = split /=/, $v[0], 2; $config{$n} = $v; }
	elsif ($k eq 'server') { push @servers, { name => $v[0], version => $v[1], pg_config => $v[2] }; }
	elsif ($k eq 'timing') { $timing{ $v[0] } = { cells => $v[1] + 0, seconds => $v[2] + 0 }; }
	else { $run{$k} = $v[0]; }
}
my @failed = split ' ', ($run{failed} // '');
# error.txt: why a run ended before its end (make bench keeps what it had
# measured until then).
my $error = -f "$dir/error.txt" ? do { local (@ARGV, $/) = "$dir/error.txt"; <> } : undef;
chomp $error if defined $error;

# The cells of every runs file: key -> metric -> values, in first-seen order.
sub cells_of
{
	my ($spec) = @_;
	my $file = "$dir/$spec->{file}";
	return unless -f $file;
	my ($header, @rows) = read_tsv($file);
	my %col = map { $header->[$_] => $_ } 0 .. $#$header;
	for my $c (@{ $spec->{key} }, map { $_->[0] } @{ $spec->{metrics} })
	{
		die "$file has no column '$c'\n" unless exists $col{$c};
	}
	my (%by_key, @order);
	for my $row (@rows)
	{
		next if exists $col{status} && $row->[ $col{status} ] ne 'ok';
		my %key = map { $_ => $row->[ $col{$_} ] // '' } @{ $spec->{key} };
		my $id = join("\t", map { $key{$_} } @{ $spec->{key} });
		push @order, $id unless $by_key{$id};
		$by_key{$id} //= { key => \%key, values => {} };
		for my $m (@{ $spec->{metrics} })
		{
			my $v = $row->[ $col{ $m->[0] } ];
			push @{ $by_key{$id}{values}{ $m->[0] } }, $v if defined $v && $v =~ /^-?[\d.]+(e[-+]?\d+)?$/i;
		}
		# the weather of its runs (make bench records it per run)
		for my $w (qw(steal_pct foreign_cpu_pct))
		{
			my $v = exists $col{$w} ? $row->[ $col{$w} ] : undef;
			next unless defined $v && $v =~ /^[\d.]+$/;
			$by_key{$id}{"max_$w"} = $v if $v > ($by_key{$id}{"max_$w"} // -1);
		}
		$by_key{$id}{disturbed}++
		  if exists $col{steal_pct} && disturbed(map { $row->[ $col{$_} ] } qw(steal_pct foreign_cpu_pct));
	}
	my @cells;
	for my $id (@order)
	{
		for my $m (@{ $spec->{metrics} })
		{
			my @v = sort { $a <=> $b } @{ $by_key{$id}{values}{ $m->[0] } // [] };
			next unless @v;
			my $median = median(@v);
			my $spread = robust_spread(@v) // 0;
			my $range = range_spread(@v) // 0;
			push @cells,
			  {
				benchmark => $spec->{name} // $spec->{bench},
				key => $by_key{$id}{key},
				id => $id,
				metric => $m->[0],
				better => $m->[1],
				runs => scalar(@v),
				values => [ @{ $by_key{$id}{values}{ $m->[0] } } ],
				median => $median + 0,
				(exists $by_key{$id}{max_steal_pct}
					? (max_steal_pct => $by_key{$id}{max_steal_pct} + 0,
						max_foreign_cpu_pct => ($by_key{$id}{max_foreign_cpu_pct} // 0) + 0,
						disturbed_runs => $by_key{$id}{disturbed} // 0)
					: ()),
				min => $v[0] + 0,
				max => $v[-1] + 0,
				spread_pct => sprintf('%.1f', $spread) + 0,
				range_pct => sprintf('%.1f', $range) + 0,
				noisy => ($spread > $noisy_pct ? JSON::PP::true : JSON::PP::false),
			  };
		}
	}
	return @cells;
}

my %cells_of_spec;
$cells_of_spec{ $_->{file} } = [ cells_of($_) ] for @specs;
my @cells = map { @{ $cells_of_spec{ $_->{file} } } } @specs;

# Against a baseline: the same benchmark, key and metric.
my %baseline_info;
my @regressions;
if (defined $baseline_dir)
{
	my $base = load_baseline($baseline_dir);
	my %base_cells = map { join("\n", $_->{benchmark}, $_->{id}, $_->{metric}) => $_ } @{ $base->{cells} };
	my %base_keys = map { $_->{benchmark} => join(' ', sort keys %{ $_->{key} }) } @{ $base->{cells} };
	my ($compared, $missing) = (0, 0);
	for my $c (@cells)
	{
		my $keys = join(' ', sort keys %{ $c->{key} });
		die "BASELINE $baseline_dir measured $c->{benchmark} over ($base_keys{ $c->{benchmark} }), "
		  . "this run over ($keys): incompatible\n"
		  if exists $base_keys{ $c->{benchmark} } && $base_keys{ $c->{benchmark} } ne $keys;
		my $b = $base_cells{ join("\n", $c->{benchmark}, $c->{id}, $c->{metric}) };
		if (!$b) { $missing++; next; }
		$compared++;
		$c->{baseline_median} = $b->{median};
		my $ratio = $b->{median} ? $c->{median} / $b->{median} : undef;
		next unless defined $ratio && $ratio > 0;
		$c->{ratio} = sprintf('%.3f', $ratio) + 0;
		# percent worse, in the metric's direction
		my $worse = ($c->{better} eq 'lower' ? $ratio - 1 : 1 / $ratio - 1) * 100;
		$c->{worse_pct} = sprintf('%.1f', $worse) + 0;
		$c->{regression} = $worse > $threshold ? JSON::PP::true : JSON::PP::false;
		push @regressions, $c if $worse > $threshold;
	}
	die "BASELINE $baseline_dir shares no cell with this run (its benchmarks: "
	  . join(' ', sort keys %base_keys) . "; its profile: " . ($base->{run}{profile} // '?')
	  . "): incompatible matrix\n" unless $compared;
	%baseline_info = (dir => $baseline_dir, threshold_pct => $threshold, compared => $compared,
		not_in_baseline => $missing, run => $base->{run}, servers => $base->{servers},
		regressions => scalar(@regressions));
}

# The environment table (a row per property, a column per server/io_method).
my %environment;
if (-f "$dir/environment.tsv")
{
	my ($header, @rows) = read_tsv("$dir/environment.tsv");
	for my $row (@rows)
	{
		$environment{ $header->[$_] }{ $row->[0] } = $row->[$_] for 1 .. $#$header;
	}
}

# Latency histograms, where a runs file has them: bucket lower bound (ns)
# and count, per run.
my @histograms;
for my $spec (@specs)
{
	my $file = "$dir/$spec->{file}";
	next unless -f $file;
	my ($header, @rows) = read_tsv($file);
	my %col = map { $header->[$_] => $_ } 0 .. $#$header;
	next unless exists $col{latency_histogram};
	for my $row (@rows)
	{
		my $h = $row->[ $col{latency_histogram} ];
		next unless defined $h && $h ne '';
		push @histograms,
		  {
			benchmark => $spec->{name} // $spec->{bench},
			key => { map { $_ => $row->[ $col{$_} ] } grep { exists $col{$_} } @{ $spec->{key} }, 'round' },
			buckets_ns => [ map { [ map { $_ + 0 } split /:/ ] } split /,/, $h ],
		  };
	}
}

# Write $name in $dir from a complete temporary file.
sub write_file
{
	my ($name, $content) = @_;
	my $tmp = "$dir/.$name.tmp";
	open my $fh, '>', $tmp or die "cannot write $tmp: $!\n";
	print $fh $content;
	close $fh or die "cannot write $tmp: $!\n";
	rename $tmp, "$dir/$name" or die "cannot rename $tmp: $!\n";
}

sub fmt_num
{
	my ($v) = @_;
	return '' unless defined $v && $v ne '';
	return $v if $v =~ /^-?\d+$/;
	my $a = abs $v;
	return sprintf($a >= 1000 ? '%.0f' : $a >= 10 ? '%.1f' : $a >= 0.1 ? '%.3f' : '%.4g', $v);
}

# The spread table of a runs file's cells (and the baseline's columns).
sub spread_rows
{
	my ($spec) = @_;
	my $cells = $cells_of_spec{ $spec->{file} };
	return unless @$cells;
	my $weather = grep { exists $_->{max_steal_pct} } @$cells;
	my @head = (@{ $spec->{key} }, qw(metric runs median min max range% spread%), '');
	push @head, qw(steal% foreign% disturbed) if $weather;
	push @head, qw(baseline ratio worse% verdict) if %baseline_info;
	my @rows = (\@head);
	for my $c (@$cells)
	{
		my @r = ((map { $c->{key}{$_} } @{ $spec->{key} }), $c->{metric}, $c->{runs},
			fmt_num($c->{median}), fmt_num($c->{min}), fmt_num($c->{max}), $c->{range_pct}, $c->{spread_pct},
			$c->{noisy} ? 'noisy' : '');
		push @r, $c->{max_steal_pct} // '', $c->{max_foreign_cpu_pct} // '', $c->{disturbed_runs} // '' if $weather;
		push @r, fmt_num($c->{baseline_median}), $c->{ratio} // '', $c->{worse_pct} // '',
		  !exists $c->{baseline_median} ? 'not in baseline' : $c->{regression} ? 'REGRESSION' : ''
		  if %baseline_info;
		push @rows, \@r;
	}
	return @rows;
}

sub spread_caption
{
	my ($spec) = @_;
	my $cells = $cells_of_spec{ $spec->{file} };
	my $noisy = grep { $_->{noisy} } @$cells;
	my $disturbed = grep { $_->{disturbed_runs} } @$cells;
	return "spread of the repetitions ($spec->{file}): median, min-max, range% (max - min) and spread% "
	  . "(1.4826 x the median absolute deviation: the runs' standard deviation were they normal, blind to "
	  . "one stray run) in percent of the median; $noisy of "
	  . scalar(@$cells) . " cells spread more than $noisy_pct% (noisy)"
	  . ((grep { exists $_->{max_steal_pct} } @$cells)
		? "; steal% and foreign%: the most of a run's CPU stolen by the hypervisor or used by other "
		  . "processes, disturbed: runs above $disturbed_steal_pct% or $disturbed_foreign_pct% ($disturbed cells have some)"
		: '')
	  . (%baseline_info ? "; baseline = median of the baseline run, worse% in the metric's direction" : '')
	  . ':';
}

# make bench PERF=1 (perf.tsv, perf-<bench>.tsv, perf-<bench>.png/svg): a
# benchmark's kernel profile, after its spread tables: per cell, the top
# functions by self share of all the experiment's threads, and of the
# SQPOLL thread and io-wq workers where they ran; the report's evidence
# (families of functions) per cell as a table and a plot.
my @perf_rows = -f "$dir/perf.tsv" ? read_tsv("$dir/perf.tsv") : ();
shift @perf_rows;
sub perf_items
{
	my ($bench) = @_;
	my (%top, @order);
	for my $r (grep { $_->[0] eq $bench } @perf_rows)
	{
		my (undef, $cell, $threads, $rank, $fn, $space, $samples, $share, $total) = @$r;
		my $key = "$cell\t$threads";
		push @order, $key unless $top{$key};
		$top{$key}{total} = $total;
		push @{ $top{$key}{f} }, "$fn [$space] $share%" if $rank <= ($threads eq 'all' ? 6 : 4);
	}
	return unless @order;
	my @rows = ([qw(cell threads samples top_functions)]);
	for my $key (grep { !/\tmain$/ } @order)
	{
		my ($cell, $threads) = split /\t/, $key;
		push @rows, [ $cell, $threads, $top{$key}{total}, join(', ', @{ $top{$key}{f} }) ];
	}
	my @items = ({ kind => 'spread', rows => \@rows, width => 200,
		caption => "kernel profile (PERF=1, perf record -e cpu-clock, rounds merged): per cell, the top "
		  . "functions by self share of the experiment's threads (all), of the SQPOLL thread (sqpoll) "
		  . "and of the io-wq workers (iowq); [k] kernel, [u] user space:" });
	if (-f "$dir/perf-$bench.tsv")
	{
		push @items, { kind => 'spread', rows => [ read_tsv("$dir/perf-$bench.tsv") ], width => 80,
			caption => "the report's evidence: share of each cell's samples (%) in each family of functions:" };
		push @items, { kind => 'plot', name => "perf-$bench", perf => 1 } if -s "$dir/perf-$bench.svg";
	}
	return @items;
}

# The report's items from report.list, each benchmark's kernel profile
# after its section's tables; the spread of the repetitions at the end.
my (@items, @appendix);
for my $row (read_tsv("$dir/report.list"))
{
	my ($kind, @args) = @$row;
	if ($kind eq 'section')
	{
		push @items, { kind => 'section', bench => $args[0], title => $args[1] };
		for my $spec (grep { $_->{bench} eq $args[0] } @specs)
		{
			my @rows = spread_rows($spec) or next;
			push @appendix, { kind => 'spread', caption => spread_caption($spec), rows => \@rows };
		}
		push @items, perf_items($args[0]);
		next;
	}
	push @items, { kind => $kind, caption => $args[2], file => $args[0], width => $args[1] } if $kind eq 'table';
	push @items, { kind => 'plot', name => $args[0] } if $kind eq 'plot';
}
# kernel profiles belong after the tables of their benchmark
my @ordered;
my @pending;
for my $item (@items)
{
	if ($item->{kind} eq 'section') { push @ordered, @pending; @pending = (); push @ordered, $item; }
	elsif ($item->{kind} eq 'spread' || $item->{perf}) { push @pending, $item; }
	else { push @ordered, $item; }
}
push @ordered, @pending;
# uringprobe_advise()'s rows open the report instead (advice_items below)
@ordered = grep { !($_->{kind} eq 'section' && $_->{bench} eq 'advise') } @ordered;

# What uringprobe_advise() said on each server (advise.tsv), each row with
# the benchmark cells of this run that measured the same question.
my %ran_bench = map { $_ => 1 } split ' ', ($run{benchmarks} // '');
sub rows_where
{
	my ($file, %want) = @_;
	return () unless -f "$dir/$file";
	my ($head, @rows) = read_tsv("$dir/$file");
	my %c = map { $head->[$_] => $_ } 0 .. $#$head;
	return grep {
		my $r = $_;
		!grep { !defined $c{$_} || $r->[ $c{$_} ] ne $want{$_} } keys %want
	} @rows;
}
sub advice_sources
{
	my ($a) = @_;
	my @see;
	my ($server, $mc) = ($a->{server}, $a->{max_connections});
	if ($a->{topic} eq 'io_method')
	{
		push @see, [ churn => "$server at max_connections $mc" ]
		  if $ran_bench{churn} && rows_where('churn.tsv', server => $server, max_connections => $mc);
		push @see, [ rings => 'fork cost with rings in separate mappings and in one region' ] if $ran_bench{rings};
	}
	elsif ($a->{topic} eq 'file_extend_method' && $a->{setting} =~ /\((\w+)\)$/)
	{
		my $fs = $1;
		push @see, [ extend => "extension sized by waiters on $fs" ]
		  if $ran_bench{extend} && rows_where('extend-sizing.tsv', fs => $fs);
		push @see, [ copy => "concurrent COPY on $fs, $server" ]
		  if $ran_bench{copy} && rows_where('copy.tsv', server => $server, fs => $fs);
	}
	elsif ($a->{topic} eq 'limits')
	{
		push @see, [ environment => "$server/$a->{io_method}" ] if $ran_bench{environment};
	}
	return @see;
}
my (@advice_servers, %advice);
if (-f "$dir/advise.tsv")
{
	my ($head, @rows) = read_tsv("$dir/advise.tsv");
	for my $r (@rows)
	{
		my %a = map { $head->[$_] => $r->[$_] } 0 .. $#$head;
		push @advice_servers, $a{server} unless $advice{ $a{server} };
		push @{ $advice{ $a{server} } }, \%a;
	}
}
my $advice_title = heading('advice');
my $advice_intro = 'uringprobe_advise() in a backend of each server at report 1\'s max_connections, under its default io_method (worker in PostgreSQL 18: should it switch?), with a '
  . 'tablespace on each scratch filesystem: the value to set, how sure (high: 5 runs or more and an interval that '
  . 'decides; medium: 3 or more; low: fewer, or not measured), what the current setting costs, the figures behind '
  . 'it, and the cells of this run that measured the same question.';

# The adaptive repetitions (rounds.tsv): per benchmark, the cells that took
# more rounds than their benchmark's, what those cost, and the cells still
# noisy when the most rounds allowed were reached, with why.
my @rounds = -f "$dir/rounds.tsv" ? read_tsv("$dir/rounds.tsv") : ();
my $rounds_head = shift @rounds;
my %rc = map { $rounds_head->[$_] => $_ } 0 .. $#{ $rounds_head // [] };
my @unsteady = grep { $_->[ $rc{state} ] ne 'steady' } @rounds;
my $rounds_item;
if (@rounds)
{
	my (%sum, @benches);
	for my $r (@rounds)
	{
		my $b = $r->[ $rc{benchmark} ];
		push @benches, $b unless $sum{$b};
		my $extra = $r->[ $rc{rounds} ] - $r->[ $rc{base_rounds} ];
		$sum{$b}{cells}++;
		$sum{$b}{repeated}++ if $extra > 0;
		$sum{$b}{extra} += $extra;
		$sum{$b}{seconds} += $r->[ $rc{extra_seconds} ];
		$sum{$b}{disturbed} += $r->[ $rc{disturbed_rounds} ];
		$sum{$b}{unsteady}++ if $r->[ $rc{state} ] ne 'steady';
	}
	my @rows = ([qw(benchmark cells steady repeated extra_rounds extra_seconds disturbed_rounds still_noisy)]);
	my $steady = sub { my ($n, $u) = @_; return sprintf('%d (%.0f%%)', $n - $u, 100 * ($n - $u) / $n); };
	my %all;
	for my $b (@benches)
	{
		$all{$_} += $sum{$b}{$_} // 0 for qw(cells repeated extra seconds disturbed unsteady);
		push @rows, [ $b, $sum{$b}{cells}, $steady->($sum{$b}{cells}, $sum{$b}{unsteady} // 0), $sum{$b}{repeated} // 0,
			$sum{$b}{extra}, sprintf('%.0f', $sum{$b}{seconds}), $sum{$b}{disturbed}, $sum{$b}{unsteady} // 0 ];
	}
	push @rows, [ 'all', $all{cells}, $steady->($all{cells}, $all{unsteady}), $all{repeated}, $all{extra},
		sprintf('%.0f', $all{seconds}), $all{disturbed}, $all{unsteady} ] if @benches > 1;
	$rounds_item = { kind => 'spread', rows => \@rows,
		caption => "adaptive repetitions (rounds.tsv): a cell still noisy (spread above $noisy_pct%) or with a "
		  . "disturbed run after its benchmark's rounds got more, one round at a time, those nearest to steady first, up to "
		  . ($config{URINGPROBE_MAX_ROUNDS} ? "$config{URINGPROBE_MAX_ROUNDS} rounds (MAX_ROUNDS)" : 'two more')
		  . ' and while the extra rounds had taken less than ' . ($config{URINGPROBE_EXTRA_SHARE} // 20)
		  . "% of the time of the benchmark's own rounds (EXTRA_SHARE); per benchmark the cells steady (spread within "
		  . "$noisy_pct%), those repeated, their extra rounds and seconds, and the cells still noisy when they stopped:" };
}

sub cell_label
{
	my ($c) = @_;
	return join(' ', map { "$_=$c->{key}{$_}" } sort keys %{ $c->{key} });
}

my @findings = findings($dir, $run{benchmarks}, $run{kernel} // '', $run{cpus});

my @head_lines = (
	"Machine: $run{machine}",
	"Profile: $run{profile}; benchmarks: $run{benchmarks}; started $run{started}, took $run{seconds} s",
	"Command: $run{command}",
	'Servers:', map { "- $_->{name}: $_->{version}" } @servers);
my @baseline_lines;
if (%baseline_info)
{
	my $b = $baseline_info{run};
	@baseline_lines = (
		"Baseline: $baseline_dir ($b->{machine}; profile $b->{profile}; started $b->{started})",
		"Baseline servers: " . join(', ', map { "$_->{name} $_->{version}" } @{ $baseline_info{servers} }),
		"$baseline_info{compared} cells compared, $baseline_info{not_in_baseline} not in the baseline; "
		  . scalar(@regressions) . " worse by more than $threshold%"
		  . (@regressions ? ':' : '.'),
		map {
			"- REGRESSION $_->{benchmark} " . cell_label($_) . " $_->{metric}: " . fmt_num($_->{baseline_median}) . ' -> ' . fmt_num($_->{median})
			  . " ($_->{worse_pct}% worse)"
		} @regressions);
}

# report.md
my $md = "# uringprobe: make bench, $run{started}\n\n" . join("\n", @head_lines) . "\n";
$md .= "\n" . join("\n", map { s/^- /  - /r } @baseline_lines) . "\n" if @baseline_lines;
$md .= "\nFAILED: the run ended early: $error. What had been measured until then is below.\n" if defined $error;
$md .= "\nFAILED benchmarks (their logs are in logs/): @failed\n" if @failed;
if (@advice_servers)
{
	$md .= "\n## $advice_title\n\n$advice_intro\n";
	for my $server (@advice_servers)
	{
		my $f = $advice{$server}[0];
		$md .= "\n### $server ($f->{io_method}, max_connections $f->{max_connections}; the call took $f->{seconds} s "
		  . "of a $f->{budget} s budget)\n\n";
		for my $a (@{ $advice{$server} })
		{
			my @see = advice_sources($a);
			$md .= "- **$a->{setting}**: $a->{advice} (confidence $a->{confidence}; now $a->{current})"
			  . ($a->{cost} ne '' ? "; cost: $a->{cost}" : '') . "\n  - evidence: $a->{evidence}\n"
			  . (@see ? '  - see: ' . join('; ', map { "$_->[0] ($_->[1])" } @see) . "\n" : '');
		}
	}
}
if (@findings)
{
	$md .= "\n## @{[heading('findings')]}\n\nEach report uringprobe is built around: what it reported, what this run "
	  . "measured (ratios of medians, with their 95% bootstrap interval over the runs), and the verdict.\n";
	for my $f (@findings)
	{
		$md .= "\n**Report $f->{report}, $f->{title}: $f->{verdict}**\n\n- reported: $f->{reported}\n"
		  . ($f->{here} ne '' ? "- here: $f->{here}\n" : '') . ($f->{advice} ? "- advice: $f->{advice}\n" : '');
	}
}
my $repetitions_title = heading('repetitions');
my @tail = ($rounds_item // (), @appendix);
for my $item (@ordered, (@tail ? ({ kind => 'section', title => $repetitions_title }, @tail) : ()))
{
	if ($item->{kind} eq 'section') { $md .= "\n## $item->{title}\n"; }
	elsif ($item->{kind} eq 'table')
	{
		$md .= "\n$item->{caption}\n\n```\n" . text_table([ read_tsv("$dir/$item->{file}") ], $item->{width}) . "```\n";
	}
	elsif ($item->{kind} eq 'spread')
	{
		$md .= "\n$item->{caption}\n\n```\n" . text_table($item->{rows}, $item->{width} // 40) . "```\n";
	}
	elsif ($item->{kind} eq 'plot') { $md .= "\nPlot: $item->{name}.png, $item->{name}.svg\n"; }
}
if (@unsteady)
{
	$md .= "\nThe cells still noisy, and why:\n\n"
	  . join('', map { "- $_->[ $rc{benchmark} ] $_->[ $rc{cell} ]: $_->[ $rc{state} ]\n" } @unsteady);
}

# report.html
sub esc { my ($s) = @_; $s //= ''; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g; return $s; }

sub html_table
{
	my ($rows) = @_;
	my ($head, @body) = @$rows;
	my $h = '<table><tr>' . join('', map { '<th>' . esc($_) . '</th>' } @$head) . "</tr>\n";
	for my $r (@body)
	{
		my $class = (grep { defined && $_ eq 'REGRESSION' } @$r) ? ' class="regression"'
		  : (grep { defined && $_ eq 'noisy' } @$r) ? ' class="noisy"' : '';
		$h .= "<tr$class>" . join('', map { '<td>' . esc($_) . '</td>' } @$r) . "</tr>\n";
	}
	return "$h</table>\n";
}

my $html = <<"END";
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>uringprobe: make bench, @{[ esc($run{started}) ]}</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
th { background: #eee; }
tr.noisy td { background: #fff6d5; }
tr.regression td { background: #f8d0d0; }
tr.confidence-low td { color: #666; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; }
</style></head><body>
<h1>uringprobe: make bench, @{[ esc($run{started}) ]}</h1>
END
$html .= '<p>' . join("<br>\n", map { esc($_) } @head_lines) . "</p>\n";
$html .= '<p>' . join("<br>\n", map { esc($_) } @baseline_lines) . "</p>\n" if @baseline_lines;
$html .= '<p class="failed"><b>FAILED</b>: the run ended early: ' . esc($error)
  . ". What had been measured until then is below.</p>\n" if defined $error;
$html .= '<p class="failed"><b>FAILED benchmarks</b> (their logs are in logs/): ' . esc("@failed") . "</p>\n"
  if @failed;
if (@advice_servers)
{
	$html .= '<h2 id="advice">' . esc($advice_title) . "</h2>\n<p>" . esc($advice_intro) . "</p>\n";
	for my $server (@advice_servers)
	{
		my $f = $advice{$server}[0];
		$html .= '<h3>' . esc("$server ($f->{io_method}, max_connections $f->{max_connections}; the call took "
			  . "$f->{seconds} s of a $f->{budget} s budget)") . "</h3>\n<table class=\"advice\"><tr><th>setting</th><th>now</th>"
		  . "<th>advice</th><th>confidence</th><th>cost</th><th>evidence</th><th>see</th></tr>\n";
		for my $a (@{ $advice{$server} })
		{
			my $see = join('<br>', map { '<a href="#bench-' . esc($_->[0]) . '">' . esc("$_->[0]: $_->[1]") . '</a>' }
				  advice_sources($a));
			$html .= '<tr class="confidence-' . esc($a->{confidence}) . '"><td>' . esc($a->{setting}) . '</td><td>'
			  . esc($a->{current}) . '</td><td><b>' . esc($a->{advice}) . '</b></td><td>' . esc($a->{confidence})
			  . '</td><td>' . esc($a->{cost}) . '</td><td><details><summary>figures</summary>' . esc($a->{evidence})
			  . "</details></td><td>$see</td></tr>\n";
		}
		$html .= "</table>\n";
	}
}
if (@findings)
{
	$html .= "<h2>@{[heading('findings')]}</h2>\n<p>Each report uringprobe is built around: what it reported, what this run "
	  . "measured (ratios of medians, with their 95% bootstrap interval over the runs), and the verdict.</p>\n";
	for my $f (@findings)
	{
		$html .= '<div class="finding"><p><b>Report ' . esc("$f->{report}, $f->{title}") . ': <span class="verdict">'
		  . esc($f->{verdict}) . "</span></b></p>\n<ul><li>reported: " . esc($f->{reported}) . "</li>\n"
		  . ($f->{here} ne '' ? '<li>here: ' . esc($f->{here}) . "</li>\n" : '')
		  . ($f->{advice} ? '<li>advice: ' . esc($f->{advice}) . "</li>\n" : '') . "</ul></div>\n";
	}
}
for my $item (@ordered)
{
	if ($item->{kind} eq 'section')
	{
		$html .= '<h2 id="bench-' . esc($item->{bench}) . '">' . esc($item->{title}) . "</h2>\n";
	}
	elsif ($item->{kind} eq 'table')
	{
		$html .= '<p>' . esc($item->{caption}) . "</p>\n" . html_table([ read_tsv("$dir/$item->{file}") ]);
	}
	elsif ($item->{kind} eq 'spread')
	{
		$html .= '<p>' . esc($item->{caption}) . "</p>\n" . html_table($item->{rows});
	}
	elsif ($item->{kind} eq 'plot')
	{
		my ($svg_file, $png_file) = map { "$dir/$item->{name}.$_" } qw(svg png);
		die "the plot $svg_file is missing\n" unless -s $svg_file;
		die "the plot $png_file is missing\n" unless -s $png_file;
		my $svg = do { local (@ARGV, $/) = $svg_file; <> };
		$svg =~ s/^.*?(?=<svg)//s;    # the XML prolog and doctype
		my $png = encode_base64(do { local (@ARGV, $/) = $png_file; binmode ARGV; <> }, '');
		$html .= "<figure>$svg<figcaption><a download=\"$item->{name}.png\" "
		  . "href=\"data:image/png;base64,$png\">$item->{name}.png</a></figcaption></figure>\n";
	}
}
if (@tail)
{
	# the spread of every cell, folded: the tables above are the results
	$html .= '<h2>' . esc($repetitions_title) . "</h2>\n";
	$html .= '<p>' . esc($rounds_item->{caption}) . "</p>\n" . html_table($rounds_item->{rows}) if $rounds_item;
	if (@unsteady)
	{
		$html .= '<details><summary>' . scalar(@unsteady) . " cells still noisy, and why</summary>\n<ul>\n"
		  . join('', map { '<li>' . esc("$_->[ $rc{benchmark} ] $_->[ $rc{cell} ]: $_->[ $rc{state} ]") . "</li>\n" } @unsteady)
		  . "</ul></details>\n";
	}
	for my $item (@appendix)
	{
		$html .= '<details><summary>' . esc($item->{caption} =~ s/:$//r) . "</summary>\n" . html_table($item->{rows})
		  . "</details>\n";
	}
}
$html .= "</body></html>\n";

# results.json
my %json = (
	format => $format,
	run => { %run, failed => \@failed, timing => \%timing, (defined $error ? (error => $error) : ()) },
	config => \%config,
	servers => \@servers,
	environment => \%environment,
	noisy_threshold_pct => $noisy_pct,
	findings => \@findings,
	advice => { map { $_ => $advice{$_} } @advice_servers },
	rounds => [ map { my $r = $_; +{ map { $rounds_head->[$_] => $r->[$_] } 0 .. $#$rounds_head } } @rounds ],
	cells => \@cells,
	histograms => \@histograms);
$json{baseline} = \%baseline_info if %baseline_info;

write_file('report.md', $md);
write_file('report.html', $html);
write_file('results.json', JSON::PP->new->canonical->pretty->encode(\%json));
print "report.md, report.html and results.json in $dir: " . scalar(@cells) . " cells, "
  . scalar(grep { $_->{noisy} } @cells) . " noisy"
  . (%baseline_info ? ", $baseline_info{compared} compared with $baseline_dir, " . scalar(@regressions) . " regressions" : '')
  . "\n";
exit(@regressions ? 3 : 0);
