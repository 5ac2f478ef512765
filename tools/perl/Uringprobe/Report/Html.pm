# report.html: the report of a make bench run, self-contained, with the
# plots inline (SVG, and the PNG embedded as a download), from the model
# Uringprobe::Report::Results arranged; the same sections as report.md.
package Uringprobe::Report::Html;

use strict;
use warnings;
use Exporter 'import';
use MIME::Base64;
use Uringprobe::Manifest qw(heading);
use Uringprobe::Report::Baseline qw(baseline_lines);
use Uringprobe::AdviseCall qw(row_key);
use Uringprobe::Report::Markdown qw(advice_intro findings_intro check_text action_text decision_text scope_text);
use Uringprobe::Report::Results qw(advice_sources);
use Uringprobe::TextTable qw(read_tsv);

our @EXPORT = qw(report_html);

sub esc { my ($s) = @_; $s //= ''; $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g; return $s; }

sub html_table
{
	my ($rows) = @_;
	my ($head, @body) = @$rows;
	my $h = '<table><tr>' . join('', map { '<th>' . esc($_) . '</th>' } @$head) . "</tr>\n";
	for my $row (@body)
	{
		my $class = (grep { defined && $_ eq 'REGRESSION' } @$row) ? ' class="regression"'
		  : (grep { defined && $_ eq 'noisy' } @$row) ? ' class="noisy"' : '';
		$h .= "<tr$class>" . join('', map { '<td>' . esc($_) . '</td>' } @$row) . "</tr>\n";
	}
	return "$h</table>\n";
}

sub report_html
{
	my ($r) = @_;
	my $started = esc($r->{run}{started});
	my $html = <<"END";
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>uringprobe: make bench, $started</title>
<style>
body { font-family: sans-serif; margin: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 90%; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: left; }
th { background: #eee; }
tr.noisy td { background: #fff6d5; }
tr.regression td { background: #f8d0d0; }
tr.confidence-low td { color: #666; }
table.advice { table-layout: fixed; width: 100%; max-width: 70em; }
table.advice td { overflow-wrap: anywhere; vertical-align: top; }
table.advice tr.why td { border-top: none; font-size: 95%; }
table.advice .mark { font-weight: bold; }
.held { color: #176f2c; } .contradicted { color: #b00020; }
figure { margin: 1em 0; }
figure svg { max-width: 100%; height: auto; }
</style></head><body>
<h1>uringprobe: make bench, $started</h1>
END
	$html .= '<p>' . join("<br>\n", map { esc($_) } @{ $r->{head_lines} }) . "</p>\n";
	my @baseline_lines = baseline_lines($r);
	$html .= '<p>' . join("<br>\n", map { esc($_) } @baseline_lines) . "</p>\n" if @baseline_lines;
	$html .= '<p class="failed"><b>FAILED</b>: the run ended early: ' . esc($r->{error})
	  . ". What had been measured until then is below.</p>\n" if defined $r->{error};
	$html .= '<p class="failed"><b>FAILED benchmarks</b> (their logs are in logs/): ' . esc("@{ $r->{failed} }") . "</p>\n"
	  if @{ $r->{failed} };
	$html .= advice_html($r);
	if (@{ $r->{findings} })
	{
		$html .= "<h2>@{[heading('findings')]}</h2>\n<p>" . findings_intro() . "</p>\n";
		for my $f (@{ $r->{findings} })
		{
			$html .= '<div class="finding"><p><b>Report ' . esc("$f->{report}, $f->{title}") . ': <span class="verdict">'
			  . esc($f->{verdict}) . "</span></b></p>\n<ul><li>reported: " . esc($f->{reported}) . "</li>\n"
			  . ($f->{here} ne '' ? '<li>here: ' . esc($f->{here}) . "</li>\n" : '')
			  . ($f->{advice} ? '<li>advice: ' . esc($f->{advice}) . "</li>\n" : '') . "</ul></div>\n";
		}
	}
	$html .= item_html($r, $_) for @{ $r->{ordered} };
	$html .= repetitions_html($r);
	return "$html</body></html>\n";
}

# A verdict as a mark to scan the table by.
my %marks = (held => '&#10003;', 'not shown' => '~', contradicted => '&#10007;', 'not checked' => '&#8211;');

# Each server's rows as a table to read at a glance (setting, where, now,
# what to do, confidence, the check's mark), the prose and figures of
# each folded in the row below it.
sub advice_html
{
	my ($r) = @_;
	return '' unless @{ $r->{advice_servers} };
	my $html = '<h2 id="advice">' . esc(heading('advice')) . "</h2>\n<p>" . esc(advice_intro()) . "</p>\n";
	for my $server (@{ $r->{advice_servers} })
	{
		my $f = $r->{advice}{$server}[0];
		$html .= '<h3>' . esc("$server ($f->{io_method}, max_connections $f->{max_connections}; the call took "
			  . "$f->{seconds} s of a $f->{budget} s budget)") . "</h3>\n<table class=\"advice\">"
		  . '<colgroup><col style="width:22%"><col style="width:15%"><col style="width:13%"><col style="width:16%">'
		  . '<col style="width:10%"><col style="width:24%"></colgroup>'
		  . "<tr><th>setting</th><th>for</th><th>now</th><th>to do</th><th>confidence</th><th>checked on its workload</th></tr>\n";
		for my $a (@{ $r->{advice}{$server} })
		{
			my $verdict = $a->{check} ? $a->{check}{verdict} : 'not checked';
			(my $class = $verdict) =~ s/ /-/g;
			my $see = join('<br>', map { '<a href="#bench-' . esc($_->[0]) . '">' . esc("$_->[0]: $_->[1]") . '</a>' }
				  advice_sources($r, $a));
			$html .= '<tr class="confidence-' . esc($a->{confidence}) . '"><td>' . esc($a->{setting}) . '</td><td>'
			  . esc(scope_text($a)) . '</td><td>' . esc($a->{current}) . '</td><td><b>' . esc(action_text($a))
			  . '</b></td><td>' . esc($a->{confidence}) . "</td><td class=\"$class\"><span class=\"mark\">"
			  . ($marks{$verdict} // '?') . '</span> ' . esc($verdict) . "</td></tr>\n"
			  . '<tr class="why"><td colspan="6"><details><summary>' . esc($a->{advice}) . '</summary><ul>'
			  . '<li>decided by ' . esc(decision_text($a)) . '</li>'
			  . ($a->{cost} ne '' ? '<li>cost: ' . esc($a->{cost}) . '</li>' : '')
			  . '<li>evidence: ' . esc($a->{evidence}) . '</li>'
			  . '<li>checked on its workload: ' . esc(check_text($a)) . '</li>'
			  . ($see ne '' ? "<li>see: $see</li>" : '') . "</ul></details></td></tr>\n";
		}
		$html .= "</table>\n";
	}
	return $html;
}

sub item_html
{
	my ($r, $item) = @_;
	return '<h2 id="bench-' . esc($item->{bench}) . '">' . esc($item->{title}) . "</h2>\n" if $item->{kind} eq 'section';
	return '<p>' . esc($item->{caption}) . "</p>\n" . html_table([ read_tsv("$r->{dir}/$item->{file}") ])
	  if $item->{kind} eq 'table';
	return '<p>' . esc($item->{caption}) . "</p>\n" . html_table($item->{rows}) if $item->{kind} eq 'spread';
	return '' unless $item->{kind} eq 'plot';
	my ($svg_file, $png_file) = map { "$r->{dir}/$item->{name}.$_" } qw(svg png);
	die "the plot $svg_file is missing\n" unless -s $svg_file;
	die "the plot $png_file is missing\n" unless -s $png_file;
	my $svg = do { local (@ARGV, $/) = $svg_file; <> };
	$svg =~ s/^.*?(?=<svg)//s;    # the XML prolog and doctype
	my $png = encode_base64(do { local (@ARGV, $/) = $png_file; binmode ARGV; <> }, '');
	return "<figure>$svg<figcaption><a download=\"$item->{name}.png\" "
	  . "href=\"data:image/png;base64,$png\">$item->{name}.png</a></figcaption></figure>\n";
}

# The spread of every cell, folded: the tables above are the results.
sub repetitions_html
{
	my ($r) = @_;
	my $rounds_item = $r->{rounds_item};
	return '' unless $rounds_item || @{ $r->{appendix} };
	my $html = '<h2>' . esc(heading('repetitions')) . "</h2>\n";
	$html .= '<p>' . esc($rounds_item->{caption}) . "</p>\n" . html_table($rounds_item->{rows}) if $rounds_item;
	my @unsteady = @{ $r->{unsteady} };
	if (@unsteady)
	{
		$html .= '<details><summary>' . scalar(@unsteady) . " cells still noisy, and why</summary>\n<ul>\n"
		  . join('', map { '<li>' . esc("$_->{benchmark} $_->{cell}: $_->{state}") . "</li>\n" } @unsteady)
		  . "</ul></details>\n";
	}
	for my $item (@{ $r->{appendix} })
	{
		$html .= '<details><summary>' . esc($item->{caption} =~ s/:$//r) . "</summary>\n" . html_table($item->{rows})
		  . "</details>\n";
	}
	return $html;
}

1;
