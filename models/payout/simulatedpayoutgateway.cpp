#include "payout/simulatedpayoutgateway.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QSet>
#include <QThread>

#include <cmath>

namespace lantern {

namespace {

struct LedgerEntry {
    qint64 amountCents = 0;
    QByteArray ref;
};

/** "amount_cents|ref", or nullopt for anything else. */
std::optional<LedgerEntry> parseEntry(const QByteArray &value)
{
    const qsizetype bar = value.indexOf('|');
    if (bar <= 0)
        return std::nullopt;
    bool ok = false;
    const qint64 amount = value.left(bar).toLongLong(&ok);
    if (!ok)
        return std::nullopt;
    return LedgerEntry{amount, value.mid(bar + 1)};
}

} // namespace

SimulatedPayoutGateway::SimulatedPayoutGateway(RedisClient &redis, QByteArray prefix, SimulationKnobs knobs, quint64 seed)
    : m_redis(redis), m_prefix(std::move(prefix)), m_knobs(knobs), m_random(seed)
{
    if (!(knobs.failRate >= 0.0 && knobs.failRate <= 1.0))
        throw InvalidInputError(tr("invalid payout failure rate %1: expected a number from 0 to 1").arg(knobs.failRate));
    if (knobs.delayMs < 0 || knobs.delayMs > MaxDelayMs)
        throw InvalidInputError(tr("invalid payout delay %1 ms: expected 0 to %2").arg(knobs.delayMs).arg(MaxDelayMs));
}

double SimulatedPayoutGateway::nextUnit()
{
    return static_cast<double>(m_random() >> 11) * 0x1.0p-53;
}

PayoutResult SimulatedPayoutGateway::pay(const PayoutRequest &request)
{
    if (const QString invalid = validate(request); !invalid.isEmpty())
        return PayoutResult::failure(PayoutResult::Status::PermanentFailure, invalid);
    if (m_knobs.delayMs > 0)
        QThread::msleep(static_cast<unsigned long>(m_knobs.delayMs));

    // One draw per call decides its fate: [0, f/2) fails before paying, [f/2, f) pays and loses the answer.
    const double draw = nextUnit();
    const bool failBeforePaying = draw < m_knobs.failRate / 2;
    const bool loseAnswer = !failBeforePaying && draw < m_knobs.failRate;
    const QByteArray key = request.idempotencyKey.toUtf8();
    try {
        if (failBeforePaying) {
            m_redis.command({"HINCRBY", callsKey(), key, "1"});
            return PayoutResult::failure(PayoutResult::Status::RetryableFailure, tr("the simulated payout provider failed before paying (injected failure)"));
        }
        const QByteArray ref = "sim-" + QByteArray::number(m_random(), 16).rightJustified(16, '0');
        const QByteArray entry = QByteArray::number(request.amountCents) + '|' + ref;
        // HSETNX keeps the first payment of a key; HGET then reads whichever payment won.
        const std::vector<RedisValue> replies = m_redis.pipeline({{"HINCRBY", callsKey(), key, "1"},
                                                                  {"HSETNX", ledgerKey(), key, entry},
                                                                  {"HGET", ledgerKey(), key}});
        for (const RedisValue &reply : replies) {
            if (reply.isError())
                return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                               tr("the simulated payout provider failed: %1").arg(QString::fromUtf8(reply.string)));
        }
        const std::optional<LedgerEntry> paid = parseEntry(replies[2].toBytes());
        if (!paid)
            return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                           tr("the simulated payout provider holds an unreadable ledger entry for key %1").arg(request.idempotencyKey));
        if (paid->amountCents != request.amountCents)
            return PayoutResult::failure(PayoutResult::Status::PermanentFailure,
                           tr("idempotency key %1 was already paid with %2 cents, not %3")
                                   .arg(request.idempotencyKey)
                                   .arg(paid->amountCents)
                                   .arg(request.amountCents));
        if (loseAnswer)
            return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                           tr("the simulated payout provider's answer was lost after paying (injected failure)"));
        return {PayoutResult::Status::Paid, QString::fromUtf8(paid->ref), {}};
    } catch (const UnavailableError &error) {
        // Unreachable or timed out: like a lost HTTP answer, the payment may or may not have been recorded.
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure, tr("the simulated payout provider is unreachable: %1").arg(error.message()));
    } catch (const RedisReplyError &error) {
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure, tr("the simulated payout provider failed: %1").arg(error.message()));
    }
}

std::optional<qint64> SimulatedPayoutGateway::paidAmount(const QString &idempotencyKey)
{
    const RedisValue value = m_redis.command({"HGET", ledgerKey(), idempotencyKey.toUtf8()});
    if (value.isNil())
        return std::nullopt;
    const std::optional<LedgerEntry> entry = parseEntry(value.toBytes());
    if (!entry)
        throw RedisReplyError(tr("the simulated payout ledger holds an unreadable entry for key %1").arg(idempotencyKey));
    return entry->amountCents;
}

qint64 SimulatedPayoutGateway::ledgerSize()
{
    return m_redis.command({"HLEN", ledgerKey()}).toInteger();
}

qint64 SimulatedPayoutGateway::ledgerTotalCents()
{
    // HSCAN may return a field twice while the hash is rehashed: count each key once.
    QSet<QByteArray> seen;
    qint64 total = 0;
    QByteArray cursor("0");
    do {
        const RedisValue page = m_redis.command({"HSCAN", ledgerKey(), cursor, "COUNT", "1000"});
        if (page.type != RedisValue::Type::Array || page.elements.size() != 2)
            throw RedisReplyError(tr("unexpected reply to HSCAN of the simulated payout ledger"));
        cursor = page.elements[0].toBytes();
        const std::vector<RedisValue> &items = page.elements[1].elements;
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            const QByteArray key = items[i].toBytes();
            if (seen.contains(key))
                continue;
            seen.insert(key);
            const std::optional<LedgerEntry> entry = parseEntry(items[i + 1].toBytes());
            if (!entry)
                throw RedisReplyError(tr("the simulated payout ledger holds an unreadable entry for key %1").arg(QString::fromUtf8(key)));
            if (qAddOverflow(total, entry->amountCents, &total))
                throw RedisReplyError(tr("the simulated payout ledger's total does not fit in 64 bits"));
        }
    } while (cursor != "0");
    return total;
}

SimulationKnobs SimulatedPayoutGateway::knobsFromEnvironment(const QProcessEnvironment &environment)
{
    SimulationKnobs knobs;
    const QString failRateName = QStringLiteral("LANTERN_PAYOUT_FAIL_RATE");
    if (const QString text = environment.value(failRateName).trimmed(); !text.isEmpty()) {
        bool ok = false;
        const double rate = text.toDouble(&ok);  // always the C locale, so "0.25" everywhere
        if (!ok || !std::isfinite(rate) || rate < 0.0 || rate > 1.0)
            throw InvalidInputError(tr("invalid %1 '%2': expected a number from 0 to 1, such as 0.25").arg(failRateName, text));
        knobs.failRate = rate;
    }
    const QString delayName = QStringLiteral("LANTERN_PAYOUT_DELAY_MS");
    if (const QString text = environment.value(delayName).trimmed(); !text.isEmpty()) {
        bool ok = false;
        const int delay = text.toInt(&ok);
        if (!ok || delay < 0 || delay > MaxDelayMs)
            throw InvalidInputError(
                    tr("invalid %1 '%2': expected a whole number of milliseconds from 0 to %3").arg(delayName, text).arg(MaxDelayMs));
        knobs.delayMs = delay;
    }
    return knobs;
}

} // namespace lantern
