#!/usr/bin/env bash
# Install every Debian 12 package that building, running, testing and
# benchmarking encbench-trace needs. Idempotent, and a fast no-op when all
# are present (dpkg-query only; apt-get runs only for what is missing).
set -euo pipefail

pkgs=(
	# build: BPF objects, skeletons, user space
	make gcc clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev pkg-config
	libcryptsetup-dev libjson-c-dev liburing-dev libsqlite3-dev
	# run: mkfs, loop devices, modules; Chart.js inlined into report.html
	e2fsprogs util-linux kmod libjs-chart.js
	# tests: cmocka (TAP output) run by prove (perl); biolatency, another
	# tracer whose programs share our programs' names, runs beside them;
	# script(1) gives the progress test a terminal; chromium opens
	# report.html headless; promtool (prometheus) checks OpenMetrics output;
	# make deb and its test: dpkg-shlibdeps, man, bash-completion
	libcmocka-dev perl libbpf-tools bsdutils chromium prometheus
	dpkg-dev man-db bash-completion
	# bench: reading results.json from shell; fio for the tracing-overhead
	# figure (beside libbpf-tools' biolatency, above)
	jq fio
)

missing=()
for p in "${pkgs[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]})); then
	if ((EUID != 0)); then
		echo "install-deps: missing ${missing[*]}; run as root" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The VM test harness (QEMU, busybox, ...) keeps its own list.
here=$(dirname "$(readlink -f "$0")")
if [[ -x $here/install-deps-vm.sh ]]; then
	"$here/install-deps-vm.sh"
fi
