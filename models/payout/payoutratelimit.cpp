#include "payout/payoutratelimit.h"

#include "core/errors.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <cmath>

namespace lantern {

namespace {
constexpr double MaxPayoutRate = 1e6;

const LuaScript &rateScript()
{
    static const LuaScript script(QStringLiteral("payout_rate"));
    return script;
}
} // namespace

PayoutRateLimit::PayoutRateLimit(QByteArray prefix, double perSecond, int capacity)
    : m_prefix(std::move(prefix)), m_perSecond(perSecond), m_capacity(capacity)
{
    if (!(perSecond > 0 && perSecond <= MaxPayoutRate))
        throw InvalidInputError(tr("invalid payout rate %1: expected more than 0 and at most %2 calls a second").arg(perSecond).arg(MaxPayoutRate));
    if (capacity < 0)
        throw InvalidInputError(tr("invalid payout burst %1: expected 0 or more").arg(capacity));
    if (m_capacity == 0)
        m_capacity = std::max(1, static_cast<int>(std::floor(perSecond / 10)));
}

PayoutRateLimit::Grant PayoutRateLimit::take(RedisClient &redis, int wanted, std::optional<qint64> nowMs) const
{
    if (wanted <= 0)
        return {};
    const RedisValue reply = rateScript().run(redis, {key()},
                                              {QByteArray::number(m_perSecond, 'g', 17), QByteArray::number(m_capacity),
                                               QByteArray::number(wanted), nowMs ? QByteArray::number(*nowMs) : QByteArray()});
    if (reply.elements.size() != 2)
        throw RedisReplyError(tr("unexpected reply of payout_rate.lua"));
    return {static_cast<int>(reply.elements[0].toInteger()), std::chrono::milliseconds(reply.elements[1].toInteger())};
}

std::optional<double> PayoutRateLimit::rateFromEnvironment(const QProcessEnvironment &environment)
{
    const QString name = QStringLiteral("LANTERN_PAYOUT_RATE");
    const QString text = environment.value(name).trimmed();
    if (text.isEmpty())
        return std::nullopt;
    bool ok = false;
    const double rate = text.toDouble(&ok);  // the C locale: "0.5" everywhere
    if (!ok || !std::isfinite(rate) || rate <= 0 || rate > MaxPayoutRate)
        throw InvalidInputError(tr("invalid %1 '%2': expected calls per second, a number above 0 and at most %3, such as 200")
                                        .arg(name, text)
                                        .arg(MaxPayoutRate));
    return rate;
}

} // namespace lantern
