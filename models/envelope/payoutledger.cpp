#include "envelope/payoutledger.h"

#include "envelope/ledgertally.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QHash>
#include <QMap>
#include <QSqlQuery>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace lantern {

LedgerWrite PayoutLedger::write(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    LedgerWrite result;
    m_sql.transaction([&] {  // the body may run again after a deadlock: it starts from zero
        result = {};
        LedgerTally tally(m_sql, m_writer);  // the running tally of what this transaction writes (issue 26)
        tally.notePayouts(records);
        record(records, now);
        for (qsizetype start = 0; start < tasks.size(); start += RowsPerStatement)
            persist(tasks.mid(start, RowsPerStatement), now, result, tally);
        tally.write();
    });
    return result;
}

void PayoutLedger::record(const QList<PayoutRecord> &records, qint64 nowMs)
{
    if (records.isEmpty())
        return;
    // The first outcome of a payout inserts its row; a later one (a retry after a pending outcome,
    // a replay) replaces status and provider reference and adds the attempts: multi-row upserts
    // (MySQL ON DUPLICATE KEY UPDATE, SQLite ON CONFLICT).
    const bool mysql = m_sql.dialect() == DbUrl::Dialect::MySql;
    const QString head = QStringLiteral("INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, provider_ref, attempts, "
                                        "updated_at_ms) VALUES ");
    const QString tail = mysql ? QStringLiteral(" ON DUPLICATE KEY UPDATE status = VALUES(status), provider_ref = COALESCE(VALUES(provider_ref), "
                                                "provider_ref), attempts = attempts + VALUES(attempts), updated_at_ms = VALUES(updated_at_ms)")
                               : QStringLiteral(" ON CONFLICT (idempotency_key) DO UPDATE SET status = excluded.status, provider_ref = "
                                                "COALESCE(excluded.provider_ref, payout.provider_ref), attempts = payout.attempts + "
                                                "excluded.attempts, updated_at_ms = excluded.updated_at_ms");
    // In the order of the primary key (the idempotency key): neighbouring rows of one B-tree page
    // are written together, and concurrent workers lock rows in one order.
    std::vector<std::pair<QString, const PayoutRecord *>> sorted;
    sorted.reserve(static_cast<size_t>(records.size()));
    for (const PayoutRecord &record : records)
        sorted.emplace_back(record.task.idempotencyKey(), &record);
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    const QVariant noRef(QMetaType(QMetaType::QString));
    constexpr auto PerStatement = static_cast<size_t>(RowsPerStatement);
    for (size_t start = 0; start < sorted.size(); start += PerStatement) {
        const size_t end = std::min(sorted.size(), start + PerStatement);
        QVariantList values;
        values.reserve(static_cast<qsizetype>(end - start) * 9);
        for (size_t i = start; i < end; ++i) {
            const PayoutRecord &record = *sorted[i].second;
            const PayoutTask &task = record.task;
            values << sorted[i].first << task.campaignId << task.seq << task.uid << task.amountCents << record.status
                   << (record.providerRef.isEmpty() ? noRef : QVariant(record.providerRef)) << record.calls << nowMs;
        }
        const qsizetype rows = static_cast<qsizetype>(end - start);
        m_sql.write(head + SqlConnection::placeholderRows(rows, 9) + tail, values);
    }
}

namespace {
QMap<qint64, QList<PayoutTask>> groupByCampaign(const QList<PayoutTask> &tasks)
{
    QMap<qint64, QList<PayoutTask>> byCampaign;
    for (const PayoutTask &task : tasks)
        byCampaign[task.campaignId] << task;
    return byCampaign;
}
} // namespace

void PayoutLedger::persist(const QList<PayoutTask> &chunk, qint64 nowMs, LedgerWrite &write, LedgerTally &tally)
{
    QList<PayoutTask> launched;
    QList<GrabRefusal> unlaunched;
    splitUnlaunched(chunk, launched, unlaunched);
    if (!unlaunched.isEmpty())
        recordRefusals(unlaunched, nowMs, write);
    if (launched.isEmpty())
        return;
    const int insertedRows = tally.insertGrabs(launched, [this](const QList<PayoutTask> &rows) {
        QVariantList grabs;
        grabs.reserve(rows.size() * 5);
        for (const PayoutTask &task : rows)
            grabs << task.campaignId << task.seq << task.uid << task.amountCents << task.atMs;
        return m_sql.write(m_sql.insertIgnoreInto() + QStringLiteral("grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES ")
                                   + SqlConnection::placeholderRows(rows.size(), 5),
                           grabs);
    });
    write.persisted += insertedRows;

    // Which of these grabs the ledger holds now, in this transaction: a task whose (campaign, seq,
    // uid) row is not there lost to an earlier grab of the same user or envelope, which only a
    // Redis that forgot state can hand out (issue 15). When every row went in, every task is its
    // own new row, so no payout can have been recorded for it: nothing to read back.
    if (insertedRows == launched.size()) {
        for (const PayoutTask &task : launched)
            write.accepted.append({task, false, 0});
        return;
    }
    QList<PayoutTask> accepted;
    QList<GrabRefusal> refused;
    judge(launched, accepted, refused);
    if (!refused.isEmpty())
        recordRefusals(refused, nowMs, write);
    // Some tasks are replays (a crash, a recovery, a retry): where the payouts of the grabs the
    // ledger holds stand is read back (no row: none recorded yet).
    if (!accepted.isEmpty())
        write.accepted << states(accepted);
}

void PayoutLedger::recordRefusals(const QList<GrabRefusal> &refused, qint64 nowMs, LedgerWrite &write)
{
    QVariantList values;
    for (const GrabRefusal &refusal : refused) {
        const QString reason = refusal.notLaunched ? QStringLiteral("not_launched")
                                                   : (refusal.holder != 0 ? QStringLiteral("taken") : QStringLiteral("user_holds"));
        values << refusal.task.campaignId << refusal.task.seq << refusal.task.uid << refusal.task.amountCents << reason << nowMs;
    }
    write.refusedRows += m_sql.write(m_sql.insertIgnoreInto()
                                             + QStringLiteral("grab_refused (campaign_id, seq, uid, amount_cents, reason, refused_at_ms) VALUES ")
                                             + SqlConnection::placeholderRows(refused.size(), 6),
                                     values);
    write.refusals << refused;
}

void PayoutLedger::splitUnlaunched(const QList<PayoutTask> &tasks, QList<PayoutTask> &launched, QList<GrabRefusal> &unlaunched)
{
    // One statement per campaign in the chunk (a queue holds one campaign's tasks), on primary keys.
    // A launch writes SQL's status first and commits after its Redis move, so a grab can come
    // before that commit: the read waits for it (MySQL: a locking read of the row; SQLite: the
    // database's write lock, taken by a write that changes nothing, before anything is read).
    const bool mysql = m_sql.dialect() == DbUrl::Dialect::MySql;
    if (!mysql)
        m_sql.exec(QStringLiteral("UPDATE campaign SET status = status WHERE 0 = 1"));  // SQLite only
    const QMap<qint64, QList<PayoutTask>> byCampaign = groupByCampaign(tasks);
    for (auto it = byCampaign.cbegin(); it != byCampaign.cend(); ++it) {
        const QList<PayoutTask> &group = it.value();
        QVariantList values{it.key(), QStringLiteral("draft")};
        for (const PayoutTask &task : group)
            values << task.seq;
        QSqlQuery rows = m_sql.exec(QStringLiteral("SELECT e.seq, e.amount_cents FROM envelope e JOIN campaign c ON c.id = e.campaign_id "
                                                   "WHERE e.campaign_id = ? AND c.status <> ? AND e.seq IN (%1)%2")
                                            .arg(QStringList(group.size(), QStringLiteral("?")).join(QLatin1Char(',')),
                                                 mysql ? QStringLiteral(" LOCK IN SHARE MODE") : QString()),
                                    values);
        QHash<qint64, qint64> amountOf;  // seq -> amount, of the launched envelopes
        while (rows.next())
            amountOf.insert(rows.value(0).toLongLong(), rows.value(1).toLongLong());
        for (const PayoutTask &task : group) {
            if (amountOf.value(task.seq, -1) == task.amountCents)
                launched << task;
            else
                unlaunched << GrabRefusal{task, 0, {}, true};
        }
    }
}

QList<AcceptedGrab> PayoutLedger::states(const QList<PayoutTask> &tasks)
{
    QVariantList keys;
    for (const PayoutTask &task : tasks)
        keys << task.idempotencyKey();
    QSqlQuery query = m_sql.exec(QStringLiteral("SELECT idempotency_key, status, attempts FROM payout WHERE idempotency_key IN (")
                                         + QStringList(tasks.size(), QStringLiteral("?")).join(QLatin1Char(',')) + QLatin1Char(')'),
                                 keys);
    QHash<QString, std::pair<bool, int>> state;  // key -> (paid, attempts)
    while (query.next())
        state.insert(query.value(0).toString(), {query.value(1).toString() == QLatin1String("paid"), query.value(2).toInt()});
    QList<AcceptedGrab> grabs;
    for (const PayoutTask &task : tasks) {
        const auto [paid, attempts] = state.value(task.idempotencyKey(), {false, 0});
        grabs.append({task, paid, attempts});
    }
    return grabs;
}

void PayoutLedger::judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &accepted, QList<GrabRefusal> &refused)
{
    // One statement per campaign in the chunk (a queue holds one campaign's tasks).
    const QMap<qint64, QList<PayoutTask>> byCampaign = groupByCampaign(tasks);
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
        QHash<qint64, qint64> holderOf;                   // seq -> uid
        QHash<qint64, std::pair<qint64, qint64>> heldBy;  // uid -> (seq, amount)
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
            GrabRefusal refusal{task, holder != holderOf.cend() ? *holder : 0, {}};
            if (held != heldBy.cend())
                refusal.held = QByteArray::number(held->first) + ':' + QByteArray::number(held->second);
            refused << refusal;
        }
    }
}

} // namespace lantern
