#include "commandreference.h"

#include "accesscommands.h"
#include "campaigncommands.h"
#include "checkincommands.h"
#include "commandline.h"
#include "opscommands.h"
#include "schedulecommands.h"
#include "servecommands.h"

#include <QRegularExpression>

#include <stdexcept>

namespace lantern::cli {

namespace {

/** The --names of a synopsis, each with whether a value follows it. */
QList<std::pair<QString, bool>> synopsisNames(const QString &synopsis)
{
    static const QRegularExpression token(QStringLiteral("--[a-z][a-z0-9-]*|[^\\s\\[\\]|]+|[\\[\\]|]"));
    QStringList tokens;
    for (auto it = token.globalMatch(synopsis); it.hasNext();)
        tokens << it.next().captured();
    QList<std::pair<QString, bool>> names;
    for (qsizetype i = 0; i < tokens.size(); ++i) {
        if (!tokens.at(i).startsWith(QLatin1String("--")))
            continue;
        const bool takesValue = i + 1 < tokens.size() && !tokens.at(i + 1).startsWith(QLatin1String("--"))
                && tokens.at(i + 1) != QLatin1String("[") && tokens.at(i + 1) != QLatin1String("]") && tokens.at(i + 1) != QLatin1String("|");
        names.append({tokens.at(i).mid(2), takesValue});
    }
    return names;
}

/** What a global option's value looks like and what it sets. */
struct GlobalOption {
    const char *name;
    const char *value;
    QString text;
};

} // namespace

QString CommandSpec::usageLine() const
{
    return synopsis.isEmpty() ? words : words + QLatin1Char(' ') + synopsis;
}

QStringList CommandSpec::options() const
{
    QStringList result;
    for (const auto &[name, takesValue] : synopsisNames(synopsis)) {
        if (takesValue)
            result << name;
    }
    return result;
}

QStringList CommandSpec::switches() const
{
    QStringList result;
    for (const auto &[name, takesValue] : synopsisNames(synopsis)) {
        if (!takesValue)
            result << name;
    }
    return result;
}

QList<CommandSpec> CommandReference::commands()
{
    return {
            {QStringLiteral("migrate"), QString(), tr("Brings the SQL schema up to date and prints its version; running it again changes nothing."), runMigrate},
            {QStringLiteral("checkin"), QStringLiteral("--uid U|--token T [--date YYYY-MM-DD]"),
             tr("Checks the user in for today (or --date) and prints the streak, the month's count and the points granted."), runCheckin},
            {QStringLiteral("makeup"), QStringLiteral("--uid U|--token T --date YYYY-MM-DD --reason R [--operator O]"),
             tr("Grants a make-up check-in for a past day inside the make-up window and quota, audited with the reason."), runMakeup},
            {QStringLiteral("calendar"), QStringLiteral("--uid U|--token T [--month YYYY-MM]"),
             tr("Prints the user's signed and made-up days of a month, the streaks and the points balance."), runCalendar},
            {QStringLiteral("reconcile"), QStringLiteral("--date YYYY-MM-DD [--operator O]"),
             tr("Compares a day's check-ins in Redis with SQL and writes the missing rows."), runReconcile},
            {QStringLiteral("stats"), QStringLiteral("[--month YYYY-MM]"), tr("Prints the check-in figures of a month, day by day."), runStats},
            {QStringLiteral("migrate-redis"), QStringLiteral("[--dry-run] [--scan-count N]"),
             tr("Moves check-in keys of the old Redis layout to the packed one; --dry-run only counts them."), runMigrateRedis},
            {QStringLiteral("work"), QStringLiteral("[--id W] [--once] [--batch N] [--in-flight N]"),
             tr("Runs a worker: persists check-ins and envelope grabs and pays envelopes; --once drains every queue and exits."), runWork},
            {QStringLiteral("queues"), QString(), tr("Prints the queues' depth and oldest task, the workers' heartbeats and the dead-letter list."), runQueues},
            {QStringLiteral("recover"), QStringLiteral("[--worker W] [--operator O]"),
             tr("Takes back the tasks of workers whose heartbeat expired (or of --worker W) and completes or requeues them."), runRecover},
            {QStringLiteral("token"), QStringLiteral("--uid U|--token T [--ttl-s S]"),
             tr("Prints the user's public token and a signed bearer for the HTTP API."), runToken},
            {QStringLiteral("campaign create"),
             QStringLiteral("--name N --total-cents T --count C [--min-cents 1] [--algorithm double-mean|smoothed|uniform-cuts] [--seed S] "
                            "[--max-attempts 9] [--pools P] [--launch-at T] [--close-at T2] [--late-limit S] [--operator O]"),
             tr("Creates a draft envelope campaign: the total in cents split into C envelopes by the algorithm; with --launch-at "
                "(and --close-at) the workers launch (and close) it at those times."),
             runCampaignCreate},
            {QStringLiteral("campaign launch"), QStringLiteral("--id I [--operator O]"),
             tr("Writes the envelopes to SQL and the pool to Redis and opens the campaign; it can be repeated after a crash."),
             runCampaignLaunch},
            {QStringLiteral("campaign pause"), QStringLiteral("--id I [--operator O]"), tr("Stops grabs (the kill switch)."), runCampaignPause},
            {QStringLiteral("campaign resume"), QStringLiteral("--id I [--operator O]"), tr("Lets a paused campaign's grabs go on."), runCampaignResume},
            {QStringLiteral("campaign close"), QStringLiteral("--id I [--operator O]"),
             tr("Closes the campaign and refunds the envelopes nobody grabbed."), runCampaignClose},
            {QStringLiteral("campaign show"), QStringLiteral("--id I"),
             tr("Prints the campaign's status and figures: grabbed, persisted, paid and refunded."), runCampaignShow},
            {QStringLiteral("campaign schedule"), QStringLiteral("--id I [--launch-at T] [--close-at T2] [--late-limit S] [--clear] [--operator O]"),
             tr("Sets, changes or clears (--clear) when the workers launch and close a campaign: T is ISO 8601 with an offset "
                "(2026-12-31T20:00:00+08:00) or local time in --tz; --late-limit S skips a transition more than S seconds late."),
             runCampaignSchedule},
            {QStringLiteral("campaign list"), QStringLiteral("[--scheduled] [--limit N]"),
             tr("Lists the campaigns, newest first; --scheduled the timetable: each launch and close, prepared, made or missed."),
             runCampaignList},
            {QStringLiteral("campaign repair"), QStringLiteral("--id I [--operator O]"),
             tr("Puts a campaign's Redis state back in line with the SQL ledger after Redis lost data."), runCampaignRepair},
            {QStringLiteral("grab"), QStringLiteral("--campaign I --uid U|--token T"),
             tr("Grabs an envelope of a live campaign for the user and prints the outcome."), runGrab},
            {QStringLiteral("verify"), QStringLiteral("[--campaign I]"), tr("Checks the invariants of the envelope ledger and prints any violation."), runVerify},
            {QStringLiteral("serve"), QStringLiteral("[--listen HOST:PORT] [--threads N]"),
             tr("Runs the client HTTP API (check-in, calendar, grabs); needs --token-secret to check bearers."), runServe},
            {QStringLiteral("switch"), QStringLiteral("--feature checkin|grab --state on|off [--operator O]"),
             tr("Turns a feature of the HTTP API on or off for every server."), runSwitch},
            {QStringLiteral("campaign approve"), QStringLiteral("--id I [--operator O]"),
             tr("Approves a draft above the four-eyes bound (access install --approval-cents); only a manager other than its "
                "creator can, and only then does it launch."),
             runCampaignApprove},
            {QStringLiteral("access install"), QStringLiteral("[--approval-cents N]"),
             tr("With administrative accounts: creates the roles on MariaDB with their grants, records the four-eyes bound "
                "(default LANTERN_APPROVAL_CENTS or 1000000) and loads Lantern's Lua scripts; running it again changes nothing."),
             runAccessInstall},
            {QStringLiteral("operator add"), QStringLiteral("--name NAME --role viewer|support|manager|oncall|worker|api|admin [--password-file F]"),
             tr("Creates an account on MariaDB with that default role and the Redis ACL user on every node; without --password-file "
                "a generated password is printed, once."),
             runOperatorAdd},
            {QStringLiteral("operator list"), QString(), tr("Lists the accounts that hold one of Lantern's roles."), runOperatorList},
            {QStringLiteral("operator remove"), QStringLiteral("--name NAME"), tr("Drops the account on MariaDB and on every Redis node."),
             runOperatorRemove},
            {QStringLiteral("operator rotate"), QStringLiteral("--name NAME [--password-file F]"),
             tr("Gives the account a new password on MariaDB and on every Redis node."), runOperatorRotate},
            {QStringLiteral("operator set-role"), QStringLiteral("--name NAME --role viewer|support|manager|oncall|worker|api|admin [--password-file F]"),
             tr("Changes the account's role; its Redis user gets the new rules and a new password."), runOperatorSetRole},
    };
}

QSet<QString> CommandReference::switchNames()
{
    QSet<QString> names;
    for (const CommandSpec &command : commands()) {
        for (const QString &name : command.switches())
            names.insert(name);
    }
    return names;
}

QList<help::ManEntry> CommandReference::globalOptions()
{
    const GlobalOption described[] = {
            {"redis", "URL",
             tr("Redis: redis://[user:password@]host:port[/db] (rediss:// over TLS), any node (or a list of nodes) of a Redis Cluster, "
                "or the sentinels of a master: redis-sentinel://[user:password@]host:port,host:port#MASTER.")},
            {"redis-ca", "FILE", tr("TLS to Redis: the CA certificates that sign the servers' (default: the system's).")},
            {"redis-cert", "FILE", tr("TLS to Redis: this client's certificate, for mutual TLS.")},
            {"redis-key", "FILE", tr("TLS to Redis: the private key of --redis-cert.")},
            {"redis-sni", "NAME", tr("TLS to Redis: the server name sent and checked (default: the URL's host).")},
            {"redis-verify", "full|ca|none",
             tr("TLS to Redis: full (the default) checks the chain and the host name or IP, ca the chain only, none nothing (said on stderr).")},
            {"sentinel-user", "U", tr("Redis Sentinel: the sentinels' own user (the URL's credentials are the data nodes').")},
            {"sentinel-password", "P", tr("Redis Sentinel: the sentinels' own password.")},
            {"db", "URL", tr("SQL: mysql://user:password@host:port/name[?unix_socket=PATH] or sqlite:///absolute/path.db.")},
            {"db-ca", "FILE", tr("TLS to MySQL/MariaDB: the CA certificates that sign the server's (the chain is checked, not the host name).")},
            {"db-cert", "FILE", tr("TLS to MySQL/MariaDB: this client's certificate.")},
            {"db-key", "FILE", tr("TLS to MySQL/MariaDB: the private key of --db-cert.")},
            {"today", "YYYY-MM-DD", tr("Treats this day as today in every rule.")},
            {"tz", "ZONE", tr("Time zone of the business day (an IANA name such as Asia/Shanghai).")},
            {"prefix", "P", tr("Prefix of every Redis key (default lt:).")},
            {"shards", "N", tr("Number of check-in key shards (default 16).")},
            {"streak-policy", "monthly|rolling", tr("Whether streaks restart on the 1st (monthly, the default) or cross months.")},
            {"rewards", "10,20,30,50", tr("Points for day 1, 2, ... of a streak; the last entry repeats.")},
            {"makeup-window-days", "N", tr("Make-up window in days (0, the default: the past days of the current month).")},
            {"makeup-quota", "N", tr("Make-ups allowed per month (default 3).")},
            {"makeup-points", "true|false", tr("Whether a make-up grants points (default false).")},
            {"token-salt", "S", tr("Salt of the public user tokens.")},
            {"token-secret", "S", tr("Secret that signs the API bearers; serve needs it.")},
            {"rate-checkin", "R[/B]", tr("HTTP API limit of check-ins: R requests per second, burst B (0: unlimited, the default).")},
            {"rate-calendar", "R[/B]", tr("HTTP API limit of calendar reads, as --rate-checkin.")},
            {"rate-grab", "R[/B]", tr("HTTP API limit of grabs, as --rate-checkin.")},
            {"rate-campaign", "R[/B]", tr("HTTP API limit of campaign reads, as --rate-checkin.")},
            {"read-only", "true|false", tr("Refuses every write, in Redis and in SQL.")},
            {"grab-wait", "N/MS", tr("After each grab, waits until N replicas have it or MS milliseconds pass.")},
            {"profile", "NAME", tr("Reads settings from the named connection profile.")},
            {"config", "FILE", tr("Reads settings from this profile file.")},
            {"lang", "zh_CN|en", tr("Language of the messages and of --help (default: the system locale).")},
    };
    QList<help::ManEntry> entries;
    for (const QString &name : globalOptionNames()) {
        const auto found = std::find_if(std::begin(described), std::end(described), [&](const GlobalOption &option) {
            return name == QLatin1String(option.name);
        });
        if (found == std::end(described))
            throw std::logic_error("global option --" + name.toStdString() + " has no description in CommandReference::globalOptions()");
        entries.append({QStringLiteral("--%1 %2").arg(name, QLatin1String(found->value)), found->text});
    }
    return entries;
}

QList<help::ManEntry> CommandReference::environment()
{
    return {
            {QStringLiteral("LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY, ..."),
             tr("Every global option but --lang, --profile and --config as LANTERN_ and its name in upper case with _ for -. "
                "An option on the command line wins over its variable, a variable over the profile.")},
            {QStringLiteral("LANTERN_CONFIG, LANTERN_PROFILE"), tr("The profile file, or the named profile, to read settings from.")},
            {QStringLiteral("CREDENTIALS_DIRECTORY"),
             tr("Set by systemd (LoadCredential=): a file there named after a setting (redis, db, token-secret, ...) holds its value, "
                "which wins over the variable and the profile.")},
            {QStringLiteral("LANTERN_ERROR_LOG"), tr("File that work appends the tasks that keep failing to (default ~/.local/share/lantern/errors.log).")},
            {QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), tr("Seconds after its last heartbeat that a worker counts as dead (default 15).")},
            {QStringLiteral("LANTERN_PAYOUT_URL"), tr("http:// or https:// endpoint of the payout provider; unset: the simulated provider.")},
            {QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"), tr("How long one call to the payout provider may take (default 3000).")},
            {QStringLiteral("LANTERN_PAYOUT_CONNECTIONS"), tr("Keep-alive connections a worker opens to the payout provider (default: --in-flight).")},
            {QStringLiteral("LANTERN_PAYOUT_RATE"), tr("Calls per second to the payout provider, all workers together (default: no limit).")},
            {QStringLiteral("LANTERN_PAYOUT_FAIL_RATE, LANTERN_PAYOUT_DELAY_MS"),
             tr("The simulated provider: the share of calls that fail (0 to 1) and the delay of each call in milliseconds.")},
    };
}

QList<help::ManEntry> CommandReference::exitStatus()
{
    return {
            {QStringLiteral("0"), tr("Done, including business outcomes such as already signed or sold out.")},
            {QStringLiteral("1"), tr("Anything else.")},
            {QStringLiteral("2"), tr("Invalid input: the message is on stderr and nothing was written.")},
            {QStringLiteral("3"), tr("Redis or SQL unreachable or not ready; nothing was half-written.")},
            {QStringLiteral("4"), tr("Refused by a business rule, such as a make-up outside the window.")},
            {QStringLiteral("5"), tr("Not permitted for this account: {\"error\":\"forbidden\"} on stdout and nothing was written.")},
    };
}

QString CommandReference::usage()
{
    QString text = tr("usage: lanternd COMMAND [options]") + QLatin1Char('\n') + tr("commands:") + QLatin1Char('\n');
    for (const CommandSpec &command : commands())
        text += QStringLiteral("  ") + command.usageLine() + QLatin1Char('\n');
    text += tr("global options (anywhere on the line):") + QLatin1Char('\n');
    for (const help::ManEntry &option : globalOptions())
        text += QStringLiteral("  %1\n      %2\n").arg(option.term, option.text);
    text += tr("environment:") + QLatin1Char('\n');
    for (const help::ManEntry &variable : environment())
        text += QStringLiteral("  %1\n      %2\n").arg(variable.term, variable.text);
    text += tr("exit status:") + QLatin1Char('\n');
    for (const help::ManEntry &code : exitStatus())
        text += QStringLiteral("  %1  %2\n").arg(code.term, code.text);
    text += tr("The manual page lanternd(1) says the same at more length.") + QLatin1Char('\n');
    return text;
}

help::ManPage CommandReference::manPage()
{
    help::ManPage page;
    page.name = QStringLiteral("lanternd");
    page.summary = tr("check-in and red-envelope campaigns on Redis and SQL: JSON command line, workers and HTTP API");
    page.version = QStringLiteral("Lantern " LANTERN_VERSION);
    page.synopsis << QStringLiteral("COMMAND [options]") << QStringLiteral("--help") << QStringLiteral("--help-man");
    page.description << tr("lanternd is the headless side of Lantern. Each command prints one JSON object on one line on stdout; "
                           "messages go to stderr, in the language of --lang or the system locale. JSON is never translated.")
                     << tr("Global options may come before or after the command; --name value and --name=value both work. "
                           "--help prints this summary and --help-man this page as roff.");
    help::ManSection commandSection{tr("Commands"), QString(), {}};
    for (const CommandSpec &command : commands())
        commandSection.entries.append({command.usageLine(), command.text});
    page.sections << commandSection << help::ManSection{tr("Global options"), QString(), globalOptions()}
                  << help::ManSection{tr("Environment"), QString(), environment()}
                  << help::ManSection{tr("Exit status"), QString(), exitStatus()}
                  << help::ManSection{tr("See also"), tr("lantern(1), systemd.exec(5); the units lanternd-work.service and lanternd-serve.service."), {}};
    return page;
}

} // namespace lantern::cli
