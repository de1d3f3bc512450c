#pragma once

#include <QCommandLineOption>
#include <QCoreApplication>
#include <QDate>
#include <QHash>
#include <QSize>
#include <QString>
#include <QStringList>

namespace lantern::ui {

/** The `lantern` command line. */
struct ConsoleOptions {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::ConsoleOptions)

public:
    bool sandbox = true;                // --sandbox, or neither --redis nor --db given
    QHash<QString, QString> settings;   // Config settings given as flags (--redis, --today, ...)
    QString sandboxDirectory;           // --sandbox-dir, else Sandbox::defaultDirectory()
    QString screenshotFile;             // --screenshot FILE: render, save, exit
    QString view = QStringLiteral("users");
    QString uid;                        // --uid: a uid or token to show
    qint64 campaignId = 0;              // --campaign: the campaign to show
    QDate month;                        // --month YYYY-MM
    QDate day;                          // --day YYYY-MM-DD: select this day (and its month)
    QString language;                   // --lang, else the system locale
    QSize size;                         // --size WxH: the window's size (a screenshot's); invalid: the default

    /** What the console is, for --help and lantern(1). */
    static QString description();
    /** The options besides --help and --version, as --help lists them: parse() takes these, and
        lantern(1) is written from them (app/lantern/consolemanual.cpp). */
    static QList<QCommandLineOption> commandLineOptions();
    /** Parses `arguments` (argv, program first). Prints help or version and exits for --help
        and --version; throws InvalidInputError for anything malformed. */
    static ConsoleOptions parse(const QStringList &arguments);
    /** The names --view takes. */
    static QStringList viewNames()
    {
        return {QStringLiteral("users"), QStringLiteral("campaigns"), QStringLiteral("queues"), QStringLiteral("recovery"),
                QStringLiteral("audit"), QStringLiteral("connections"), QStringLiteral("stats")};
    }
    /** --lang's value, read before the full parse so the help text is already translated. */
    static QString languageFrom(const QStringList &arguments);

private:
    /** The Config settings `lantern` accepts as flags, with what each means. */
    static QList<std::pair<QString, QString>> settingOptions();
};

} // namespace lantern::ui
