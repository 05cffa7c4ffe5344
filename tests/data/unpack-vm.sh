#!/usr/bin/env bash
# Unpack record-vm.sh's output (a file, or stdin) into tests/data/vm61-KIND/
# (results.json and snapshots/ of each kind recorded). Refuses to replace a
# recording that is there: remove it first, on purpose.
set -euo pipefail
data=$(dirname "$0")
kind=''
while IFS= read -r line; do
	case $line in
	"=== begin "*)
		kind=${line#=== begin }
		[[ -e "$data/vm61-$kind" ]] && {
			echo "unpack-vm.sh: $data/vm61-$kind exists" >&2
			exit 1
		}
		: >"$data/.vm61-$kind.b64"
		;;
	"=== end "*)
		mkdir "$data/vm61-$kind"
		base64 -d "$data/.vm61-$kind.b64" | tar -C "$data/vm61-$kind" -xzf -
		rm "$data/.vm61-$kind.b64"
		echo "$data/vm61-$kind"
		kind=''
		;;
	*) [[ -n $kind ]] && printf '%s\n' "$line" >>"$data/.vm61-$kind.b64" ;;
	esac
done < "${1:-/dev/stdin}"
