#!/usr/bin/env bash
# The alerting rules as Prometheus's own tool judges them (issue 27): `promtool check rules` on
# packaging/prometheus/lantern-rules.yml, its unit tests (`promtool test rules`
# tests/alerts/lantern-rules.test.yml), and that the tests and the runbook keep up with the rules:
# every alert has a case where it fires and one where it does not, a runbook_url pointing at its
# own section of docs/runbook.md, and that section. (tst_cli_alerts checks the series against a
# live scrape of lanternd serve.)
# Usage: tst_promrules.sh SOURCE_DIR
set -uo pipefail

root=${1:?usage: tst_promrules.sh SOURCE_DIR}
# shellcheck source=../../scripts/lib/common.sh
source "${root}/scripts/lib/common.sh"
lantern_require_tools promtool

rules="${root}/packaging/prometheus/lantern-rules.yml"
tests="${root}/tests/alerts/lantern-rules.test.yml"
runbook="${root}/docs/runbook.md"
failures=0
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}

promtool check rules "${rules}" || fail "promtool check rules ${rules#"${root}"/}"
(cd "$(dirname "${tests}")" && promtool test rules "$(basename "${tests}")") || fail "promtool test rules ${tests#"${root}"/}"

mapfile -t alerts < <(sed -n 's/^ *- alert: *\([A-Za-z0-9]*\).*/\1/p' "${rules}")
((${#alerts[@]} >= 10)) || fail "found only ${#alerts[@]} alerts in ${rules#"${root}"/}"
for alert in "${alerts[@]}"; do
    # The line after each "alertname: X" of the unit tests: "exp_alerts: []" (must not fire) or
    # "exp_alerts:" followed by the expected alerts (fires).
    cases=$(awk -v name="${alert}" '$1 == "alertname:" { hit = ($2 == name); next }
                                    hit && $1 == "exp_alerts:" { print ($2 == "[]") ? "quiet" : "fires"; hit = 0 }' "${tests}" | sort -u | tr '\n' ' ')
    [[ ${cases} == *fires* ]] || fail "${alert}: no unit test where it fires"
    [[ ${cases} == *quiet* ]] || fail "${alert}: no unit test where it does not fire"
    anchor=$(tr '[:upper:]' '[:lower:]' <<<"${alert}")
    grep -q "runbook_url: \"file:///usr/share/lantern/runbook.md#${anchor}\"" "${rules}" ||
        fail "${alert}: its runbook_url does not point at #${anchor}"
    grep -qx "## ${alert}" "${runbook}" || fail "${alert}: docs/runbook.md has no section '## ${alert}'"
done
for key in summary description runbook_url; do
    count=$(grep -c "^ *${key}: " "${rules}")
    ((count == ${#alerts[@]})) || fail "${count} ${key} annotations for ${#alerts[@]} alerts"
done

if ((failures > 0)); then
    printf '%d problem(s) with the alerting rules\n' "${failures}" >&2
    exit 1
fi
printf 'PASS: %d alerts checked and unit-tested by promtool, each firing and quiet, each with its runbook section\n' "${#alerts[@]}"
