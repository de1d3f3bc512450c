#!/usr/bin/env bash
# Builds the Debian packages of a build tree (CPack) and checks what they hold: the binaries,
# the console's desktop entry and icon, lanternd's systemd units and its conffile, and runtime
# dependencies computed by dpkg-shlibdeps (Qt libraries, hiredis) rather than -dev packages.
# Usage: scripts/lib/package-check.sh [BUILD_DIR]   (default: build)
set -euo pipefail

ROOT="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-${ROOT}/build}"
# shellcheck source=SCRIPTDIR/common.sh
source "${ROOT}/scripts/lib/common.sh"
lantern_require_tools cpack dpkg-deb dpkg-shlibdeps file desktop-file-validate

OUT=$(mktemp -d "${TMPDIR:-/tmp}/lantern-packages.XXXXXX")
trap 'rm -rf -- "${OUT}"' EXIT

(cd "${BUILD}" && cpack -G DEB -B "${OUT}" >"${OUT}/cpack.log" 2>&1) || { cat "${OUT}/cpack.log"; exit 1; }

failures=0
fail() { echo "package check: $*" >&2; failures=$((failures + 1)); }

deb_of() {
    local found
    found=$(find "${OUT}" -maxdepth 1 -name "$1_*.deb" | head -n 1)
    [[ -n "${found}" ]] || { fail "no $1 package was built"; return 1; }
    echo "${found}"
}

expect_file() {  # PACKAGE_FILE PATH
    dpkg-deb -c "$1" | awk '{print $NF}' | grep -qx "./$2" || fail "$(basename "$1") lacks /$2"
}

expect_depends() {  # PACKAGE_FILE PATTERN
    dpkg-deb -f "$1" Depends | tr ',' '\n' | grep -q "$2" || fail "$(basename "$1") does not depend on $2: $(dpkg-deb -f "$1" Depends)"
}

console=$(deb_of lantern) || true
daemon=$(deb_of lanternd) || true

if [[ -n "${console}" ]]; then
    expect_file "${console}" usr/bin/lantern
    expect_file "${console}" usr/share/applications/lantern.desktop
    expect_file "${console}" usr/share/icons/hicolor/scalable/apps/lantern.svg
    expect_depends "${console}" libqt6widgets6
    expect_depends "${console}" libqt6charts6
    expect_depends "${console}" libhiredis
    expect_depends "${console}" redis-server
    if dpkg-deb -c "${console}" | awk '{print $NF}' | grep -q 'usr/bin/lanternd$'; then
        fail "the console package also ships lanternd"
    fi
    dpkg-deb --fsys-tarfile "${console}" | tar -xO ./usr/share/applications/lantern.desktop >"${OUT}/lantern.desktop"
    desktop-file-validate "${OUT}/lantern.desktop" || fail "lantern.desktop does not validate"
fi
if [[ -n "${daemon}" ]]; then
    expect_file "${daemon}" usr/bin/lanternd
    expect_file "${daemon}" usr/lib/systemd/system/lanternd-work.service
    expect_file "${daemon}" usr/lib/systemd/system/lanternd-serve.service
    expect_file "${daemon}" etc/lantern/lanternd.conf
    dpkg-deb --ctrl-tarfile "${daemon}" | tar -xO ./conffiles | grep -qx /etc/lantern/lanternd.conf \
        || fail "lanternd.conf is not a conffile"
    expect_depends "${daemon}" libhttp-parser2.9
    expect_depends "${daemon}" libqt6sql6-mysql
    expect_depends "${daemon}" libhiredis
    if dpkg-deb -c "${daemon}" | awk '{print $NF}' | grep -q 'usr/bin/lantern$'; then
        fail "the lanternd package also ships the console"
    fi
fi
for package in ${console} ${daemon}; do
    if dpkg-deb -f "${package}" Depends | grep -q -- '-dev'; then
        fail "$(basename "${package}") depends on a -dev package: $(dpkg-deb -f "${package}" Depends)"
    fi
    echo "package check: $(basename "${package}") $(du -k "${package}" | cut -f1) KiB, Depends: $(dpkg-deb -f "${package}" Depends)"
done

if ((failures > 0)); then
    echo "package check: ${failures} problem(s)" >&2
    exit 1
fi
echo "package check: ok"
