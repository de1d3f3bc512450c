#!/usr/bin/env bash
# unitsandbox.sh: runs a systemd unit's ExecStart= under the unit's sandbox where systemd is not
# PID 1 (this machine, CI, a chroot), so that a hardening setting that breaks the service fails
# a test. Each [Service] setting of the unit is either applied by the same kernel mechanism
# systemd uses, or listed below with why it is not (docs/contributing.md, "Packages"); a setting
# this script does not know stops it, so new hardening cannot go untested unnoticed.
#
#   unitsandbox.sh [options] UNIT [-- ARGS...]      (as root; ARGS are appended to ExecStart)
#     --program PATH=FILE   run FILE where ExecStart names PATH (the build's lanternd)
#     --unit-exec FILE      lantern-unit-exec (the seccomp filters, built from unitexec.cpp)
#     --env-file FILE       the contents of the unit's EnvironmentFile= for this run
#     --credentials DIR     the files LoadCredential= would pass ($CREDENTIALS_DIRECTORY)
#     --logs DIR            what LogsDirectory= gets (owned by the service's user for the run)
#     --file SRC=NAME       SRC (a unix socket, say) as /tmp/.unit/NAME inside, read-only
#     --replace SRC=DIR     DIR replaced by SRC, read-only (a test CA over /etc/ssl/certs)
#     --work DIR            scratch directory (required: the script ends in exec, so it cannot clean up)
#
# How: bwrap (bubblewrap) builds the file system view and namespaces, setpriv drops to an
# unprivileged user without capabilities, lantern-unit-exec installs the seccomp filters.
set -euo pipefail

die() { printf 'unitsandbox: %s\n' "$*" >&2; exit 125; }

declare -A programs=() files=() replaced=()
unit_exec='' env_file='' credentials='' logs='' work=''
while (($#)); do
    case $1 in
        --program) programs[${2%%=*}]=${2#*=}; shift 2 ;;
        --unit-exec) unit_exec=$2; shift 2 ;;
        --env-file) env_file=$2; shift 2 ;;
        --credentials) credentials=$2; shift 2 ;;
        --logs) logs=$2; shift 2 ;;
        --file) files[${2#*=}]=${2%%=*}; shift 2 ;;
        --replace) replaced[${2#*=}]=${2%%=*}; shift 2 ;;
        --work) work=$2; shift 2 ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
unit=${1:?usage: unitsandbox.sh [options] UNIT [-- ARGS...]}
shift
[[ ${1:-} == -- ]] && shift
extra_args=("$@")
[[ -x ${unit_exec} ]] || die "--unit-exec: ${unit_exec} is not executable"
((EUID == 0)) || die "run as root (the sandbox switches to an unprivileged user)"

# The [Service] settings, in order (a setting may repeat).
keys=() values=()
section=''
while IFS= read -r line || [[ -n ${line} ]]; do
    line=${line%%$'\r'}
    [[ ${line} =~ ^[[:space:]]*([#;]|$) ]] && continue
    if [[ ${line} =~ ^\[(.*)\]$ ]]; then section=${BASH_REMATCH[1]}; continue; fi
    [[ ${section} == Service ]] || continue
    keys+=("${line%%=*}")
    values+=("${line#*=}")
done <"${unit}"

# What each setting becomes here. "irrelevant": about the service's life, not its rights.
# "not emulated": the reason is the text (docs/contributing.md repeats it).
declare -A not_emulated=(
    [PrivateUsers]="bwrap, run as root, cannot map a second user; the service runs as a real unprivileged uid instead"
    [ProtectClock]="no CAP_SYS_TIME/CAP_WAKE_ALARM (dropped) and @clock is outside the filter; the rtc device rule is not reproduced"
    [RestrictRealtime]="sched_setscheduler is in @resources, which the unit's filter takes out"
    [RestrictSUIDSGID]="the service cannot create files outside its log directory; setuid bits do nothing under no_new_privs"
    [LockPersonality]="personality(2) is in the allow list; Qt and lanternd never call it"
    [RemoveIPC]="it cleans up after the service stops"
    [KeyringMode]="the kernel keyring is not shared by this script's runs"
    [IPAddressDeny]="needs a cgroup BPF program"
    [IPAddressAllow]="needs a cgroup BPF program"
)
declare -A irrelevant=([Type]=1 [KillSignal]=1 [TimeoutStopSec]=1 [Restart]=1 [RestartSec]=1)

uid=61934  # the dynamic user: an unused, unprivileged uid and gid
service=$(basename "${unit}" .service)
inside=/tmp/.unit
bwrap=(bwrap --die-with-parent --new-session --unshare-pid --unshare-uts --unshare-ipc --unshare-cgroup-try
       --ro-bind / / --proc /proc)
filters=() environment=() exec_start='' allow=() deny=() nofile=''
protect_system='' private_tmp=no private_devices=no protect_home=no
declare -A env=([PATH]=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin [LANG]=C.UTF-8 [HOME]=/ [SHELL]=/usr/sbin/nologin
                [USER]=${service} [LOGNAME]=${service})
env_order=()
set_env() { [[ -n ${env[$1]+x} ]] || env_order+=("$1"); env[$1]=$2; }
for name in "${!env[@]}"; do env_order+=("${name}"); done

expand_group() {  # NAME: the system calls of a @group (nested groups expanded) or NAME itself
    local name=$1 line
    if [[ ${name} != @* ]]; then printf '%s\n' "${name}"; return; fi
    while read -r line; do
        [[ -z ${line} || ${line} == \#* || ${line} == "${name}" ]] && continue
        expand_group "${line}"
    done < <(systemd-analyze syscall-filter "${name}")
}

for i in "${!keys[@]}"; do
    key=${keys[i]} value=${values[i]}
    case ${key} in
        ExecStart) exec_start=${value} ;;
        Environment)
            eval "assignments=(${value})"
            for assignment in "${assignments[@]}"; do set_env "${assignment%%=*}" "${assignment#*=}"; done ;;
        EnvironmentFile)
            [[ -n ${env_file} ]] || die "${unit} reads ${value}: give its contents with --env-file"
            while IFS= read -r line || [[ -n ${line} ]]; do
                [[ ${line} =~ ^[[:space:]]*([#;]|$) ]] && continue
                set_env "${line%%=*}" "${line#*=}"
            done <"${env_file}" ;;
        LoadCredential|SetCredential)
            [[ -n ${credentials} ]] || die "${unit} has ${key}=: give the files with --credentials" ;;
        DynamicUser|User) ;;  # setpriv below: a uid nobody else uses, no supplementary groups
        UMask) filters+=(--umask "${value}") ;;
        NoNewPrivileges) [[ ${value} == yes ]] || die "NoNewPrivileges=${value}: lantern-unit-exec always sets it" ;;
        CapabilityBoundingSet|AmbientCapabilities) [[ -z ${value} ]] || die "${key}=${value}: only an empty set is emulated" ;;
        ProtectSystem) protect_system=${value} ;;
        ProtectHome) protect_home=${value} ;;
        PrivateTmp) private_tmp=${value} ;;
        PrivateDevices) private_devices=${value} ;;
        DevicePolicy) [[ ${value} == closed ]] || die "DevicePolicy=${value}: only closed is emulated (with PrivateDevices)" ;;
        PrivateIPC|PrivateMounts|ProtectHostname) ;;  # --unshare-ipc, the mount namespace, --unshare-uts
        ProtectProc|ProcSubset) ;;  # a new pid namespace and its own /proc: it sees its own processes only
        ProtectKernelTunables|ProtectKernelModules|ProtectKernelLogs|ProtectControlGroups)
            ;;  # /proc/sys, /sys and /usr/lib/modules read-only, no capabilities, /dev without kmsg
        RestrictAddressFamilies)
            families=()
            for family in ${value}; do
                case ${family} in
                    AF_UNIX) families+=(1) ;; AF_INET) families+=(2) ;; AF_INET6) families+=(10) ;;
                    *) die "RestrictAddressFamilies: ${family} is not known here" ;;
                esac
            done
            filters+=(--families "$(IFS=,; echo "${families[*]}")") ;;
        RestrictNamespaces) [[ ${value} == yes ]] && filters+=(--restrict-namespaces) ;;
        MemoryDenyWriteExecute) [[ ${value} == yes ]] && filters+=(--deny-write-execute) ;;
        SystemCallArchitectures) [[ ${value} == native ]] || die "SystemCallArchitectures=${value}" ;;  # the filter is native-only
        SystemCallErrorNumber) filters+=(--errno "${value}") ;;
        SystemCallFilter)
            if [[ ${value} == \~* ]]; then
                for group in ${value#\~}; do mapfile -t -O "${#deny[@]}" deny < <(expand_group "${group}"); done
            else
                for group in ${value}; do mapfile -t -O "${#allow[@]}" allow < <(expand_group "${group}"); done
            fi ;;
        LogsDirectory)
            [[ -n ${logs} ]] || die "${unit} has LogsDirectory=: give a directory with --logs"
            chown "${uid}:${uid}" "${logs}"
            bwrap+=(--tmpfs /var/log --bind "${logs}" "/var/log/${value}")
            set_env LOGS_DIRECTORY "/var/log/${value}" ;;
        LimitNOFILE) nofile=${value} ;;
        *)
            if [[ -n ${not_emulated[${key}]:-} ]]; then
                printf 'unitsandbox: %s=%s not emulated: %s\n' "${key}" "${value}" "${not_emulated[${key}]}" >&2
            elif [[ -z ${irrelevant[${key}]:-} ]]; then
                die "${unit}: ${key}= is not known to this script; emulate it or say why it cannot be"
            fi ;;
    esac
done
[[ -n ${exec_start} ]] || die "${unit} has no ExecStart="
[[ ${protect_system} == strict ]] || die "ProtectSystem=${protect_system:-no}: only strict is emulated"

# The file system: / read-only (ProtectSystem=strict), then what the unit opens up or hides.
if [[ ${protect_home} == yes ]]; then
    for home in /home /root /run/user; do [[ -d ${home} ]] && bwrap+=(--tmpfs "${home}"); done
fi
[[ ${private_devices} == yes ]] && bwrap+=(--dev /dev)
[[ ${private_tmp} == yes ]] || die "PrivateTmp=no: this script keeps its files in a private /tmp"
bwrap+=(--tmpfs /tmp --tmpfs /var/tmp --dir "${inside}" --dir "${inside}/bin")
for name in "${!files[@]}"; do bwrap+=(--ro-bind "${files[${name}]}" "${inside}/${name}"); done
for target in "${!replaced[@]}"; do bwrap+=(--ro-bind "${replaced[${target}]}" "${target}"); done
if [[ -n ${credentials} ]]; then
    bwrap+=(--ro-bind "${credentials}" "${inside}/credentials")
    set_env CREDENTIALS_DIRECTORY "${inside}/credentials"
fi
bwrap+=(--ro-bind "${unit_exec}" "${inside}/bin/lantern-unit-exec")

# ExecStart: ${NAME} is one word, as systemd expands it; then the programs swapped for the build's.
command=()
for word in ${exec_start}; do
    while [[ ${word} =~ \$\{([A-Za-z_][A-Za-z0-9_]*)\} ]]; do
        word=${word/"${BASH_REMATCH[0]}"/${env[${BASH_REMATCH[1]}]:-}}
    done
    command+=("${word}")
done
if [[ -n ${programs[${command[0]}]:-} ]]; then
    bwrap+=(--ro-bind "${programs[${command[0]}]}" "${inside}/bin/$(basename "${command[0]}")")
    command[0]="${inside}/bin/$(basename "${command[0]}")"
fi
command+=("${extra_args[@]}")

bwrap+=(--clearenv)
for name in "${env_order[@]}"; do bwrap+=(--setenv "${name}" "${env[${name}]}"); done

# The system call allow list: the groups allowed, less the groups taken out.
[[ -d ${work} ]] || die "--work: give a scratch directory"
if ((${#allow[@]} > 0)); then
    comm -23 <(printf '%s\n' "${allow[@]}" | sort -u) <(printf '%s\n' "${deny[@]}" | sort -u) >"${work}/syscalls"
    bwrap+=(--ro-bind "${work}/syscalls" "${inside}/syscalls")
    filters+=(--allow "${inside}/syscalls")
fi

sandboxed=("${bwrap[@]}" --
    setpriv --reuid "${uid}" --regid "${uid}" --clear-groups --inh-caps=-all --bounding-set=-all --
    "${inside}/bin/lantern-unit-exec" "${filters[@]}" -- "${command[@]}")
# LimitNOFILE=: as asked, or as high as this machine lets root go (no CAP_SYS_RESOURCE in a container).
if [[ -n ${nofile} ]] && ! ulimit -n "${nofile}" 2>/dev/null; then
    ulimit -n "$(ulimit -Hn)"
    printf 'unitsandbox: LimitNOFILE=%s lowered to the hard limit here, %s\n' "${nofile}" "$(ulimit -n)" >&2
fi

# In a chroot (a fresh-debian root) "/" is no mount point, which bwrap needs: give it one first,
# in a mount namespace of its own.
if unshare -m true 2>/dev/null; then
    exec "${sandboxed[@]}"
fi
mkdir -p "${work}/root"
exec unshare -m --propagation unchanged -- bash -c \
    'mount --rbind / "$1" && mount --make-rprivate "$1" && cd "$1" && exec chroot . "${@:2}"' \
    -- "${work}/root" "${sandboxed[@]}"
