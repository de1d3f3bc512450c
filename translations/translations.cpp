#include "translations.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QTranslator>

namespace lantern {

void installTranslations(const QString &language)
{
    // Called again to switch languages: the previous translators go first.
    static QPointer<QTranslator> s_qt;
    static QPointer<QTranslator> s_lantern;
    for (QPointer<QTranslator> *installed : {&s_qt, &s_lantern}) {
        if (*installed) {
            QCoreApplication::removeTranslator(*installed);
            delete installed->data();
        }
    }
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    QLocale::setDefault(locale);
    auto *app = QCoreApplication::instance();
    auto *qt = new QTranslator(app);
    if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt);
        s_qt = qt;
    } else {
        delete qt;
    }
    auto *lantern = new QTranslator(app);
    // A language Lantern has no translation for (the C locale of a bare system included) gets
    // English: the sources' "day(s)" become "1 day" and "2 days" only through lantern_en.
    if (lantern->load(locale, QStringLiteral("lantern"), QStringLiteral("_"), QStringLiteral(":/i18n"))
        || lantern->load(QStringLiteral("lantern_en"), QStringLiteral(":/i18n"))) {
        QCoreApplication::installTranslator(lantern);
        s_lantern = lantern;
    } else {
        delete lantern;
    }
}

} // namespace lantern
