# shellcheck shell=bash
# ZFS for the guest (sourced by scripts/vm/run --zfs): Debian 12 ships OpenZFS
# only as source (zfs-dkms, contrib). Build its modules once per guest kernel
# and ZFS version against the matching linux-headers package, without
# installing anything on the host (whose kernel has no ZFS and which dkms
# would try to build for), and unpack the user-space tools (zpool, zfs,
# mount.zfs) and their libraries next to them for the guest to copy in.
#
# Cache layout, next to the kernel's ($VM_CACHE/<kver>/, see lib.sh):
#   zfs-<zfs deb version>/modules/*.ko  the built modules
#   zfs-<zfs deb version>/load-order    module file names, dependencies first
#   zfs-<zfs deb version>/root/         zfsutils-linux and its libraries, unpacked
#   zfs-<zfs deb version>/build.log     the configure + make output
#   zfs-<zfs deb version>/build-seconds how long the build took here
#   zfs-<zfs deb version>/.complete     written last
# Debian keeps a kernel ABI name (6.1.0-N-amd64) only while modules built
# against any of its packages load in all of them, so <kver> plus the ZFS
# package version is the whole key.

ZFS_CACHE_VERSION=1 # bump when the layout changes: old folders are redone

# The user-space packages the guest needs (zfsutils-linux's Depends in the
# contrib component; the rest of its dependencies are on the host already).
ZFS_USER_PKGS=(zfsutils-linux libzfs4linux libzpool5linux libnvpair3linux libuutil3linux)

# Print the candidate version of zfs-dkms, enabling contrib first if needed.
vm_zfs_version() {
    local v
    v=$(apt-cache policy zfs-dkms 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }')
    if [[ -z "$v" ]]; then
        "$here/../install-deps-vm.sh" --zfs >&2 || vm_die "cannot enable Debian's contrib component for zfs-dkms"
        v=$(apt-cache policy zfs-dkms 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }')
    fi
    [[ -n "$v" ]] || vm_die "zfs-dkms not found in Debian's contrib component"
    printf '%s\n' "$v"
}

# Download packages $2... into folder $1; stale lists get one refresh.
vm_zfs_download() {
    local dir=$1
    shift
    mkdir -p "$dir"
    chmod 0777 "$dir" # _apt downloads as itself
    if ! (cd "$dir" && apt-get download -q "$@" >&2); then
        apt-get update -qq >&2 || true
        (cd "$dir" && apt-get download -q "$@" >&2) || vm_die "apt-get download $* failed"
    fi
}

# Print "Linux-Maximum" of the ZFS source (the newest kernel series it supports).
vm_zfs_max_kernel() {
    awk '$1 == "Linux-Maximum:" { print $2 }' "$1/META"
}

# Is kernel series $1 (e.g. 6.1) newer than $2 (e.g. 6.2)?
vm_series_newer() {
    [[ "$1" != "$2" && "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" == "$1" ]]
}

# Build the modules for $kver into $zdir. Runs under the kernel cache's lock.
vm_zfs_build() {
    local kver=$1 zdir=$2 zver=$3 build src hdr common start max deb m
    build="$zdir/build"
    rm -rf "$zdir/modules" "$zdir/root" "$zdir/load-order" "$build" "$zdir/.complete"
    mkdir -p "$build/dl" "$build/x" "$zdir/modules" "$zdir/root"
    vm_err "building OpenZFS $zver for $kver (once, ~10-20 min on 2 cores; cached in $zdir)"
    start=$SECONDS
    vm_zfs_download "$build/dl" "zfs-dkms=$zver" "linux-headers-$kver" \
        "${ZFS_USER_PKGS[@]/%/=$zver}"
    # The headers package names its -common and linux-kbuild siblings.
    local deps
    deps=$(dpkg-deb -f "$build"/dl/linux-headers-"$kver"_*.deb Depends | tr ',' '\n' |
        awk '$1 ~ /^linux-(headers-.*-common|kbuild-)/ { print $1 }')
    [[ -n "$deps" ]] || vm_die "linux-headers-$kver names no -common/-kbuild package"
    # shellcheck disable=SC2086 # one package per word
    vm_zfs_download "$build/dl" $deps
    for deb in "$build"/dl/*.deb; do
        case "${deb##*/}" in
        zfs-dkms_* | linux-*) dpkg-deb -x "$deb" "$build/x" ;;
        *) dpkg-deb -x "$deb" "$zdir/root" ;;
        esac
    done
    src=$(find "$build/x/usr/src" -maxdepth 1 -name 'zfs-*' | head -n 1)
    hdr="$build/x/usr/src/linux-headers-$kver"
    [[ -n "$src" && -f "$hdr/Makefile" ]] || vm_die "zfs-dkms or linux-headers-$kver unpacked without sources"
    max=$(vm_zfs_max_kernel "$src")
    # The flavour's Makefile includes the -common one by its installed path.
    common=$(awk '$1 == "include" { print $2 }' "$hdr/Makefile")
    [[ "$common" == /usr/src/* ]] || vm_die "unexpected $hdr/Makefile"
    sed -i "s|^include /usr/src/|include $build/x/usr/src/|" "$hdr/Makefile"
    common="$build/x$common"
    common=${common%/Makefile}
    # configure runs some hundred kernel API checks (most of the time), then
    # make builds only the modules (--with-config=kernel).
    if ! (cd "$src" &&
        ./configure --with-config=kernel --with-linux="$common" --with-linux-obj="$hdr" &&
        make -j"$(nproc)") >"$zdir/build.log" 2>&1; then
        vm_die "OpenZFS build for $kver failed (Linux-Maximum ${max:-?}); see $zdir/build.log"
    fi
    while read -r m; do cp "$m" "$zdir/modules/"; done < <(find "$src/module" -name '*.ko')
    # As dkms does: without debug info zfs.ko is 5 MB instead of 65 MB,
    # which the guest reads over 9p at every boot.
    strip --strip-debug "$zdir"/modules/*.ko
    vm_zfs_load_order "$zdir" "$kver"
    echo $((SECONDS - start)) >"$zdir/build-seconds"
    rm -rf "$build"
    vm_err "OpenZFS $zver for $kver built in $(cat "$zdir/build-seconds") s"
}

# Write $1/load-order: the built modules, each after the ones it depends on
# (modinfo's depends; ZFS's own modules only, the rest is in the kernel).
vm_zfs_load_order() {
    local zdir=$1 m dep
    local -A done_=() deps=()
    local -a todo=()
    for m in "$zdir"/modules/*.ko; do
        m=${m##*/}
        m=${m%.ko}
        todo+=("$m")
        deps[$m]=$(modinfo -F depends "$zdir/modules/$m.ko" | tr ',' ' ')
    done
    : >"$zdir/load-order"
    local progress=1
    while ((progress)); do
        progress=0
        for m in "${todo[@]}"; do
            [[ -z "${done_[$m]:-}" ]] || continue
            for dep in ${deps[$m]}; do
                # Dependencies outside ZFS are the kernel's own: modprobe them.
                [[ -f "$zdir/modules/$dep.ko" && -z "${done_[$dep]:-}" ]] && continue 2
            done
            echo "$m.ko ${deps[$m]}" >>"$zdir/load-order"
            done_[$m]=1
            progress=1
        done
    done
    (($(wc -l <"$zdir/load-order") == ${#todo[@]})) || vm_die "cyclic ZFS module dependencies"
}

# For scripts/vm/run --zfs: set VM_ZFS_DIR (ready cache folder) or
# VM_ZFS_SKIP (why the guest gets no ZFS). $1 series, $2 kver, $3 kernel cache.
vm_prepare_zfs() {
    local series=$1 kver=$2 kdir=$3 zver zdir fd max meta
    VM_ZFS_DIR='' VM_ZFS_SKIP=''
    zver=$(vm_zfs_version)
    zdir="$kdir/zfs-$zver"
    mkdir -p "$zdir"
    exec {fd}>"$zdir/.lock"
    flock "$fd"
    # Linux-Maximum from the source's META, read once per ZFS version.
    meta="$kdir/../zfs-$zver.linux-maximum"
    if [[ ! -s "$meta" ]]; then
        local tmp
        tmp=$(mktemp -d)
        vm_zfs_download "$tmp" "zfs-dkms=$zver"
        dpkg-deb --fsys-tarfile "$tmp"/zfs-dkms_*.deb | tar -xO --wildcards '*/META' |
            awk '$1 == "Linux-Maximum:" { print $2 }' >"$meta.tmp"
        rm -rf "$tmp"
        [[ -s "$meta.tmp" ]] || vm_die "zfs-dkms $zver has no Linux-Maximum in META"
        mv "$meta.tmp" "$meta"
    fi
    max=$(cat "$meta")
    if vm_series_newer "$series" "$max"; then
        VM_ZFS_SKIP="OpenZFS ${zver%%-*} supports Linux up to $max; this guest runs $kver"
    elif [[ "$(cat "$zdir/.complete" 2>/dev/null)" != "$ZFS_CACHE_VERSION" ]]; then
        vm_zfs_build "$kver" "$zdir" "$zver"
        echo "$ZFS_CACHE_VERSION" >"$zdir/.complete"
    fi
    exec {fd}>&-
    [[ -n "$VM_ZFS_SKIP" ]] || VM_ZFS_DIR=$zdir
}
