# The documentation kept true: every SQL function in docs/functions.md has
# exactly the parameters (name, type, default, in order) and columns (name,
# type, in order) that the installed extension has, per
# pg_get_function_arguments() and the result type; every function the
# extension installs is documented; every experiment's parameter table in
# the engine (uringprobe-cli params) declares what the install script
# declares. docs/benchmarks.md names every benchmark, result file and
# variable Uringprobe::Manifest declares, and no other (a made-up
# declaration shows the check fails both ways). The README's table of
# findings is what the results files in docs/results/ give; the fault
# table of docs/testing.md is the faults declared. And every URINGPROBE_*
# variable the docs name is used in bench/, tools/ or the Makefile, and
# every one used there is documented.
use strict;
use warnings;
use FindBin;
use PostgreSQL::Test::Utils;
use Test::More;
use Uringprobe::Cluster;
use Uringprobe::Manifest qw(benchmarks docs_mismatches);
use Uringprobe::Faults ();
use Uringprobe::FunctionSizes qw(long_functions);

my $root = "$FindBin::RealBin/..";
my $doc = slurp_file("$root/docs/functions.md");

# Split a pg_get_function_arguments() list at its top-level commas.
sub split_args
{
	my ($list) = @_;
	my @args;
	my ($cur, $quoted, $depth) = ('', 0, 0);
	for my $ch (split //, $list)
	{
		if ($ch eq "'") { $quoted = !$quoted; }
		elsif (!$quoted && $ch eq '(') { $depth++; }
		elsif (!$quoted && $ch eq ')') { $depth--; }
		elsif (!$quoted && !$depth && $ch eq ',') { push @args, $cur; $cur = ''; next; }
		$cur .= $ch;
	}
	push @args, $cur if $cur =~ /\S/;
	s/^\s+|\s+$//g for @args;
	return @args;
}

# A default as the docs write it: without the cast PostgreSQL adds.
sub plain_default
{
	my ($d) = @_;
	return '' unless defined $d;
	$d =~ s/::[a-z][a-z ]*$//;
	$d =~ s/^'(-?\d+)'$/$1/;
	return $d;
}

# The documented parameters and columns of each function: sections start
# with "## uringprobe_name()" (one heading may name two functions).
# A "Columns:" list as [name, type] pairs; "the shared columns, then …"
# starts with the list the docs give once as "Shared columns:".
sub column_list
{
	my ($list, $shared) = @_;
	$list =~ s/\s+/ /g;
	$list =~ s/\.$//;
	my @cols = $list =~ s/^the shared columns, then // ? @{ $shared // [] } : ();
	push @cols, map { [ /^`(\w+)` (.+)$/ ] } split /, /, $list;
	return \@cols;
}
my ($shared_list) = $doc =~ /^Shared columns: (.*?)(?:\n\n|\z)/ms;
my $shared = column_list($shared_list // '');
ok(@$shared >= 14, 'docs/functions.md lists the shared columns');

my %documented;
my @sections = split /^## /m, $doc;
for my $section (@sections)
{
	my ($heading) = $section =~ /\A([^\n]*)/;
	my @names = $heading =~ /(uringprobe_\w+)\(\)/g or next;
	# the rows of the table headed "| parameter | type | default |"
	my ($table) = $section =~ /^\| parameter \| type \| default \|[^\n]*\n\|[-|]+\n((?:\|[^\n]*\n)*)/m;
	my @params = map { [ map { s/^\s+|\s+$//gr =~ s/`//gr } (split /\|/)[ 1 .. 3 ] ] }
	  split /\n/, $table // '';
	my ($columns) = $section =~ /^Columns: (.*?)(?:\n\n|\z)/ms;
	my $cols = column_list($columns // '', $shared);
	$documented{$_} = { params => \@params, columns => $cols } for @names;
}

my ($server) = servers();
my ($node) = start_cluster(server => $server, name => 'docs');
$node->safe_psql('postgres', 'CREATE EXTENSION uringprobe');
my $installed = $node->safe_psql(
	'postgres', q{
	SELECT p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid)
	FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'uringprobe'
	ORDER BY 1});
# the CLI's commands (its one table, as uringprobe-cli params lists them)
# and the extension's functions: every command is a function
# uringprobe_<command>, every function a command but the two readings
# of a process that have no options
my ($params_tsv) = run_command([ "$server->{bindir}/uringprobe-cli", 'params', '--format', 'tsv' ]);
my %commands = map { ((split /\t/)[0] => 1) } grep { !/^command\t/ } split /\n/, $params_tsv;
my @functions;
for my $line (split /\n/, $installed)
{
	my ($name, $args, $result) = split /\|/, $line, 3;
	push @functions, $name;
	my $d = $documented{$name};
	ok($d, "docs/functions.md documents $name") or next;
	my (@in, @out);
	for my $arg (split_args($args))
	{
		if ($arg =~ /^OUT (\w+) (.+)$/) { push @out, [ $1, $2 ]; next; }
		my ($n, $type, $default) = $arg =~ /^(\w+) (.+?)(?: DEFAULT (.+))?$/ or die "cannot read '$arg'\n";
		push @in, [ $n, $type, plain_default($default) ];
	}
	# a composite result: its attributes are the columns
	if (!@out && $result =~ /^SETOF (\w+)$/ && $1 ne 'record')
	{
		my $attrs = $node->safe_psql('postgres',
			"SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
			  . "WHERE attrelid = '$1'::regclass AND attnum > 0 ORDER BY attnum");
		@out = map { [ split /\|/ ] } split /\n/, $attrs;
	}
	# a command's parameter tables, as the engine has them: the rows the
	# SQL function takes (column sql: yes) are what the install script
	# declares; the environment's settings default to the server's own
	# in SQL (NULL), to PostgreSQL 18's on the command line, so there
	# names and types only
	my ($command) = $name =~ /^uringprobe_(\w+)$/;
	ok($commands{$command} || $name =~ /^uringprobe_(postmaster|backend|monitor)$/, "$name is a command of uringprobe-cli");
	if ($commands{$command})
	{
		my ($tsv) = run_command([ "$server->{bindir}/uringprobe-cli", 'params', $command, '--format', 'tsv' ]);
		my @rows = map { [ split /\t/ ] } grep { !/^command\t/ } split /\n/, $tsv;
		my $fields = $command eq 'environment' ? [ 1, 2 ] : [ 1 .. 3 ];
		my @table = map { [ @$_[@$fields] ] } grep { $_->[9] eq 'yes' } @rows;
		# an interval's default as the server prints it ('20 seconds' -> '00:00:20')
		$_->[2] = $node->safe_psql('postgres', "SELECT quote_literal($_->[2]::interval)")
		  for grep { @$_ > 2 && $_->[1] eq 'interval' } @table;
		is_deeply(\@table, [ map { [ @$_[ map { $_ - 1 } @$fields ] ] } @in ],
			"$name: the engine's parameter table (uringprobe-cli params $command) is the install script's")
		  or diag("engine: " . join(', ', map { "@$_" } @table));
		my @cli_only = grep { $_->[9] eq 'no' } @rows;
		ok(!grep({ $_->[7] !~ /^--[a-z-]+$/ } @rows), "$name: every parameter is an option of uringprobe-cli $command");
		ok($command =~ /^(advise|advise_script|environment|extend|reads)$/ ? @cli_only > 0 : !@cli_only,
			"$name: options of the command line only: " . join(' ', map { $_->[7] } @cli_only));
	}
	is_deeply($d->{params}, \@in, "$name: parameters, types and defaults as documented")
	  or diag('installed: ' . join(', ', map { "@$_" } @in));
	is_deeply($d->{columns}, \@out, "$name: columns as documented")
	  or diag('installed: ' . join(', ', map { "@$_" } @out));
}
is_deeply([ sort keys %documented ], [ sort @functions ], 'every documented function is installed');
is_deeply([ grep { my $c = $_; !grep { $_ eq "uringprobe_$c" } @functions } sort keys %commands ], [],
	'every command of uringprobe-cli is a function of the extension');
# ... and every list of them knows each: its regression test (run by the
# Makefile, its files there, its bad input among them), and for an
# experiment a run long enough to be stopped (its entry's long runs:
# t/009, t/023, t/027)
{
	my %regress = map { $_ => 1 } split ' ', regress_list($root);
	my @missing = map { "$_ (regression test)" }
	  grep { !$regress{$_} || !-f "$root/sql/$_.sql" || !-f "$root/expected/$_.out" || slurp_file("$root/sql/$_.sql") !~ /regress_error_of\(/ }
	  sort keys %commands;
	my %long = map { $_->[1] =~ /^(uringprobe_\w+)\(/ ? ($1 => 1) : () } long_runs('/scratch');
	push @missing, map { "$_ (a long run in its entry in src/engine/registry)" }
	  grep { !$long{$_} && !/^uringprobe_(environment|advise|postmaster|backend|monitor)$/ } @functions;
	is_deeply(\@missing, [], 'every command has its regression tests, every experiment a long run to stop');
}
$node->stop;

# docs/benchmarks.md against the benchmarks' declarations, both ways.
my $bench_doc = slurp_file("$root/docs/benchmarks.md");
is(join("\n", docs_mismatches($bench_doc)), '', 'docs/benchmarks.md documents every benchmark, file and variable declared, and no other');
# ... and the check fails where they part: a declared benchmark missing
# from the page, a documented one missing from the declarations.
my @made_up = ({ name => 'made_up', files => [ { id => 'runs', file => 'made_up-runs.tsv' } ],
	variables => [ [ URINGPROBE_MADE_UP_ROUNDS => 3, 'rounds' ] ] });
is_deeply([ docs_mismatches($bench_doc, [ benchmarks(), @made_up ]) ],
	[ 'benchmark made_up is not documented (as **made_up**)', "made_up's file made_up-runs.tsv is not documented",
		"made_up's variable URINGPROBE_MADE_UP_ROUNDS is not documented" ],
	'a declared benchmark the page lacks is found, with its file and variable');
my $documented = "1. **made_up**: `made_up-runs.tsv`, `URINGPROBE_MADE_UP_ROUNDS`\n2. **gone**: `gone.tsv`, `URINGPROBE_MADE_UP_GONE`\n";
is_deeply([ docs_mismatches($documented, \@made_up) ],
	[ 'benchmark gone is documented but not declared', 'file gone.tsv is documented but no benchmark declares it',
		'variable URINGPROBE_MADE_UP_GONE is documented but not declared' ],
	'a documented benchmark, file and variable no declaration has are found');

# The README's table of findings is what the results files it names,
# kept in the repository, give: no figure in it without a file behind it.
{
	my $readme = slurp_file("$root/README.md");
	my ($results) = $readme =~ m{bench/report\.pl --findings-md (docs/results/[\w.-]+)};
	ok($results && -f "$root/$results/run.tsv", 'the README names the results behind its findings (' . ($results // 'none') . ')');
	my ($section) = $readme =~ /^## What it found here\n(.*?)^## /ms;
	my $table = join('', grep { /^\|/ } split /^/m, $section // '');
	my ($printed) = $results ? run_command([ 'perl', "$root/bench/report.pl", '--findings-md', "$root/$results" ]) : ('');
	ok($table ne '', 'the README has a table of findings');
	is($table, "$printed\n", "the README's findings are what bench/report.pl --findings-md $results prints");
	ok(!grep({ length > 300 } split /\n/, $table), "the README's findings are headlines (no line over 300 characters)");
	# docs/findings.md: the same run's findings with every figure
	my $findings = slurp_file("$root/docs/findings.md");
	my ($full_section) = $findings =~ /^## Each report, measured in full\n(.*?)^## /ms;
	my $full = join('', grep { /^\|/ } split /^/m, $full_section // '');
	my ($in_full) = $results ? run_command([ 'perl', "$root/bench/report.pl", '--findings-md', '--in-full', "$root/$results" ]) : ('');
	like($full_section // '', qr{--findings-md --in-full \Q$results\E}, 'docs/findings.md names the same results for the findings in full');
	is($full, "$in_full\n", "docs/findings.md's findings in full are what bench/report.pl --findings-md --in-full $results prints");
}

# docs/testing.md's table of faults is Uringprobe::Faults' list, row by
# row (the counts column is a dated run's).
{
	my ($section) = slurp_file("$root/docs/testing.md") =~ /^## Faults survived\n(.*?)(?=^## |\z)/ms;
	my @rows = map { [ (split /\s*\|\s*/, $_)[ 1 .. 4 ] ] } grep { /^\| (?!fault \||---)/ } split /\n/, $section // '';
	my @declared = map { [ @$_{qw(fault injected holds tests)} ] } Uringprobe::Faults::faults();
	ok(@declared >= 20, scalar(@declared) . ' faults declared');
	is_deeply(\@rows, \@declared, "docs/testing.md's fault table is tools/perl/Uringprobe/Faults.pm's, row by row")
	  or diag(join("\n", map { $_->[0] } @rows));
}

# src/engine/README.md's table of folders is their order: a file includes
# only headers of its own folder or of those above it.
{
	my @folders = slurp_file("$root/src/engine/README.md") =~ /^\| (\w+)\/ \|/mg;
	my %rank;
	@rank{@folders} = 0 .. $#folders;
	my @on_disk = sort map { m{/(\w+)$} } grep { -d } glob("$root/src/engine/*");
	is_deeply([ sort @folders ], \@on_disk, "src/engine/README.md's table names every folder of src/engine");
	my @up;
	for my $file (glob("$root/src/engine/*/*.{cpp,hpp}"))
	{
		my ($folder) = $file =~ m{/src/engine/(\w+)/};
		for my $inc (slurp_file($file) =~ /^#include "(\w+)\/[^"]+"/mg)
		{
			push @up, "$folder/" . ($file =~ s{.*/}{}r) . " includes $inc/"
			  if defined $rank{$inc} && $rank{$inc} > $rank{$folder};
		}
	}
	is_deeply(\@up, [], 'no file of src/engine includes a header of a folder below its own');
}

# No function a reader cannot hold: none over 80 lines in src/, tools/perl
# or bench/. The check finds one in made-up code of either language.
{
	my %texts = map { $_ => slurp_file("$root/$_") } map { s{^\Q$root\E/}{}r }
	  grep { -f } map { glob("$root/$_") } qw(src/*/*.cpp src/*/*.hpp src/engine/*/*.cpp src/engine/*/*.hpp
		tools/perl/Uringprobe/*.pm tools/perl/Uringprobe/*/*.pm bench/*.pl);
	cmp_ok(scalar(keys %texts), '>', 100, scalar(keys %texts) . ' files of src/, tools/perl and bench/ measured');
	is_deeply([ long_functions(80, %texts) ], [], 'no function over 80 lines');
	my $body = join('', map { "    x += $_;\n" } 1 .. 81);
	is_deeply([ long_functions(80,
		'a.cpp' => "namespace n {\nstruct S { int f() { return 1; } };\nint g(int x)\n{\n$body    return x;\n}\n}\n",
		'b.pm' => "sub short { return 1; }\nsub long\n{\n${body}}\n") ],
		[ 'a.cpp:4 84 lines', 'b.pm:2 84 lines' ], 'a made-up long function is found, in C++ and in Perl');
}

# Every URINGPROBE_* variable: documented <=> used.
sub variables_in
{
	my %v;
	for my $file (@_)
	{
		next unless -f $file;
		$v{$_} = 1 for slurp_file($file) =~ /\b(URINGPROBE_[A-Z][A-Z0-9_]*[A-Z0-9])\b/g;
	}
	return \%v;
}
my $docs = variables_in("$root/README.md", glob("$root/docs/*.md"));
my @code_files = grep { -f && !m{/perl/} || m{\.pm$} } map { glob("$root/$_") } qw(Makefile bench/* tools/* tools/perl/Uringprobe/*);
my $code = variables_in(@code_files);
is_deeply([ grep { !$code->{$_} } sort keys %$docs ], [], 'every documented URINGPROBE_* variable is used in bench/, tools/ or the Makefile');
is_deeply([ grep { !$docs->{$_} } sort keys %$code ], [], 'every URINGPROBE_* variable used there is documented');
cmp_ok(scalar(keys %$code), '>', 40, scalar(keys %$code) . ' variables checked');

done_testing();
