// Issue 3 for the envelope side: every campaign command (campaign create|launch|pause|resume|
// close|show, grab, verify, and the work/recover/queues options that drain payouts) refuses bad
// input as DESIGN §6 says: the documented exit code (2 invalid input, 3 Redis/SQL unreachable,
// 4 refused by a business rule), one clear line on stderr, nothing on stdout, and nothing written
// anywhere. The repeats that are not errors (launching a live campaign, closing a closed one,
// grabbing twice, grabbing a campaign that is not live) exit 0 with their documented JSON and
// write nothing either.
//
// "Nothing written" is checked, not assumed: before and after each run, the DUMP of every Redis
// key under the suite's prefix, the Redis key count, and every row of the campaign, envelope,
// grab, payout, audit_log, checkin_log and points_ledger tables must be byte-identical.
//
// Every row runs on MariaDB and on SQLite against one prepared state per dialect (five campaigns,
// one per status, grabs persisted and paid, one payout task queued and one in a dead worker's
// backup list). Since no row may change that state, the rows share it; a row that fails part way
// has the state rebuilt for the next one. The suite keeps its keys in Redis logical database 12,
// which no other suite uses, so DBSIZE stays meaningful while other suites run in parallel.

#include "clitest.h"
#include "redis/keyschema.h"
#include "testservers.h"
#include "testsuite.h"

#include <QDir>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <utility>

namespace tst_cli_campaign_badinput {

using namespace lantern::test::cli;

namespace {

constexpr int RedisDatabase = 12;

/** The prepared campaigns (ids are deterministic: each dialect starts from an empty database). */
constexpr const char *DraftId = "1";        // created, never launched
constexpr const char *LiveId = "2";         // live: uids 1 and 2 persisted and paid, 3 queued, 4 in w-dead's backup
constexpr const char *PausedId = "3";       // launched, uid 1 grabbed, paused
constexpr const char *ClosedId = "4";       // launched, uid 1 grabbed, closed
constexpr const char *ClosedDraftId = "5";  // closed without ever being launched
constexpr const char *UnknownId = "999";

const QStringList &sqlTables()
{
    static const QStringList tables{QStringLiteral("campaign"),    QStringLiteral("envelope"),    QStringLiteral("grab"),
                                    QStringLiteral("payout"),      QStringLiteral("grab_refused"), QStringLiteral("audit_log"),   QStringLiteral("checkin_log"),
                                    QStringLiteral("points_ledger")};
    return tables;
}

QStringList args(std::initializer_list<const char *> list)
{
    QStringList result;
    for (const char *item : list)
        result << QString::fromUtf8(item);
    return result;
}

QStringList extend(QStringList list, std::initializer_list<const char *> more)
{
    return list << args(more);
}

/** `campaign create` with a valid name, total and count, changed by `changes`: a listed option
    replaces the default one (an empty optional drops it), an unlisted one is appended. */
QStringList create(std::initializer_list<std::pair<const char *, std::optional<QString>>> changes = {})
{
    QList<std::pair<QString, std::optional<QString>>> options{{QStringLiteral("name"), QStringLiteral("Spring Festival")},
                                                              {QStringLiteral("total-cents"), QStringLiteral("1000")},
                                                              {QStringLiteral("count"), QStringLiteral("10")}};
    for (const auto &[name, value] : changes) {
        const QString key = QString::fromUtf8(name);
        const auto it = std::find_if(options.begin(), options.end(), [&key](const auto &option) { return option.first == key; });
        if (it != options.end())
            it->second = value;
        else
            options.append({key, value});
    }
    QStringList result = args({"campaign", "create"});
    for (const auto &[name, value] : std::as_const(options)) {
        if (value)
            result << QStringLiteral("--") + name << *value;
    }
    return result;
}

std::optional<QString> text(const char *utf8)
{
    return QString::fromUtf8(utf8);
}

QByteArrayList bytes(std::initializer_list<const char *> list)
{
    QByteArrayList result;
    for (const char *item : list)
        result << QByteArray(item);
    return result;
}

/** One run under test and what DESIGN §6 and docs/cli.md promise for it. */
struct Case {
    QStringList arguments;          // --redis/--db/--prefix added when absent
    QByteArrayList raw;             // when not empty: run with these bytes instead (not UTF-8)
    QMap<QString, QString> env;     // extra environment
    int exitCode = 2;
    QString stderrHas;              // part of the one-line message (exit != 0); stderr is empty on exit 0
    QString stdoutIs;               // "": nothing; "@label": what the setup printed (see build()); else the exact JSON
    bool beforeConnecting = false;  // the verdict needs no server: it must come with both unreachable too
};

using CaseList = QList<std::pair<QString, Case>>;

/** Every case. Unreachable servers depend on the dialect (SQLite's is a path that cannot exist). */
CaseList cases(const QString &dialect)
{
    CaseList list;
    const auto add = [&list](const char *name, Case c) { list.append({QString::fromUtf8(name), std::move(c)}); };
    // Exit 2, decided from the command line alone.
    const auto invalid = [&add](const char *name, const QStringList &arguments, const char *message) {
        add(name, Case{arguments, {}, {}, 2, QString::fromUtf8(message), {}, true});
    };
    const auto invalidBytes = [&add](const char *name, const QByteArrayList &raw, const char *message) {
        add(name, Case{{}, raw, {}, 2, QString::fromUtf8(message), {}, true});
    };
    // Exit 2 that only the stored state can tell: an unknown id.
    const auto invalidHere = [&add](const char *name, const QStringList &arguments, const char *message) {
        add(name, Case{arguments, {}, {}, 2, QString::fromUtf8(message), {}, false});
    };
    const auto refused = [&add](const char *name, const QStringList &arguments, const char *message) {
        add(name, Case{arguments, {}, {}, 4, QString::fromUtf8(message), {}, false});
    };
    // Exit 0, prints what docs/cli.md says, writes nothing.
    const auto unchanged = [&add](const char *name, const QStringList &arguments, const char *stdoutIs) {
        add(name, Case{arguments, {}, {}, 0, {}, QString::fromUtf8(stdoutIs), false});
    };
    const QString deadRedis = unreachableRedisUrl();
    const QString deadSql = unreachableSqlUrl(dialect);
    const char *deadSqlMessage = dialect == QLatin1String("mysql") ? "cannot open database" : "cannot create the database directory";
    const auto withDeadRedis = [&deadRedis](QStringList arguments) { return arguments << QStringLiteral("--redis") << deadRedis; };
    const auto withDeadSql = [&deadSql](QStringList arguments) { return arguments << QStringLiteral("--db") << deadSql; };
    const auto unreachable = [&](const char *what, const QStringList &arguments) {
        add(qPrintable(QString::fromUtf8(what) + QStringLiteral(": Redis unreachable (exit 3)")),
            Case{withDeadRedis(arguments), {}, {}, 3, QStringLiteral("unreachable"), {}, false});
        add(qPrintable(QString::fromUtf8(what) + QStringLiteral(": SQL unreachable (exit 3)")),
            Case{withDeadSql(arguments), {}, {}, 3, QString::fromUtf8(deadSqlMessage), {}, false});
    };
    const QString longText(129, QLatin1Char('x'));
    const QString hugeText(100'000, QLatin1Char('y'));

    // --- campaign create: the command line ---
    invalid("create: missing --name", create({{"name", std::nullopt}}), "missing --name");
    invalid("create: missing --total-cents", create({{"total-cents", std::nullopt}}), "missing --total-cents");
    invalid("create: missing --count", create({{"count", std::nullopt}}), "missing --count");
    invalid("create: --name= (an empty inline value)", create({{"name", std::nullopt}}) << QStringLiteral("--name="),
            "a campaign needs a name of 1 to 128 characters");
    invalid("create: --count given twice", extend(create(), {"--count", "10"}), "--count given twice");
    invalid("create: unknown option --colour", create({{"colour", text("red")}}), "unknown option --colour");
    invalid("create: another command's option --id", create({{"id", text("1")}}), "unknown option --id");
    invalid("create: switch --once", create() << QStringLiteral("--once"), "--once does not apply");
    invalid("create: stray word after the command", create() << QStringLiteral("now"), "unknown command 'campaign create now'");
    invalid("create: single-dash option -n", create() << QStringLiteral("-n"), "unknown option '-n'");

    // --- campaign create: amounts and counts ---
    invalid("create: total not a number", create({{"total-cents", text("ten")}}), "invalid --total-cents 'ten'");
    invalid("create: total 0", create({{"total-cents", text("0")}}), "invalid --total-cents '0'");
    invalid("create: total negative", create({{"total-cents", text("-1000")}}), "invalid --total-cents '-1000'");
    invalid("create: total one past int64", create({{"total-cents", text("9223372036854775808")}}), "invalid --total-cents");
    invalid("create: total of 23 digits", create({{"total-cents", text("99999999999999999999999")}}), "invalid --total-cents");
    invalid("create: total in yuan with decimals", create({{"total-cents", text("10.50")}}), "invalid --total-cents");
    invalid("create: total with a thousands separator", create({{"total-cents", text("1,000")}}), "invalid --total-cents");
    invalid("create: total in exponent form", create({{"total-cents", text("1e3")}}), "invalid --total-cents");
    invalid("create: total in hex", create({{"total-cents", text("0x3e8")}}), "invalid --total-cents");
    invalid("create: total with a plus sign", create({{"total-cents", text("+1000")}}), "invalid --total-cents");
    invalid("create: total with a leading space", create({{"total-cents", text(" 1000")}}), "invalid --total-cents");
    invalid("create: total in full-width digits", create({{"total-cents", text("１０００")}}), "invalid --total-cents");
    invalid("create: total empty", create({{"total-cents", text("")}}), "invalid --total-cents");
    invalid("create: count 0", create({{"count", text("0")}}), "invalid --count '0'");
    invalid("create: count negative", create({{"count", text("-10")}}), "invalid --count");
    invalid("create: count over 10000000", create({{"count", text("10000001")}, {"total-cents", text("100000000")}}), "invalid --count");
    invalid("create: count past int64", create({{"count", text("9223372036854775808")}}), "invalid --count");
    invalid("create: count not a number", create({{"count", text("ten")}}), "invalid --count");
    invalid("create: min 0", create({{"min-cents", text("0")}}), "invalid --min-cents '0'");
    invalid("create: min negative", create({{"min-cents", text("-1")}}), "invalid --min-cents");
    invalid("create: min not a number", create({{"min-cents", text("one")}}), "invalid --min-cents");
    invalid("create: total below count (999 for 1000)", create({{"total-cents", text("999")}, {"count", text("1000")}}),
            "the total of 999 cents is less than 1000 envelopes of at least 1 cents");
    invalid("create: total below count x min (10 x 101 > 1000)", create({{"min-cents", text("101")}}),
            "the total of 1000 cents is less than 10 envelopes of at least 101 cents");
    invalid("create: min above total", create({{"count", text("1")}, {"min-cents", text("1001")}}), "is less than 1 envelopes");
    invalid("create: count x min overflows int64 (10000000 x 922337203685478)",
            create({{"total-cents", text("9223372036854775807")}, {"count", text("10000000")}, {"min-cents", text("922337203685478")}}),
            "exceed the largest amount");
    invalid("create: count x min overflows int64 (2 x int64 max)",
            create({{"total-cents", text("9223372036854775807")}, {"count", text("2")}, {"min-cents", text("9223372036854775807")}}),
            "exceed the largest amount");

    // --- campaign create: algorithm, seed, attempts ---
    invalid("create: unknown algorithm triple-mean", create({{"algorithm", text("triple-mean")}}), "unknown --algorithm 'triple-mean'");
    invalid("create: algorithm in another case", create({{"algorithm", text("Double-Mean")}}), "unknown --algorithm 'Double-Mean'");
    invalid("create: algorithm empty", create({{"algorithm", text("")}}), "unknown --algorithm ''");
    invalid("create: algorithm with SQL injection", create({{"algorithm", text("double-mean'; DROP TABLE campaign; --")}}),
            "unknown --algorithm 'double-mean'; DROP TABLE campaign; --'");
    invalid("create: algorithm with a hash tag", create({{"algorithm", text("{cp:2}")}}), "unknown --algorithm '{cp:2}'");
    invalidBytes("create: algorithm not UTF-8",
                 bytes({"campaign", "create", "--name", "n", "--total-cents", "1000", "--count", "10", "--algorithm", "double\xff\xfe"}),
                 "unknown --algorithm");
    invalid("create: seed negative", create({{"seed", text("-1")}}), "invalid --seed '-1'");
    invalid("create: seed past int64 (2^64 - 1)", create({{"seed", text("18446744073709551615")}}), "invalid --seed");
    invalid("create: seed not a number", create({{"seed", text("lucky")}}), "invalid --seed");
    invalid("create: seed with decimals", create({{"seed", text("7.5")}}), "invalid --seed");
    invalid("create: seed with SQL injection", create({{"seed", text("7; DROP TABLE campaign")}}), "invalid --seed");
    invalid("create: max-attempts 0", create({{"max-attempts", text("0")}}), "invalid --max-attempts '0'");
    invalid("create: max-attempts negative", create({{"max-attempts", text("-9")}}), "invalid --max-attempts");
    invalid("create: max-attempts 1001", create({{"max-attempts", text("1001")}}), "invalid --max-attempts '1001'");
    invalid("create: max-attempts past int32", create({{"max-attempts", text("2147483648")}}), "invalid --max-attempts");
    invalid("create: max-attempts not a number", create({{"max-attempts", text("nine")}}), "invalid --max-attempts");
    invalid("create: pools 0", create({{"pools", text("0")}}), "invalid --pools '0'");
    invalid("create: pools 65", create({{"pools", text("65")}}), "invalid --pools '65'");
    invalid("create: pools not a number", create({{"pools", text("four")}}), "invalid --pools");
    invalid("create: more pools than envelopes", create({{"count", text("3")}, {"pools", text("4")}}), "invalid --pools 4: a campaign of 3 envelopes has at most 3 pools");

    // --- campaign create: free text ---
    invalid("create: name empty", create({{"name", text("")}}), "a campaign needs a name of 1 to 128 characters");
    invalid("create: name blank", create({{"name", text("   ")}}), "a campaign needs a name of 1 to 128 characters");
    invalid("create: name of 129 characters", create({{"name", longText}}), "a campaign needs a name of 1 to 128 characters");
    invalid("create: name of 100000 characters", create({{"name", hugeText}}), "a campaign needs a name of 1 to 128 characters");
    invalid("create: name with a tab", create({{"name", text("Spring\tFestival")}}), "must not contain control characters");
    invalid("create: name with a newline", create({{"name", text("Spring\nFestival")}}), "must not contain control characters");
    invalid("create: name with a terminal escape", create({{"name", text("\x1b[2JSpring")}}), "must not contain control characters");
    invalidBytes("create: name with bytes that are not UTF-8",
                 bytes({"campaign", "create", "--name", "Spring \xff\xfe Festival", "--total-cents", "1000", "--count", "10"}),
                 "not valid UTF-8");
    invalidBytes("create: name in Latin-1 (caf\\xe9)", bytes({"campaign", "create", "--name", "caf\xe9", "--total-cents", "1000", "--count", "10"}),
                 "not valid UTF-8");
    invalid("create: --operator empty", create({{"operator", text("")}}), "invalid --operator");
    invalid("create: --operator blank", create({{"operator", text("   ")}}), "invalid --operator");
    invalid("create: --operator of 65 characters", create({{"operator", QString(65, QLatin1Char('o'))}}), "invalid --operator");
    invalid("create: --operator of 100000 characters", create({{"operator", hugeText}}), "invalid --operator");
    invalid("create: --operator with a newline", create({{"operator", text("alice\nbob")}}), "invalid --operator");
    invalidBytes("create: --operator not UTF-8",
                 bytes({"campaign", "create", "--name", "n", "--total-cents", "1000", "--count", "10", "--operator", "al\xffice"}),
                 "invalid --operator");
    invalid("create: --prefix with a hash tag brace", create({{"prefix", text("x{cp:1}:")}}), "invalid key prefix");
    unreachable("create", create());

    // --- launch / pause / resume / close: the id ---
    for (const char *verb : {"launch", "pause", "resume", "close"}) {
        const QString v = QString::fromUtf8(verb);
        const QStringList command{QStringLiteral("campaign"), v};
        const auto named = [&v](const char *what) { return (v + QStringLiteral(": ") + QString::fromUtf8(what)).toUtf8(); };
        invalid(named("missing --id").constData(), command, "missing --id");
        invalid(named("--id 0").constData(), extend(command, {"--id", "0"}), "invalid --id '0'");
        invalid(named("--id negative").constData(), extend(command, {"--id", "-2"}), "invalid --id '-2'");
        invalid(named("--id not a number").constData(), extend(command, {"--id", "two"}), "invalid --id 'two'");
        invalid(named("--id one past int64").constData(), extend(command, {"--id", "9223372036854775808"}),
                "invalid --id");
        invalid(named("--id as the word after the command").constData(), QStringList(command) << QString::fromUtf8(LiveId), "unknown command");
        invalid(named("unknown option --name").constData(), extend(command, {"--id", "2", "--name", "x"}),
                "unknown option --name");
        invalid(named("--operator blank").constData(), extend(command, {"--id", "2", "--operator", " "}),
                "invalid --operator");
        invalidHere(named("unknown id 999").constData(), extend(command, {"--id", UnknownId}), "no campaign with id 999");
        unreachable(named("live campaign").constData(), extend(command, {"--id", LiveId}));
    }
    const QStringList launch = args({"campaign", "launch", "--id"});
    invalid("launch: --id with a trailing space", extend(launch, {"2 "}), "invalid --id");
    invalid("launch: --id with a plus sign", extend(launch, {"+2"}), "invalid --id");
    invalid("launch: --id in exponent form", extend(launch, {"2e0"}), "invalid --id");
    invalid("launch: --id in hex", extend(launch, {"0x2"}), "invalid --id");
    invalid("launch: --id in Arabic-Indic digits", extend(launch, {"\u0662"}), "invalid --id");
    invalid("launch: --id as a hash tag", extend(launch, {"{cp:2}"}), "invalid --id '{cp:2}'");
    invalid("launch: --id with SQL injection", extend(launch, {"2 OR 1=1"}), "invalid --id '2 OR 1=1'");
    invalid("launch: --id empty", extend(launch, {""}), "invalid --id ''");
    invalid("launch: --id given twice", extend(launch, {"1", "--id", "2"}), "--id given twice");
    invalidBytes("launch: --id not UTF-8", bytes({"campaign", "launch", "--id", "2\xff"}), "invalid --id");
    invalid("launch: --operator of 65 characters", args({"campaign", "launch", "--id", "1", "--operator"}) << QString(65, QLatin1Char('o')),
            "invalid --operator");
    invalid("close: --operator with a tab", args({"campaign", "close", "--id", "2", "--operator", "alice\tbob"}), "invalid --operator");
    invalidBytes("pause: --operator not UTF-8", bytes({"campaign", "pause", "--id", "2", "--operator", "\xc3\x28"}), "invalid --operator");
    unreachable("launch: draft", args({"campaign", "launch", "--id", DraftId}));
    unreachable("close: draft", args({"campaign", "close", "--id", DraftId}));

    // --- launch / pause / resume / close: what the status allows (docs/cli.md, "Campaigns") ---
    refused("launch: paused campaign (exit 4)", args({"campaign", "launch", "--id", PausedId}), "campaign 3 is paused: only a draft can be launched");
    refused("launch: closed campaign (exit 4)", args({"campaign", "launch", "--id", ClosedId}), "campaign 4 is closed: only a draft can be launched");
    refused("launch: campaign closed as a draft (exit 4)", args({"campaign", "launch", "--id", ClosedDraftId}), "campaign 5 is closed");
    refused("pause: draft (exit 4, no meta hash appears)", args({"campaign", "pause", "--id", DraftId}),
            "campaign 1 is draft: it cannot become paused");
    refused("pause: closed campaign (exit 4)", args({"campaign", "pause", "--id", ClosedId}), "campaign 4 is closed: it cannot become paused");
    refused("pause: campaign closed as a draft (exit 4)", args({"campaign", "pause", "--id", ClosedDraftId}), "campaign 5 is closed");
    refused("resume: draft (exit 4)", args({"campaign", "resume", "--id", DraftId}), "campaign 1 is a draft: launch it first");
    refused("resume: closed campaign (exit 4)", args({"campaign", "resume", "--id", ClosedId}), "campaign 4 is closed: it cannot become live");
    refused("resume: campaign closed as a draft (exit 4)", args({"campaign", "resume", "--id", ClosedDraftId}), "campaign 5 is closed");
    refused("launch: paused campaign with --operator (exit 4, not audited)", args({"campaign", "launch", "--id", PausedId, "--operator", "alice"}),
            "only a draft can be launched");
    unchanged("launch: live campaign again (exit 0, not audited)", args({"campaign", "launch", "--id", LiveId}), "@campaign 2");
    unchanged("launch: live campaign again with --operator (not audited)", args({"campaign", "launch", "--id", LiveId, "--operator", "alice"}),
              "@campaign 2");
    unchanged("resume: live campaign (exit 0, not audited)", args({"campaign", "resume", "--id", LiveId}), "@campaign 2");
    unchanged("pause: paused campaign again (exit 0, not audited)", args({"campaign", "pause", "--id", PausedId}), "@campaign 3");
    unchanged("close: closed campaign again (exit 0, same refund, not audited)", args({"campaign", "close", "--id", ClosedId}), "@campaign 4");
    unchanged("close: campaign closed as a draft again (exit 0)", args({"campaign", "close", "--id", ClosedDraftId}), "@campaign 5");

    // --- campaign show ---
    invalid("show: missing --id", args({"campaign", "show"}), "missing --id");
    invalid("show: --id 0", args({"campaign", "show", "--id", "0"}), "invalid --id '0'");
    invalid("show: --id not a number", args({"campaign", "show", "--id", "all"}), "invalid --id 'all'");
    invalid("show: --id one past int64", args({"campaign", "show", "--id", "9223372036854775808"}), "invalid --id");
    invalid("show: --operator does not apply", args({"campaign", "show", "--id", "2", "--operator", "alice"}), "unknown option --operator");
    invalidHere("show: unknown id 999", args({"campaign", "show", "--id", UnknownId}), "no campaign with id 999");
    unreachable("show", args({"campaign", "show", "--id", LiveId}));

    // --- campaign: the command word ---
    invalid("campaign without a subcommand", args({"campaign", "--id", "2"}), "unknown command 'campaign'");
    invalid("campaign with an unknown subcommand", args({"campaign", "delete", "--id", "2"}), "unknown command 'campaign delete'");
    invalid("campaign with the subcommand misspelt", args({"campaign", "lunch", "--id", "2"}), "unknown command 'campaign lunch'");

    // --- grab ---
    invalid("grab: missing --campaign", args({"grab", "--uid", "1"}), "missing --campaign");
    invalid("grab: missing --uid and --token", args({"grab", "--campaign", "2"}), "missing --uid (or --token)");
    invalid("grab: both --uid and --token", args({"grab", "--campaign", "2", "--uid", "1", "--token", "x"}), "not both");
    invalid("grab: --campaign 0", args({"grab", "--campaign", "0", "--uid", "9"}), "invalid --campaign '0'");
    invalid("grab: --campaign negative", args({"grab", "--campaign", "-2", "--uid", "9"}), "invalid --campaign");
    invalid("grab: --campaign not a number", args({"grab", "--campaign", "spring", "--uid", "9"}), "invalid --campaign 'spring'");
    invalid("grab: --campaign one past int64", args({"grab", "--campaign", "9223372036854775808", "--uid", "9"}), "invalid --campaign");
    invalid("grab: --campaign as a hash tag", args({"grab", "--campaign", "2}{cp:3", "--uid", "9"}), "invalid --campaign");
    invalid("grab: --uid 0", args({"grab", "--campaign", "2", "--uid", "0"}), "invalid uid '0'");
    invalid("grab: --uid negative", args({"grab", "--campaign", "2", "--uid", "-9"}), "invalid uid '-9'");
    invalid("grab: --uid one past int64", args({"grab", "--campaign", "2", "--uid", "9223372036854775808"}), "invalid uid");
    invalid("grab: --uid with SQL injection", args({"grab", "--campaign", "2", "--uid", "9 OR 1=1"}), "invalid uid '9 OR 1=1'");
    invalid("grab: --uid as a hash tag", args({"grab", "--campaign", "2", "--uid", "{9}"}), "invalid uid '{9}'");
    invalid("grab: --token with quotes", args({"grab", "--campaign", "2", "--token", "' OR '1'='1"}), "invalid user token");
    invalid("grab: --token as a hash tag", args({"grab", "--campaign", "2", "--token", "{cp:2}"}), "invalid user token");
    invalid("grab: --token empty", args({"grab", "--campaign", "2", "--token", ""}), "invalid user token");
    invalidBytes("grab: --uid not UTF-8", bytes({"grab", "--campaign", "2", "--uid", "9\xff"}), "invalid uid");
    invalid("grab: unknown option --amount-cents", args({"grab", "--campaign", "2", "--uid", "9", "--amount-cents", "500"}),
            "unknown option --amount-cents");
    invalid("grab: --operator does not apply", args({"grab", "--campaign", "2", "--uid", "9", "--operator", "alice"}), "unknown option --operator");
    invalid("grab: switch --once", args({"grab", "--campaign", "2", "--uid", "9", "--once"}), "--once does not apply");
    invalid("grab: --prefix with a hash tag brace", args({"grab", "--campaign", "2", "--uid", "9", "--prefix", "lt:{cp:2}"}), "invalid key prefix");
    invalidHere("grab: unknown campaign 999 (exit 2, not not_live)", args({"grab", "--campaign", UnknownId, "--uid", "9"}),
                "no campaign with id 999");
    unchanged("grab: draft -> not_live", args({"grab", "--campaign", DraftId, "--uid", "9"}), R"({"status":"not_live"})");
    unchanged("grab: paused -> not_live", args({"grab", "--campaign", PausedId, "--uid", "9"}), R"({"status":"not_live"})");
    unchanged("grab: paused, by the user who holds one -> not_live", args({"grab", "--campaign", PausedId, "--uid", "1"}),
              R"({"status":"not_live"})");
    unchanged("grab: closed -> not_live", args({"grab", "--campaign", ClosedId, "--uid", "9"}), R"({"status":"not_live"})");
    unchanged("grab: closed as a draft -> not_live", args({"grab", "--campaign", ClosedDraftId, "--uid", "9"}), R"({"status":"not_live"})");
    unchanged("grab: again, persisted and paid -> already", args({"grab", "--campaign", LiveId, "--uid", "1"}), "@already 2 1");
    unchanged("grab: again, payout in a dead worker's backup -> already", args({"grab", "--campaign", LiveId, "--uid", "4"}), "@already 2 4");
    unchanged("grab: paused, SQL unreachable -> not_live (SQL not needed)", withDeadSql(args({"grab", "--campaign", PausedId, "--uid", "9"})),
              R"({"status":"not_live"})");
    unchanged("grab: again, SQL unreachable -> already (SQL not needed)", withDeadSql(args({"grab", "--campaign", LiveId, "--uid", "1"})),
              "@already 2 1");
    add("grab: live campaign, Redis unreachable (exit 3)",
        Case{withDeadRedis(args({"grab", "--campaign", LiveId, "--uid", "9"})), {}, {}, 3, QStringLiteral("unreachable"), {}, false});
    add("grab: draft, SQL unreachable (exit 3: draft or unknown?)",
        Case{withDeadSql(args({"grab", "--campaign", DraftId, "--uid", "9"})), {}, {}, 3, QString::fromUtf8(deadSqlMessage), {}, false});

    // --- verify ---
    invalid("verify: --campaign 0", args({"verify", "--campaign", "0"}), "invalid --campaign '0'");
    invalid("verify: --campaign not a number", args({"verify", "--campaign", "all"}), "invalid --campaign 'all'");
    invalid("verify: --campaign one past int64", args({"verify", "--campaign", "9223372036854775808"}), "invalid --campaign");
    invalid("verify: --id instead of --campaign", args({"verify", "--id", "2"}), "unknown option --id");
    invalid("verify: switch --once", args({"verify", "--once"}), "--once does not apply");
    invalidHere("verify: unknown campaign 999", args({"verify", "--campaign", UnknownId}), "no campaign with id 999");
    unreachable("verify", args({"verify", "--campaign", LiveId}));
    unreachable("verify: every campaign", args({"verify"}));

    // --- work: the payout drain must not start on bad input (a task is queued, one in a backup) ---
    const QStringList work = args({"work", "--once", "--id"});
    invalid("work: --id with hash tag braces", extend(work, {"w{cp:2}"}), "invalid worker id 'w{cp:2}'");
    invalid("work: --id with a closing brace", extend(work, {"w}"}), "invalid worker id");
    invalid("work: --id empty", extend(work, {""}), "invalid worker id ''");
    invalid("work: --id of 65 characters", QStringList(work) << QString(65, QLatin1Char('w')), "invalid worker id");
    invalid("work: --id with a colon (a key separator)", extend(work, {"w:1"}), "invalid worker id");
    invalid("work: --id with a space", extend(work, {"w 1"}), "invalid worker id");
    invalid("work: --id with a non-ASCII letter", extend(work, {"wörker"}), "invalid worker id");
    invalidBytes("work: --id not UTF-8", bytes({"work", "--once", "--id", "w\xff"}), "invalid worker id");
    invalid("work: --batch 0", args({"work", "--once", "--id", "w1", "--batch", "0"}), "invalid --batch");
    invalid("work: --batch 10001", args({"work", "--once", "--id", "w1", "--batch", "10001"}), "invalid --batch");
    invalid("work: --batch not a number", args({"work", "--once", "--id", "w1", "--batch", "all"}), "invalid --batch");
    invalid("work: --campaign does not apply", args({"work", "--once", "--id", "w1", "--campaign", "2"}), "unknown option --campaign");
    invalid("work: --once=yes", args({"work", "--once=yes", "--id", "w1"}), "--once takes no value");
    add("work: LANTERN_HEARTBEAT_TTL_S=0",
        Case{args({"work", "--once", "--id", "w1"}), {}, {{QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QStringLiteral("0")}}, 2,
             QStringLiteral("invalid LANTERN_HEARTBEAT_TTL_S '0'"), {}, true});
    // Checked once both servers answer (opscommands.cpp), so not "before connecting".
    add("work: LANTERN_PAYOUT_FAIL_RATE=1.5",
        Case{args({"work", "--once", "--id", "w1"}), {}, {{QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("1.5")}}, 2,
             QStringLiteral("invalid LANTERN_PAYOUT_FAIL_RATE '1.5'"), {}, false});
    add("work: LANTERN_PAYOUT_FAIL_RATE=nan",
        Case{args({"work", "--once", "--id", "w1"}), {}, {{QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("nan")}}, 2,
             QStringLiteral("invalid LANTERN_PAYOUT_FAIL_RATE"), {}, false});
    add("work: LANTERN_PAYOUT_DELAY_MS=-1",
        Case{args({"work", "--once", "--id", "w1"}), {}, {{QStringLiteral("LANTERN_PAYOUT_DELAY_MS"), QStringLiteral("-1")}}, 2,
             QStringLiteral("invalid LANTERN_PAYOUT_DELAY_MS '-1'"), {}, false});
    add("work: LANTERN_PAYOUT_URL with an ftp scheme",
        Case{args({"work", "--once", "--id", "w1"}), {}, {{QStringLiteral("LANTERN_PAYOUT_URL"), QStringLiteral("ftp://pay.example/payouts")}}, 2,
             QStringLiteral("invalid payout provider URL"), {}, false});
    unreachable("work --once", args({"work", "--once", "--id", "w1"}));

    // --- recover: a bad --worker must not take over w-dead's backup list ---
    const QStringList recover = args({"recover", "--operator", "oncall", "--worker"});
    invalid("recover: --worker with hash tag braces", extend(recover, {"w-dead}{cp:2"}), "invalid worker id");
    invalid("recover: --worker as a key pattern", extend(recover, {"w-*"}), "invalid worker id 'w-*'");
    invalid("recover: --worker as a path", extend(recover, {"../w-dead"}), "invalid worker id");
    invalid("recover: --worker empty", extend(recover, {""}), "invalid worker id ''");
    invalid("recover: --worker of 65 characters", QStringList(recover) << QString(65, QLatin1Char('w')), "invalid worker id");
    invalid("recover: --worker with SQL injection", extend(recover, {"w-dead'; DELETE FROM payout; --"}),
            "invalid worker id");
    invalidBytes("recover: --worker not UTF-8", bytes({"recover", "--worker", "w-dead\xff"}), "invalid worker id");
    invalid("recover: --worker given twice", extend(recover, {"w-dead", "--worker", "w-dead"}), "--worker given twice");
    invalid("recover: --campaign does not apply", args({"recover", "--campaign", "2"}), "unknown option --campaign");
    invalid("recover: --operator empty", args({"recover", "--operator", "", "--worker", "w-dead"}), "invalid --operator");
    invalid("recover: --operator blank", args({"recover", "--operator", "  ", "--worker", "w-dead"}), "invalid --operator");
    invalid("recover: --operator with a newline", args({"recover", "--operator", "on\ncall", "--worker", "w-dead"}), "invalid --operator");
    invalid("recover: --operator of 65 characters", QStringList(args({"recover", "--worker", "w-dead", "--operator"})) << QString(65, QLatin1Char('o')),
            "invalid --operator");
    invalid("switch: --operator empty", args({"switch", "--feature", "grab", "--state", "off", "--operator", ""}), "invalid --operator");
    unreachable("recover (w-dead's list stays)", args({"recover", "--operator", "oncall"}));
    unreachable("recover --worker w-dead", extend(recover, {"w-dead"}));

    // --- queues ---
    invalid("queues: --campaign does not apply", args({"queues", "--campaign", "2"}), "unknown option --campaign");
    invalid("queues: switch --once", args({"queues", "--once"}), "--once does not apply");
    add("queues: Redis unreachable (exit 3)", Case{withDeadRedis(args({"queues"})), {}, {}, 3, QStringLiteral("unreachable"), {}, false});
    return list;
}

} // namespace

class TestCliCampaignBadInput final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase();

    void refusedWithoutSideEffects_data();
    void refusedWithoutSideEffects();

    void validatedBeforeConnecting_data();
    void validatedBeforeConnecting();

    void hostileTextStoredVerbatim_data();
    void hostileTextStoredVerbatim();

private:
    /** The prepared state of one dialect, as the header comment describes it. */
    struct Fixture {
        SqlTarget sql;
        QString prefix;
        QMap<QString, QJsonObject> printed;  // what the setup commands printed, by label
        bool ready = false;                  // false until built, and while a row runs

        Lanternd lanternd() const { return Lanternd(redisUrlText(RedisDatabase), sql.url, prefix); }
    };

    /** Builds `fixture` for `dialect` (QVERIFY-style: check QTest::currentTestFailed() after). */
    void build(Fixture &fixture, const QString &dialect);

    QMap<QString, Fixture> m_fixtures;
    QStringList m_prefixes;  // every prefix used, for cleanupTestCase
};

void TestCliCampaignBadInput::cleanupTestCase()
{
    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    for (const QString &prefix : std::as_const(m_prefixes))
        deleteKeys(redis, prefix.toUtf8());
    dropFreshDatabases();
}

void TestCliCampaignBadInput::build(Fixture &fixture, const QString &dialect)
{
    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    if (!fixture.prefix.isEmpty())
        deleteKeys(redis, fixture.prefix.toUtf8());
    fixture.sql = freshSql(dialect);
    fixture.prefix = lantern::test::uniquePrefix();
    m_prefixes << fixture.prefix;
    fixture.printed.clear();
    const Lanternd lanternd = fixture.lanternd();
    const auto step = [&](const QString &label, const QStringList &arguments) {
        const Result result = lanternd.run(arguments);
        const QByteArray why = notOk(result);
        if (why.isEmpty() && !label.isEmpty())
            fixture.printed.insert(label, result.json());
        // A grab repeated by the same user answers with the same envelope, as "already".
        if (why.isEmpty() && label.startsWith(QLatin1String("grab "))) {
            QJsonObject again = result.json();
            again.insert(QStringLiteral("status"), QStringLiteral("already"));
            fixture.printed.insert(QStringLiteral("already") + label.mid(4), again);
        }
        return why.isEmpty() ? why : "setup '" + arguments.join(QLatin1Char(' ')).toUtf8() + "': " + why;
    };
    const auto campaign = [](const char *name) {
        return args({"campaign", "create", "--total-cents", "1000", "--count", "10", "--seed", "7", "--operator", "setup", "--name"})
                << QString::fromUtf8(name);
    };
    const auto verb = [](const char *what, const char *id) { return args({"campaign", what, "--id", id, "--operator", "setup"}); };
    const auto grab = [](const char *id, const char *uid) { return args({"grab", "--campaign", id, "--uid", uid}); };
    const QList<std::pair<QString, QStringList>> steps{
            {QStringLiteral("campaign 1"), campaign("Draft")},
            {{}, campaign("Live")},
            {QStringLiteral("campaign 2"), verb("launch", LiveId)},
            {{}, campaign("Paused")},
            {{}, verb("launch", PausedId)},
            {{}, grab(PausedId, "1")},
            {QStringLiteral("campaign 3"), verb("pause", PausedId)},
            {{}, campaign("Closed")},
            {{}, verb("launch", ClosedId)},
            {{}, grab(ClosedId, "1")},
            {QStringLiteral("campaign 4"), verb("close", ClosedId)},
            {{}, campaign("Closed draft")},
            {QStringLiteral("campaign 5"), verb("close", ClosedDraftId)},
            {QStringLiteral("grab 2 1"), grab(LiveId, "1")},
            {{}, grab(LiveId, "2")},
            {{}, args({"work", "--once", "--id", "setup"})},
            {QStringLiteral("grab 2 4"), grab(LiveId, "4")},
    };
    for (const auto &[label, arguments] : steps) {
        const QByteArray why = step(label, arguments);
        QVERIFY2(why.isEmpty(), why.constData());
    }
    // What a worker killed mid-payout leaves behind: uid 4's task in its backup list, its id in
    // the worker set, no heartbeat. Then uid 3's task stays queued.
    const lantern::KeySchema keys(fixture.prefix);
    const QByteArray backup = keys.campaignBackup(2, QStringLiteral("w-dead"));
    QVERIFY(!redis.command({"LMOVE", keys.campaignTasks(2), backup, "RIGHT", "LEFT"}).isNil());
    redis.command({"SADD", keys.workerSet(), "w-dead"});
    const QByteArray why = step({}, grab(LiveId, "3"));
    QVERIFY2(why.isEmpty(), why.constData());

    QCOMPARE(redis.command({"LLEN", keys.campaignTasks(2)}).toInteger(), 1);
    QCOMPARE(redis.command({"LLEN", backup}).toInteger(), 1);
    QCOMPARE(sqlNumber(fixture.sql.db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE status = 'paid'")), 4);
    QCOMPARE(sqlNumber(fixture.sql.db, QStringLiteral("SELECT COUNT(*) FROM envelope")), 30);
    QCOMPARE(sqlNumber(fixture.sql.db, QStringLiteral("SELECT COUNT(*) FROM audit_log")), 5 + 3 + 1 + 2);
    const QStringList statuses{QStringLiteral("draft"), QStringLiteral("live"), QStringLiteral("paused"), QStringLiteral("closed"),
                               QStringLiteral("closed")};
    for (int id = 1; id <= 5; ++id)
        QCOMPARE(fixture.printed.value(QStringLiteral("campaign %1").arg(id)).value(QStringLiteral("status")).toString(), statuses.at(id - 1));
    fixture.ready = true;
}

void TestCliCampaignBadInput::refusedWithoutSideEffects_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<Case>("c");
    for (const QString &dialect : dialects()) {
        for (const auto &[name, c] : cases(dialect))
            QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + name)) << dialect << c;
    }
}

void TestCliCampaignBadInput::refusedWithoutSideEffects()
{
    QFETCH(QString, dialect);
    QFETCH(Case, c);

    Fixture &fixture = m_fixtures[dialect];
    if (!fixture.ready) {
        build(fixture, dialect);
        if (QTest::currentTestFailed())
            return;
    }
    fixture.ready = false;  // until this row has proved it changed nothing

    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    const QByteArray prefix = fixture.prefix.toUtf8();
    const RedisSnapshot redisBefore = snapshotRedis(redis, prefix);
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(fixture.sql.db, sqlTables());

    Lanternd lanternd = fixture.lanternd();
    for (auto it = c.env.cbegin(); it != c.env.cend(); ++it)
        lanternd.extraEnv.insert(it.key(), it.value());
    const Result result = c.raw.isEmpty() ? lanternd.run(c.arguments) : lanternd.runBytes(c.raw);

    QVERIFY2(result.exitCode == c.exitCode, result.describe().constData());
    if (c.stdoutIs.isEmpty()) {
        QVERIFY2(result.out.isEmpty(), result.describe().constData());
    } else {
        const QJsonObject expected = c.stdoutIs.startsWith(QLatin1Char('@')) ? fixture.printed.value(c.stdoutIs.mid(1))
                                                                               : QJsonDocument::fromJson(c.stdoutIs.toUtf8()).object();
        QVERIFY2(!expected.isEmpty(), qPrintable(QStringLiteral("no expected JSON for ") + c.stdoutIs));
        LANTERND_COMPARE_JSON(result, expected);
    }
    if (c.exitCode == 0) {
        QVERIFY2(result.err.isEmpty(), result.describe().constData());
    } else {
        // One line that names the problem, as docs/cli.md shows: "lanternd: <what is wrong>".
        QVERIFY2(result.err.startsWith("lanternd: ") && result.err.endsWith('\n') && result.err.count('\n') == 1, result.describe().constData());
        QVERIFY2(QString::fromUtf8(result.err).contains(c.stderrHas), result.describe().constData());
    }

    const RedisSnapshot redisAfter = snapshotRedis(redis, prefix);
    QVERIFY2(redisAfter == redisBefore, redisBefore.describeChange(redisAfter).constData());
    const SqlRowsSnapshot sqlAfter = snapshotSqlRows(fixture.sql.db, sqlTables());
    QVERIFY2(sqlAfter == sqlBefore, sqlBefore.describeChange(sqlAfter).constData());
    fixture.ready = true;
}

void TestCliCampaignBadInput::validatedBeforeConnecting_data()
{
    QTest::addColumn<Case>("c");
    for (const auto &[name, c] : cases(QStringLiteral("sqlite"))) {
        if (c.beforeConnecting)
            QTest::newRow(qPrintable(name)) << c;
    }
}

void TestCliCampaignBadInput::validatedBeforeConnecting()
{
    // docs/cli.md: "Every input is checked before a connection opens." With no server to reach
    // and an SQLite file that does not exist yet, bad input still exits 2 with its own message
    // (not 3), and not even the database directory is created.
    QFETCH(Case, c);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString dbDir = dir.filePath(QStringLiteral("lantern"));
    Lanternd lanternd(unreachableRedisUrl(), QStringLiteral("sqlite://") + dbDir + QStringLiteral("/lantern.db"), lantern::test::uniquePrefix());
    for (auto it = c.env.cbegin(); it != c.env.cend(); ++it)
        lanternd.extraEnv.insert(it.key(), it.value());
    const Result result = c.raw.isEmpty() ? lanternd.run(c.arguments) : lanternd.runBytes(c.raw);
    QVERIFY2(result.exitCode == c.exitCode && result.out.isEmpty(), result.describe().constData());
    QVERIFY2(QString::fromUtf8(result.err).contains(c.stderrHas), result.describe().constData());
    QVERIFY2(!QDir(dbDir).exists(), "the refused command created the database directory");
}

void TestCliCampaignBadInput::hostileTextStoredVerbatim_data()
{
    QTest::addColumn<QString>("dialect");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("stored");  // the name trimmed
    QTest::addColumn<QString>("operatorName");
    const QList<std::pair<const char *, const char *>> texts{
            {"O'Brien's \"Lucky\" Draw", "o'neil"},
            {"x'); DROP TABLE campaign; --", "bob'); DROP TABLE audit_log; --"},
            {"Robert'); DELETE FROM envelope WHERE ('1'='1", "\" OR \"\"=\""},
            {"{cp:1}} {cp:2}:meta", "{w-dead}"},
            {"100% \\ _ %s %n $(id) `id`", "%s%n"},
            {"{\"status\":\"live\",\"id\":1}", "root\\"},
            {"\xe6\x98\xa5\xe8\x8a\x82\xe7\xba\xa2\xe5\x8c\x85 \xf0\x9f\xa7\xa7", "\xe8\xbf\x90\xe8\x90\xa5-\xe5\xb0\x8f\xe7\x8e\x8b"},
            {"  padded on both sides  ", "  alice  "},
    };
    for (const QString &dialect : dialects()) {
        for (const auto &[name, operatorName] : texts) {
            const QString text = QString::fromUtf8(name);
            QTest::newRow(qPrintable(dialect + QStringLiteral(": ") + text)) << dialect << text << text.trimmed() << QString::fromUtf8(operatorName);
        }
        const QString longest(128, QChar(0x7ea2));  // 128 characters, each 3 bytes in UTF-8
        QTest::newRow(qPrintable(dialect + QStringLiteral(": a name of exactly 128 characters, operator of 64")))
                << dialect << longest << longest << QString(64, QLatin1Char('o'));
    }
}

void TestCliCampaignBadInput::hostileTextStoredVerbatim()
{
    // Quotes, SQL, braces, format specifiers and CJK are valid names and operators: stored and
    // printed exactly (trimmed), never executed, and never part of a Redis key.
    QFETCH(QString, dialect);
    QFETCH(QString, name);
    QFETCH(QString, stored);
    QFETCH(QString, operatorName);
    const SqlTarget sql = freshSql(dialect);
    const QString prefix = lantern::test::uniquePrefix();
    m_prefixes << prefix;
    const Lanternd lanternd(redisUrlText(RedisDatabase), sql.url, prefix);

    const Result created = lanternd.run(args({"campaign", "create", "--total-cents", "1000", "--count", "10", "--name"})
                                        << name << QStringLiteral("--operator") << operatorName);
    LANTERND_VERIFY_OK(created);
    QCOMPARE(created.json().value(QStringLiteral("name")).toString(), stored);
    const qint64 id = created.json().value(QStringLiteral("id")).toInteger();
    QCOMPARE(id, 1);
    const QStringList launch{QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), QString::number(id),
                             QStringLiteral("--operator"), operatorName};
    LANTERND_VERIFY_OK(lanternd.run(launch));
    LANTERND_VERIFY_OK(lanternd.run(args({"grab", "--campaign", "1", "--uid", "5"})));
    const Result shown = lanternd.run(args({"campaign", "show", "--id", "1"}));
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("name")).toString(), stored);

    // SQL holds exactly what was typed, once; every table is still there and still whole.
    const SqlRowsSnapshot rows = snapshotSqlRows(sql.db, sqlTables());
    const QByteArrayList campaigns = rows.tables.value(QStringLiteral("campaign"));
    QCOMPARE(campaigns.size(), 1);
    QCOMPARE(QJsonDocument::fromJson(campaigns.first()).object().value(QStringLiteral("name")).toString(), stored);
    QCOMPARE(rows.tables.value(QStringLiteral("envelope")).size(), 10);
    QStringList actors;
    for (const QByteArray &row : rows.tables.value(QStringLiteral("audit_log")))
        actors << QJsonDocument::fromJson(row).object().value(QStringLiteral("actor")).toString();
    QCOMPARE(actors, (QStringList{operatorName.trimmed(), operatorName.trimmed()}));

    // Redis keys are built from the id alone: the braces in a name can never move a key's slot.
    lantern::RedisClient redis(redisUrlOf(RedisDatabase));
    const RedisSnapshot keys = snapshotRedis(redis, prefix.toUtf8());
    QVERIFY(!keys.keys.isEmpty());
    for (auto it = keys.keys.cbegin(); it != keys.keys.cend(); ++it) {
        const QByteArray rest = it.key().mid(prefix.size());
        QVERIFY2(rest.startsWith("{cp:1}:") || rest == "campaigns", it.key().constData());
    }
}

LANTERN_TEST_SUITE(TestCliCampaignBadInput);

} // namespace tst_cli_campaign_badinput

#include "tst_cli_campaign_badinput.moc"
