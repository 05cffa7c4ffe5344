#!/usr/bin/env bash
# `make deb`: build/encbench-trace_<version>_<arch>.deb with dpkg-deb alone
# (no debhelper): the program, its man page and bash completion under /usr.
# Depends: the libraries it links, as dpkg-shlibdeps finds them, and the
# tools it runs; a new runtime tool goes here and into install-deps.sh.
set -euo pipefail

version=$1
tools="e2fsprogs, kmod, util-linux, fio"
# report.html's charts; the build workload's compiler and make (without
# them it is refused with that reason)
recommends="libjs-chart.js, gcc, make"

cd "$(dirname "$0")/.."
deb=build/deb
root=$deb/root
rm -rf "$deb"
mkdir -p "$root/DEBIAN" "$deb/shlibs/debian"
make --no-print-directory install DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null
gzip -9n "$root/usr/share/man/man1/encbench-trace.1"

# dpkg-shlibdeps wants a debian/control to read: give it one of its own.
printf 'Source: encbench-trace\n\nPackage: encbench-trace\nArchitecture: any\n' \
	>"$deb/shlibs/debian/control"
libs=$(cd "$deb/shlibs" &&
	dpkg-shlibdeps -O "$OLDPWD/$root/usr/sbin/encbench-trace" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[[ -n $libs ]] || { echo "mkdeb: dpkg-shlibdeps found no libraries" >&2; exit 1; }

arch=$(dpkg --print-architecture)
size=$(du -sk "$root/usr" | cut -f1)
cat >"$root/DEBIAN/control" <<CONTROL
Package: encbench-trace
Version: $version
Architecture: $arch
Maintainer: encbench-trace developers <encbench-trace@localhost>
Installed-Size: $size
Depends: $libs, $tools
Recommends: $recommends
Section: admin
Priority: optional
Description: what disk encryption costs here, and where the time goes
 Builds plain and encrypted storage targets on loop devices, runs the same
 workloads on each, reports every penalty with a 95 % confidence interval,
 and attributes each I/O's latency to kernel layers with CO-RE BPF.
CONTROL
out=build/encbench-trace_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$out" >/dev/null
echo "$out"
