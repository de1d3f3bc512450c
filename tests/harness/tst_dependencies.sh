#!/usr/bin/env bash
# Guards the install list of scripts/lib/common.sh (LANTERN_DEBIAN_PACKAGES) against the build and
# the scripts: every Debian package that a lantern_require() call (cmake/LanternDependencies.cmake)
# or LANTERN_TOOL_PACKAGES names is on the list, and no CMakeLists.txt looks for a library or a
# program behind lantern_require()'s back (where nothing would name its package). It cannot prove
# the list complete, which only a brand-new Debian 12 root can (docs/contributing.md); it stops
# the ways the list went wrong before.
set -uo pipefail

root=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../../scripts/lib/common.sh
source "${root}/scripts/lib/common.sh"

failures=0
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}

declare -A listed=()
for pkg in "${LANTERN_DEBIAN_PACKAGES[@]}"; do
    listed[${pkg}]=1
done

cmake_files=()
mapfile -t cmake_files < <(find "${root}" \( -path "${root}/build*" -o -path "${root}/.git" \) -prune -o \
    \( -name CMakeLists.txt -o -name '*.cmake' \) -print | sort)
((${#cmake_files[@]} > 0)) || fail "no CMake files found under ${root}"

# 1. The packages CMake names.
named=0
while read -r file line; do
    named=$((named + 1))
    for pkg in ${line}; do
        [[ -n ${listed[${pkg}]:-} ]] ||
            fail "${file#"${root}"/} names Debian package ${pkg}, which LANTERN_DEBIAN_PACKAGES does not install"
    done
done < <(for file in "${cmake_files[@]}"; do
    grep -oP '^\s*lantern_require\(.*\bDEBIAN\s+\K[^)]*' "${file}" | sed "s|^|${file} |"
done)
((named >= 5)) || fail "found only ${named} lantern_require() calls naming a Debian package"

# 2. The packages of the commands the scripts run.
for tool in "${!LANTERN_TOOL_PACKAGES[@]}"; do
    pkg=${LANTERN_TOOL_PACKAGES[${tool}]}
    [[ -n ${listed[${pkg}]:-} ]] ||
        fail "LANTERN_TOOL_PACKAGES says ${tool} comes from ${pkg}, which LANTERN_DEBIAN_PACKAGES does not install"
done

# 3. No search for a dependency outside lantern_require().
for file in "${cmake_files[@]}"; do
    [[ ${file} == */cmake/* ]] && continue
    while IFS= read -r hit; do
        fail "${file#"${root}"/}:${hit}: use lantern_require() (cmake/LanternDependencies.cmake), which names the Debian package"
    done < <(grep -nE '^\s*(find_package|pkg_check_modules|pkg_search_module|find_library|find_path|find_program)\s*\(' "${file}")
done

# 4. Every tool a script (or a test script) asks for has a package.
while read -r file tools; do
    for tool in ${tools}; do
        [[ -n ${LANTERN_TOOL_PACKAGES[${tool}]:-} ]] ||
            fail "${file#"${root}"/} requires ${tool}, which LANTERN_TOOL_PACKAGES does not map to a package"
    done
done < <(grep -rhoP '^\s*lantern_require_tools\s+\K[^;|&#]*' "${root}/scripts" | sed 's|^|scripts |'
         grep -rhoP --include='*.sh' '^\s*lantern_require_tools\s+\K[^;|&#]*' "${root}/tests" | sed 's|^|tests |')

if ((failures > 0)); then
    printf '%d problem(s) with the install list\n' "${failures}" >&2
    exit 1
fi
printf 'PASS: %d Debian packages; every package CMake and the scripts name is installed\n' "${#LANTERN_DEBIAN_PACKAGES[@]}"
