#!/usr/bin/env bash
# TAP (run by prove): a fresh machine's `make run` and `make check` say
# nothing that looks like an error before install-deps.sh has run. There,
# pkg-config and the -dev packages are missing, and pkg-config used to run
# while the Makefile was read ("Package libbpf was not found in the
# pkg-config search path", five times, before anything was installed).
# A pkg-config that finds nothing stands in for the fresh machine: it says
# what the real one says there, and records how many lines make had
# printed when it was called. `make -n` prints the commands it would run
# without running them, except the sub-make of the build, which it runs
# (also with -n): install-deps.sh's line must come first, and pkg-config
# may be asked only after it. Then, with the real pkg-config, the build's
# commands must still carry its flags.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/empty" "$tmp/src"
# A clean copy of the tree, as a fresh clone has it (no build/): the
# build's sub-make then has everything to compile, and asks pkg-config.
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$tmp/src"
cat >"$tmp/bin/pkg-config" <<FAKE
#!/bin/sh
echo "\$(wc -l <"$tmp/out" 2>/dev/null || echo 0) \$*" >>"$tmp/calls"
echo "Package libbpf was not found in the pkg-config search path." >&2
exit 1
FAKE
chmod +x "$tmp/bin/pkg-config"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	sed 's/^/# /' "$tmp/out" "$tmp/err" | head -20
	[[ -f $tmp/calls ]] && sed 's/^/# pkg-config called: /' "$tmp/calls"
}
# Error-looking lines, as a newcomer would read them.
errorish='not found|No package|Perhaps you should|[Ee]rror|No such file'

# make -n GOAL with the fake pkg-config; out and err apart.
fresh_make() {
	rm -f "$tmp/calls"
	: >"$tmp/out"
	PATH="$tmp/bin:$PATH" PKG_CONFIG_LIBDIR="$tmp/empty" PKG_CONFIG_PATH= \
		make --no-print-directory -n "$@" >"$tmp/out" 2>"$tmp/err"
}

for goal in deps deps-check; do
	fresh_make "$goal"
	if [[ ! -s $tmp/calls ]] && ! grep -Eq "$errorish" "$tmp/out" "$tmp/err"; then
		ok "make $goal: pkg-config never asked, nothing error-looking"
	else
		not_ok "make $goal: pkg-config never asked, nothing error-looking"
	fi
done

for goal in run check; do
	want="scripts/install-deps.sh $([[ $goal == run ]] && echo run || echo check)"
	fresh_make -C "$tmp/src" "$goal"
	first=$(head -n 1 "$tmp/out")
	# Every call of pkg-config came after make printed at least that line
	# (and there were calls: the build's sub-make makes them, after it).
	early=$(awk '$1 < 1' "$tmp/calls" 2>/dev/null | wc -l)
	if [[ $first == "$want" ]] && ((early == 0)) && [[ -s $tmp/calls ]]; then
		ok "make $goal: '$want' first, pkg-config only after it"
	else
		not_ok "make $goal: '$want' first, pkg-config only after it (first: '$first', $early early calls)"
	fi
done

# Once the dependencies are there, the flags are pkg-config's again.
if make --no-print-directory -n -B build/userspace/report/text.o "$(make --no-print-directory -s -n -p 2>/dev/null | sed -n 's/^BIN *:= *//p' | head -1)" >"$tmp/out" 2>"$tmp/err"; then
	cflags=$(pkg-config --cflags json-c)
	libs=$(pkg-config --libs libbpf)
	if grep -q -- "${cflags%% *}" "$tmp/out" && grep -q -- "$libs" "$tmp/out"; then
		ok "with pkg-config: compiles carry '${cflags%% *}', the link '$libs'"
	else
		not_ok "with pkg-config: compiles carry its cflags and the link its libs"
	fi
else
	not_ok "make -n of an object and the program"
fi
echo "1..$n"
