# shellcheck shell=bash
# Helpers shared by scripts/run, scripts/test and scripts/services. Source it; do not execute it.
#
# The functions do their own error checking (`|| return`) so that they behave the same whether
# or not the caller runs with `set -e`.

# Repository root, resolved from this file's location so the scripts work from any directory.
ROOT="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"

# Debian 12 packages needed to build, test and run Lantern: the ones CMake names
# (cmake/LanternDependencies.cmake), the ones that provide LANTERN_TOOL_PACKAGES's commands, and the
# runtime ones (SQL drivers, fonts). Found by running scripts/test and scripts/run in a brand-new
# Debian 12 root (../shared/tools/fresh-debian); tests/harness/tst_dependencies.sh checks that the
# lists agree. docs/contributing.md says how to add one.
LANTERN_DEBIAN_PACKAGES=(
    build-essential cmake ninja-build pkg-config git
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev qt6-tools-dev qt6-tools-dev-tools
    qt6-l10n-tools qt6-translations-l10n
    libqt6sql6-mysql libqt6sql6-sqlite qtkeychain-qt6-dev
    libhiredis-dev libssl-dev openssl libhttp-parser-dev redis-server redis-tools libssh-dev openssh-server openssh-client
    mariadb-server mariadb-client
    xvfb wrk xauth fonts-noto-cjk dpkg dpkg-dev file desktop-file-utils ccache lld
    lintian systemd libseccomp-dev bubblewrap socat openssl curl man-db bsdextrautils util-linux mount
    prometheus nginx-light linux-perf time
)

# The commands the scripts run, each with the Debian 12 package that provides it.
declare -A LANTERN_TOOL_PACKAGES=(
    [cmake]=cmake [ninja]=ninja-build [c++]=build-essential [ccache]=ccache
    [redis-server]=redis-server [redis-cli]=redis-tools [redis-benchmark]=redis-tools
    [openssl]=openssl [sshd]=openssh-server [ssh-keygen]=openssh-client
    [mariadbd]=mariadb-server [mariadb-install-db]=mariadb-server
    [mariadb]=mariadb-client [mariadb-admin]=mariadb-client
    [xvfb-run]=xvfb [xauth]=xauth [wrk]=wrk
    [cpack]=cmake [dpkg-deb]=dpkg [dpkg-shlibdeps]=dpkg-dev [file]=file
    [desktop-file-validate]=desktop-file-utils
    [lintian]=lintian [systemd-analyze]=systemd [bwrap]=bubblewrap [socat]=socat [openssl]=openssl
    [curl]=curl [man]=man-db [col]=bsdextrautils [dpkg-parsechangelog]=dpkg-dev
    [setpriv]=util-linux [unshare]=util-linux [mount]=mount [promtool]=prometheus
    [perf]=linux-perf
)

lantern_log() {
    printf '==> %s\n' "$*" >&2
}

lantern_die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}

# lantern_require_tools TOOL...: stops with a message naming the Debian package of every TOOL that
# is not on PATH (TOOL must be a key of LANTERN_TOOL_PACKAGES).
lantern_require_tools() {
    local tool missing=() packages=()
    for tool in "$@"; do
        [[ -n ${LANTERN_TOOL_PACKAGES[${tool}]:-} ]] || lantern_die "lantern_require_tools: no Debian package known for ${tool}"
        if ! command -v "${tool}" >/dev/null 2>&1; then
            missing+=("${tool}")
            packages+=("${LANTERN_TOOL_PACKAGES[${tool}]}")
        fi
    done
    ((${#missing[@]} == 0)) && return 0
    lantern_die "not found: ${missing[*]}. On Debian 12 install them with:" \
        "apt-get install --no-install-recommends $(printf '%s\n' "${packages[@]}" | sort -u | tr '\n' ' ')"
}

# lantern_timed LABEL COMMAND [ARGS...]: runs COMMAND, then prints how long it took.
# Returns COMMAND's exit status.
lantern_timed() {
    local label=$1
    shift
    local start=$EPOCHREALTIME rc=0
    lantern_log "${label}"
    "$@" || rc=$?
    local end=$EPOCHREALTIME
    # EPOCHREALTIME is "seconds.microseconds" (the separator follows the locale); compute in ms.
    local ms=$(( (10#${end%[.,]*} - 10#${start%[.,]*}) * 1000 + (10#${end#*[.,]} - 10#${start#*[.,]}) / 1000 ))
    local status=ok
    ((rc == 0)) || status="FAILED (exit ${rc})"
    printf '==> %s: %s in %d.%03ds\n' "${label}" "${status}" $((ms / 1000)) $((ms % 1000)) >&2
    return "${rc}"
}

# Prints the packages of LANTERN_DEBIAN_PACKAGES that are not installed, one per line.
lantern_missing_packages() {
    local -A installed=()
    local pkg state
    # One dpkg-query for all of them; unknown packages only produce a message on stderr.
    while read -r pkg state; do
        if [[ ${state} == installed ]]; then
            installed[${pkg%%:*}]=1
        fi
    done < <(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${LANTERN_DEBIAN_PACKAGES[@]}" 2>/dev/null)
    for pkg in "${LANTERN_DEBIAN_PACKAGES[@]}"; do
        if [[ -z ${installed[${pkg}]:-} ]]; then
            printf '%s\n' "${pkg}"
        fi
    done
}

# Installs the missing Debian packages. Does nothing (and never calls apt) when all are present.
# Not root: prints the one command to run and exits 1.
lantern_install_deps() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        lantern_log "dpkg-query not found: this is not a Debian system. Install the equivalents of:"
        printf '  %s\n' "${LANTERN_DEBIAN_PACKAGES[*]}" >&2
        exit 1
    fi

    local missing=()
    mapfile -t missing < <(lantern_missing_packages)
    ((${#missing[@]} == 0)) && return 0

    if ((EUID != 0)); then
        printf 'Missing Debian packages. Run this once, then try again:\n\n' >&2
        printf 'sudo apt-get install -y --no-install-recommends %s\n' "${missing[*]}"
        exit 1
    fi

    lantern_log "installing missing Debian packages: ${missing[*]}"
    if [[ -z ${LANTERN_APT_UPDATED:-} ]]; then
        apt-get update </dev/null || return
        LANTERN_APT_UPDATED=1
    fi
    # The prometheus package is here for its promtool only: its maintainer scripts must not start
    # a Prometheus server on :9090 (where systemd is PID 1 its postinst starts prometheus.service).
    # A policy-rc.d of our own, which deb-systemd-invoke and invoke-rc.d both obey, refuses that
    # one service for this install, unless the system already has a policy. For every other
    # service it answers what invoke-rc.d decides without a policy: allowed where there is an init
    # system, refused where there is none (a chroot or a container: with "allowed" there, the
    # MariaDB and Redis packages started servers that outlived the root and held its ports).
    local policy=/usr/sbin/policy-rc.d own_policy=
    if [[ ! -e ${policy} ]]; then
        printf '%s\n' '#!/bin/sh' '# lantern_install_deps: no Prometheus server, only its promtool' \
            '[ "$1" = prometheus ] && exit 101' '[ -e /sbin/init ] || exit 101' 'exit 0' >"${policy}" &&
            chmod 755 "${policy}" && own_policy=1
    fi
    local rc=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" </dev/null || rc=$?
    [[ -n ${own_policy} ]] && rm -f -- "${policy}"
    ((rc == 0)) || return "${rc}"

    mapfile -t missing < <(lantern_missing_packages)
    if ((${#missing[@]} != 0)); then
        lantern_log "still missing after apt-get install: ${missing[*]}"
        return 1
    fi
}

# lantern_build [BUILD_TYPE]: configures build/ with Ninja (default RelWithDebInfo) when needed,
# then builds everything.
lantern_build() {
    local build_type=${1:-RelWithDebInfo}
    local build="${ROOT}/build"
    lantern_require_tools cmake ninja c++
    if [[ ! -f "${build}/CMakeCache.txt" ]]; then
        cmake -S "${ROOT}" -B "${build}" -G Ninja -DCMAKE_BUILD_TYPE="${build_type}" || return
    elif [[ ! -f "${build}/build.ninja" && ! -f "${build}/Makefile" ]]; then
        # The last configure failed (a cache but no build files): configure again, keeping the
        # cached generator and settings.
        cmake -S "${ROOT}" -B "${build}" ${1:+-DCMAKE_BUILD_TYPE="${build_type}"} || return
    elif [[ -n ${1:-} ]] && ! grep -qx "CMAKE_BUILD_TYPE:[A-Z]*=${build_type}" "${build}/CMakeCache.txt"; then
        # An explicit, different build type was asked for: reconfigure the existing tree.
        cmake -S "${ROOT}" -B "${build}" -DCMAKE_BUILD_TYPE="${build_type}" || return
    fi
    cmake --build "${build}" -j"$(nproc)" || return
}
