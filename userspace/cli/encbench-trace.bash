# SPDX-License-Identifier: MIT
# bash completion for encbench-trace: commands, their options, the target
# and workload names `run --help` lists, and files or folders where an
# option takes one.

_encbench_trace_names()
{
	# `run --help`: the target kinds, "  NAME  what it is" lines of its
	# "Target kinds" section, or the workloads, its "Workload NAME:"
	# headings.
	"$1" run --help 2>/dev/null |
		awk -v what="$2" '
			what == "Targets" && /^ Target kinds/ { on = 1; next }
			on && /^$/ { exit }
			on && /^  [^ ]/ { print $1 }
			what == "Workloads" && /^ Workload [^ ]+:/ {
				sub(/:$/, "", $2); print $2 }'
}

# The workloads' own options: the "--fio-rw=RW" lines under the "Workload"
# headings of `run --help` (the last groups, before -h).
_encbench_trace_workload_opts()
{
	"$1" run --help 2>/dev/null |
		awk '/^ Workload / { on = 1 } /^  -h, --help/ { exit }
			on && $1 ~ /^--/ { sub(/=.*/, "", $1); print $1 }'
}

_encbench_trace()
{
	local cur prev words cword cmd list
	_init_completion || return

	# --check-args COMMAND ...: completed as COMMAND ... is.
	local first=1
	[[ ${words[1]} == --check-args ]] && first=2
	if ((cword == first)); then
		list="run tune setup teardown probe report merge trace compare"
		((first == 1)) && list+=" --check-args --help --version"
		COMPREPLY=($(compgen -W "$list" -- "$cur"))
		return
	fi
	cmd=${words[first]}
	case $prev in
	-o | --output | --scratch | -p | --path | --cgroup)
		_filedir -d
		return
		;;
	--html)
		[[ $cmd == merge || $cmd == compare ]] && {
			_filedir -d
			return
		}
		;;
	--prometheus)
		_filedir prom
		return
		;;
	--key-file)
		_filedir
		return
		;;
	-s | --size | --room | -n | --runs | --luks-cipher | --luks-key-size | \
		--scale | --stable | --min-runs | --max-runs | --trace-runs | --baseline)
		return
		;;
	--target)
		# NAME=PATH: a folder after the "=".
		[[ $cur == *=* ]] || return
		local name=${cur%%=*}=
		cur=${cur#*=}
		_filedir -d
		COMPREPLY=("${COMPREPLY[@]/#/$name}")
		return
		;;
	--preset)
		COMPREPLY=($(compgen -W "luks-cp zfs-dd phoronix" -- "$cur"))
		return
		;;
	-k | --kind)
		COMPREPLY=($(compgen -W "luks2 fscrypt zfs ecryptfs" -- "$cur"))
		return
		;;
	--budget)
		return
		;;
	--axes | --cross)
		# Axes of the --kind given (fscrypt when none).
		local kind=fscrypt i
		for ((i = 2; i < cword; i++)); do
			[[ ${words[i]} == -k || ${words[i]} == --kind ]] &&
				kind=${words[i + 1]}
		done
		case $kind in
		luks2) list="cipher sector flags" ;;
		zfs) list="encryption recordsize" ;;
		ecryptfs) list="key cipher" ;;
		*) list="block dataunit contents inlinecrypt" ;;
		esac
		local prefix=${cur%,*}
		[[ $cur == *,* ]] && prefix+=, || prefix=
		COMPREPLY=($(compgen -P "$prefix" -W "$list" -- "${cur##*,}"))
		compopt -o nospace
		return
		;;
	--luks-sector-size)
		COMPREPLY=($(compgen -W "512 4096" -- "$cur"))
		return
		;;
	--luks-flags)
		COMPREPLY=($(compgen -W "no_read_workqueue no_write_workqueue
			same_cpu_crypt submit_from_crypt_cpus" -- "$cur"))
		return
		;;
	--zfs-encryption)
		COMPREPLY=($(compgen -W "aes-128-ccm aes-192-ccm aes-256-ccm
			aes-128-gcm aes-192-gcm aes-256-gcm" -- "$cur"))
		return
		;;
	--zfs-keyformat)
		COMPREPLY=($(compgen -W "raw passphrase" -- "$cur"))
		return
		;;
	--zfs-compression)
		COMPREPLY=($(compgen -W "off on lz4 lzjb zle gzip zstd
			zstd-fast" -- "$cur"))
		return
		;;
	--fio-rw)
		COMPREPLY=($(compgen -W "randread randwrite read write" -- "$cur"))
		return
		;;
	--fio-engine)
		COMPREPLY=($(compgen -W "io_uring libaio posixaio psync sync" \
			-- "$cur"))
		return
		;;
	--fio-job)
		# fio's stock job files first, where fio-examples is installed
		local ex=/usr/share/doc/fio/examples
		COMPREPLY=($(compgen -f -X '!*.fio' -- "$cur"))
		[[ -d $ex && $cur != */* ]] &&
			COMPREPLY+=($(compgen -f -- "$ex/$cur" | grep '\.fio$'))
		return
		;;
	-t | --targets | -w | --workloads)
		[[ $prev == -t || $prev == --targets ]] && list=Targets ||
			list=Workloads
		local prefix=${cur%,*}
		[[ $cur == *,* ]] && prefix+=, || prefix=
		COMPREPLY=($(compgen -P "$prefix" -W \
			"$(_encbench_trace_names "${words[0]}" $list)" \
			-- "${cur##*,}"))
		compopt -o nospace
		return
		;;
	--*-*)
		# Any other workload option takes a value (last: the ones
		# above have their own).
		[[ $cmd == run || $cmd == tune ]] &&
			_encbench_trace_workload_opts "${words[0]}" |
			grep -qx -- "$prev" && return
		;;
	esac
	case $cmd in
	run)
		COMPREPLY=($(compgen -W "--size --room --runs --targets --target
			--baseline --workloads --output --scratch --no-trace --trace-runs
			--syscall-tracepoints
			--no-drop-caches --luks-cipher --luks-key-size --luks-sector-size
			--luks-flags --zfs-encryption --zfs-keyformat
			--zfs-compression --quiet --verbose --html --prometheus
			--timeline --json --preset --scale --stable --min-runs --max-runs --help
			$(_encbench_trace_workload_opts "${words[0]}")" -- "$cur"))
		;;
	tune)
		COMPREPLY=($(compgen -W "--kind --budget --axes --cross --target
			--allow-refresh --key-file --size --runs --workloads --output --scratch --no-trace
			--no-drop-caches --luks-cipher --luks-key-size
			--luks-sector-size --luks-flags --quiet --html --prometheus
			--timeline --json --scale --stable --min-runs --max-runs
			--help $(_encbench_trace_workload_opts "${words[0]}")" \
			-- "$cur"))
		;;
	setup)
		COMPREPLY=($(compgen -W "--targets --size --room --scratch
			--luks-cipher --luks-key-size --luks-sector-size
			--luks-flags --zfs-encryption --zfs-keyformat
			--zfs-compression --quiet --help" -- "$cur"))
		;;
	teardown)
		COMPREPLY=($(compgen -W "--key-file --help" -- "$cur"))
		;;
	probe)
		COMPREPLY=($(compgen -W "--json --help" -- "$cur"))
		;;
	trace)
		COMPREPLY=($(compgen -W "--path --dev --pid --cgroup --duration
			--output --json --quiet --verbose --help" -- "$cur"))
		;;
	report | merge)
		if [[ $cur == -* ]]; then
			[[ $cmd == report ]] &&
				list="--full --hist --html --prometheus --reanalyze -o
					--output --help" ||
				list="--html --help"
			COMPREPLY=($(compgen -W "$list" -- "$cur"))
		else
			_filedir '@(json)'
		fi
		;;
	compare)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--json --html --help" -- "$cur"))
		else
			_filedir '@(json|csv)'
		fi
		;;
	esac
}
complete -F _encbench_trace encbench-trace
