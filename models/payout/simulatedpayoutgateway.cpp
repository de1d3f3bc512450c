#include "payout/simulatedpayoutgateway.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QSet>
#include <QThread>
#include <QTimer>

#include <algorithm>
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

SimulatedPayoutGateway::~SimulatedPayoutGateway() = default;

double SimulatedPayoutGateway::nextUnit()
{
    return static_cast<double>(m_random() >> 11) * 0x1.0p-53;
}

SimulatedPayoutGateway::Fate SimulatedPayoutGateway::drawFate()
{
    // One draw per call decides its fate: [0, f/2) fails before paying, [f/2, f) pays and loses the answer.
    Fate fate;
    const double draw = nextUnit();
    fate.failBeforePaying = draw < m_knobs.failRate / 2;
    fate.loseAnswer = !fate.failBeforePaying && draw < m_knobs.failRate;
    if (!fate.failBeforePaying)
        fate.ref = "sim-" + QByteArray::number(m_random(), 16).rightJustified(16, '0');
    return fate;
}

PayoutResult SimulatedPayoutGateway::settle(const PayoutRequest &request, const Fate &fate, const RedisValue &paidReply) const
{
    if (paidReply.isError())
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     tr("the simulated payout provider failed: %1").arg(QString::fromUtf8(paidReply.string)));
    const std::optional<LedgerEntry> paid = parseEntry(paidReply.toBytes());
    if (!paid)
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     tr("the simulated payout provider holds an unreadable ledger entry for key %1").arg(request.idempotencyKey));
    if (paid->amountCents != request.amountCents)
        return PayoutResult::failure(PayoutResult::Status::PermanentFailure, tr("idempotency key %1 was already paid with %2 cents, not %3")
                                                                                     .arg(request.idempotencyKey)
                                                                                     .arg(paid->amountCents)
                                                                                     .arg(request.amountCents));
    if (fate.loseAnswer)
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     tr("the simulated payout provider's answer was lost after paying (injected failure)"));
    return {PayoutResult::Status::Paid, QString::fromUtf8(paid->ref), {}};
}

namespace {
PayoutResult failedBeforePaying()
{
    return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                 SimulatedPayoutGateway::tr("the simulated payout provider failed before paying (injected failure)"));
}
} // namespace

PayoutResult SimulatedPayoutGateway::pay(const PayoutRequest &request)
{
    if (const QString invalid = validate(request); !invalid.isEmpty())
        return PayoutResult::failure(PayoutResult::Status::PermanentFailure, invalid);
    if (m_knobs.delayMs > 0)
        QThread::msleep(static_cast<unsigned long>(m_knobs.delayMs));

    const Fate fate = drawFate();
    const QByteArray key = request.idempotencyKey.toUtf8();
    try {
        if (fate.failBeforePaying) {
            m_redis.command({"HINCRBY", callsKey(), key, "1"});
            return failedBeforePaying();
        }
        const QByteArray entry = QByteArray::number(request.amountCents) + '|' + fate.ref;
        // HSETNX keeps the first payment of a key; HGET then reads whichever payment won.
        const std::vector<RedisValue> replies = m_redis.pipeline({{"HINCRBY", callsKey(), key, "1"},
                                                                  {"HSETNX", ledgerKey(), key, entry},
                                                                  {"HGET", ledgerKey(), key}});
        for (const RedisValue &reply : replies) {
            if (reply.isError())
                return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                             tr("the simulated payout provider failed: %1").arg(QString::fromUtf8(reply.string)));
        }
        return settle(request, fate, replies[2]);
    } catch (const UnavailableError &error) {
        // Unreachable or timed out: like a lost HTTP answer, the payment may or may not have been recorded.
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure, tr("the simulated payout provider is unreachable: %1").arg(error.message()));
    } catch (const RedisReplyError &error) {
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure, tr("the simulated payout provider failed: %1").arg(error.message()));
    }
}

void SimulatedPayoutGateway::start(const PayoutRequest &request, QObject *context, Done done)
{
    if (const QString invalid = validate(request); !invalid.isEmpty()) {
        QTimer::singleShot(0, context, [done = std::move(done), invalid] { done(PayoutResult::failure(PayoutResult::Status::PermanentFailure, invalid)); });
        return;
    }
    if (!m_timer) {
        m_timer = std::make_unique<QTimer>();
        m_timer->setSingleShot(true);
        m_timer->setTimerType(Qt::PreciseTimer);  // a coarse timer may answer up to 5 % late
        QObject::connect(m_timer.get(), &QTimer::timeout, m_timer.get(), [this] { serveDue(); });
    }
    m_calls.push_back({Clock::now() + std::chrono::milliseconds(m_knobs.delayMs), request, context, std::move(done)});
    if (!m_timer->isActive())
        armTimer();
}

void SimulatedPayoutGateway::armTimer()
{
    if (m_calls.empty())
        return;
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(m_calls.front().due - Clock::now());
    m_timer->start(std::max(wait, std::chrono::milliseconds(0)));
}

void SimulatedPayoutGateway::serveDue()
{
    // Every call started delayMs ago or more, served together as a remote provider serving many
    // clients would: its ledger writes in one pipeline, each call's fate drawn as pay() draws it.
    // HSETNX answering 1 means this call's payment is the ledger's; only the keys paid before (a
    // retry after a lost answer) are read back, in a second round trip.
    std::vector<Call> due;
    const Clock::time_point now = Clock::now();
    while (!m_calls.empty() && m_calls.front().due <= now) {
        due.push_back(std::move(m_calls.front()));
        m_calls.pop_front();
    }
    std::vector<Fate> fates;
    std::vector<QByteArray> entries;  // what each paying call offers the ledger
    QList<QByteArrayList> commands;
    for (const Call &call : due) {
        fates.push_back(drawFate());
        const QByteArray key = call.request.idempotencyKey.toUtf8();
        commands << QByteArrayList{"HINCRBY", callsKey(), key, "1"};
        entries.push_back(fates.back().failBeforePaying ? QByteArray() : QByteArray::number(call.request.amountCents) + '|' + fates.back().ref);
        if (!fates.back().failBeforePaying)
            commands << QByteArrayList{"HSETNX", ledgerKey(), key, entries.back()};
    }
    std::vector<RedisValue> paid(due.size());  // the ledger's entry for each paying call (or the error)
    QString unreachable;
    try {
        const std::vector<RedisValue> replies = m_redis.pipeline(commands);
        QList<QByteArrayList> reads;
        std::vector<size_t> readFor;
        size_t reply = 0;
        for (size_t i = 0; i < due.size(); ++i) {
            const RedisValue &counted = replies[reply++];
            if (fates[i].failBeforePaying) {
                paid[i] = counted.isError() ? counted : RedisValue{};
                continue;
            }
            const RedisValue &set = replies[reply++];
            if (counted.isError() || set.isError()) {
                paid[i] = counted.isError() ? counted : set;
            } else if (set.toInteger() == 1) {
                paid[i] = RedisValue{RedisValue::Type::String, 0, entries[i], {}};
            } else {
                reads << QByteArrayList{"HGET", ledgerKey(), due[i].request.idempotencyKey.toUtf8()};
                readFor.push_back(i);
            }
        }
        if (!reads.isEmpty()) {
            const std::vector<RedisValue> earlier = m_redis.pipeline(reads);
            for (size_t r = 0; r < readFor.size(); ++r)
                paid[readFor[r]] = earlier[r];
        }
    } catch (const UnavailableError &error) {
        unreachable = tr("the simulated payout provider is unreachable: %1").arg(error.message());
    } catch (const RedisReplyError &error) {
        unreachable = tr("the simulated payout provider failed: %1").arg(error.message());
    }
    for (size_t i = 0; i < due.size(); ++i) {
        PayoutResult result;
        if (!unreachable.isEmpty())
            result = PayoutResult::failure(PayoutResult::Status::RetryableFailure, unreachable);
        else if (paid[i].isError() || !fates[i].failBeforePaying)
            result = settle(due[i].request, fates[i], paid[i]);
        else
            result = failedBeforePaying();
        if (due[i].context)
            due[i].done(result);
    }
    if (!m_timer->isActive())
        armTimer();
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

QList<std::optional<qint64>> SimulatedPayoutGateway::paidAmounts(const QStringList &idempotencyKeys)
{
    QList<std::optional<qint64>> amounts;
    if (idempotencyKeys.isEmpty())
        return amounts;
    QByteArrayList command{"HMGET", ledgerKey()};
    for (const QString &key : idempotencyKeys)
        command << key.toUtf8();
    const RedisValue reply = m_redis.command(command);
    throwOnErrorReply(reply);
    for (qsizetype i = 0; i < idempotencyKeys.size(); ++i) {
        const RedisValue &value = reply.elements.at(size_t(i));
        if (value.isNil()) {
            amounts << std::nullopt;
            continue;
        }
        const std::optional<LedgerEntry> entry = parseEntry(value.toBytes());
        if (!entry)
            throw RedisReplyError(tr("the simulated payout ledger holds an unreadable entry for key %1").arg(idempotencyKeys[i]));
        amounts << entry->amountCents;
    }
    return amounts;
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
