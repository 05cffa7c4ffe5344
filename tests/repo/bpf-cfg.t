#!/usr/bin/env perl
# TAP (run by prove): no BPF program of ours has a loop that Linux 6.1's
# verifier refuses before it verifies anything. Its check_cfg allows a
# back-edge only on a jump's edge, not on the fall-through of an ordinary
# instruction ("back-edge from insn 484 to 485"; later kernels allow it):
# clang lays some loops out that way, and then every program inlining the
# loop fails to load on 6.1 while this host's kernel takes it. Found by the
# 6.1 guest once, in minutes; this finds it in a second, on the host.
# The walk is check_cfg's depth-first search over llvm-objdump's listing
# of each program section, instructions numbered as the kernel numbers
# them (ld_imm64 takes two).
use strict;
use warnings;
use File::Basename qw(dirname);

chdir dirname(__FILE__) . '/../..' or die "chdir: $!";
my @objs = sort glob('build/bpf/*.bpf.o');
if (!@objs) {
	print "1..1\nnot ok 1 - no build/bpf/*.bpf.o: run make first\n";
	exit 1;
}
print '1..' . scalar(@objs) . "\n";
my $n = 0;
my $failed = 0;
for my $obj (@objs) {
	$n++;
	my %sec;
	my $cur;
	open(my $fh, '-|', 'llvm-objdump', '-d', '--no-show-raw-insn', $obj)
	    or die "llvm-objdump: $!";
	while (<$fh>) {
		if (/^Disassembly of section (\S+):/) {
			$cur = $1;
			$sec{$cur} = [];
		} elsif (defined $cur && /^\s*(\d+):\s+(.*?)\s*$/) {
			push @{ $sec{$cur} }, [ $1, $2 ];
		}
	}
	close($fh) or die "llvm-objdump $obj failed\n";
	my @bad;
	for my $s (sort keys %sec) {
		push @bad, map { "$s: $_" } fallthrough_back_edges($sec{$s});
	}
	if (@bad) {
		$failed++;
		print "not ok $n - $obj: a loop 6.1's verifier refuses\n";
		print "# $_\n" for @bad;
	} else {
		print "ok $n - $obj: no back-edge by fall-through\n";
	}
}
exit($failed ? 1 : 0);

# The instructions' successors, as check_cfg's visit_insn pushes them:
# [insn, loop_ok]. Jumps may close a loop, a fall-through may not.
sub succ {
	my ($insns, $i) = @_;
	my ($at, $text) = @{ $insns->[$i] };
	my $next = $i + 1 < @$insns ? $insns->[ $i + 1 ][0] : undef;

	return () if $text =~ /^exit/;
	if ($text =~ /^(goto|if .* goto) ([+-]\d+)/) {
		my $target = $at + $2 + 1;
		return ([ $target, 1 ]) if $1 eq 'goto';
		return ([ $next, 1 ], [ $target, 1 ]);
	}
	return defined $next ? ([ $next, 0 ]) : ();
}

sub fallthrough_back_edges {
	my ($insns) = @_;
	return () if !@$insns;
	my %index = map { $insns->[$_][0] => $_ } 0 .. $#$insns;
	my (%state, @bad);
	my @stack = ([ $insns->[0][0], [ succ($insns, 0) ] ]);
	$state{ $insns->[0][0] } = 1;
	while (@stack) {
		my ($at, $todo) = @{ $stack[-1] };
		if (!@$todo) {
			$state{$at} = 2;
			pop @stack;
			next;
		}
		my ($w, $loop_ok) = @{ shift @$todo };
		next if !defined $w || !exists $index{$w};
		if (($state{$w} // 0) == 1 && !$loop_ok) {
			push @bad, "back-edge from insn $at to $w ("
			    . $insns->[ $index{$at} ][1] . ')';
		} elsif (!exists $state{$w}) {
			$state{$w} = 1;
			push @stack, [ $w, [ succ($insns, $index{$w}) ] ];
		}
	}
	return @bad;
}
