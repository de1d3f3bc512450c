#include "consolemanual.h"

#include "shell/consoleoptions.h"
#include "core/errors.h"
#include "translations.h"

#include <QSettings>

#include <cstdio>

namespace lantern {

namespace {

/** The option as --help shows it: "--name <value>". */
QString optionTerm(const QCommandLineOption &option)
{
    QStringList names;
    for (const QString &name : option.names())
        names << (name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + name;
    QString term = names.join(QStringLiteral(", "));
    if (!option.valueName().isEmpty())
        term += QStringLiteral(" <%1>").arg(option.valueName());
    return term;
}

} // namespace

bool ConsoleManual::asksForText(int argc, char *argv[])
{
    static const char *const textOptions[] = {"-h", "--help", "-?", "--help-all", "-v", "--version", "--help-man"};
    for (int i = 1; i < argc; ++i) {
        for (const char *option : textOptions) {
            if (qstrcmp(argv[i], option) == 0)
                return true;
        }
    }
    return false;
}

int ConsoleManual::print(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lantern"));
    QCoreApplication::setOrganizationName(QStringLiteral("lantern"));
    QCoreApplication::setApplicationVersion(QStringLiteral(LANTERN_VERSION));
    const QStringList arguments = QCoreApplication::arguments();
    // As the console chooses: --lang, else the language last picked in its Language menu.
    QString language = ui::ConsoleOptions::languageFrom(arguments);
    if (language.isEmpty())
        language = QSettings().value(QStringLiteral("console/language")).toString();
    installTranslations(language);
    if (arguments.contains(QStringLiteral("--help-man"))) {
        std::fputs(manPage().toRoff().toLocal8Bit().constData(), stdout);
        return 0;
    }
    try {
        ui::ConsoleOptions::parse(arguments);  // prints help or version and exits
    } catch (const InvalidInputError &error) {
        std::fprintf(stderr, "lantern: %s\n", error.what());
        return 2;
    }
    return 0;
}

help::ManPage ConsoleManual::manPage()
{
    help::ManPage page;
    page.name = QStringLiteral("lantern");
    page.summary = tr("operations console for daily check-in and red-envelope campaigns");
    page.version = QStringLiteral("Lantern " LANTERN_VERSION);
    page.synopsis << QStringLiteral("[options]") << QStringLiteral("--screenshot FILE --view NAME [options]")
                  << QStringLiteral("--help | --version | --help-man");
    page.description = ui::ConsoleOptions::description().split(QLatin1Char('\n'));
    page.description << tr("Support staff look users up and grant make-ups, campaign managers run envelope campaigns, and on-call "
                           "engineers watch queues and workers and run recovery. With --screenshot it renders one view to a PNG file "
                           "and exits, which needs no display with QT_QPA_PLATFORM=offscreen.");
    help::ManSection options{tr("Options"), QString(), {}};
    options.entries << help::ManEntry{QStringLiteral("-h, --help"), QCoreApplication::translate("QCommandLineParser", "Displays help on commandline options.")}
                    << help::ManEntry{QStringLiteral("--help-all"),
                                      QCoreApplication::translate("QCommandLineParser", "Displays help including Qt specific options.")}
                    << help::ManEntry{QStringLiteral("-v, --version"), QCoreApplication::translate("QCommandLineParser", "Displays version information.")}
                    << help::ManEntry{QStringLiteral("--help-man"), tr("Prints this manual page as roff.")};
    for (const QCommandLineOption &option : ui::ConsoleOptions::commandLineOptions())
        options.entries << help::ManEntry{optionTerm(option), option.description()};
    page.sections << options;
    page.sections << help::ManSection{
            tr("Environment"),
            QString(),
            {{QStringLiteral("LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, ..."),
              tr("Every setting option as LANTERN_ and its name in upper case with _ for -; an option on the command line wins. "
                 "LANTERN_REDIS or LANTERN_DB connects to servers instead of the sandbox.")},
             {QStringLiteral("LANTERN_CONFIG, LANTERN_PROFILE"), tr("The profile file, or the named profile, to read settings from.")},
             {QStringLiteral("LANTERN_REDIS_SERVER"), tr("The redis-server binary the sandbox starts (default: redis-server on the PATH).")},
             {QStringLiteral("QT_QPA_PLATFORM"), tr("Qt's platform plugin; offscreen renders screenshots without a display.")}}};
    page.sections << help::ManSection{tr("Exit status"),
                                      QString(),
                                      {{QStringLiteral("0"), tr("The window was closed, or the screenshot was saved.")},
                                       {QStringLiteral("1"), tr("The screenshot could not be taken or written, or the command line was not understood.")},
                                       {QStringLiteral("2"), tr("Invalid input, such as an unknown view or a malformed date; the message is on stderr.")}}};
    page.sections << help::ManSection{tr("See also"), tr("lanternd(1)"), {}};
    return page;
}

} // namespace lantern
