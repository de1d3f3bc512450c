#include "envelope/payoutledger.h"

#include "envelope/ledgerrows.h"
#include "envelope/ledgertally.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QHash>
#include <QSqlQuery>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace lantern {

namespace {
/** Thrown inside a batch's transaction when a grab taken for new did not go in: the transaction
    is rolled back and the batch written again, reading first. */
struct NotAllNew {};

/** Passes reading first before a batch is given up: one starts over when another writer stored
    one of its grabs between its read and its insert. */
constexpr int ReadingFirstPasses = 3;

QMap<qint64, QList<PayoutTask>> groupByCampaign(const QList<PayoutTask> &tasks)
{
    QMap<qint64, QList<PayoutTask>> byCampaign;
    for (const PayoutTask &task : tasks)
        byCampaign[task.campaignId] << task;
    return byCampaign;
}
} // namespace

LedgerWrite PayoutLedger::write(const QList<PayoutRecord> &records, const QList<PayoutTask> &tasks)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // First outcomes are inserted as new rows, with nothing read: their grab had no payout row.
    QList<PayoutRecord> first;
    QList<PayoutRecord> later;
    for (const PayoutRecord &record : records)
        (record.first ? first : later) << record;
    LedgerWrite result;
    for (int pass = 0;; ++pass) {
        const bool readFirst = pass > 0;
        try {
            m_sql.transaction([&] {  // the body may run again after a deadlock: it starts from zero
                result = {};
                LedgerTally tally(m_sql, m_writer);  // what this transaction adds to the running tally (issue 26)
                if (readFirst) {
                    tally.notePayouts(records);
                    record(records, payoutUpsertStatement(m_sql.dialect()), now);
                } else {
                    tally.notePayouts(later);
                    record(later, payoutUpsertStatement(m_sql.dialect()), now);
                    if (record(first, payoutInsertStatement(m_sql.dialect()), now) != first.size())
                        throw NotAllNew{};  // a row was there after all: its status is read first
                    tally.noteNewPayouts(first);
                }
                for (qsizetype start = 0; start < tasks.size(); start += RowsPerStatement) {
                    const QList<PayoutTask> chunk = tasks.mid(start, RowsPerStatement);
                    if (readFirst)
                        persistReadingFirst(chunk, now, result);
                    else if (!persistNew(chunk, result))
                        throw NotAllNew{};
                }
                tally.noteGrabs(result.persistedByCampaign);
                tally.write();
            });
            return result;
        } catch (const NotAllNew &) {
            if (pass >= ReadingFirstPasses)
                throw SqlError(QStringLiteral("a batch of %1 grabs and %2 payout outcomes was written %3 times, and each time a grab or "
                                              "payout taken for new did not go in")
                                       .arg(tasks.size())
                                       .arg(records.size())
                                       .arg(pass + 1));
        }
    }
}

qint64 PayoutLedger::record(const QList<PayoutRecord> &records, const QString &statement, qint64 nowMs)
{
    if (records.isEmpty())
        return 0;
    // In the order of the primary key (the idempotency key): neighbouring rows of one B-tree page
    // are written together, and concurrent workers lock rows in one order.
    std::vector<std::pair<QString, const PayoutRecord *>> sorted;
    sorted.reserve(static_cast<size_t>(records.size()));
    for (const PayoutRecord &record : records)
        sorted.emplace_back(record.task.idempotencyKey(), &record);
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    constexpr auto PerStatement = static_cast<size_t>(RowsPerStatement);
    qint64 affected = 0;
    for (size_t start = 0; start < sorted.size(); start += PerStatement) {
        const size_t end = std::min(sorted.size(), start + PerStatement);
        QList<const PayoutRecord *> rows;
        rows.reserve(static_cast<qsizetype>(end - start));
        for (size_t i = start; i < end; ++i)
            rows << sorted[i].second;
        affected += m_sql.write(statement, {nowMs, payoutRows(rows)});
    }
    return affected;
}

void PayoutLedger::acceptNew(const QList<PayoutTask> &tasks, LedgerWrite &write)
{
    for (const PayoutTask &task : tasks) {
        write.accepted.append({task, false, 0});
        GrabTally &tally = write.persistedByCampaign[task.campaignId];
        ++tally.rows;
        tally.cents += task.amountCents;
    }
}

bool PayoutLedger::persistNew(const QList<PayoutTask> &chunk, LedgerWrite &write)
{
    // Every row went in: each task is a grab of a launched envelope that the ledger did not hold,
    // so no payout can have been recorded for it and there is nothing to read back.
    if (m_sql.write(grabInsertStatement(m_sql.dialect()), {grabRows(chunk)}) != chunk.size())
        return false;
    acceptNew(chunk, write);
    return true;
}

void PayoutLedger::persistReadingFirst(const QList<PayoutTask> &chunk, qint64 nowMs, LedgerWrite &write)
{
    QList<PayoutTask> launched;
    QList<GrabRefusal> refused;
    splitUnlaunched(chunk, launched, refused);
    // Which of these grabs the ledger holds: a task whose (campaign, seq, uid) row is there is a
    // replay (a crash, a recovery, a retry); one whose envelope or user has another row lost to an
    // earlier grab, which only a Redis that forgot state can hand out (issue 15).
    QList<PayoutTask> fresh;
    QList<PayoutTask> replays;
    judge(launched, fresh, replays, refused);
    if (!fresh.isEmpty() && m_sql.write(grabInsertStatement(m_sql.dialect()), {grabRows(fresh)}) != fresh.size())
        throw NotAllNew{};  // another writer stored one of them since the read
    acceptNew(fresh, write);
    // Where the payouts of the replays stand (no row: none recorded yet).
    if (!replays.isEmpty())
        write.accepted << states(replays);
    if (!refused.isEmpty())
        recordRefusals(refused, nowMs, write);
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
    m_sql.lockForWriting();
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
        const auto row = state.constFind(task.idempotencyKey());
        grabs.append(row != state.cend() ? AcceptedGrab{task, row->first, row->second, true} : AcceptedGrab{task, false, 0, false});
    }
    return grabs;
}

void PayoutLedger::judge(const QList<PayoutTask> &tasks, QList<PayoutTask> &fresh, QList<PayoutTask> &replays, QList<GrabRefusal> &refused)
{
    // One statement per campaign in the chunk (a queue holds one campaign's tasks). A plain read:
    // should another writer store one of these grabs before the insert, the insert says so.
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
                replays << task;
                continue;
            }
            const auto held = heldBy.constFind(task.uid);
            if (holder == holderOf.cend() && held == heldBy.cend()) {
                fresh << task;
                holderOf.insert(task.seq, task.uid);  // a later task of the chunk for this envelope or user loses to it
                heldBy.insert(task.uid, {task.seq, task.amountCents});
                continue;
            }
            GrabRefusal refusal{task, holder != holderOf.cend() ? *holder : 0, {}};
            if (held != heldBy.cend())
                refusal.held = QByteArray::number(held->first) + ':' + QByteArray::number(held->second);
            refused << refusal;
        }
    }
}

} // namespace lantern
