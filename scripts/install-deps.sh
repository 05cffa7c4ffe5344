#!/usr/bin/env bash
# Install the Debian 12 packages encbench-trace needs, quietly (one line per
# step): `install-deps.sh` (or `run`) for building and running it,
# `install-deps.sh check` for its tests too, the QEMU harness of the VM tests
# included. Idempotent, and a fast no-op when all are present (dpkg-query
# only; apt-get runs only for what is missing).
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
# shellcheck source=scripts/deps-lib.sh
. "$here/deps-lib.sh"

build_run=(
	# build: BPF objects, skeletons, user space
	make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config
	libcryptsetup-dev libjson-c-dev liburing-dev libsqlite3-dev
	# run: mkfs, loop devices, modules; Chart.js inlined into report.html;
	# fio for the fio workload
	e2fsprogs util-linux kmod libjs-chart.js fio
	# run: the server workloads, pgbench (PostgreSQL's server, initdb,
	# pgbench, psql) and nginx (with wrk as its client); each runs its
	# own private server, never the one Debian's packages set up
	postgresql postgresql-contrib nginx wrk
)
checks=(
	# tests: cmocka (TAP output) run by prove (perl); biolatency, another
	# tracer whose programs share our programs' names, runs beside them;
	# script(1) gives the progress test a terminal; chromium opens
	# report.html headless; promtool (prometheus) checks OpenMetrics output;
	# make deb and its test: dpkg-shlibdeps, man, bash-completion
	libcmocka-dev perl libbpf-tools bsdutils chromium prometheus
	dpkg-dev man-db bash-completion
	# make sanitize and make fuzz: clang's ASan/UBSan and libFuzzer runtimes
	libclang-rt-14-dev
	# bench: reading results.json from shell (fio, in build_run, gives the
	# tracing-overhead figure beside libbpf-tools' biolatency, above)
	jq
	# fio's stock job files (/usr/share/doc/fio/examples), run as users
	# have them by the --fio-job tests
	fio-examples
)

case ${1:-run} in
run)
	deps_install "build and run" "${build_run[@]}"
	;;
check)
	deps_install "build and run" "${build_run[@]}"
	deps_install "tests" "${checks[@]}"
	# The VM test harness (QEMU, busybox, ...) keeps its own list.
	"$here/install-deps-vm.sh"
	;;
*)
	echo "usage: install-deps.sh [run|check]" >&2
	exit 2
	;;
esac
