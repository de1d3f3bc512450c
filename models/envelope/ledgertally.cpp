#include "envelope/ledgertally.h"

#include "envelope/payoutledger.h"
#include "sql/sqlconnection.h"

#include <QSqlQuery>
#include <QStringList>

namespace lantern {

namespace {
constexpr qsizetype KeysPerRead = 1000;

QString marks(qsizetype count)
{
    return QStringList(count, QStringLiteral("?")).join(QLatin1Char(','));
}

/** What one status counts for in the tally's payout figures. */
TallyFigures payoutFigures(const QString &status, qint64 cents)
{
    TallyFigures figures;
    if (status == QLatin1String("paid")) {
        figures.paid = 1;
        figures.paidCents = cents;
    } else if (status == QLatin1String("failed")) {
        figures.failed = 1;
        figures.failedCents = cents;
    }
    return figures;
}

TallyFigures figuresOf(const QSqlQuery &row, int first)
{
    TallyFigures figures;
    qint64 *fields[] = {&figures.grabRows, &figures.grabCents, &figures.paid, &figures.paidCents, &figures.failed, &figures.failedCents,
                        &figures.payoutCalls};
    for (qint64 *field : fields)
        *field = row.value(first++).toLongLong();
    return figures;
}
} // namespace

TallyFigures &TallyFigures::operator+=(const TallyFigures &other)
{
    grabRows += other.grabRows;
    grabCents += other.grabCents;
    paid += other.paid;
    paidCents += other.paidCents;
    failed += other.failed;
    failedCents += other.failedCents;
    payoutCalls += other.payoutCalls;
    return *this;
}

TallyFigures TallyFigures::operator-(const TallyFigures &other) const
{
    return {grabRows - other.grabRows, grabCents - other.grabCents, paid - other.paid, paidCents - other.paidCents,
            failed - other.failed, failedCents - other.failedCents, payoutCalls - other.payoutCalls};
}

int LedgerTally::writerOf(const QString &workerId)
{
    quint32 hash = 2166136261u;
    for (const char byte : workerId.toUtf8()) {
        hash ^= static_cast<quint8>(byte);
        hash *= 16777619u;
    }
    return static_cast<int>(hash % Writers);
}

void LedgerTally::notePayouts(const QList<PayoutRecord> &records)
{
    if (records.isEmpty())
        return;
    m_sql.lockForWriting();  // SQLite: nothing changes the rows between this read and the upsert
    // The rows the records replace: their status and amount (an upsert keeps the row's amount).
    QHash<QString, std::pair<QString, qint64>> before;
    for (qsizetype start = 0; start < records.size(); start += KeysPerRead) {
        const QList<PayoutRecord> chunk = records.mid(start, KeysPerRead);
        QVariantList keys;
        for (const PayoutRecord &record : chunk)
            keys << record.task.idempotencyKey();
        QSqlQuery rows = m_sql.exec(QStringLiteral("SELECT idempotency_key, status, amount_cents FROM payout WHERE idempotency_key IN (%1)")
                                            .arg(marks(keys.size())),
                                    keys);
        while (rows.next())
            before.insert(rows.value(0).toString(), {rows.value(1).toString(), rows.value(2).toLongLong()});
    }
    // In the records' order, as the upsert applies them (a key twice: the second replaces the first).
    for (const PayoutRecord &record : records) {
        const QString key = record.task.idempotencyKey();
        const auto row = before.constFind(key);
        notePayout(record, row != before.cend() ? &*row : nullptr);
        before.insert(key, {record.status, row != before.cend() ? row->second : record.task.amountCents});
    }
}

void LedgerTally::noteNewPayouts(const QList<PayoutRecord> &records)
{
    for (const PayoutRecord &record : records)
        notePayout(record, nullptr);
}

void LedgerTally::notePayout(const PayoutRecord &record, const std::pair<QString, qint64> *before)
{
    const qint64 cents = before != nullptr ? before->second : record.task.amountCents;
    TallyFigures &added = m_added[record.task.campaignId];
    added += payoutFigures(record.status, cents);
    if (before != nullptr)
        added = added - payoutFigures(before->first, cents);
    added.payoutCalls += record.calls;
}

void LedgerTally::noteGrabs(const QMap<qint64, GrabTally> &inserted)
{
    for (auto it = inserted.cbegin(); it != inserted.cend(); ++it) {
        TallyFigures &figures = m_added[it.key()];
        figures.grabRows += it->rows;
        figures.grabCents += it->cents;
    }
}

void LedgerTally::write()
{
    QVariantList values;
    qsizetype rows = 0;
    for (auto it = m_added.cbegin(); it != m_added.cend(); ++it) {  // in campaign order: workers sharing a shard lock rows in one order
        const TallyFigures &f = it.value();
        if (f == TallyFigures{})
            continue;
        values << it.key() << m_writer << f.grabRows << f.grabCents << f.paid << f.paidCents << f.failed << f.failedCents << f.payoutCalls;
        ++rows;
    }
    m_added.clear();
    if (rows == 0)
        return;
    const bool mysql = m_sql.dialect() == DbUrl::Dialect::MySql;
    const QStringList columns{QStringLiteral("grab_rows"),    QStringLiteral("grab_cents"),   QStringLiteral("paid_count"),
                              QStringLiteral("paid_cents"),   QStringLiteral("failed_count"), QStringLiteral("failed_cents"),
                              QStringLiteral("payout_calls")};
    QStringList sums;
    for (const QString &column : columns)
        sums << (mysql ? QStringLiteral("%1 = %1 + VALUES(%1)").arg(column) : QStringLiteral("%1 = ledger_tally.%1 + excluded.%1").arg(column));
    m_sql.write(QStringLiteral("INSERT INTO ledger_tally (campaign_id, writer, %1) VALUES ").arg(columns.join(QStringLiteral(", ")))
                        + SqlConnection::placeholderRows(rows, 9)
                        + (mysql ? QStringLiteral(" ON DUPLICATE KEY UPDATE ") : QStringLiteral(" ON CONFLICT (campaign_id, writer) DO UPDATE SET "))
                        + sums.join(QStringLiteral(", ")),
                values);
}

QHash<qint64, TallyFigures> LedgerTally::read(SqlConnection &sql, std::optional<qint64> campaignId)
{
    QHash<qint64, TallyFigures> figures;
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT campaign_id, SUM(grab_rows), SUM(grab_cents), SUM(paid_count), SUM(paid_cents), "
                                             "SUM(failed_count), SUM(failed_cents), SUM(payout_calls) FROM ledger_tally")
                                      + (campaignId ? QStringLiteral(" WHERE campaign_id = ?") : QString()) + QStringLiteral(" GROUP BY campaign_id"),
                              campaignId ? QVariantList{*campaignId} : QVariantList{});
    while (rows.next())
        figures.insert(rows.value(0).toLongLong(), figuresOf(rows, 1));
    return figures;
}

QHash<qint64, TallyFigures> LedgerTally::count(SqlConnection &sql, std::optional<qint64> campaignId, Count what)
{
    QHash<qint64, TallyFigures> figures;
    const QString where = campaignId ? QStringLiteral(" WHERE campaign_id = ?") : QString();
    const QVariantList scope = campaignId ? QVariantList{*campaignId} : QVariantList{};
    QSqlQuery grabs;
    if (what == Count::GrabsAndPayouts)
        grabs = sql.exec(QStringLiteral("SELECT campaign_id, COUNT(*), COALESCE(SUM(amount_cents), 0) FROM grab") + where
                                       + QStringLiteral(" GROUP BY campaign_id"),
                         scope);
    while (grabs.isActive() && grabs.next()) {
        TallyFigures &row = figures[grabs.value(0).toLongLong()];
        row.grabRows = grabs.value(1).toLongLong();
        row.grabCents = grabs.value(2).toLongLong();
    }
    QSqlQuery payouts = sql.exec(QStringLiteral("SELECT campaign_id, 0, 0, SUM(CASE WHEN status = 'paid' THEN 1 ELSE 0 END), "
                                                "SUM(CASE WHEN status = 'paid' THEN amount_cents ELSE 0 END), "
                                                "SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), "
                                                "SUM(CASE WHEN status = 'failed' THEN amount_cents ELSE 0 END), SUM(attempts) FROM payout")
                                         + where + QStringLiteral(" GROUP BY campaign_id"),
                                 scope);
    while (payouts.next()) {
        TallyFigures paid = figuresOf(payouts, 1);
        TallyFigures &row = figures[payouts.value(0).toLongLong()];
        paid.grabRows = row.grabRows;
        paid.grabCents = row.grabCents;
        row = paid;
    }
    return figures;
}

} // namespace lantern
