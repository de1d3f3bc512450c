#include "envelope/envelopedrain.h"

#include "audit/auditlog.h"
#include "envelope/campaignrepair.h"
#include "envelope/payouttask.h"
#include "payout/payoutgateway.h"
#include "queue/reliablequeue.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcessEnvironment>
#include <QSet>
#include <QStandardPaths>
#include <QThread>

namespace lantern {

namespace {
constexpr qsizetype DrainRowsPerStatement = 200;

const LuaScript &refusedGrabScript()
{
    static const LuaScript script(QStringLiteral("grab_refused"));
    return script;
}
} // namespace

EnvelopeDrainStats &EnvelopeDrainStats::operator+=(const EnvelopeDrainStats &other)
{
    claimed += other.claimed;
    persisted += other.persisted;
    paid += other.paid;
    retried += other.retried;
    deadLettered += other.deadLettered;
    refused += other.refused;
    repaired += other.repaired;
    return *this;
}

EnvelopeDrain::EnvelopeDrain(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, QString workerId, PayoutGateway &gateway,
                             EnvelopeDrainOptions options)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_workerId(std::move(workerId)), m_gateway(gateway), m_options(std::move(options))
{
    KeySchema::validateWorkerId(m_workerId);
    if (m_options.errorLogPath.isEmpty()) {
        m_options.errorLogPath = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_ERROR_LOG"));
        if (m_options.errorLogPath.isEmpty())
            m_options.errorLogPath =
                    QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/lantern/errors.log");
    }
}

EnvelopeDrainStats EnvelopeDrain::pass()
{
    EnvelopeDrainStats stats;
    const RedisValue campaigns = m_redis.command({"SMEMBERS", m_keys.campaignSet()});
    for (const RedisValue &member : campaigns.elements) {
        const qint64 id = member.toInteger();
        const ReliableQueue queue(m_keys.campaignTasks(id), m_keys.campaignBackup(id, m_workerId), m_keys.campaignDeadLetter(id));
        // Tasks left in our own backup list by an earlier failure come first.
        const QByteArrayList left = queue.inFlight(m_redis, m_options.batchSize);
        if (!left.isEmpty())
            stats += process(queue, left);
        stats += process(queue, queue.claim(m_redis, m_options.batchSize));
    }
    return stats;
}

EnvelopeDrainStats EnvelopeDrain::drainAll()
{
    EnvelopeDrainStats total;
    for (;;) {
        const EnvelopeDrainStats stats = pass();
        total += stats;
        if (stats.claimed == 0)
            return total;
    }
}

QList<EnvelopeDrain::Refusal> EnvelopeDrain::persist(const QList<PayoutTask> &tasks, EnvelopeDrainStats &stats)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<Refusal> refusals;
    qint64 persisted = 0;
    qint64 refusedRows = 0;
    m_sql.transaction([&] {  // the body may run again after a deadlock: it starts from zero
        refusals.clear();
        persisted = 0;
        refusedRows = 0;
        for (qsizetype start = 0; start < tasks.size(); start += DrainRowsPerStatement) {
            const QList<PayoutTask> chunk = tasks.mid(start, DrainRowsPerStatement);
            QVariantList grabs;
            for (const PayoutTask &task : chunk)
                grabs << task.campaignId << task.seq << task.uid << task.amountCents << task.atMs;
            QSqlQuery inserted = m_sql.exec(m_sql.insertIgnoreInto() + QStringLiteral("grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES ")
                                                    + SqlConnection::placeholderRows(chunk.size(), 5),
                                            grabs);
            const int insertedRows = inserted.numRowsAffected();  // read before the next statement (SQLite)
            persisted += insertedRows;

            // Which of these grabs the ledger holds now, in this transaction: a task whose
            // (campaign, seq, uid) row is not there lost to an earlier grab of the same user or
            // envelope, which only a Redis that forgot state can hand out (issue 15). When every
            // row went in, every task is its own row and there is nothing to read back.
            QList<PayoutTask> accepted;
            QList<Refusal> refused;
            if (insertedRows == chunk.size())
                accepted = chunk;
            else
                judge(chunk, accepted, refused);

            if (!refused.isEmpty()) {
                QVariantList values;
                for (const Refusal &refusal : std::as_const(refused))
                    values << refusal.task.campaignId << refusal.task.seq << refusal.task.uid << refusal.task.amountCents
                           << (refusal.holder != 0 ? QStringLiteral("taken") : QStringLiteral("user_holds")) << now;
                QSqlQuery noted = m_sql.exec(m_sql.insertIgnoreInto()
                                                     + QStringLiteral("grab_refused (campaign_id, seq, uid, amount_cents, reason, refused_at_ms) VALUES ")
                                                     + SqlConnection::placeholderRows(refused.size(), 6),
                                             values);
                refusedRows += noted.numRowsAffected();
                refusals << refused;
            }
            // Payouts only for the grabs the ledger holds; uq_payout_user refuses a second one
            // for a user even if this code were wrong.
            if (!accepted.isEmpty()) {
                QVariantList payouts;
                for (const PayoutTask &task : std::as_const(accepted))
                    payouts << task.idempotencyKey() << task.campaignId << task.seq << task.uid << task.amountCents << QStringLiteral("pending") << now;
                m_sql.exec(m_sql.insertIgnoreInto() + QStringLiteral("payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, updated_at_ms) VALUES ")
                                   + SqlConnection::placeholderRows(accepted.size(), 7),
                           payouts);
            }
        }
    });
    stats.persisted += persisted;
    stats.refused += refusedRows;
    return refusals;
}

void EnvelopeDrain::judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &accepted, QList<Refusal> &refused)
{
    // One statement per campaign in the chunk (a queue holds one campaign's tasks).
    QMap<qint64, QList<PayoutTask>> byCampaign;
    for (const PayoutTask &task : tasks)
        byCampaign[task.campaignId] << task;
    for (auto it = byCampaign.cbegin(); it != byCampaign.cend(); ++it) {
        const QList<PayoutTask> &group = it.value();
        QVariantList values{it.key()};
        for (const PayoutTask &task : group)
            values << task.seq;
        for (const PayoutTask &task : group)
            values << task.uid;
        const QString marks = QStringList(group.size(), QStringLiteral("?")).join(QLatin1Char(','));
        QSqlQuery rows = m_sql.exec(QStringLiteral("SELECT seq, uid, amount_cents FROM grab WHERE campaign_id = ? AND (seq IN (%1) OR uid IN (%1))").arg(marks),
                                    values);
        QHash<qint64, qint64> holderOf;                      // seq -> uid
        QHash<qint64, std::pair<qint64, qint64>> heldBy;     // uid -> (seq, amount)
        while (rows.next()) {
            const qint64 seq = rows.value(0).toLongLong();
            const qint64 uid = rows.value(1).toLongLong();
            holderOf.insert(seq, uid);
            heldBy.insert(uid, {seq, rows.value(2).toLongLong()});
        }
        for (const PayoutTask &task : group) {
            const auto holder = holderOf.constFind(task.seq);
            if (holder != holderOf.cend() && *holder == task.uid) {
                accepted << task;
                continue;
            }
            const auto held = heldBy.constFind(task.uid);
            if (holder == holderOf.cend() && held == heldBy.cend())
                throw SqlError(QStringLiteral("the grab of envelope %1 of campaign %2 by user %3 was neither stored nor refused by a key")
                                       .arg(task.seq)
                                       .arg(task.campaignId)
                                       .arg(task.uid));
            Refusal refusal{task, holder != holderOf.cend() ? *holder : 0, {}};
            if (held != heldBy.cend())
                refusal.held = QByteArray::number(held->first) + ':' + QByteArray::number(held->second);
            refused << refusal;
        }
    }
}

bool EnvelopeDrain::undo(const Refusal &refusal)
{
    const qint64 id = refusal.task.campaignId;
    const RedisValue reply =
            refusedGrabScript().run(m_redis, {m_keys.campaignMeta(id), m_keys.campaignPool(id), m_keys.campaignDraws(id), m_keys.campaignRefused(id)},
                                    {QByteArray::number(refusal.task.seq), QByteArray::number(refusal.task.amountCents),
                                     QByteArray::number(refusal.task.uid), refusal.held,
                                     refusal.holder != 0 ? QByteArray::number(refusal.holder) : QByteArray()});
    return reply.toBytes() != "seen";
}

void EnvelopeDrain::record(const QList<PayoutRecord> &records)
{
    if (records.isEmpty())
        return;
    // An upsert on rows persist() created: status and provider reference replaced, attempts
    // added, in multi-row statements (MySQL ON DUPLICATE KEY UPDATE, SQLite ON CONFLICT).
    const bool mysql = m_sql.dialect() == DbUrl::Dialect::MySql;
    const QString head = QStringLiteral("INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, provider_ref, attempts, "
                                        "updated_at_ms) VALUES ");
    const QString tail = mysql ? QStringLiteral(" ON DUPLICATE KEY UPDATE status = VALUES(status), provider_ref = COALESCE(VALUES(provider_ref), "
                                                "provider_ref), attempts = attempts + VALUES(attempts), updated_at_ms = VALUES(updated_at_ms)")
                               : QStringLiteral(" ON CONFLICT (idempotency_key) DO UPDATE SET status = excluded.status, provider_ref = "
                                                "COALESCE(excluded.provider_ref, payout.provider_ref), attempts = payout.attempts + "
                                                "excluded.attempts, updated_at_ms = excluded.updated_at_ms");
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    m_sql.transaction([&] {
        for (qsizetype start = 0; start < records.size(); start += DrainRowsPerStatement) {
            const QList<PayoutRecord> chunk = records.mid(start, DrainRowsPerStatement);
            QVariantList values;
            for (const PayoutRecord &record : chunk) {
                const PayoutTask &task = record.task;
                values << task.idempotencyKey() << task.campaignId << task.seq << task.uid << task.amountCents << record.status
                       << (record.providerRef.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(record.providerRef))
                       << record.calls << now;
            }
            m_sql.exec(head + SqlConnection::placeholderRows(chunk.size(), 9) + tail, values);
        }
    });
}

void EnvelopeDrain::deadLetter(const ReliableQueue &queue, const QByteArray &entry, const QString &why)
{
    queue.deadLetter(m_redis, entry);
    QDir().mkpath(QFileInfo(m_options.errorLogPath).absolutePath());
    QFile log(m_options.errorLogPath);
    if (log.open(QIODevice::Append | QIODevice::Text)) {
        const QJsonObject line{{QStringLiteral("at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                               {QStringLiteral("worker"), m_workerId},
                               {QStringLiteral("queue"), QString::fromUtf8(queue.queueKey())},
                               {QStringLiteral("task"), QString::fromUtf8(entry)},
                               {QStringLiteral("error"), why}};
        log.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
    }
}

QList<qint64> EnvelopeDrain::campaignsOf(const QList<Refusal> &refusals)
{
    QList<qint64> ids;
    for (const Refusal &refusal : refusals) {
        if (!ids.contains(refusal.task.campaignId))
            ids << refusal.task.campaignId;
    }
    return ids;
}

EnvelopeDrainStats EnvelopeDrain::process(const ReliableQueue &queue, const QByteArrayList &entries)
{
    EnvelopeDrainStats stats;
    stats.claimed = entries.size();
    if (entries.isEmpty())
        return stats;

    QList<PayoutTask> tasks;
    QByteArrayList raws;
    for (const QByteArray &raw : entries) {
        if (const auto task = PayoutTask::fromJson(raw)) {
            tasks << *task;
            raws << raw;
        } else {
            deadLetter(queue, raw, QStringLiteral("malformed task"));
            ++stats.deadLettered;
        }
    }
    if (tasks.isEmpty())
        return stats;

    // 1. The grabs and their pending payouts, in SQL before any money moves; a grab the
    //    ledger refuses gets no payout, and its envelope is given back in Redis.
    const QList<Refusal> refusals = persist(tasks, stats);
    QSet<std::pair<qint64, qint64>> refusedGrabs;  // (seq, uid)
    bool undone = false;
    for (const Refusal &refusal : refusals) {
        refusedGrabs.insert({refusal.task.seq, refusal.task.uid});
        undone = undo(refusal) || undone;
    }

    // 2. Pay what is not paid yet, each envelope under its own idempotency key.
    QHash<QString, std::pair<QString, int>> state;  // key -> (status, attempts)
    {
        QStringList marks(tasks.size(), QStringLiteral("?"));
        QVariantList keys;
        for (const PayoutTask &task : std::as_const(tasks))
            keys << task.idempotencyKey();
        QSqlQuery query = m_sql.exec(QStringLiteral("SELECT idempotency_key, status, attempts FROM payout WHERE idempotency_key IN (")
                                             + marks.join(QLatin1Char(',')) + QLatin1Char(')'),
                                     keys);
        while (query.next())
            state.insert(query.value(0).toString(), {query.value(1).toString(), query.value(2).toInt()});
    }

    // Results are recorded in SQL once for the whole batch (one statement, one commit); a crash
    // before that leaves the tasks in the backup list, and paying them again is answered from
    // the provider's own record of the idempotency key.
    QList<PayoutRecord> records;
    QByteArrayList done;
    QList<std::pair<QByteArray, QString>> givenUp;  // entry, why
    QByteArrayList later;
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const PayoutTask &task = tasks.at(i);
        if (refusedGrabs.contains({task.seq, task.uid})) {
            done << raws.at(i);  // nothing to pay: the ledger holds another grab of this user or envelope
            continue;
        }
        const auto [status, attemptsSoFar] = state.value(task.idempotencyKey(), {QStringLiteral("pending"), 0});
        if (status == QLatin1String("paid")) {
            done << raws.at(i);
            continue;
        }
        PayoutResult result;
        int calls = 0;
        for (int backoff = m_options.backoffMs; calls < m_options.payAttempts; backoff *= 2) {
            if (m_options.keepAlive)
                m_options.keepAlive();
            ++calls;
            result = m_gateway.pay({task.idempotencyKey(), task.campaignId, task.seq, task.uid, task.amountCents});
            if (result.status != PayoutResult::Status::RetryableFailure || calls == m_options.payAttempts)
                break;
            QThread::msleep(static_cast<unsigned long>(backoff));
        }
        if (result.status == PayoutResult::Status::Paid) {
            records.append({task, QStringLiteral("paid"), result.providerRef, calls});
            ++stats.paid;
            done << raws.at(i);
            continue;
        }
        const bool giveUp = result.status == PayoutResult::Status::PermanentFailure
                || (attemptsSoFar + calls) >= m_options.maxFailedPasses * m_options.payAttempts;
        records.append({task, giveUp ? QStringLiteral("failed") : QStringLiteral("pending"), QString(), calls});
        if (giveUp)
            givenUp.append({raws.at(i), result.error});
        else
            later << raws.at(i);
    }
    record(records);
    for (const auto &[entry, why] : std::as_const(givenUp)) {
        deadLetter(queue, entry, why);
        ++stats.deadLettered;
    }
    for (const QByteArray &entry : std::as_const(later)) {
        queue.retryLater(m_redis, entry);
        ++stats.retried;
    }
    // 3. Only now do the tasks leave this worker's backup list.
    queue.acknowledge(m_redis, done);

    // 4. A refused grab means Redis forgot grabs the ledger holds, so its pool may still hand
    //    them out: rebuild the campaign's Redis state from SQL (skipped while another process does).
    if (undone) {
        for (const qint64 id : campaignsOf(refusals)) {
            if (const auto report = CampaignRepair(m_redis, m_sql, m_keys).repairIfFree(id)) {
                AuditLog(m_sql).record(QStringLiteral("worker:") + m_workerId, QStringLiteral("campaign.repair"), QStringLiteral("campaign:%1").arg(id),
                                       report->toJson(), QDateTime::currentMSecsSinceEpoch());
                ++stats.repaired;
            }
        }
    }
    return stats;
}

} // namespace lantern
