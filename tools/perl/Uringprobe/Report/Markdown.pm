# report.md: the report of a make bench run as plain-text tables for a
# mailing list, from the model Uringprobe::Report::Results arranged.
package Uringprobe::Report::Markdown;

use strict;
use warnings;
use Exporter 'import';
use Uringprobe::AdviseCall qw(row_key);
use Uringprobe::Manifest qw(heading);
use Uringprobe::Report::Baseline qw(baseline_lines);
use Uringprobe::Report::Results qw(advice_sources);
use Uringprobe::TextTable;

our @EXPORT = qw(report_markdown advice_intro findings_intro check_text action_text decision_text scope_text);

# What the advice section and the findings say of themselves (the HTML
# report too).
sub advice_intro
{
	return 'uringprobe_advise() in a backend of each server at report 1\'s max_connections, under its default '
	  . 'io_method (worker in PostgreSQL 18: should it switch?), with a '
	  . 'tablespace on each scratch filesystem: the value to set, how sure (high: 5 runs or more and an interval that '
	  . 'decides; medium: 3 or more; low: fewer, or not measured), what the current setting costs, the figures behind '
	  . 'it, and the cells of this run that measured the same question.';
}

sub findings_intro
{
	return 'Each report uringprobe is built around (1-4: the four seeds; 5: what io_uring buys, against public '
	  . 'measurements): what it reported, what this run '
	  . 'measured (ratios of medians, with their 95% bootstrap interval over the runs), and the verdict.';
}

sub report_markdown
{
	my ($r) = @_;
	my $run = $r->{run};
	my $md = "# uringprobe: make bench, $run->{started}\n\n" . join("\n", @{ $r->{head_lines} }) . "\n";
	my @baseline_lines = baseline_lines($r);
	$md .= "\n" . join("\n", map { s/^- /  - /r } @baseline_lines) . "\n" if @baseline_lines;
	$md .= "\nFAILED: the run ended early: $r->{error}. What had been measured until then is below.\n"
	  if defined $r->{error};
	$md .= "\nFAILED benchmarks (their logs are in logs/): @{ $r->{failed} }\n" if @{ $r->{failed} };
	$md .= advice_markdown($r);
	if (@{ $r->{findings} })
	{
		$md .= "\n## @{[heading('findings')]}\n\n" . findings_intro() . "\n";
		for my $f (@{ $r->{findings} })
		{
			$md .= "\n**Report $f->{report}, $f->{title}: $f->{verdict}**\n\n- reported: $f->{reported}\n"
			  . ($f->{here} ne '' ? "- here: $f->{here}\n" : '') . ($f->{advice} ? "- advice: $f->{advice}\n" : '');
		}
	}
	my @tail = ($r->{rounds_item} // (), @{ $r->{appendix} });
	for my $item (@{ $r->{ordered} }, (@tail ? ({ kind => 'section', title => heading('repetitions') }, @tail) : ()))
	{
		$md .= item_markdown($r, $item);
	}
	if (@{ $r->{unsteady} })
	{
		$md .= "\nThe cells still noisy, and why:\n\n"
		  . join('', map { "- $_->{benchmark} $_->{cell}: $_->{state}\n" } @{ $r->{unsteady} });
	}
	return $md;
}

# An advice row's columns in words: what it does with the setting
# ("set write_zeros", "raise to 1982", "keep worker", "none"), with the
# version it needs; where it applies; what decided it, with the ratio,
# its interval and the margin a change had to clear.
sub action_text
{
	my ($a) = @_;
	return 'none' if $a->{action} eq 'none' || ($a->{value} // '') eq '';
	my ($major, $minor) = (int(($a->{needs_version} || 0) / 10000), ($a->{needs_version} || 0) % 10000);
	my $v = $major ? " (on PostgreSQL $major" . ($minor ? ".$minor" : '') . ')' : '';
	return ($a->{action} =~ /^(?:raise|lower)$/ ? "$a->{action} to" : $a->{action}) . " $a->{value}$v";
}

sub scope_text
{
	my ($a) = @_;
	return ($a->{scope} // '') . (($a->{scope_name} // '') eq '' ? '' : " $a->{scope_name}");
}

sub decision_text
{
	my ($a) = @_;
	my $by = $a->{decided_by} // '';
	return 'nothing measured' . (($a->{not_measured} // '') eq '' ? '' : ": $a->{not_measured}") if $by eq '';
	return $by if ($a->{ratio} // '') eq '';
	return sprintf('%s%s: %s %.2f (%.2f-%.2f), margin %.0f%%%s', $by,
		($a->{measured_in} // '') eq '' ? '' : " in $a->{measured_in}", $a->{ratio_of}, $a->{ratio}, $a->{ratio_lo},
		$a->{ratio_hi}, 100 * $a->{margin}, ($a->{compared_with} // '') eq '' ? '' : "; against $a->{compared_with}");
}

# An advice row's check: its verdict and the effect on the workload, and
# where the advice was sure and the workload did not agree, that too.
sub check_text
{
	my ($a) = @_;
	my $c = $a->{check} // return 'not checked';
	my $own = $c->{also} ? "$c->{own} on its own workload ($c->{effect})" : "$c->{verdict} ($c->{effect})";
	$own .= join('', map { "; $_->{verdict} on $_->{workload} ($_->{effect})" } @{ $c->{also} // [] });
	return ($c->{also} ? "$c->{verdict} overall; " : '') . $own
	  . ($a->{confidence} eq 'high' && $c->{verdict} =~ /^(?:not shown|contradicted)$/
		? '; its confidence high is not borne out by the workload' : '');
}

sub advice_markdown
{
	my ($r) = @_;
	return '' unless @{ $r->{advice_servers} };
	my $md = "\n## @{[heading('advice')]}\n\n" . advice_intro() . "\n";
	for my $server (@{ $r->{advice_servers} })
	{
		my $f = $r->{advice}{$server}[0];
		$md .= "\n### $server ($f->{io_method}, max_connections $f->{max_connections}; the call took $f->{seconds} s "
		  . "of a $f->{budget} s budget)\n\n";
		for my $a (@{ $r->{advice}{$server} })
		{
			my @see = advice_sources($r, $a);
			$md .= '- **' . row_key($a) . '**: ' . action_text($a) . " (now $a->{current}; confidence $a->{confidence}; "
			  . 'decided by ' . decision_text($a) . ")\n  - advice: $a->{advice}\n"
			  . ($a->{cost} ne '' ? "  - cost: $a->{cost}\n" : '') . "  - evidence: $a->{evidence}\n"
			  . "  - checked on its workload: " . check_text($a) . "\n"
			  . (@see ? '  - see: ' . join('; ', map { "$_->[0] ($_->[1])" } @see) . "\n" : '');
		}
	}
	return $md;
}

sub item_markdown
{
	my ($r, $item) = @_;
	return "\n## $item->{title}\n" if $item->{kind} eq 'section';
	return "\n$item->{caption}\n\n```\n" . text_table([ read_tsv("$r->{dir}/$item->{file}") ], $item->{width}) . "```\n"
	  if $item->{kind} eq 'table';
	return "\n$item->{caption}\n\n```\n" . text_table($item->{rows}, $item->{width} // 40) . "```\n"
	  if $item->{kind} eq 'spread';
	return "\nPlot: $item->{name}.png, $item->{name}.svg\n" if $item->{kind} eq 'plot';
	return '';
}

1;
