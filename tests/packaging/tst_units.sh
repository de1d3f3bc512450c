#!/usr/bin/env bash
# The systemd units do their job under their own sandbox (tests/packaging/unitsandbox.sh applies
# each unit's [Service] restrictions; docs/contributing.md, "Packages"):
# - lanternd-serve.service listens on its port, answers /healthz (Redis over TCP) and a calendar
#   (MariaDB over its unix socket), its token secret and database URL given as credentials;
# - lanternd-work.service runs `work --once`: pays an envelope through a payout provider over HTTPS
#   (a test CA in place of the system's) and writes the task it cannot read to its error log, in
#   the one directory the unit lets it write (LogsDirectory=);
# - and the sandbox bites: the serve unit with the network calls taken out of its system call
#   filter fails to start.
# Needs the private servers of scripts/test (LANTERN_TEST_*). Usage: tst_units.sh UNIT_EXEC LANTERND UNIT_DIR
set -uo pipefail

unit_exec=$1 lanternd=$2 units=$3
here=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib/common.sh
source "${here}/../../scripts/lib/common.sh"
lantern_require_tools bwrap setpriv unshare systemd-analyze socat openssl curl redis-cli mariadb
failures=0
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
for variable in LANTERN_TEST_REDIS_PORT LANTERN_TEST_MYSQL_PORT LANTERN_TEST_SERVICES_DIR; do
    [[ -n ${!variable:-} ]] || { echo "FAIL: ${variable} is not set: run through scripts/test" >&2; exit 1; }
done

work=$(mktemp -d /tmp/lantern-units.XXXXXX)
chmod 755 "${work}"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -KILL "${pid}" 2>/dev/null; wait "${pid}" 2>/dev/null; done
    mariadb_root -e "DROP DATABASE IF EXISTS ${database}; DROP USER IF EXISTS 'lantern_unit'@'localhost', 'lantern_unit'@'127.0.0.1';" 2>/dev/null
    rm -rf -- "${work}"
}
trap cleanup EXIT

mariadb_root() {
    mariadb --no-defaults --socket="${LANTERN_TEST_SERVICES_DIR}/mysqld.sock" --user=root --batch --skip-column-names "$@"
}
# A port nothing listens on (a refused connection), from a range the kernel does not hand out.
free_port() {
    local port
    for ((port = 20000 + RANDOM % 9000; ; port++)); do
        (exec 3<>"/dev/tcp/127.0.0.1/${port}") 2>/dev/null || { echo "${port}"; return; }
    done
}
# Polls until COMMAND succeeds or SECONDS pass (a deadline, not a sleep to wait for something).
poll() {
    local seconds=$1 deadline
    shift
    deadline=$((SECONDS + seconds))
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# A database and an account of their own; the service reaches MariaDB as that account, with a
# password, whatever user it runs as.
database="lantern_unit_$$"
password="unit-$$-${RANDOM}"
prefix="unit$$:"
mariadb_root -e "
    CREATE DATABASE ${database} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER 'lantern_unit'@'localhost' IDENTIFIED BY '${password}';
    CREATE USER 'lantern_unit'@'127.0.0.1' IDENTIFIED BY '${password}';
    GRANT ALL PRIVILEGES ON ${database}.* TO 'lantern_unit'@'localhost', 'lantern_unit'@'127.0.0.1';" ||
    { echo "FAIL: cannot create the test database" >&2; exit 1; }
redis="redis://127.0.0.1:${LANTERN_TEST_REDIS_PORT}"
tcp_db="mysql://lantern_unit:${password}@127.0.0.1:${LANTERN_TEST_MYSQL_PORT}/${database}"
lanternd_here() {
    "${lanternd}" --redis "${redis}" --db "${tcp_db}" --prefix "${prefix}" --tz UTC "$@"
}

# sandbox DIR: the unitsandbox.sh command line for a run whose files are in DIR (lanternd.conf is
# its EnvironmentFile=); the unit, its options and `-- ARGS` follow. unitsandbox.sh ends in exec,
# so a run started in the background is the sandbox's own process.
sandbox() {
    sandboxed=(bash "${here}/unitsandbox.sh" --work "$1" --unit-exec "${unit_exec}"
               --program "/usr/bin/lanternd=${lanternd}" --env-file "$1/lanternd.conf")
}

# --- serve --------------------------------------------------------------------------------------
serve_port=$(free_port)
mkdir -p "${work}/serve/credentials" "${work}/work" "${work}/logs" "${work}/broken"
cat >"${work}/serve/lanternd.conf" <<CONF
LANTERN_REDIS=${redis}
LANTERN_PREFIX=${prefix}
LANTERN_TZ=UTC
LANTERN_LISTEN=127.0.0.1:${serve_port}
CONF
printf 'token secret %s\n' "$$" >"${work}/serve/credentials/token-secret"
printf 'mysql://lantern_unit:%s@localhost/%s?unix_socket=/tmp/.unit/mysqld.sock\n' "${password}" "${database}" \
    >"${work}/serve/credentials/db"
chmod 755 "${work}/serve/credentials" && chmod 644 "${work}/serve/credentials/"*
sandbox "${work}/serve"
"${sandboxed[@]}" --credentials "${work}/serve/credentials" --file "${LANTERN_TEST_SERVICES_DIR}/mysqld.sock=mysqld.sock" \
    "${units}/lanternd-serve.service" 2>"${work}/serve.log" &
pids+=($!)
serve_pid=$!
healthy() {
    kill -0 "${serve_pid}" 2>/dev/null || return 2
    curl -fsS "http://127.0.0.1:${serve_port}/healthz" >"${work}/healthz" 2>/dev/null
}
if poll 60 healthy; then
    grep -q '"status":"ok"' "${work}/healthz" || fail "serve /healthz answered $(cat "${work}/healthz")"
    bearer=$(lanternd_here token --uid 42 --token-secret "token secret $$" | sed -n 's/.*"bearer":"\([^"]*\)".*/\1/p')
    calendar=$(curl -sS -w ' HTTP %{http_code}' -H "Authorization: Bearer ${bearer}" "http://127.0.0.1:${serve_port}/v1/calendar" 2>&1)
    [[ ${calendar} == *'"points_balance":0'*' HTTP 200' ]] || fail "serve calendar (SQL over the unix socket) answered: ${calendar}"
    echo "serve: listening on 127.0.0.1:${serve_port} in its sandbox; /healthz $(cat "${work}/healthz"); calendar: HTTP 200"
else
    fail "lanternd-serve.service did not answer /healthz in its sandbox: $(cat "${work}/serve.log")"
fi
kill -KILL "${serve_pid}" 2>/dev/null; wait "${serve_pid}" 2>/dev/null

# --- work --------------------------------------------------------------------------------------
# A campaign with one grab to pay, and a task no worker can read.
lanternd_here migrate >/dev/null || fail "migrate failed"
campaign=$(lanternd_here campaign create --name units --total-cents 500 --count 1 | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
lanternd_here campaign launch --id "${campaign}" >/dev/null || fail "campaign launch failed"
lanternd_here grab --campaign "${campaign}" --uid 7 | grep -q '"status":"ok"' || fail "grab failed"
redis-cli -p "${LANTERN_TEST_REDIS_PORT}" RPUSH "${prefix}{cp:${campaign}}:tasks" "not a task" >/dev/null

# The payout provider over HTTPS: socat with a certificate for 127.0.0.1 that only the sandbox's
# /etc/ssl/certs trusts; each call answers with a ref and is counted.
mkdir -p "${work}/ca"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "${work}/provider.key" -out "${work}/ca/provider.pem" 2>/dev/null || fail "openssl req failed"
cat "${work}/provider.key" "${work}/ca/provider.pem" >"${work}/provider-with-key.pem"
openssl rehash "${work}/ca" 2>/dev/null || fail "openssl rehash failed"
cat >"${work}/responder.sh" <<'RESPONDER'
length=0
while IFS= read -r line && [[ ${line} != $'\r' && -n ${line} ]]; do
    [[ ${line,,} =~ ^content-length:\ *([0-9]+) ]] && length=${BASH_REMATCH[1]}
done
body=$(head -c "${length}")
echo "${body}" >>"$1"
reply='{"ref":"unit-test"}'
printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' "${#reply}" "${reply}"
RESPONDER
provider_port=$(free_port)
socat "OPENSSL-LISTEN:${provider_port},bind=127.0.0.1,reuseaddr,fork,cert=${work}/provider-with-key.pem,verify=0" \
    "SYSTEM:bash ${work}/responder.sh ${work}/payouts" 2>"${work}/socat.log" &
pids+=($!)
poll 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/${provider_port}" 2>/dev/null || fail "socat did not listen: $(cat "${work}/socat.log")"

cat >"${work}/work/lanternd.conf" <<CONF
LANTERN_REDIS=${redis}
LANTERN_DB=${tcp_db}
LANTERN_PREFIX=${prefix}
LANTERN_TZ=UTC
LANTERN_PAYOUT_URL=https://127.0.0.1:${provider_port}/pay
CONF
sandbox "${work}/work"
if timeout 120 "${sandboxed[@]}" --logs "${work}/logs" --replace "${work}/ca=/etc/ssl/certs" \
        "${units}/lanternd-work.service" -- --once >"${work}/work.out" 2>"${work}/work.log"; then
    shown=$(lanternd_here campaign show --id "${campaign}")
    [[ ${shown} == *'"paid_count":1'* ]] || fail "work --once did not pay the grab over HTTPS: ${shown}; $(cat "${work}/work.log")"
    [[ $(grep -c idempotency_key "${work}/payouts" 2>/dev/null) -ge 1 ]] || fail "the HTTPS provider was not called"
    grep -q 'malformed task' "${work}/logs/errors.log" 2>/dev/null ||
        fail "work did not write its error log in LogsDirectory: $(ls -la "${work}/logs"); $(cat "${work}/work.log")"
    echo "work --once in its sandbox: $(cat "${work}/work.out"); paid over HTTPS: ${shown}; error log: $(wc -l <"${work}/logs/errors.log") line(s)"
else
    fail "lanternd-work.service --once failed in its sandbox: $(cat "${work}/work.log")"
fi

# --- the sandbox bites -------------------------------------------------------------------------
sed 's/^SystemCallFilter=~@privileged @resources$/SystemCallFilter=~@privileged @resources @network-io/' \
    "${units}/lanternd-serve.service" >"${work}/broken/lanternd-serve.service"
grep -q '@network-io' "${work}/broken/lanternd-serve.service" || fail "could not take @network-io out of the serve unit's filter"
cp "${work}/serve/lanternd.conf" "${work}/broken/"
sandbox "${work}/broken"
if timeout 60 "${sandboxed[@]}" --credentials "${work}/serve/credentials" --file "${LANTERN_TEST_SERVICES_DIR}/mysqld.sock=mysqld.sock" \
        "${work}/broken/lanternd-serve.service" 2>"${work}/broken.log"; then
    fail "serve started without the network system calls: the sandbox does not apply the filter"
else
    status=$?
    # It must fail for the reason given: a socket it may not open.
    if grep -q '^lanternd' "${work}/broken.log" && grep -qi 'permi\|socket\|listen' "${work}/broken.log"; then
        echo "serve without @network-io in its filter: exit ${status}: $(grep -m1 '^lanternd' "${work}/broken.log")"
    else
        fail "serve without @network-io failed, but not for its sockets: $(cat "${work}/broken.log")"
    fi
fi

if ((failures > 0)); then
    printf '%d problem(s) with the units in their sandbox\n' "${failures}" >&2
    exit 1
fi
echo "PASS: lanternd-serve.service and lanternd-work.service do their job in their sandbox"
