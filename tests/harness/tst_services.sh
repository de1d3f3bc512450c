#!/usr/bin/env bash
# Checks that the private test servers started by scripts/test (scripts/services) are reachable:
# the LANTERN_TEST_* variables are set, redis answers PING, MariaDB answers SELECT 1 both on
# its unix socket and over TCP, and the Redis Cluster's six nodes (3 masters, 3 replicas) report
# cluster_state:ok. Fails (never skips) when anything is missing.
set -uo pipefail

failures=0
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
pass() {
    printf 'PASS: %s\n' "$*"
}

for var in LANTERN_TEST_REDIS LANTERN_TEST_MYSQL LANTERN_TEST_REDIS_PORT LANTERN_TEST_MYSQL_PORT \
    LANTERN_TEST_SERVICES_DIR LANTERN_TEST_REDIS_CLUSTER LANTERN_TEST_REDIS_CLUSTER_PORTS; do
    if [[ -z ${!var:-} ]]; then
        fail "${var} is not set: run the tests through scripts/test, or start the servers with" \
            "'scripts/services start DIR' and 'source DIR/env' first"
    fi
done
if ((failures > 0)); then
    exit 1
fi

for tool in redis-cli mariadb; do
    command -v "${tool}" >/dev/null 2>&1 || fail "${tool} not found (Debian packages redis-tools, mariadb-client)"
done
if ((failures > 0)); then
    exit 1
fi

# --- redis -------------------------------------------------------------------------------------
if [[ ${LANTERN_TEST_REDIS} != "redis://127.0.0.1:${LANTERN_TEST_REDIS_PORT}" ]]; then
    fail "LANTERN_TEST_REDIS='${LANTERN_TEST_REDIS}' does not match LANTERN_TEST_REDIS_PORT='${LANTERN_TEST_REDIS_PORT}'"
fi
reply=$(timeout 10 redis-cli -u "${LANTERN_TEST_REDIS}" ping 2>&1)
if [[ ${reply} == PONG ]]; then
    pass "redis at ${LANTERN_TEST_REDIS} answers PING"
else
    fail "redis at ${LANTERN_TEST_REDIS} did not answer PONG to PING: ${reply}"
fi

# --- Redis Cluster -----------------------------------------------------------------------------
read -r -a cluster_ports <<<"${LANTERN_TEST_REDIS_CLUSTER_PORTS}"
if ((${#cluster_ports[@]} != 6)); then
    fail "LANTERN_TEST_REDIS_CLUSTER_PORTS='${LANTERN_TEST_REDIS_CLUSTER_PORTS}' does not name 6 ports"
fi
expected_seeds="redis://127.0.0.1:${cluster_ports[0]:-},127.0.0.1:${cluster_ports[1]:-},127.0.0.1:${cluster_ports[2]:-}"
if [[ ${LANTERN_TEST_REDIS_CLUSTER} != "${expected_seeds}" ]]; then
    fail "LANTERN_TEST_REDIS_CLUSTER='${LANTERN_TEST_REDIS_CLUSTER}' is not the first three of LANTERN_TEST_REDIS_CLUSTER_PORTS"
fi
masters=0 replicas=0
for port in "${cluster_ports[@]}"; do
    info=$(timeout 10 redis-cli -h 127.0.0.1 -p "${port}" cluster info 2>&1)
    if [[ ${info} == *cluster_state:ok* ]]; then
        pass "cluster node 127.0.0.1:${port} reports cluster_state:ok"
    else
        fail "cluster node 127.0.0.1:${port} does not report cluster_state:ok: ${info}"
    fi
    case $(timeout 10 redis-cli -h 127.0.0.1 -p "${port}" role 2>&1 | head -n 1) in
    master) masters=$((masters + 1)) ;;
    slave) replicas=$((replicas + 1)) ;;
    esac
done
if ((masters == 3 && replicas == 3)); then
    pass "the cluster has 3 masters and 3 replicas"
else
    fail "the cluster has ${masters} masters and ${replicas} replicas, expected 3 and 3"
fi

# --- MariaDB -----------------------------------------------------------------------------------
# mysql://USER[:PASSWORD]@HOST:PORT/DATABASE[?unix_socket=PATH]
url_re='^mysql://([^:@/]+)(:([^@/]*))?@([^:/]+):([0-9]+)/([^?]+)(\?unix_socket=(.+))?$'
if [[ ${LANTERN_TEST_MYSQL} =~ ${url_re} ]]; then
    user=${BASH_REMATCH[1]} password=${BASH_REMATCH[3]} host=${BASH_REMATCH[4]}
    port=${BASH_REMATCH[5]} database=${BASH_REMATCH[6]} socket=${BASH_REMATCH[8]}

    [[ ${port} == "${LANTERN_TEST_MYSQL_PORT}" ]] ||
        fail "LANTERN_TEST_MYSQL port ${port} does not match LANTERN_TEST_MYSQL_PORT='${LANTERN_TEST_MYSQL_PORT}'"

    # A password goes through the environment, not the command line.
    [[ -n ${password} ]] && export MYSQL_PWD="${password}"
    mariadb_query() {
        timeout 10 mariadb --no-defaults --user="${user}" \
            --connect-timeout=5 --batch --skip-column-names "$@" "${database}" -e 'SELECT 1' 2>&1
    }

    if [[ -z ${socket} ]]; then
        fail "LANTERN_TEST_MYSQL has no ?unix_socket=PATH: ${LANTERN_TEST_MYSQL}"
    else
        reply=$(mariadb_query --socket="${socket}")
        if [[ ${reply} == 1 ]]; then
            pass "MariaDB on socket ${socket} answers SELECT 1 in database ${database}"
        else
            fail "MariaDB on socket ${socket}, database ${database}: SELECT 1 failed: ${reply}"
        fi
    fi

    reply=$(mariadb_query --protocol=TCP --host="${host}" --port="${port}")
    if [[ ${reply} == 1 ]]; then
        pass "MariaDB at ${host}:${port} (TCP) answers SELECT 1 in database ${database}"
    else
        fail "MariaDB at ${host}:${port} (TCP), database ${database}: SELECT 1 failed: ${reply}"
    fi
else
    fail "LANTERN_TEST_MYSQL is not mysql://USER@HOST:PORT/DATABASE?unix_socket=PATH: ${LANTERN_TEST_MYSQL}"
fi

if ((failures > 0)); then
    printf '%d check(s) failed\n' "${failures}" >&2
    exit 1
fi
