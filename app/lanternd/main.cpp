// lanternd: the headless side of Lantern. One JSON object on stdout per command; exit codes as
// in DESIGN §6: 0 done, 2 invalid input, 3 Redis/SQL unreachable, 4 refused by a rule, 1 other.
#include "checkincommands.h"
#include "commandcontext.h"
#include "commandline.h"
#include "core/errors.h"
#include "opscommands.h"

#include <QCoreApplication>

#include <cstdio>
#include <functional>
#include <map>

using namespace lantern;

namespace {

const char *const Usage = R"(usage: lanternd COMMAND [options]
commands:
  migrate
  checkin  --uid U|--token T [--date YYYY-MM-DD]
  makeup   --uid U|--token T --date YYYY-MM-DD --reason R --operator O
  calendar --uid U|--token T [--month YYYY-MM]
  reconcile --date YYYY-MM-DD
  work     [--id W] [--once] [--batch N]
  queues
  recover  [--worker W] [--operator O]
  token    --uid U [--ttl-s S]
global options (anywhere): --redis URL --db URL --today YYYY-MM-DD --tz ZONE --prefix P --shards N
  --streak-policy monthly|rolling --rewards 10,20,30,50 --makeup-window-days N --makeup-quota N
  --makeup-points true|false --token-salt S --profile NAME --config FILE
environment: LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, LANTERN_TZ, ... (LANTERN_ + option name)
)";

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
    };

    const QStringList arguments = app.arguments().mid(1);
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        std::fputs(Usage, stdout);
        return 0;
    }
    try {
        cli::CommandLine line = cli::parse(arguments, {QStringLiteral("once")});
        if (line.words.isEmpty()) {
            std::fputs(Usage, stderr);
            return 2;
        }
        const auto command = commands.find(line.words.join(QLatin1Char(' ')));
        if (command == commands.end())
            return fail(2, QStringLiteral("unknown command '%1' (see lanternd --help)").arg(line.words.join(QLatin1Char(' '))));
        cli::installStopHandlers();
        cli::CommandContext context(std::move(line));
        return command->second(context);
    } catch (const InvalidInputError &error) {
        return fail(2, error.message());
    } catch (const UnavailableError &error) {
        return fail(3, error.message());
    } catch (const RefusedError &error) {
        return fail(4, error.message());
    } catch (const std::exception &error) {
        return fail(1, QString::fromLocal8Bit(error.what()));
    }
}
