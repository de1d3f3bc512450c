#pragma once

#include <QString>

namespace lantern {

/** Installs Lantern's translations (every .qm of translations/, embedded under :/i18n) and Qt's
    own for `language` ("zh_CN", "en", ...; empty: the system locale, i.e. LC_ALL/LC_MESSAGES/LANG)
    and makes it the default QLocale. A language without a .qm leaves the English source text. */
void installTranslations(const QString &language);

} // namespace lantern
