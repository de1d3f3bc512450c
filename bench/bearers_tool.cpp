// lantern-bench-bearers: writes a bearer file for bench/wrk/bearers.lua, one bearer a line, minted
// with UserTokens::mintBearer (as `lanternd token` does, without a process per user).
//
//   lantern-bench-bearers --token-secret S --users N [--first-uid U | --keyspace K] [--attempts A] --out FILE
#include "bearerfile.h"
#include "benchsettings.h"
#include "uidsample.h"

#include "core/errors.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QTextStream>

#include <limits>
#include <numeric>

using namespace lantern;
using namespace lantern::bench;

namespace {

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "Writes one bearer per line for bench/wrk/bearers.lua: N users, each --attempts lines (shuffled when more than one). "
            "The uids are --first-uid, --first-uid + 1, ... or, with --keyspace K, N distinct uids 1000000000000 + [0, K) in random order."));
    parser.addHelpOption();
    parser.addOptions({
            {QStringLiteral("token-secret"), QStringLiteral("The server's token secret."), QStringLiteral("secret")},
            {QStringLiteral("token-salt"), QStringLiteral("The server's token salt."), QStringLiteral("salt"), QStringLiteral("lantern")},
            {QStringLiteral("users"), QStringLiteral("Distinct users."), QStringLiteral("n"), QStringLiteral("1000")},
            {QStringLiteral("first-uid"), QStringLiteral("The first uid."), QStringLiteral("uid"), QStringLiteral("1000000000000")},
            {QStringLiteral("keyspace"), QStringLiteral("Draw the uids at random from 1000000000000 + [0, K) instead."), QStringLiteral("k"),
             QStringLiteral("0")},
            {QStringLiteral("attempts"), QStringLiteral("Lines per user."), QStringLiteral("n"), QStringLiteral("1")},
            {QStringLiteral("ttl-s"), QStringLiteral("Bearer lifetime in seconds."), QStringLiteral("s"), QStringLiteral("86400")},
            {QStringLiteral("seed"), QStringLiteral("Seed of the uid sample and the shuffle."), QStringLiteral("n"), QStringLiteral("1")},
            {QStringLiteral("out"), QStringLiteral("The file to write."), QStringLiteral("file")},
    });
    processArguments(parser, app);
    const qint64 users = integerOption(parser, QStringLiteral("users"), 1, 100'000'000);
    const qint64 keyspace = integerOption(parser, QStringLiteral("keyspace"), 0, MaxKeyspace);
    const qint64 firstUid = integerOption(parser, QStringLiteral("first-uid"), 1, std::numeric_limits<qint64>::max() - users);
    const int attempts = static_cast<int>(integerOption(parser, QStringLiteral("attempts"), 1, 1000));
    const qint64 ttl = integerOption(parser, QStringLiteral("ttl-s"), 1, 10LL * 365 * 86'400);
    const auto seed = static_cast<quint64>(integerOption(parser, QStringLiteral("seed"), 0, std::numeric_limits<qint64>::max()));
    if (parser.value(QStringLiteral("token-secret")).isEmpty() || parser.value(QStringLiteral("out")).isEmpty())
        throw InvalidInputError(QStringLiteral("--token-secret and --out are required"));
    if (keyspace != 0 && keyspace < users)
        throw InvalidInputError(QStringLiteral("--keyspace must be at least --users"));

    std::vector<qint64> uids;
    if (keyspace > 0) {
        uids = sampleUids(users, keyspace, seed);
    } else {
        uids.resize(static_cast<size_t>(users));
        std::iota(uids.begin(), uids.end(), firstUid);
    }
    const UserTokens tokens(parser.value(QStringLiteral("token-salt")), parser.value(QStringLiteral("token-secret")).toUtf8());
    const qint64 lines = writeBearerFile(parser.value(QStringLiteral("out")), tokens, QDateTime::currentSecsSinceEpoch() + ttl, uids, attempts, seed);
    QTextStream(stdout) << lines << " bearers of " << users << " users written to " << parser.value(QStringLiteral("out")) << '\n';
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-bearers"), run);
}
