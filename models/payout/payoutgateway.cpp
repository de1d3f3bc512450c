#include "payout/payoutgateway.h"

#include "core/errors.h"
#include "payout/httppayoutgateway.h"
#include "payout/simulatedpayoutgateway.h"

#include <QRandomGenerator>
#include <QTimer>
#include <QUrl>

namespace lantern {

void PayoutGateway::start(const PayoutRequest &request, QObject *context, Done done)
{
    QTimer::singleShot(0, context, [this, request, done = std::move(done)] { done(pay(request)); });
}

QString PayoutGateway::validate(const PayoutRequest &request)
{
    if (request.idempotencyKey.isEmpty() || request.idempotencyKey.size() > 255)
        return tr("a payout needs an idempotency key of 1 to 255 characters");
    if (request.amountCents <= 0)
        return tr("a payout of %1 cents is not possible: the amount must be positive").arg(request.amountCents);
    return {};
}

namespace {
/** The whole number in variable `name`, 1 to `max`, or `fallback` when it is unset or empty;
    throws InvalidInputError naming the variable for anything else. */
int positiveFromEnvironment(const QProcessEnvironment &environment, const QString &name, int max, int fallback)
{
    const QString text = environment.value(name).trimmed();
    if (text.isEmpty())
        return fallback;
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < 1 || value > max)
        throw InvalidInputError(PayoutGateway::tr("invalid %1 '%2': expected a whole number from 1 to %3").arg(name, text).arg(max));
    return value;
}
} // namespace

int payoutConnections(const QProcessEnvironment &environment, int fallback)
{
    return positiveFromEnvironment(environment, QStringLiteral("LANTERN_PAYOUT_CONNECTIONS"), 1024, fallback);
}

std::chrono::milliseconds payoutTimeout(const QProcessEnvironment &environment, std::chrono::milliseconds fallback)
{
    return std::chrono::milliseconds(
            positiveFromEnvironment(environment, QStringLiteral("LANTERN_PAYOUT_TIMEOUT_MS"), MaxPayoutTimeoutMs, static_cast<int>(fallback.count())));
}

std::unique_ptr<PayoutGateway> makePayoutGateway(RedisClient &redis, const QByteArray &prefix, const QProcessEnvironment &environment,
                                                 int connections)
{
    const QString url = environment.value(QStringLiteral("LANTERN_PAYOUT_URL")).trimmed();
    if (url.isEmpty()) {
        const SimulationKnobs knobs = SimulatedPayoutGateway::knobsFromEnvironment(environment);
        return std::make_unique<SimulatedPayoutGateway>(redis, prefix, knobs, QRandomGenerator::global()->generate64());
    }
    HttpPayoutOptions options;
    options.endpoint = QUrl(url, QUrl::StrictMode);
    options.connections = payoutConnections(environment, connections);
    options.timeout = payoutTimeout(environment, options.timeout);
    return std::make_unique<HttpPayoutGateway>(options);
}

} // namespace lantern
