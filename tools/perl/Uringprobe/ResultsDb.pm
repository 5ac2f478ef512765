# The results database: the schema results directories are loaded into,
# the SQL that loads one (from its files alone: run.tsv, the runs files
# Uringprobe::Manifest declares, the findings Uringprobe::Findings draws
# from them, advise.tsv and advise-checks.tsv), and the queries over it.
#
#   print schema_sql();
#   my $run = read_run_dir($dir, host => $name);   # dies naming what it lacks
#   print load_sql($run);
package Uringprobe::ResultsDb;

use strict;
use warnings;
use Exporter 'import';
use File::Basename ();
use JSON::PP ();
use Uringprobe::Findings;
use Uringprobe::Manifest qw(runs_specs);
use Uringprobe::Report::Baseline qw(results_format);
use Uringprobe::Report::Results qw(read_run run_cells);
use Uringprobe::TsvRows qw(rows);

our @EXPORT_OK = qw(schema_sql read_run_dir load_sql run_key_sql query_sql query_names baseline_sql);

# The run.tsv format this reads: 2 names the host (format 1, before it,
# loads only with a host given).
my $newest_format = 2;

# The schema: bench/results-db.sql.
sub schema_sql
{
	my $file = File::Basename::dirname(__FILE__) . '/../../../bench/results-db.sql';
	open my $fh, '<', $file or die "cannot read $file: $!\n";
	local $/;
	return <$fh>;
}

# The run of results directory $dir, read whole; %opt: host (for a
# directory of format 1, which names none).
sub read_run_dir
{
	my ($dir, %opt) = @_;
	$dir =~ s{/+$}{};
	-d $dir or die "$dir is not a directory\n";
	-f "$dir/run.tsv" or die "$dir has no run.tsv: not the results of a make bench run\n";
	my $read = { dir => $dir };
	read_run($read);
	my ($r, $env) = @$read{qw(run config)};
	my $servers = [ map { { server => $_->{name}, version => $_->{version}, pg_config => $_->{pg_config} } } @{ $read->{servers} } ];
	my $format = $r->{format} // 1;
	$format =~ /^\d+$/ && $format <= $newest_format
	  or die "$dir: run.tsv of format $format, newer than this loader reads ($newest_format): update uringprobe\n";
	my $host = $r->{host} // $opt{host};
	defined $host && $host ne ''
	  or die "$dir: run.tsv of format 1 (written before the host was recorded) names no host: give --host NAME\n";
	$r->{started} =~ /^\d{4}-\d\d-\d\d \d\d:\d\d( UTC)?$/ or die "$dir: run.tsv has no start time it can read\n";
	my @cells;
	for my $spec (sort { $a->{file} cmp $b->{file} } runs_specs())
	{
		my $n = 0;
		for my $row (@{ rows($dir, $spec->{file}) })
		{
			push @cells, { benchmark => $spec->{name} // $spec->{bench}, file => $spec->{file}, line => ++$n,
				server => $row->{server}, status => $row->{status} // 'ok', measured => $row };
		}
	}
	my @findings = findings($dir, $r->{benchmarks}, $r->{kernel} // '', $r->{cpus});
	return {
		dir => $dir, format => $format, host => $host, run => $r, env => $env, servers => $servers,
		cells => \@cells, report_cells => [ run_cells($dir) ], findings => \@findings,
		advice => rows($dir, 'advise.tsv'), checks => rows($dir, 'advise-checks.tsv') };
}

sub lit
{
	my ($v) = @_;
	return 'NULL' unless defined $v && $v ne '';
	return "'" . ($v =~ s/'/''/gr) . "'";
}
sub num { my ($v) = @_; return defined $v && $v =~ /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/ ? $v : 'NULL'; }
my $json = JSON::PP->new->canonical;
sub jsonb { my ($h) = @_; return lit($json->encode($h)) . '::jsonb'; }

# INSERT INTO table (columns) VALUES (...), ... for @rows (lists of SQL
# literals), in batches
sub inserts
{
	my ($table, $columns, @rows) = @_;
	my $out = '';
	while (my @batch = splice(@rows, 0, 500))
	{
		$out .= "INSERT INTO $table ($columns) VALUES\n" . join(",\n", map { '(' . join(', ', @$_) . ')' } @batch) . ";\n";
	}
	return $out;
}

# The WHERE clause naming run $run by its key: its host, start minute and
# directory's name (two runs started in the same minute have two).
sub run_key_sql
{
	my ($run) = @_;
	my $started = $run->{run}{started} =~ s/ UTC$//r;
	return 'host = ' . lit($run->{host}) . ' AND started = ' . lit("$started+00") . '::timestamptz'
	  . ' AND directory = ' . lit(directory_name($run));
}
sub directory_name { my ($run) = @_; return $run->{dir} =~ s{.*/}{}r; }

# The SQL that loads $run, in one transaction; its run_id from psql's
# \gset (the caller has checked it is not loaded yet).
sub load_sql
{
	my ($run) = @_;
	my $r = $run->{run};
	my $id = ':run_id';
	my $started = $r->{started} =~ s/ UTC$//r;
	my $sql = "BEGIN;\nSET search_path = uringprobe_results;\n";
	$sql .= 'INSERT INTO hosts (host, machine, cpu, cpus) VALUES (' . join(', ', lit($run->{host}), lit($r->{machine} // ''), lit($r->{cpu}), num($r->{cpus}))
	  . ") ON CONFLICT (host) DO NOTHING;\n";
	$sql .= 'INSERT INTO runs (host, started, seconds, profile, benchmarks, commit, kernel, liburing, storage, command, failed, format, directory) VALUES ('
	  . join(', ', lit($run->{host}), lit("$started+00") . '::timestamptz', num($r->{seconds}), lit($r->{profile}),
		"string_to_array(" . lit($r->{benchmarks} // '') . ", ' ')", lit($r->{commit}), lit($r->{kernel}), lit($r->{liburing}),
		lit($r->{storage}), lit($r->{command}), lit($r->{failed}), $run->{format}, lit(directory_name($run)))
	  . ") RETURNING run_id \\gset\n";
	$sql .= inserts('servers', 'run_id, server, version, pg_config',
		map { [ $id, lit($_->{server}), lit($_->{version}), lit($_->{pg_config}) ] } @{ $run->{servers} });
	$sql .= inserts('settings', 'run_id, variables', [ $id, jsonb($run->{env}) ]);
	$sql .= inserts('cell_runs', 'run_id, benchmark, file, line, server, status, measured',
		map { [ $id, lit($_->{benchmark}), lit($_->{file}), $_->{line}, lit($_->{server}), lit($_->{status}), jsonb($_->{measured}) ] }
		  @{ $run->{cells} });
	$sql .= inserts('cells', 'run_id, benchmark, id, metric, median, cell',
		map { [ $id, lit($_->{benchmark}), lit($_->{id}), lit($_->{metric}), num($_->{median}), jsonb($_) ] } @{ $run->{report_cells} });
	for my $f (@{ $run->{findings} })
	{
		$sql .= inserts('findings', 'run_id, report, title, verdict, headline, here, advice',
			[ $id, $f->{report}, lit($f->{title}), lit($f->{verdict}), lit($f->{headline}), lit($f->{here}), lit($f->{advice}) ]);
		$sql .= inserts('figures', 'run_id, report, figure, ratio, ratio_lo, ratio_hi, verdict, runs_x, runs_y',
			map { [ $id, $f->{report}, lit($_->{figure}), num($_->{ratio}), num($_->{lo}), num($_->{hi}), lit($_->{verdict}),
					num($_->{runs}[0]), num($_->{runs}[1]) ] } @{ $f->{figures} // [] });
	}
	my $n = 0;
	$sql .= inserts('advice', 'run_id, line, server, setting, scope_name, action, value, current, confidence, decided_by, ratio, ratio_lo, ratio_hi, margin, row',
		map { [ $id, ++$n, lit($_->{server}), lit($_->{setting}), lit($_->{scope_name}), lit($_->{action}), lit($_->{value}), lit($_->{current}),
				lit($_->{confidence}), lit($_->{decided_by}), num($_->{ratio}), num($_->{ratio_lo}), num($_->{ratio_hi}), num($_->{margin}), jsonb($_) ] }
		  @{ $run->{advice} });
	$n = 0;
	$sql .= inserts('advice_checks', 'run_id, line, server, setting, scope_name, workload, value, seconds, row',
		map { [ $id, ++$n, lit($_->{server}), lit($_->{setting}), lit($_->{scope_name}), lit($_->{workload}), lit($_->{value}),
				num($_->{seconds}), jsonb($_) ] } @{ $run->{checks} });
	return $sql . "COMMIT;\n";
}

# The queries over it, by name; %p: host, other (the second host).
my %queries = (
	# this host's history of each report's figures, oldest run first
	history => sub {
		my (%p) = @_;
		return 'SELECT to_char(started, \'YYYY-MM-DD HH24:MI\') AS started, profile, commit, report, figure, round(ratio::numeric, 2) AS ratio, '
		  . "round(ratio_lo::numeric, 2) || '-' || round(ratio_hi::numeric, 2) AS interval, verdict FROM uringprobe_results.history"
		  . ($p{host} ? ' WHERE host = ' . lit($p{host}) : '') . ' ORDER BY host, report, figure, started';
	},
	# two hosts side by side: each figure of their newest runs of a profile
	hosts => sub {
		my (%p) = @_;
		defined $p{host} && defined $p{other} or die "hosts: give --host NAME --other NAME\n";
		return 'SELECT a.profile, fa.report, fa.figure, round(fa.ratio::numeric, 2) AS ' . ident($p{host}) . ', fa.verdict AS verdict_a, '
		  . 'round(fb.ratio::numeric, 2) AS ' . ident($p{other}) . ', fb.verdict AS verdict_b '
		  . 'FROM uringprobe_results.newest_runs a JOIN uringprobe_results.figures fa ON fa.run_id = a.run_id '
		  . 'JOIN uringprobe_results.newest_runs b ON b.profile = a.profile AND b.host = ' . lit($p{other}) . ' '
		  . 'JOIN uringprobe_results.figures fb ON fb.run_id = b.run_id AND fb.report = fa.report AND fb.figure = fa.figure '
		  . 'WHERE a.host = ' . lit($p{host}) . ' ORDER BY 1, 2, 3';
	},
	# the advice of each host's newest run: setting, action, value, how sure
	advice => sub {
		my (%p) = @_;
		return 'SELECT n.host, n.profile, a.server, a.setting, a.scope_name, a.action, a.value, a.current, a.confidence, a.decided_by, '
		  . 'round(a.ratio::numeric, 2) AS ratio FROM uringprobe_results.newest_runs n JOIN uringprobe_results.advice a USING (run_id)'
		  . ($p{host} ? ' WHERE n.host = ' . lit($p{host}) : '') . ' ORDER BY 1, 2, 3, 4, 5';
	},
	# what is loaded: a line per run
	runs => sub {
		my (%p) = @_;
		return "SELECT host, to_char(started, 'YYYY-MM-DD HH24:MI') AS started, profile, commit, directory, "
		  . '(SELECT count(*) FROM uringprobe_results.cell_runs c WHERE c.run_id = r.run_id) AS cell_runs, '
		  . '(SELECT count(*) FROM uringprobe_results.figures f WHERE f.run_id = r.run_id) AS figures, '
		  . '(SELECT count(*) FROM uringprobe_results.advice a WHERE a.run_id = r.run_id) AS advice '
		  . 'FROM uringprobe_results.runs r' . ($p{host} ? ' WHERE host = ' . lit($p{host}) : '') . ' ORDER BY host, started';
	},
);
# A run as a baseline: results.json's format, run, servers and cells, as
# one JSON value, of host $p{host}'s newest run (of profile $p{profile},
# started at $p{started} "YYYY-MM-DD HH:MI", where given); no row where
# there is none.
sub baseline_sql
{
	my (%p) = @_;
	defined $p{host} or die "baseline: give --host NAME\n";
	my $format = lit(results_format());
	my @where = ('r.host = ' . lit($p{host}));
	push @where, 'r.profile = ' . lit($p{profile}) if defined $p{profile};
	push @where, 'r.started = ' . lit("$p{started}+00") . '::timestamptz' if defined $p{started};
	return <<"SQL";
SELECT json_build_object(
    'format', $format,
    'run', json_build_object('host', r.host, 'machine', h.machine, 'cpu', h.cpu, 'profile', r.profile,
        'started', to_char(r.started AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC',
        'benchmarks', array_to_string(r.benchmarks, ' ')),
    'servers', coalesce((SELECT json_agg(json_build_object('name', s.server, 'version', s.version) ORDER BY s.server)
        FROM uringprobe_results.servers s WHERE s.run_id = r.run_id), '[]'),
    'cells', coalesce((SELECT json_agg(c.cell ORDER BY c.benchmark, c.id, c.metric)
        FROM uringprobe_results.cells c WHERE c.run_id = r.run_id), '[]'))
FROM uringprobe_results.runs r JOIN uringprobe_results.hosts h USING (host)
WHERE @{[ join(' AND ', @where) ]}
ORDER BY r.started DESC, r.directory DESC LIMIT 1;
SQL
}

sub ident { my ($n) = @_; return '"' . ($n =~ s/"/""/gr) . '"'; }
sub query_names { return sort keys %queries; }
sub query_sql
{
	my ($name, %p) = @_;
	my $q = $queries{$name} or die "no query '$name' (" . join(', ', query_names()) . ")\n";
	return $q->(%p) . ";\n";
}

1;
