#!/usr/bin/env bash
# TAP (run by prove): every example command in README.md and docs/*.md
# still parses. An example is a line of a fenced block (``` or ```sh,
# ```console, ```bash; not ```text, where synopses with [OPTIONS] and the
# program's output live)
# that starts with `encbench-trace`, after an optional `$ `, `sudo ` or
# `./`; a line ending in `\` goes on on the next. What follows a pipe,
# `&&`, `;`, a redirection or a comment is not the example's. Each is run
# as `encbench-trace --check-args ...` (the shell splits and expands it as a
# reader's would, without globbing): that checks the command line as the
# command would and exits before it does anything, so an example naming an
# option that is gone, or a value that no longer parses, fails here. The
# checker is first shown to fail on an example that is wrong.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
bin=$(readlink -f "${ENCBENCH_BIN:-./encbench-trace}")
if [[ ! -x $bin ]]; then
	echo "Bail out! no program at $bin: run 'make'"
	exit 1
fi

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }

# FILE -> "FILE:LINE<TAB>COMMAND" per example.
examples() {
	awk -v file="$1" '
		/^```/ {
			if (fence) { fence = 0; next }
			fence = 1; checked = ($0 ~ /^```(sh|bash|console)?[ \t]*$/)
			next
		}
		!fence || !checked { next }
		cont != "" { cmd = cmd " " $0; sub(/\\$/, "", cmd)
			if ($0 !~ /\\$/) { print at "\t" cmd; cont = "" } ; next }
		{
			line = $0
			sub(/^\$ /, "", line); sub(/^sudo /, "", line)
			sub(/^\.\//, "", line)
			if (line !~ /^encbench-trace( |$)/) next
			at = file ":" NR; cmd = line
			if (line ~ /\\$/) { sub(/\\$/, "", cmd); cont = "y"; next }
			print at "\t" cmd
		}' "$1"
}

# The command line of an example, as the shell would split it, checked.
# 0 when it parses; its complaint on stdout otherwise.
check() {
	local cmd=$1
	# Only the example's own words: not what a pipe, a list, a
	# redirection or a comment adds.
	cmd=${cmd%%|*}
	cmd=${cmd%%&&*}
	cmd=${cmd%%;*}
	cmd=${cmd%% #*}
	cmd=${cmd%%>*}
	if [[ $cmd == *'$('* || $cmd == *'`'* ]]; then
		echo "an example with a command substitution cannot be checked"
		return 1
	fi
	cmd=${cmd#encbench-trace}
	(
		set -f
		eval "set -- $cmd" 2>&1 || exit 1
		# An example of --check-args itself is checked as it is.
		[[ ${1:-} == --check-args ]] && shift
		"$bin" --check-args "$@" 2>&1 </dev/null
	)
}

# Each example of the given files, one TAP line each; how many there were
# in $count, how many failed in $failed.
check_files() {
	local at cmd why
	count=0 failed=0
	while IFS=$'\t' read -r at cmd; do
		count=$((count + 1))
		if why=$(check "$cmd"); then
			ok "$at: $cmd"
		else
			failed=$((failed + 1))
			not_ok "$at: $cmd"
			echo "# $why"
		fi
	done < <(for f in "$@"; do examples "$f"; done)
}

# The checker itself: a wrong example fails, a right one passes, and a
# synopsis (```text) or a shell line is not taken for one.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/doc.md" <<'DOC'
```
sudo encbench-trace run --size 64M --no-such-option
$ encbench-trace report --full encbench-results/x | less
encbench-trace trace --path /mnt \
    -- cp a b
make run
```
```text
encbench-trace run [--size SIZE] [--runs N|auto]
```
DOC
mapfile -t got < <(examples "$tmp/doc.md")
if ((${#got[@]} == 3)) &&
	! check "$(cut -f2 <<<"${got[0]}")" >/dev/null &&
	check "$(cut -f2 <<<"${got[1]}")" >/dev/null &&
	check "$(cut -f2 <<<"${got[2]}")" >/dev/null; then
	ok "the checker: a removed option fails, a right line with a pipe and one over two lines pass, a synopsis is not an example"
else
	not_ok "the checker: a removed option fails, a right line with a pipe and one over two lines pass, a synopsis is not an example (${#got[@]} examples: ${got[*]})"
fi

check_files README.md docs/*.md
# README's handful and the pages' own: fewer would mean the extraction
# stopped finding them.
if ((count >= 10)); then
	ok "$count example commands found in README.md and docs/"
else
	not_ok "only $count example commands found in README.md and docs/"
fi
echo "1..$n"
