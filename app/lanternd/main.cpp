// lanternd: the headless side of Lantern. One JSON object on stdout per command; exit codes as
// in DESIGN §6: 0 done, 2 invalid input, 3 Redis/SQL unreachable, 4 refused by a rule, 5 not
// permitted for this account, 1 other.
// The commands, their options and their help are one table (commandreference.cpp).
// Messages on stderr follow --lang or the system locale; stdout JSON is never translated.
#include "commandcontext.h"
#include "commandline.h"
#include "commandreference.h"
#include "core/errors.h"
#include "opscommands.h"
#include "access/role.h"
#include "stopsignal.h"
#include "redis/rediserror.h"
#include "translations.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>

using namespace lantern;

namespace {

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

/** Exit 4 or 5 with {"error": code, "message": ...} on stdout (DESIGN §6), the detail on stderr. */
int failJson(int code, const QString &error, const QString &message, const QString &detail)
{
    cli::printJson({{QStringLiteral("error"), error}, {QStringLiteral("message"), message}});
    std::fprintf(stderr, "lanternd: %s\n", (detail.isEmpty() || detail == message ? message : message + QStringLiteral(" (") + detail + QLatin1Char(')'))
                                                  .toLocal8Bit()
                                                  .constData());
    return code;
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

    const QStringList arguments = app.arguments().mid(1);
    installTranslations(languageOption(arguments));
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
        print(stdout, cli::CommandReference::usage());
        return 0;
    }
    try {
        if (arguments.contains(QStringLiteral("--help-man"))) {
            // lanternd(1), written at build time (packaging/manpage.cmake).
            print(stdout, cli::CommandReference::manPage().toRoff());
            return 0;
        }
        cli::CommandLine line = cli::parse(arguments, cli::CommandReference::switchNames());
        if (line.words.isEmpty()) {
            print(stderr, cli::CommandReference::usage());
            return 2;
        }
        const QList<cli::CommandSpec> commands = cli::CommandReference::commands();
        const QString words = line.words.join(QLatin1Char(' '));
        const auto command = std::find_if(commands.cbegin(), commands.cend(), [&](const cli::CommandSpec &spec) { return spec.words == words; });
        if (command == commands.cend())
            return fail(2, QCoreApplication::translate("lantern::cli::Main", "unknown command '%1' (see lanternd --help)").arg(words));
        cli::requireOnly(line, command->options(), command->switches());
        cli::installStopHandlers();
        const std::optional<access::Action> action = access::Roles::actionOfCommand(words);
        if (!action)
            throw std::logic_error("lanternd command without an access action: " + words.toStdString());
        cli::CommandContext context(std::move(line));
        try {
            context.authorize(*action);
            return command->run(context);
        } catch (const ForbiddenError &error) {
            // Lantern's own check, or a server's refusal (rights changed under a running session).
            return failJson(5, QStringLiteral("forbidden"), context.refusal(), error.message());
        }
    } catch (const NamedRefusal &error) {
        return failJson(4, error.code(), error.message(), QString());
    } catch (const ForbiddenError &error) {
        return failJson(5, QStringLiteral("forbidden"), error.message(), QString());
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
