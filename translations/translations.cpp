#include "translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace lantern {

void installTranslations(const QString &language)
{
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    QLocale::setDefault(locale);
    auto *app = QCoreApplication::instance();
    auto *qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qt);
    else
        delete qt;
    auto *lantern = new QTranslator(app);
    if (lantern->load(locale, QStringLiteral("lantern"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QCoreApplication::installTranslator(lantern);
    else
        delete lantern;
}

} // namespace lantern
