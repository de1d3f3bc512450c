#!/usr/bin/env bash
# lantern(1) and lanternd(1) against the programs: --help and --version answer without a display
# (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM), the pages built into packaging/ are what
# --help-man prints now, and every option and command --help lists (the parser's own view: Qt's
# QCommandLineParser for lantern, lanternd's command table) is in the page. The package check
# (scripts/lib/package-check.sh) then compares the pages inside the DEBs with these.
# Usage: tst_manpages.sh LANTERN LANTERND PAGES_DIR
set -uo pipefail

lantern=$1 lanternd=$2 pages=$3
# shellcheck source=../../scripts/lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"
lantern_require_tools man col
failures=0
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
headless() {
    env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@"
}
# The page as man(1) shows it to a reader (roff's \- back to -, no formatting).
rendered() {
    MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$1" 2>&1 | col -b
}

# 1. Help and version without a display.
for program in "${lantern}" "${lanternd}"; do
    name=$(basename "${program}")
    if ! help=$(headless "${program}" --help 2>&1); then
        fail "${name} --help without a display exited $?: ${help}"
    elif ! grep -q -- '--redis' <<<"${help}"; then
        fail "${name} --help does not list --redis: ${help}"
    fi
done
version=$(headless "${lantern}" --version 2>&1) || fail "lantern --version without a display exited $?: ${version}"
[[ ${version} =~ ^lantern\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "lantern --version printed '${version}'"
chinese=$(headless "${lantern}" --help --lang zh_CN 2>&1) || fail "lantern --help --lang zh_CN exited $?"
grep -q '沙盒' <<<"${chinese}" || fail "lantern --help --lang zh_CN is not in Chinese: ${chinese}"

# 2. The built pages are what the programs print now, and man(1) reads them without a warning.
for program in "${lantern}" "${lanternd}"; do
    name=$(basename "${program}")
    page="${pages}/${name}.1"
    if [[ ! -s ${page} ]]; then
        fail "${page} was not built"
        continue
    fi
    cmp -s "${page}" <(headless "${program}" --help-man --lang en) || fail "${page} differs from ${name} --help-man"
    zcat "${page}.gz" | cmp -s "${page}" - || fail "${page}.gz is not ${page} compressed"
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "${page}" 2>&1 >/dev/null)
    [[ -z ${warnings} ]] || fail "man --warnings ${page}: ${warnings}"
done

# 3. Every option and command of --help is in the page.
check_mentions() {  # NAME PAGE WORD...
    local name=$1 text=$2 word missing=()
    shift 2
    for word in "$@"; do
        grep -qF -- "${word}" <<<"${text}" || missing+=("${word}")
    done
    ((${#missing[@]} == 0)) || fail "${name}(1) does not mention: ${missing[*]}"
    printf '%s(1): %d options and commands of --help, all in the page\n' "${name}" "$#"
}
mapfile -t options < <(headless "${lantern}" --help | grep -oE '(^|[ ,])--?[a-z][a-z0-9-]*' | tr -d ' ,' | sort -u)
((${#options[@]} >= 20)) || fail "found only ${#options[@]} options in lantern --help"
check_mentions lantern "$(rendered "${pages}/lantern.1")" "${options[@]}" --help-man

help=$(headless "${lanternd}" --help)
mapfile -t options < <(grep -oE -- '--[a-z][a-z0-9-]*' <<<"${help}" | sort -u)
mapfile -t commands < <(sed -n '/^commands:/,/^[^ ]/{/^  [a-z]/p}' <<<"${help}" | grep -oE '^  [a-z-]+( (create|launch|pause|resume|close|show|repair))?' | sed 's/^  //')
((${#options[@]} >= 40 && ${#commands[@]} >= 20)) || fail "found only ${#options[@]} options and ${#commands[@]} commands in lanternd --help"
check_mentions lanternd "$(rendered "${pages}/lanternd.1")" "${options[@]}" "${commands[@]}" LANTERN_PAYOUT_URL CREDENTIALS_DIRECTORY

if ((failures > 0)); then
    printf '%d problem(s) with the manual pages\n' "${failures}" >&2
    exit 1
fi
echo "PASS: help and version without a display; lantern(1) and lanternd(1) match the programs"
