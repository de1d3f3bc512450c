#!/usr/bin/env bash
# Builds the Debian packages of a build tree (CPack) and checks what they hold: the binaries,
# the console's desktop entry and icon, lanternd's systemd units and its conffile, and runtime
# dependencies computed by dpkg-shlibdeps (Qt libraries, hiredis) rather than -dev packages.
# Then as Debian's own tools judge them (docs/contributing.md, "Packages"): lintian on the
# packages and their -dbgsym packages (no error; a warning only where docs/contributing.md gives
# its reason), the manual pages inside them equal to what the programs print, and
# `systemd-analyze security` of both units at most 2.0 ("OK").
# Usage: scripts/lib/package-check.sh [BUILD_DIR]   (default: build)
set -euo pipefail

ROOT="$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-${ROOT}/build}"
# shellcheck source=SCRIPTDIR/common.sh
source "${ROOT}/scripts/lib/common.sh"
lantern_require_tools cpack dpkg-deb dpkg-shlibdeps file desktop-file-validate lintian systemd-analyze

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
    expect_file "${daemon}" usr/share/lantern/prometheus/lantern-rules.yml
    expect_file "${daemon}" usr/share/lantern/grafana/lantern.json
    expect_file "${daemon}" usr/share/lantern/runbook.md
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
    expect_file "${package}" "usr/share/doc/$(dpkg-deb -f "${package}" Package)/copyright"
    expect_file "${package}" "usr/share/doc/$(dpkg-deb -f "${package}" Package)/changelog.gz"
    changelog_version=$(dpkg-parsechangelog -l "${ROOT}/packaging/changelog" -S Version)
    [[ ${changelog_version} == "$(dpkg-deb -f "${package}" Version)" ]] ||
        fail "packaging/changelog's last entry is ${changelog_version}, $(basename "${package}") is $(dpkg-deb -f "${package}" Version): add an entry"
    if dpkg-deb -f "${package}" Depends | grep -q -- '-dev'; then
        fail "$(basename "${package}") depends on a -dev package: $(dpkg-deb -f "${package}" Depends)"
    fi
    echo "package check: $(basename "${package}") $(du -k "${package}" | cut -f1) KiB, Depends: $(dpkg-deb -f "${package}" Depends)"
done

# The manual pages in the packages are what the programs print (tests/packaging/tst_manpages.sh
# checks the programs' pages against their --help).
expect_manpage() {  # PACKAGE_FILE PROGRAM
    local page
    page=$(dpkg-deb --fsys-tarfile "$1" | tar -xO "./usr/share/man/man1/$(basename "$2").1.gz" 2>/dev/null | zcat 2>/dev/null)
    if [[ -z ${page} ]]; then
        fail "$(basename "$1") has no manual page $(basename "$2")(1)"
    elif [[ ${page} != "$(env -u DISPLAY -u QT_QPA_PLATFORM "$2" --help-man --lang en)" ]]; then
        fail "$(basename "$1"): $(basename "$2")(1) differs from $(basename "$2") --help-man"
    fi
}
[[ -n "${console}" ]] && expect_manpage "${console}" "${BUILD}/app/lantern/lantern"
[[ -n "${daemon}" ]] && expect_manpage "${daemon}" "${BUILD}/app/lanternd/lanternd"

# lintian: no error; a warning only with its reason in docs/contributing.md ("lintian: what is
# left"), where each accepted tag is named in `backquotes`.
mapfile -t dbgsym < <(find "${OUT}" -maxdepth 1 -name '*-dbgsym_*.ddeb' | sort)
((${#dbgsym[@]} == 2)) || fail "expected lantern-dbgsym and lanternd-dbgsym, found: ${dbgsym[*]##*/}"
lintian --pedantic --display-info ${console} ${daemon} "${dbgsym[@]}" >"${OUT}/lintian.txt" 2>"${OUT}/lintian.err" || true
grep -v 'running with root privileges' "${OUT}/lintian.err" >&2 || true
errors=$(grep -c '^E: ' "${OUT}/lintian.txt" || true)
warnings=$(grep -c '^W: ' "${OUT}/lintian.txt" || true)
infos=$(grep -cE '^[IP]: ' "${OUT}/lintian.txt" || true)
((errors == 0)) || fail "lintian: ${errors} error(s): $(grep '^E: ' "${OUT}/lintian.txt")"
accepted=$(sed -n '/^### lintian: what is left/,/^#/p' "${ROOT}/docs/contributing.md")
while read -r tag; do
    grep -qF "\`${tag}\`" <<<"${accepted}" || fail "lintian warning ${tag} has no reason in docs/contributing.md: $(grep "^W: .* ${tag}" "${OUT}/lintian.txt")"
done < <(awk '/^W: / {print $3}' "${OUT}/lintian.txt" | sort -u)
echo "package check: lintian on $((2 + ${#dbgsym[@]})) packages: ${errors} errors, ${warnings} warnings, ${infos} info/pedantic ($(awk '/^[IP]: / {print $3}' "${OUT}/lintian.txt" | sort | uniq -c | awk '{printf "%s%s x%s", sep, $2, $1; sep=", "}'))"

# The units' sandboxes, as systemd scores them: at most 2.0, "OK".
if [[ -n "${daemon}" ]]; then
    mkdir -p "${OUT}/units"
    dpkg-deb --fsys-tarfile "${daemon}" | tar -x -C "${OUT}/units" --wildcards './usr/lib/systemd/system/*.service'
    for unit in "${OUT}"/units/usr/lib/systemd/system/*.service; do
        level=$(systemd-analyze security --offline=yes --no-pager "${unit}" 2>&1 | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p')
        [[ -n ${level} ]] || { fail "systemd-analyze security gave no exposure level for $(basename "${unit}")"; continue; }
        echo "package check: systemd-analyze security $(basename "${unit}"): ${level}"
        awk -v level="${level%% *}" 'BEGIN { exit !(level <= 2.0) }' || fail "$(basename "${unit}") is exposed ${level}, above 2.0"
    done
fi

if ((failures > 0)); then
    echo "package check: ${failures} problem(s)" >&2
    exit 1
fi
echo "package check: ok"
