// lanternd: the headless side of Lantern. One JSON object on stdout per command; exit codes as
// in DESIGN §6: 0 done, 2 invalid input, 3 Redis/SQL unreachable, 4 refused by a rule, 1 other.
// Messages on stderr follow --lang or the system locale; stdout JSON is never translated.
#include "campaigncommands.h"
#include "checkincommands.h"
#include "commandcontext.h"
#include "commandline.h"
#include "core/errors.h"
#include "opscommands.h"
#include "redis/rediserror.h"
#include "servecommands.h"
#include "translations.h"

#include <QCoreApplication>

#include <cstdio>
#include <functional>
#include <map>

using namespace lantern;

namespace {

/** The usage text: command and option names as typed, the rest translated. */
QString usage()
{
    return QCoreApplication::translate("lantern::cli::Main",
                                       "usage: lanternd COMMAND [options]\n"
                                       "commands:\n"
                                       "  migrate\n"
                                       "  checkin  --uid U|--token T [--date YYYY-MM-DD]\n"
                                       "  makeup   --uid U|--token T --date YYYY-MM-DD --reason R --operator O\n"
                                       "  calendar --uid U|--token T [--month YYYY-MM]\n"
                                       "  reconcile --date YYYY-MM-DD\n"
                                       "  stats    [--month YYYY-MM]\n"
                                       "  migrate-redis [--dry-run] [--scan-count N]\n"
                                       "  work     [--id W] [--once] [--batch N] [--in-flight N]\n"
                                       "  queues\n"
                                       "  recover  [--worker W] [--operator O]\n"
                                       "  token    --uid U [--ttl-s S]\n"
                                       "  campaign create --name N --total-cents T --count C [--min-cents 1] [--algorithm double-mean|smoothed|uniform-cuts]\n"
                                       "                  [--seed S] [--max-attempts 9]\n"
                                       "  campaign launch|pause|resume|close|show --id I\n"
                                       "  campaign repair --id I [--operator O]\n"
                                       "  grab     --campaign I --uid U|--token T\n"
                                       "  verify   [--campaign I]\n"
                                       "  serve    [--listen HOST:PORT] [--threads N]   (needs --token-secret; rate limits --rate-checkin R[/B] ...)\n"
                                       "  switch   --feature checkin|grab --state on|off [--operator O]\n"
                                       "global options (anywhere): --redis URL --db URL --today YYYY-MM-DD --tz ZONE --prefix P --shards N\n"
                                       "  --streak-policy monthly|rolling --rewards 10,20,30,50 --makeup-window-days N --makeup-quota N\n"
                                       "  --makeup-points true|false --token-salt S --token-secret S --read-only true|false --profile NAME --config FILE\n"
                                       "  TLS to Redis (rediss:// URLs): --redis-ca FILE --redis-cert FILE --redis-key FILE --redis-sni NAME\n"
                                       "  --redis-verify full|ca|none; TLS to MySQL/MariaDB: --db-ca FILE --db-cert FILE --db-key FILE (docs/connect.md)\n"
                                       "  Redis Sentinel: --redis redis-sentinel://[user:password@]host:port[,host:port...][/db]#MASTER\n"
                                       "  --sentinel-user U --sentinel-password P (the sentinels' own credentials)\n"
                                       "  --lang zh_CN|en (language of the messages; default: the system locale)\n"
                                       "environment: LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, LANTERN_TZ, ... (LANTERN_ + option name)\n");
}

/** --lang's value (`--lang X` or `--lang=X`), read before the command line is parsed so that
    every message, parse errors included, is already in that language. */
QString languageOption(const QStringList &arguments)
{
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        if (argument == QLatin1String("--lang") && i + 1 < arguments.size())
            return arguments.at(i + 1);
        if (argument.startsWith(QLatin1String("--lang=")))
            return argument.mid(7);
    }
    return {};
}

void print(std::FILE *stream, const QString &text)
{
    std::fputs(text.toLocal8Bit().constData(), stream);
}

int fail(int code, const QString &message)
{
    std::fprintf(stderr, "lanternd: %s\n", message.toLocal8Bit().constData());
    return code;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("lantern"));
    QCoreApplication::setOrganizationName(QStringLiteral("lantern"));

    const std::map<QString, std::function<int(cli::CommandContext &)>> commands{
            {QStringLiteral("migrate"), cli::runMigrate},   {QStringLiteral("checkin"), cli::runCheckin},
            {QStringLiteral("makeup"), cli::runMakeup},     {QStringLiteral("calendar"), cli::runCalendar},
            {QStringLiteral("reconcile"), cli::runReconcile}, {QStringLiteral("work"), cli::runWork},
            {QStringLiteral("queues"), cli::runQueues},     {QStringLiteral("recover"), cli::runRecover},
            {QStringLiteral("token"), cli::runToken},
            {QStringLiteral("stats"), cli::runStats},       {QStringLiteral("migrate-redis"), cli::runMigrateRedis},
            {QStringLiteral("campaign create"), cli::runCampaignCreate},
            {QStringLiteral("campaign launch"), cli::runCampaignLaunch},
            {QStringLiteral("campaign pause"), cli::runCampaignPause},
            {QStringLiteral("campaign resume"), cli::runCampaignResume},
            {QStringLiteral("campaign close"), cli::runCampaignClose},
            {QStringLiteral("campaign show"), cli::runCampaignShow},
            {QStringLiteral("campaign repair"), cli::runCampaignRepair},
            {QStringLiteral("grab"), cli::runGrab},
            {QStringLiteral("verify"), cli::runVerify},
            {QStringLiteral("serve"), cli::runServe},
            {QStringLiteral("switch"), cli::runSwitch},
    };

    const QStringList arguments = app.arguments().mid(1);
    installTranslations(languageOption(arguments));
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        print(stdout, usage());
        return 0;
    }
    try {
        cli::CommandLine line = cli::parse(arguments, {QStringLiteral("once"), QStringLiteral("dry-run")});
        if (line.words.isEmpty()) {
            print(stderr, usage());
            return 2;
        }
        const auto command = commands.find(line.words.join(QLatin1Char(' ')));
        if (command == commands.end())
            return fail(2, QCoreApplication::translate("lantern::cli::Main", "unknown command '%1' (see lanternd --help)")
                                   .arg(line.words.join(QLatin1Char(' '))));
        cli::installStopHandlers();
        cli::CommandContext context(std::move(line));
        return command->second(context);
    } catch (const InvalidInputError &error) {
        return fail(2, error.message());
    } catch (const RedisNotReadyError &error) {
        // Loading, busy, ...: a state that passes by itself, unlike a server that is down.
        return fail(3, QCoreApplication::translate("lantern::cli::Main", "%1; try again in a moment").arg(error.message()));
    } catch (const UnavailableError &error) {
        return fail(3, error.message());
    } catch (const RefusedError &error) {
        return fail(4, error.message());
    } catch (const std::exception &error) {
        return fail(1, QString::fromLocal8Bit(error.what()));
    }
}
