#!/usr/bin/env bash
# What each Redis persistence mode costs a grab (issue 15), side by side in one run: three private
# redis-servers on this machine (no AOF: the baseline; appendonly + appendfsync everysec;
# appendonly + appendfsync always), each with the same campaign launched by `lanternd`, each
# stormed by redis-benchmark with the same EVALSHA of grab.lua (the "ok" path: every uid new).
# Prints grabs/s per mode, the ratio to the baseline, and the acknowledged grabs a crash can lose.
#
#   bench/durability.sh [BUILD_DIR] [GRABS] [CLIENTS]      (defaults: build 200000 50)
set -euo pipefail

# shellcheck source=SCRIPTDIR/../scripts/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"
lantern_require_tools redis-server redis-cli redis-benchmark

BUILD=${1:-${ROOT}/build}
GRABS=${2:-200000}
CLIENTS=${3:-50}
LANTERND="${BUILD}/app/lanternd/lanternd"
[[ -x ${LANTERND} ]] || lantern_die "no ${LANTERND}: build first (scripts/test or cmake --build build)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lantern-durability.XXXXXX")
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -9 "${pid}" 2>/dev/null || true; done
    rm -rf -- "${WORK}"
}
trap cleanup EXIT

# start_redis NAME PORT OPTIONS...: a redis-server in WORK/NAME, waiting until it answers.
start_redis() {
    local name=$1 port=$2
    shift 2
    mkdir -p "${WORK}/${name}"
    redis-server --port "${port}" --bind 127.0.0.1 --dir "${WORK}/${name}" --save '' --daemonize no "$@" \
        >"${WORK}/${name}/log" 2>&1 &
    PIDS+=($!)
    local tries=0
    until redis-cli -p "${port}" ping >/dev/null 2>&1; do
        ((++tries < 200)) || lantern_die "redis-server ${name} did not start: $(cat "${WORK}/${name}/log")"
        sleep 0.05  # polling a starting server, bounded by the count above
    done
}

# free_port: a port nothing listens on, below the ephemeral range.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 20000))
        redis-cli -p "${port}" ping >/dev/null 2>&1 || { echo "${port}"; return; }
    done
}

# storm NAME PORT: grabs/s of redis-benchmark on a freshly launched campaign.
storm() {
    local name=$1 port=$2 db sha keys
    db="sqlite://${WORK}/${name}/campaign.db"
    "${LANTERND}" --redis "redis://127.0.0.1:${port}" --db "${db}" campaign create --name bench \
        --total-cents $((GRABS * 100)) --count "${GRABS}" --seed 1 >/dev/null
    "${LANTERND}" --redis "redis://127.0.0.1:${port}" --db "${db}" campaign launch --id 1 >/dev/null
    sha=$(redis-cli -p "${port}" script load "$(cat "${ROOT}/resources/lua/grab.lua")")
    keys=("lt:{cp:1}:meta" "lt:{cp:1}:pool" "lt:{cp:1}:draws" "lt:{cp:1}:attempts" "lt:{cp:1}:tasks" "lt:{cp:1}:repair")
    redis-cli -p "${port}" config resetstat >/dev/null
    redis-benchmark -p "${port}" -c "${CLIENTS}" -n "${GRABS}" -r 1000000000 --csv \
        evalsha "${sha}" 6 "${keys[@]}" 1 1__rand_int__ 1795000000000 |
        awk -F'","' 'NR == 2 { gsub(/"/, "", $2); print $2 }'
}

printf 'grabs per mode: %s, clients: %s, %s, %s\n' "${GRABS}" "${CLIENTS}" "$(redis-server --version | cut -d' ' -f1-3)" \
    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
printf '| mode | grabs/s | vs no AOF | acknowledged grabs a crash can lose |\n|---|---:|---:|---|\n'
declare -A RATE
for mode in none everysec always; do
    port=$(free_port)
    case ${mode} in
        none) start_redis "${mode}" "${port}" --appendonly no ;;
        everysec) start_redis "${mode}" "${port}" --appendonly yes --appendfsync everysec ;;
        always) start_redis "${mode}" "${port}" --appendonly yes --appendfsync always ;;
    esac
    RATE[${mode}]=$(storm "${mode}" "${port}")
    won=$(redis-cli -p "${port}" hget 'lt:{cp:1}:meta' grabbed_count)
    # redis-benchmark draws uids at random from 10^9: a few repeat (about GRABS^2 / 2*10^9) and take
    # grab.lua's short "already" path; any more would mean the storm did not grab what it claims.
    ((won * 1000 >= GRABS * 999)) || lantern_die "${mode}: only ${won} of ${GRABS} grabs won an envelope"
    ratio=$(awk -v a="${RATE[${mode}]}" -v b="${RATE[none]}" 'BEGIN { printf "%.2f", a / b }')
    case ${mode} in
        none) loss='every grab since the last snapshot (a restart with no RDB: all of them)' ;;
        everysec) loss=$(awk -v r="${RATE[${mode}]}" 'BEGIN { printf "up to ~1 s of grabs in an OS crash or power loss: ~%d at this rate (2 s, ~%d, when the disk stalls)", r, 2 * r }') ;;
        always) loss='none on this server (a failover to an asynchronous replica can still lose the last ones)' ;;
    esac
    printf '| %s | %.0f | %s | %s |\n' "${mode}" "${RATE[${mode}]}" "${ratio}" "${loss}"
    redis-cli -p "${port}" shutdown nosave >/dev/null 2>&1 || true
done
