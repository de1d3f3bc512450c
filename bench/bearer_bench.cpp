// lantern-bench-bearer: the API's bearer check per second on one core (UserTokens::verifyBearer,
// what `lanternd serve` runs for every check-in and grab), against the physical floor (one bare
// HMAC-SHA256 of the same payload through OpenSSL's one-shot HMAC()) and against the check as it
// was until 2026-11-27 (Qt's HMAC over QString copies), in alternating rounds of one run. It
// measures; it asserts nothing but that every bearer is accepted.
#include "benchsettings.h"
#include "rounds.h"
#include "summaryrows.h"

#include "core/errors.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QMessageAuthenticationCode>
#include <QTextStream>

#include <openssl/evp.h>
#include <openssl/hmac.h>

using namespace lantern;
using namespace lantern::bench;

namespace {

const QByteArray Secret = QByteArrayLiteral("the API's bearer secret, 32 bytes or more as the docs ask");

/** The check before 2026-11-27, kept here as the baseline: the bearer as a QString, Qt's HMAC,
    base64url of the expected signature, a byte-wise compare, the payload split on its dots. */
std::optional<qint64> oldVerify(const UserTokens &tokens, const QString &bearer, qint64 nowSeconds)
{
    const QByteArray text = bearer.toLatin1();
    const qsizetype lastDot = text.lastIndexOf('.');
    if (lastDot <= 0)
        return std::nullopt;
    const QByteArray payload = text.left(lastDot);
    const QByteArray expected = QMessageAuthenticationCode::hash(payload, Secret, QCryptographicHash::Sha256)
                                        .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    const QByteArray given = text.mid(lastDot + 1);
    if (given.size() != expected.size())
        return std::nullopt;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < given.size(); ++i)
        diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
    if (diff != 0)
        return std::nullopt;
    const QList<QByteArray> parts = payload.split('.');
    bool ok = false;
    const qint64 expiresAt = parts.size() == 2 ? parts[1].toLongLong(&ok) : 0;
    if (!ok || expiresAt <= nowSeconds)
        return std::nullopt;
    return tokens.uidOf(QString::fromLatin1(parts[0]));
}

int run(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Bearer checks per second on one core: UserTokens::verifyBearer, one bare OpenSSL HMAC-SHA256 "
                                                    "of the same payload, and the check as it was before 2026-11-27. No servers."));
    addBenchOptions(parser);
    parser.addOptions({{QStringLiteral("requests"), QStringLiteral("Bearers checked per phase (distinct users)."), QStringLiteral("n"),
                        QStringLiteral("200000")}});
    processArguments(parser, app);
    const BenchSettings bench = benchSettings(parser);
    const qint64 requests = integerOption(parser, QStringLiteral("requests"), 1, 100'000'000);

    const UserTokens tokens(QStringLiteral("lantern"), Secret);
    const qint64 now = 1'795'000'000;
    std::vector<QByteArray> bearers;
    bearers.reserve(size_t(requests));
    for (qint64 i = 0; i < requests; ++i)
        bearers.push_back(tokens.mintBearer(10'000'000 + i * 7, now + 3600).toLatin1());

    QTextStream out(stdout);
    out << "- " << requests << " bearers of distinct users per phase (\"<token>.<expires_at>.<signature>\", "
        << bearers.front().size() << " bytes), checked one after another on one thread; " << bench.rounds
        << " rounds, alternating which phase goes first\n\n"
        << "| round | check | checks/s | ns per check |\n|---:|---|---:|---:|\n";
    out.flush();
    const auto phase = [&](const QString &name, const std::function<bool(const QByteArray &)> &check) -> RoundPhase {
        return [&, name, check](int round) {
            QElapsedTimer clock;
            clock.start();
            for (const QByteArray &bearer : bearers) {
                if (!check(bearer))
                    throw LanternError(QStringLiteral("%1 refused a good bearer").arg(name));
            }
            const double seconds = double(clock.nsecsElapsed()) / 1e9;
            const double perSecond = double(bearers.size()) / seconds;
            out << "| " << round << " | " << name << " | " << rate(perSecond) << " | " << QString::number(1e9 / perSecond, 'f', 0) << " |\n";
            out.flush();
            return perSecond;
        };
    };
    const QString nowName = QStringLiteral("UserTokens::verifyBearer");
    const QString floorName = QStringLiteral("bare HMAC-SHA256 of the payload (OpenSSL HMAC())");
    const QString oldName = QStringLiteral("the check before 2026-11-27 (Qt's HMAC, QString)");
    const std::vector<double> medians = runAlternatingRounds(
            bench.rounds,
            {phase(nowName, [&](const QByteArray &bearer) { return tokens.verifyBearer(QByteArrayView(bearer), now).has_value(); }),
             phase(floorName,
                   [&](const QByteArray &bearer) {
                       unsigned char digest[EVP_MAX_MD_SIZE];
                       unsigned int size = 0;
                       const qsizetype dot = bearer.lastIndexOf('.');
                       return HMAC(EVP_sha256(), Secret.constData(), int(Secret.size()), reinterpret_cast<const unsigned char *>(bearer.constData()),
                                   size_t(dot), digest, &size)
                              != nullptr;
                   }),
             phase(oldName, [&](const QByteArray &bearer) { return oldVerify(tokens, QString::fromLatin1(bearer), now).has_value(); })});
    out << '\n';
    printSummary(out, bench.rounds, QStringLiteral("checks/s"), {{nowName, medians[0]}, {floorName, medians[1]}, {oldName, medians[2]}},
                 {{QStringLiteral("verifyBearer / bare HMAC"), medians[0], medians[1]},
                  {QStringLiteral("verifyBearer / the check before"), medians[0], medians[2]}});
    out.flush();
    appendSummaryRows(bench.summaryFile,
                      {{QStringLiteral("bearer checks/s on one core (UserTokens::verifyBearer)"), rate(medians[0]),
                        QStringLiteral("one bare OpenSSL HMAC-SHA256 of the payload, same run"), rate(medians[1]), ratioText(medians[0], medians[1])},
                       {QStringLiteral("bearer checks/s on one core (UserTokens::verifyBearer)"), rate(medians[0]),
                        QStringLiteral("the check before 2026-11-27 (Qt's HMAC), same run"), rate(medians[2]), ratioText(medians[0], medians[2])}});
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-bearer"), run);
}
