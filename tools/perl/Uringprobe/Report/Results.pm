# The results of a make bench run as one model, read from its results
# directory, for the report's renderers (Uringprobe::Report::Markdown,
# ::Html) and results.json:
#
#   my $r = read_results($dir);          # run.tsv, the runs files' cells, ...
#   compare_with_baseline($r, $bdir, 10) # (Uringprobe::Report::Baseline)
#   arrange_report($r);                  # sections, tables, plots, advice,
#                                        # repetitions, findings, in order
#
# $r->{run}, {config}, {servers}, {timing}, {failed}, {error}: run.tsv and
# error.txt; {cells}: every cell of every runs file with its repetitions
# (median, min, max, spreads, weather), {cells_of}{FILE} the same per file;
# {environment}, {histograms}; after arrange_report(): {ordered} (the
# report's items in order: section, table, spread, plot), {appendix} (the
# spread tables), {rounds_item}, {unsteady}, {advice_servers}, {advice},
# {findings}, {head_lines}.
package Uringprobe::Report::Results;

use strict;
use warnings;
use Exporter 'import';
use JSON::PP ();
use Uringprobe::Manifest qw(file_of runs_specs);
use Uringprobe::Findings;
use Uringprobe::AdviceCheck;
use Uringprobe::AdviseCall qw(row_key);
use Uringprobe::Stats;
use Uringprobe::TextTable qw(read_tsv);
use Uringprobe::TsvRows qw(rows rows_where);
use Uringprobe::UserFiles qw(plain_name);

our @EXPORT = qw(read_results read_run run_cells arrange_report advice_sources cell_label fmt_num);

sub read_results
{
	my ($dir) = @_;
	-d $dir or die "$dir is not a directory\n";
	-f "$dir/run.tsv" && -f "$dir/report.list"
	  or die "$dir is not the results directory of a make bench run (no run.tsv and report.list)\n";
	my $r = { dir => $dir, specs => [ runs_specs() ] };
	read_run($r);
	$r->{cells_of}{ $_->{file} } = [ cells_of($dir, $_) ] for @{ $r->{specs} };
	$r->{cells} = [ map { @{ $r->{cells_of}{ $_->{file} } } } @{ $r->{specs} } ];
	$r->{environment} = environment($dir);
	$r->{histograms} = [ histograms($dir, @{ $r->{specs} }) ];
	return $r;
}

# Every cell of results directory $dir's runs files (its benchmark, key,
# metric, median and repetitions), as the report has them.
sub run_cells
{
	my ($dir) = @_;
	return map { cells_of($dir, $_) } runs_specs();
}

# run.tsv: "key<TAB>value" lines; env and server lines repeat. error.txt:
# why a run ended before its end (make bench keeps what it had measured
# until then).
sub read_run
{
	my ($r) = @_;
	my (%run, %config, @servers, %timing);
	for my $row (read_tsv("$r->{dir}/run.tsv"))
	{
		my ($k, @v) = @$row;
		if ($k eq 'env') { my ($n, $v) = split /=/, $v[0], 2; $config{$n} = $v; }
		elsif ($k eq 'server') { push @servers, { name => $v[0], version => $v[1], pg_config => $v[2] }; }
		elsif ($k eq 'timing') { $timing{ $v[0] } = { cells => $v[1] + 0, seconds => $v[2] + 0 }; }
		else { $run{$k} = $v[0]; }
	}
	my $error = -f "$r->{dir}/error.txt" ? do { local (@ARGV, $/) = "$r->{dir}/error.txt"; <> } : undef;
	chomp $error if defined $error;
	@$r{qw(run config servers timing error)} = (\%run, \%config, \@servers, \%timing, $error);
	$r->{failed} = [ split ' ', ($run{failed} // '') ];
	return;
}

# The cells of a runs file: one per key and metric, with its repetitions,
# in first-seen order.
sub cells_of
{
	my ($dir, $spec) = @_;
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
				median => median(@v) + 0,
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

# The environment table (a row per property, a column per server/io_method).
sub environment
{
	my ($dir) = @_;
	my %environment;
	return \%environment unless -f "$dir/environment.tsv";
	my ($header, @rows) = read_tsv("$dir/environment.tsv");
	for my $row (@rows)
	{
		$environment{ $header->[$_] }{ $row->[0] } = $row->[$_] for 1 .. $#$header;
	}
	return \%environment;
}

# Latency histograms, where a runs file has them: bucket lower bound (ns)
# and count, per run.
sub histograms
{
	my ($dir, @specs) = @_;
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
	return @histograms;
}

sub fmt_num
{
	my ($v) = @_;
	return '' unless defined $v && $v ne '';
	return $v if $v =~ /^-?\d+$/;
	my $a = abs $v;
	return sprintf($a >= 1000 ? '%.0f' : $a >= 10 ? '%.1f' : $a >= 0.1 ? '%.3f' : '%.4g', $v);
}

sub cell_label
{
	my ($c) = @_;
	return join(' ', map { "$_=$c->{key}{$_}" } sort keys %{ $c->{key} });
}

# The spread table of a runs file's cells (and the baseline's columns).
sub spread_rows
{
	my ($r, $spec) = @_;
	my $cells = $r->{cells_of}{ $spec->{file} };
	return unless @$cells;
	my $baseline = $r->{baseline};
	my $weather = grep { exists $_->{max_steal_pct} } @$cells;
	my @head = (@{ $spec->{key} }, qw(metric runs median min max range% spread%), '');
	push @head, qw(steal% foreign% disturbed) if $weather;
	push @head, qw(baseline ratio worse% verdict) if $baseline;
	my @rows = (\@head);
	for my $c (@$cells)
	{
		my @row = ((map { $c->{key}{$_} } @{ $spec->{key} }), $c->{metric}, $c->{runs},
			fmt_num($c->{median}), fmt_num($c->{min}), fmt_num($c->{max}), $c->{range_pct}, $c->{spread_pct},
			$c->{noisy} ? 'noisy' : '');
		push @row, $c->{max_steal_pct} // '', $c->{max_foreign_cpu_pct} // '', $c->{disturbed_runs} // '' if $weather;
		push @row, fmt_num($c->{baseline_median}), $c->{ratio} // '', $c->{worse_pct} // '',
		  !exists $c->{baseline_median} ? 'not in baseline' : $c->{regression} ? 'REGRESSION' : ''
		  if $baseline;
		push @rows, \@row;
	}
	return @rows;
}

sub spread_caption
{
	my ($r, $spec) = @_;
	my $cells = $r->{cells_of}{ $spec->{file} };
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
	  . ($r->{baseline} ? "; baseline = median of the baseline run, worse% in the metric's direction" : '')
	  . ':';
}

# make bench PERF=1 (perf.tsv, perf-<bench>.tsv, perf-<bench>.png/svg): a
# benchmark's kernel profile, after its spread tables: per cell, the top
# functions by self share of all the experiment's threads, and of the
# SQPOLL thread and io-wq workers where they ran; the report's evidence
# (families of functions) per cell as a table and a plot.
sub perf_items
{
	my ($r, $bench) = @_;
	my $dir = $r->{dir};
	if (!$r->{perf_rows})
	{
		my @rows = -f "$dir/perf.tsv" ? read_tsv("$dir/perf.tsv") : ();
		shift @rows;    # the header
		$r->{perf_rows} = \@rows;
	}
	my (%top, @order);
	for my $row (grep { $_->[0] eq $bench } @{ $r->{perf_rows} })
	{
		my (undef, $cell, $threads, $rank, $fn, $space, $samples, $share, $total, $cell_key) = @$row;
		# a cell is its key; its label is shown
		my $key = ($cell_key // $cell) . "\t$threads";
		push @order, $key unless $top{$key};
		@{ $top{$key} }{qw(total cell threads)} = ($total, $cell, $threads);
		push @{ $top{$key}{f} }, "$fn [$space] $share%" if $rank <= ($threads eq 'all' ? 6 : 4);
	}
	return unless @order;
	my @rows = ([qw(cell threads samples top_functions)]);
	for my $t (grep { $_->{threads} ne 'main' } @top{@order})
	{
		push @rows, [ $t->{cell}, $t->{threads}, $t->{total}, join(', ', @{ $t->{f} }) ];
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
# uringprobe_advise()'s rows open the report instead of its section.
sub arrange_items
{
	my ($r) = @_;
	my (@items, @appendix);
	for my $row (read_tsv("$r->{dir}/report.list"))
	{
		my ($kind, @args) = @$row;
		if ($kind eq 'section')
		{
			push @items, { kind => 'section', bench => $args[0], title => $args[1] };
			for my $spec (grep { $_->{bench} eq $args[0] } @{ $r->{specs} })
			{
				my @rows = spread_rows($r, $spec) or next;
				push @appendix, { kind => 'spread', caption => spread_caption($r, $spec), rows => \@rows };
			}
			push @items, perf_items($r, $args[0]);
			next;
		}
		# a file of this directory, by a plain name: never a path
		die "report.list names '$args[0]': not a file name of $r->{dir}\n"
		  if ($kind eq 'table' || $kind eq 'plot') && !plain_name($args[0]);
		push @items, { kind => $kind, caption => $args[2], file => $args[0], width => $args[1] } if $kind eq 'table';
		push @items, { kind => 'plot', name => $args[0] } if $kind eq 'plot';
	}
	# kernel profiles belong after the tables of their benchmark
	my (@ordered, @pending);
	for my $item (@items)
	{
		if ($item->{kind} eq 'section') { push @ordered, @pending; @pending = (); push @ordered, $item; }
		elsif ($item->{kind} eq 'spread' || $item->{perf}) { push @pending, $item; }
		else { push @ordered, $item; }
	}
	push @ordered, @pending;
	$r->{ordered} = [ grep { !($_->{kind} eq 'section' && $_->{bench} eq 'advise') } @ordered ];
	$r->{appendix} = \@appendix;
	return;
}

# The rows of a runs file of the run where every column named has the
# value given.
# The benchmark cells of this run that measured the question of an advice
# row: [benchmark, what] pairs.
sub advice_sources
{
	my ($r, $a) = @_;
	my %ran = map { $_ => 1 } split ' ', ($r->{run}{benchmarks} // '');
	my @see;
	my ($server, $mc) = ($a->{server}, $a->{max_connections});
	if ($a->{topic} eq 'io_method')
	{
		push @see, [ churn => "$server at max_connections $mc" ]
		  if $ran{churn} && rows_where(rows($r->{dir}, file_of(churn => 'medians')), server => $server, max_connections => $mc);
		push @see, [ rings => 'fork cost with rings in separate mappings and in one region' ] if $ran{rings};
		push @see, [ reads => "cold reads under each io_method, $server" ]
		  if $ran{reads} && rows_where(rows($r->{dir}, file_of(reads => 'speedup')), server => $server);
	}
	elsif ($a->{setting} eq 'file_extend_method' && $a->{scope_name} ne '')
	{
		my $fs = tablespace_storage($r->{dir}, $server, $a->{scope_name}) // $a->{scope_name};
		push @see, [ extend => "extension sized by waiters on $fs" ]
		  if $ran{extend} && rows_where(rows($r->{dir}, file_of(extend => 'sizing')), fs => $fs);
		push @see, [ copy => "concurrent COPY on $fs, $server" ]
		  if $ran{copy} && rows_where(rows($r->{dir}, file_of(copy => 'table')), server => $server, fs => $fs);
	}
	elsif ($a->{topic} eq 'limits')
	{
		push @see, [ environment => "$server/$a->{io_method}" ] if $ran{environment};
	}
	elsif ($a->{topic} =~ /^(?:io_workers|read_size|read_ahead|io_concurrency)$/)
	{
		push @see, [ reads => "cold reads with each io_method and read setting, $server" ]
		  if $ran{reads} && rows_where(rows($r->{dir}, file_of(reads => 'speedup')), server => $server);
	}
	return @see;
}

# What uringprobe_advise() said on each server (advise.tsv).
sub read_advice
{
	my ($r) = @_;
	my (@servers, %advice);
	if (-f "$r->{dir}/advise.tsv")
	{
		my ($head, @rows) = read_tsv("$r->{dir}/advise.tsv");
		for my $row (@rows)
		{
			my %a = map { $head->[$_] => $row->[$_] } 0 .. $#$head;
			push @servers, $a{server} unless $advice{ $a{server} };
			push @{ $advice{ $a{server} } }, \%a;
		}
	}
	# each row checked on the workload it is for, in this run
	my @all = map { @{ $advice{$_} } } @servers;
	$_->{check} = check_advice($r->{dir}, $_, \@all) for @all;
	# (a row decided on too few rounds or none, confidence low, claims
	# little: its contradiction is reported, and fails no run)
	my @against = grep { $_->{check}{verdict} eq 'contradicted' } @all;
	$r->{contradicted} = [ map { "$_->{server} " . row_key($_) } grep { ($_->{confidence} // '') ne 'low' } @against ];
	$r->{low_contradicted} = [ map { "$_->{server} " . row_key($_) } grep { ($_->{confidence} // '') eq 'low' } @against ];
	# (a row checked on several workloads counts each check)
	my %n;
	my @checks = map { $_->{check}{also} ? ({ verdict => $_->{check}{own} }, @{ $_->{check}{also} }) : $_->{check} } @all;
	$n{ $_->{verdict} }++ for @checks;
	$r->{advice_counts} = @all
	  ? 'Advice checked on its workloads in this run: ' . join(', ', map { ($n{$_} // 0) . " $_" } 'held', 'not shown', 'contradicted',
		'not checked') . ' (' . scalar(@checks) . ' checks of ' . scalar(@all) . ' rows)'
	  : undef;
	@$r{qw(advice_servers advice)} = (\@servers, \%advice);
	return;
}

# The adaptive repetitions (rounds.tsv): per benchmark, the cells that took
# more rounds than their benchmark's, what those cost, and the cells still
# noisy when the most rounds allowed were reached, with why.
sub read_rounds
{
	my ($r) = @_;
	my @rounds = -f "$r->{dir}/rounds.tsv" ? read_tsv("$r->{dir}/rounds.tsv") : ();
	my $head = shift @rounds;
	my %rc = map { $head->[$_] => $_ } 0 .. $#{ $head // [] };
	$r->{rounds} = [ map { my $row = $_; +{ map { $head->[$_] => $row->[$_] } 0 .. $#$head } } @rounds ];
	$r->{unsteady} = [ grep { $_->{state} ne 'steady' } @{ $r->{rounds} } ];
	return unless @rounds;
	my (%sum, @benches);
	for my $row (@{ $r->{rounds} })
	{
		my $b = $row->{benchmark};
		push @benches, $b unless $sum{$b};
		my $extra = $row->{rounds} - $row->{base_rounds};
		$sum{$b}{cells}++;
		$sum{$b}{repeated}++ if $extra > 0;
		$sum{$b}{extra} += $extra;
		$sum{$b}{seconds} += $row->{extra_seconds};
		$sum{$b}{disturbed} += $row->{disturbed_rounds};
		$sum{$b}{unsteady}++ if $row->{state} ne 'steady';
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
	my $config = $r->{config};
	$r->{rounds_item} = { kind => 'spread', rows => \@rows,
		caption => "adaptive repetitions (rounds.tsv): a cell still noisy (spread above $noisy_pct%) or with a "
		  . "disturbed run after its benchmark's rounds got more, one round at a time, those nearest to steady first, up to "
		  . ($config->{URINGPROBE_MAX_ROUNDS} ? "$config->{URINGPROBE_MAX_ROUNDS} rounds (MAX_ROUNDS)" : 'two more')
		  . ' and while the extra rounds had taken less than ' . ($config->{URINGPROBE_EXTRA_SHARE} // 20)
		  . "% of the time of the benchmark's own rounds (EXTRA_SHARE); per benchmark the cells steady (spread within "
		  . "$noisy_pct%), those repeated, their extra rounds and seconds, and the cells still noisy when they stopped:" };
	return;
}

# Everything the report shows, in order (after any baseline comparison:
# the spread tables carry its columns).
sub arrange_report
{
	my ($r) = @_;
	arrange_items($r);
	read_advice($r);
	read_rounds($r);
	my $run = $r->{run};
	$r->{findings} = [ findings($r->{dir}, $run->{benchmarks}, $run->{kernel} // '', $run->{cpus}) ];
	$r->{head_lines} = [
		"Machine: $run->{machine}",
		"Profile: $run->{profile}; benchmarks: $run->{benchmarks}; started $run->{started}, took $run->{seconds} s",
		"Command: $run->{command}",
		($r->{advice_counts} // ()),
		'Servers:', map { "- $_->{name}: $_->{version}" } @{ $r->{servers} } ];
	return $r;
}

1;
