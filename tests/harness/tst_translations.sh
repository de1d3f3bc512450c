#!/usr/bin/env bash
# Every user-visible string has its Chinese (and English plural) translation: lupdate is run over
# the sources into copies of the .ts files, the way `lantern_translations_lupdate` runs it, and
# any message left unfinished — a tr() added without a translation — fails, named.
# Usage: tst_translations.sh LUPDATE SOURCE_DIR
set -euo pipefail
lupdate=$1
source_dir=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/lantern-ts.XXXXXX")
trap 'rm -rf -- "${work}"' EXIT

mapfile -t sources < <(find "${source_dir}/app" "${source_dir}/ui" "${source_dir}/models" -name '*.cpp' -o -name '*.h' | sort)
failed=0
for ts in "${source_dir}"/translations/lantern_*.ts; do
    copy="${work}/$(basename "${ts}")"
    cp -- "${ts}" "${copy}"
    "${lupdate}" -silent -no-obsolete -locations none -I "${source_dir}/ui" -I "${source_dir}/models" \
        -I "${source_dir}/app/lanternd" "${sources[@]}" -ts "${copy}" >/dev/null
    unfinished=$(grep -c 'type="unfinished"' "${copy}" || true)
    if ((unfinished > 0)); then
        failed=1
        printf '%s: %d message(s) without a translation; run cmake --build build --target lantern_translations_lupdate and translate them:\n' \
            "$(basename "${ts}")" "${unfinished}"
        grep -B3 'type="unfinished"' "${copy}" | grep '<source>' | sed 's/^ */  /' | head -20
    fi
done
exit "${failed}"
