#include "shell/consoleoptions.h"

#include "common/consoletheme.h"

#include "core/errors.h"
#include "settings/config.h"

#include <QCommandLineParser>
#include <QProcessEnvironment>

namespace lantern::ui {

QList<std::pair<QString, QString>> ConsoleOptions::settingOptions()
{
    return {
            {QStringLiteral("redis"), tr("Redis server, redis://[user:password@]host:port[/db].")},
            {QStringLiteral("db"), tr("SQL database, mysql://user:password@host:port/name or sqlite:///path.db.")},
            {QStringLiteral("today"), tr("Treat this day (YYYY-MM-DD) as today.")},
            {QStringLiteral("tz"), tr("Time zone of the business day, e.g. Asia/Shanghai.")},
            {QStringLiteral("prefix"), tr("Redis key prefix (default lt:).")},
            {QStringLiteral("shards"), tr("Number of check-in key shards (default 16).")},
            {QStringLiteral("streak-policy"), tr("monthly or rolling.")},
            {QStringLiteral("rewards"), tr("Points per streak day, e.g. 10,20,30,50.")},
            {QStringLiteral("makeup-window-days"), tr("Make-up window in days (0: the current month).")},
            {QStringLiteral("makeup-quota"), tr("Make-ups allowed per month.")},
            {QStringLiteral("makeup-points"), tr("Whether a make-up grants points (true or false).")},
            {QStringLiteral("token-salt"), tr("Salt of the public user tokens.")},
            {QStringLiteral("read-only"), tr("true: refuse every write where commands are sent (Redis and SQL).")},
            {QStringLiteral("profile"), tr("Named connection profile.")},
            {QStringLiteral("config"), tr("Profile file to read settings from.")},
    };
}

QString ConsoleOptions::languageFrom(const QStringList &arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if ((argument == QLatin1String("--lang") || argument == QLatin1String("-lang")) && i + 1 < arguments.size())
            return arguments.at(i + 1);
        if (argument.startsWith(QLatin1String("--lang=")))
            return argument.mid(7);
    }
    return {};
}

QString ConsoleOptions::description()
{
    return tr("Lantern Console: look users up, read their check-in calendar and grant make-ups.\n"
              "Without --redis and --db it starts a sandbox: a private Redis, an SQLite file and demo data.");
}

QList<QCommandLineOption> ConsoleOptions::commandLineOptions()
{
    QList<QCommandLineOption> options{
            {QStringLiteral("sandbox"), tr("Use the embedded sandbox (the default without --redis and --db).")},
            {QStringLiteral("sandbox-dir"), tr("Where the sandbox keeps its files."), tr("dir")},
            {QStringLiteral("screenshot"), tr("Render a view to this PNG file and exit."), tr("file")},
            {QStringLiteral("view"), tr("The view to open or render: users, campaigns, queues, recovery, audit, connections, stats."), tr("name"),
             QStringLiteral("users")},
            {QStringLiteral("campaign"), tr("Show this campaign (its id)."), tr("id")},
            {QStringLiteral("uid"), tr("Show this user (a uid or a token)."), tr("uid")},
            {QStringLiteral("month"), tr("Show this month (YYYY-MM)."), tr("month")},
            {QStringLiteral("day"), tr("Select this day (YYYY-MM-DD) in the calendar."), tr("date")},
            {QStringLiteral("lang"), tr("Interface language, e.g. zh_CN or en."), tr("language")},
            {QStringLiteral("theme"), tr("Colours: system (the default), light or dark."), tr("theme")},
            {QStringLiteral("size"), tr("The window's size in logical pixels, e.g. 1366x768 (a screenshot's too)."), tr("WxH")},
    };
    for (const auto &[name, text] : settingOptions())
        options << QCommandLineOption(name, text, tr("value"));
    return options;
}

ConsoleOptions ConsoleOptions::parse(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(description());
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions(commandLineOptions());
    const auto isSet = [&parser](const char *name) { return parser.isSet(QLatin1String(name)); };
    const auto value = [&parser](const char *name) { return parser.value(QLatin1String(name)); };

    // process() prints help, version and parse errors itself and exits.
    parser.process(arguments);

    ConsoleOptions options;
    for (const auto &setting : settingOptions()) {
        if (parser.isSet(setting.first))
            options.settings.insert(setting.first, parser.value(setting.first));
    }
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const bool serversGiven = options.settings.contains(QStringLiteral("redis")) || options.settings.contains(QStringLiteral("db"))
            || environment.contains(QStringLiteral("LANTERN_REDIS")) || environment.contains(QStringLiteral("LANTERN_DB"))
            || options.settings.contains(QStringLiteral("profile")) || options.settings.contains(QStringLiteral("config"));
    if (isSet("sandbox") && (options.settings.contains(QStringLiteral("redis")) || options.settings.contains(QStringLiteral("db"))))
        throw InvalidInputError(tr("--sandbox cannot be combined with --redis or --db"));
    options.sandbox = isSet("sandbox") || !serversGiven;
    if (!options.sandbox && (!options.settings.contains(QStringLiteral("redis")) && !environment.contains(QStringLiteral("LANTERN_REDIS"))
                             && !options.settings.contains(QStringLiteral("profile")) && !options.settings.contains(QStringLiteral("config"))))
        throw InvalidInputError(tr("--db needs --redis as well (or use --sandbox)"));
    if (options.sandbox) {
        // The sandbox chooses its own servers; settings from the environment must not leak in.
        options.settings.remove(QStringLiteral("redis"));
        options.settings.remove(QStringLiteral("db"));
    }
    options.sandboxDirectory = value("sandbox-dir");
    options.screenshotFile = value("screenshot");
    options.view = value("view");
    if (!viewNames().contains(options.view))
        throw InvalidInputError(tr("unknown view '%1': expected one of %2").arg(options.view, viewNames().join(QStringLiteral(", "))));
    if (isSet("campaign")) {
        bool ok = false;
        options.campaignId = value("campaign").toLongLong(&ok);
        if (!ok || options.campaignId < 1)
            throw InvalidInputError(tr("invalid --campaign '%1': expected a campaign id (a positive whole number)").arg(value("campaign")));
    }
    options.uid = value("uid");
    if (isSet("size")) {
        const QStringList parts = value("size").split(QLatin1Char('x'));
        bool wide = false;
        bool high = false;
        if (parts.size() == 2)
            options.size = QSize(parts.at(0).toInt(&wide), parts.at(1).toInt(&high));
        if (!wide || !high || options.size.width() < 320 || options.size.height() < 240 || options.size.width() > 10000
            || options.size.height() > 10000)
            throw InvalidInputError(tr("invalid --size '%1': expected WIDTHxHEIGHT in pixels, e.g. 1366x768").arg(value("size")));
    }
    if (isSet("month"))
        options.month = parseMonth(value("month"));
    if (isSet("day")) {
        options.day = parseDate(value("day"), QStringLiteral("--day"));
        if (!options.month.isValid())
            options.month = QDate(options.day.year(), options.day.month(), 1);
    }
    options.language = value("lang");
    if (isSet("theme")) {
        bool known = false;
        ConsoleTheme::fromName(value("theme"), &known);
        if (!known)
            throw InvalidInputError(tr("invalid --theme '%1': expected system, light or dark").arg(value("theme")));
    }
    return options;
}

} // namespace lantern::ui
