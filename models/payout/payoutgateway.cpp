#include "payout/payoutgateway.h"

#include "core/errors.h"
#include "payout/httppayoutgateway.h"
#include "payout/simulatedpayoutgateway.h"

#include <QRandomGenerator>
#include <QUrl>

namespace lantern {

QString PayoutGateway::validate(const PayoutRequest &request)
{
    if (request.idempotencyKey.isEmpty() || request.idempotencyKey.size() > 255)
        return tr("a payout needs an idempotency key of 1 to 255 characters");
    if (request.amountCents <= 0)
        return tr("a payout of %1 cents is not possible: the amount must be positive").arg(request.amountCents);
    return {};
}

std::unique_ptr<PayoutGateway> makePayoutGateway(RedisClient &redis, const QByteArray &prefix, const QProcessEnvironment &environment)
{
    const QString url = environment.value(QStringLiteral("LANTERN_PAYOUT_URL")).trimmed();
    if (url.isEmpty()) {
        const SimulationKnobs knobs = SimulatedPayoutGateway::knobsFromEnvironment(environment);
        return std::make_unique<SimulatedPayoutGateway>(redis, prefix, knobs, QRandomGenerator::global()->generate64());
    }
    HttpPayoutOptions options;
    options.endpoint = QUrl(url, QUrl::StrictMode);
    return std::make_unique<HttpPayoutGateway>(options);
}

} // namespace lantern
