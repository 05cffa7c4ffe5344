# shellcheck shell=bash
# deps_install LABEL PKG...: install what of PKG... is missing, quietly.
# One line per step on stdout; apt's own output goes to a log, shown only
# when apt fails. Sourced by install-deps.sh and install-deps-vm.sh.

deps_install() {
	local label=$1 p status log
	shift
	local missing=()
	for p in "$@"; do
		status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ $status == "install ok installed" ]] || missing+=("$p")
	done
	if ((${#missing[@]} == 0)); then
		echo "install-deps: $label: all $# packages present"
		return 0
	fi
	if ((EUID != 0)); then
		echo "install-deps: $label: missing ${missing[*]}; run as root" >&2
		return 1
	fi
	log=$(mktemp /tmp/encbench-apt.XXXXXX)
	export DEBIAN_FRONTEND=noninteractive
	if apt-get update -qq >"$log" 2>&1 &&
		apt-get install -y -qq --no-install-recommends "${missing[@]}" \
			>>"$log" 2>&1; then
		echo "install-deps: $label: installed ${missing[*]}"
		rm -f "$log"
		return 0
	fi
	echo "install-deps: $label: apt-get failed installing ${missing[*]}:" >&2
	tail -n 20 "$log" >&2
	rm -f "$log"
	return 1
}
