#!/usr/bin/env perl
# SPDX-License-Identifier: MIT
#
# check-includes.pl [ROOT]: the includes of userspace/*/*.[ch] against the
# house's rules (docs/layout.md). Each folder's main header says, in its
# opening comment, what the folder may include, on a line
#
#     May include: storage/, common/, libbpf and the skeletons.
#
# read up to its first full stop (it may run on over several comment
# lines). Named there: other folders as "name/"; "bpf/" for the plain-C
# ABI headers of bpf/ (bpf/*.h, never a *.bpf.h); "libbpf" for <bpf/...>;
# "skeleton" or "skeletons" for *.skel.h. Anything not named is
# forbidden; system headers always may be included. libbpf and skeletons
# are checked through the headers a file includes too, since a header of
# an allowed folder can pull them in. Then the folders' include graph must
# have no cycle. Exit 1 after one line per problem; a folder that has no
# "May include:" line is only said (its includes are not checked, its
# edges still count for cycles), with exit 0.
use strict;
use warnings;

my $root = shift // '.';
chdir $root or die "check-includes: $root: $!\n";

my @files = sort glob('userspace/*/*.[ch]');
my (%rules, %rule_file, %includes, @problems, @notes);

# Every quoted or angle include of every file: [line, kind, target].
for my $f (@files) {
	open my $fh, '<', $f or die "check-includes: $f: $!\n";
	my $n = 0;
	while (my $l = <$fh>) {
		$n++;
		next unless $l =~ /^\s*#\s*include\s*([<"])([^>"]+)[>"]/;
		push @{$includes{$f}}, [$n, $1 eq '<' ? 'system' : 'quoted', $2];
	}
	close $fh;
}

# The folder of a file or folder path under userspace/.
sub folder_of { my ($p) = @_; return $p =~ m{^userspace/([^/]+)/} ? $1 : undef }

# A quoted include of file $f, resolved against $f's folder.
sub resolve {
	my ($f, $inc) = @_;
	(my $dir = $f) =~ s{/[^/]*$}{};
	my @parts = split m{/}, "$dir/$inc";
	my @out;
	for (@parts) {
		if ($_ eq '..') { pop @out } elsif ($_ ne '.') { push @out, $_ }
	}
	return join '/', @out;
}

# What an include is: a folder's header, a bpf ABI header, a BPF-side
# header, a skeleton, libbpf, or another system header.
sub classify {
	my ($f, $kind, $inc) = @_;
	if ($kind eq 'system') {
		return ('libbpf', $inc) if $inc =~ m{^bpf/};
		return ('system', $inc);
	}
	return ('skeleton', $inc) if $inc =~ /\.skel\.h$/;
	my $p = resolve($f, $inc);
	return ('bpf-side', $p) if $p =~ m{^bpf/.*\.bpf\.h$};
	return ('bpf', $p) if $p =~ m{^bpf/[^/]+\.h$};
	my $d = folder_of($p);
	return ('folder', $p, $d) if defined $d;
	return ('unknown', $p);
}

# The rules, from each folder's "May include:" line.
for my $f (grep { /\.h$/ } @files) {
	open my $fh, '<', $f or die;
	local $/;
	my $text = <$fh>;
	close $fh;
	# The opening comments: all before the first preprocessor line.
	my ($head) = $text =~ m{^(.*?)(?:^\s*#|\z)}ms or next;
	next unless $head =~ /May include:(.*?)\.(?:\s|$)/s;
	my $list = $1;
	my $d = folder_of($f);
	if (exists $rules{$d}) {
		push @problems, "$d/: two main headers say what it may include "
			. "($rule_file{$d} and $f)";
		next;
	}
	$list =~ s{\n\s*\*}{ }g;
	my %allow;
	$allow{$1} = 1 while $list =~ m{\b([a-z_]+)/}g;
	$allow{libbpf} = 1 if $list =~ /\blibbpf\b/;
	$allow{skeleton} = 1 if $list =~ /\bskeletons?\b/;
	$rules{$d} = \%allow;
	$rule_file{$d} = $f;
}

my %folders = map { folder_of($_) => 1 } @files;
for my $d (sort keys %folders) {
	push @notes, "$d/: no main header with a \"May include:\" line; "
		. "its includes are not checked" unless $rules{$d};
}

# Direct includes against the file's own folder's rule; the folder graph.
my %edge; # "$from $to" -> first "file:line"
for my $f (@files) {
	my $d = folder_of($f);
	for my $i (@{$includes{$f} // []}) {
		my ($line, $kind, $inc) = @$i;
		my ($what, $p, $to) = classify($f, $kind, $inc);
		if ($what eq 'folder' && $to ne $d) {
			$edge{"$d $to"} //= "$f:$line";
		}
		next unless $rules{$d};
		my $ok = $what eq 'system' || $what eq 'unknown'
			|| ($what eq 'folder' && ($to eq $d || $rules{$d}{$to}))
			|| ($what eq 'bpf' && $rules{$d}{bpf})
			|| ($what eq 'libbpf' && $rules{$d}{libbpf})
			|| ($what eq 'skeleton' && $rules{$d}{skeleton});
		next if $ok;
		my $name = $what eq 'folder' ? "$to/"
			: $what eq 'bpf-side' ? 'a BPF-side header'
			: $what eq 'bpf' ? "bpf/'s ABI headers" : $what;
		push @problems, "$f:$line: includes $inc: $d/ may not include "
			. "$name ($rule_file{$d})";
	}
}

# libbpf and skeletons reached through included headers.
for my $f (@files) {
	my $d = folder_of($f);
	next unless $rules{$d};
	my @todo = ([$f, $f]);
	my %seen = ($f => 1);
	while (my $t = shift @todo) {
		my ($g, $chain) = @$t;
		for my $i (@{$includes{$g} // []}) {
			my ($line, $kind, $inc) = @$i;
			my ($what, $p) = classify($g, $kind, $inc);
			if ($g ne $f && (($what eq 'libbpf' && !$rules{$d}{libbpf})
			    || ($what eq 'skeleton' && !$rules{$d}{skeleton}))) {
				push @problems, "$f: reaches $inc through $chain: "
					. "$d/ may not include $what "
					. "($rule_file{$d})";
			}
			next unless $what eq 'folder' && !$seen{$p}
				&& exists $includes{$p} && $p =~ /\.h$/;
			$seen{$p} = 1;
			push @todo, [$p, "$chain -> $p"];
		}
	}
}

# Cycles between folders: strongly connected components (Tarjan).
my %adj;
for (keys %edge) {
	my ($a, $b) = split;
	push @{$adj{$a}}, $b;
}
my ($index, %idx, %low, %on, @stack) = (0);
my $strong;
$strong = sub {
	my ($v) = @_;
	$idx{$v} = $low{$v} = $index++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort @{$adj{$v} // []}) {
		if (!exists $idx{$w}) {
			$strong->($w);
			$low{$v} = $low{$w} if $low{$w} < $low{$v};
		} elsif ($on{$w}) {
			$low{$v} = $idx{$w} if $idx{$w} < $low{$v};
		}
	}
	return unless $low{$v} == $idx{$v};
	my @comp;
	while (1) {
		my $w = pop @stack;
		delete $on{$w};
		push @comp, $w;
		last if $w eq $v;
	}
	return if @comp < 2;
	my %in = map { $_ => 1 } @comp;
	my @why = map { "$_ ($edge{$_})" }
		sort grep { my ($a, $b) = split; $in{$a} && $in{$b} } keys %edge;
	push @problems, "include cycle between "
		. join(', ', map { "$_/" } sort @comp) . ": "
		. join('; ', map { s/ / -> /r } @why);
};
$strong->($_) for sort keys %folders;

print "note: $_\n" for @notes;
print "$_\n" for @problems;
exit(@problems ? 1 : 0);
