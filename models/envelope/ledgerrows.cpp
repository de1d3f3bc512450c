#include "envelope/ledgerrows.h"

#include "envelope/payoutledger.h"
#include "envelope/payouttask.h"

#include <charconv>

namespace lantern {

namespace {

/** A JSON array of arrays, written straight into UTF-8 (numbers with to_chars, no allocation each). */
class JsonRows final {
public:
    explicit JsonRows(qsizetype rows, qsizetype bytesPerRow) { m_json.reserve(2 + rows * bytesPerRow); m_json += '['; }

    void beginRow()
    {
        if (m_json.size() > 1)
            m_json += ',';
        m_json += '[';
        m_first = true;
    }
    void endRow() { m_json += ']'; }
    void number(qint64 value)
    {
        separate();
        char digits[24];
        const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
        m_json.append(digits, end - digits);
    }
    void null()
    {
        separate();
        m_json += "null";
    }
    void string(const QString &text)
    {
        separate();
        m_json += '"';
        for (const char c : text.toUtf8()) {
            const auto byte = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                m_json += '\\';
                m_json += c;
            } else if (byte < 0x20) {
                static const char hex[] = "0123456789abcdef";
                m_json += "\\u00";
                m_json += hex[byte >> 4];
                m_json += hex[byte & 0xf];
            } else {
                m_json += c;
            }
        }
        m_json += '"';
    }
    QString finish()
    {
        m_json += ']';
        return QString::fromUtf8(m_json);
    }

private:
    void separate()
    {
        if (!m_first)
            m_json += ',';
        m_first = false;
    }

    QByteArray m_json;
    bool m_first = true;
};

} // namespace

QString grabInsertStatement(DbUrl::Dialect dialect)
{
    // Driven from the rows (STRAIGHT_JOIN, CROSS JOIN): an envelope or campaign first would be
    // scanned for every campaign's envelopes instead of looked up by primary key.
    if (dialect == DbUrl::Dialect::MySql)
        return QStringLiteral(
                "INSERT IGNORE INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) "
                "SELECT STRAIGHT_JOIN e.campaign_id, e.seq, j.uid, e.amount_cents, j.at "
                "FROM JSON_TABLE(?, '$[*]' COLUMNS (campaign BIGINT PATH '$[0]', seq BIGINT PATH '$[1]', uid BIGINT PATH '$[2]', "
                "amount BIGINT PATH '$[3]', at BIGINT PATH '$[4]')) j "
                "JOIN envelope e ON e.campaign_id = j.campaign AND e.seq = j.seq AND e.amount_cents = j.amount "
                "JOIN campaign c ON c.id = e.campaign_id AND c.status <> 'draft' LOCK IN SHARE MODE");
    return QStringLiteral(
            "INSERT OR IGNORE INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) "
            "SELECT e.campaign_id, e.seq, json_extract(j.value, '$[2]'), e.amount_cents, json_extract(j.value, '$[4]') "
            "FROM json_each(?) j CROSS JOIN envelope e CROSS JOIN campaign c "
            "WHERE e.campaign_id = json_extract(j.value, '$[0]') AND e.seq = json_extract(j.value, '$[1]') "
            "AND e.amount_cents = json_extract(j.value, '$[3]') AND c.id = e.campaign_id AND c.status <> 'draft'");
}

QString grabRows(const QList<PayoutTask> &tasks)
{
    JsonRows rows(tasks.size(), 56);
    for (const PayoutTask &task : tasks) {
        rows.beginRow();
        rows.number(task.campaignId);
        rows.number(task.seq);
        rows.number(task.uid);
        rows.number(task.amountCents);
        rows.number(task.atMs);
        rows.endRow();
    }
    return rows.finish();
}

namespace {
/** The INSERT ... SELECT of payout rows from the JSON rows, without what it does on a key that is there. */
QString payoutInsertSelect(DbUrl::Dialect dialect)
{
    // The JSON side's strings are wider than their columns: a value too long for its column is
    // refused by the column (strict mode), not cut to fit by JSON_TABLE.
    if (dialect == DbUrl::Dialect::MySql)
        return QStringLiteral(
                "INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, provider_ref, attempts, updated_at_ms) "
                "SELECT j.k, j.campaign, j.seq, j.uid, j.amount, j.st, j.ref, j.calls, ? "
                "FROM JSON_TABLE(?, '$[*]' COLUMNS (k VARCHAR(1024) PATH '$[0]', campaign BIGINT PATH '$[1]', seq BIGINT PATH '$[2]', "
                "uid BIGINT PATH '$[3]', amount BIGINT PATH '$[4]', st VARCHAR(1024) PATH '$[5]', ref VARCHAR(1024) PATH '$[6]', "
                "calls INT PATH '$[7]')) j ");
    // "WHERE true": SQLite's parser needs it between a SELECT and ON CONFLICT.
    return QStringLiteral(
            "INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, provider_ref, attempts, updated_at_ms) "
            "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'), "
            "json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'), ? "
            "FROM json_each(?) WHERE true ");
}
} // namespace

QString payoutUpsertStatement(DbUrl::Dialect dialect)
{
    if (dialect == DbUrl::Dialect::MySql)
        return payoutInsertSelect(dialect)
                + QStringLiteral("ON DUPLICATE KEY UPDATE status = VALUES(status), provider_ref = COALESCE(VALUES(provider_ref), provider_ref), "
                                 "attempts = attempts + VALUES(attempts), updated_at_ms = VALUES(updated_at_ms)");
    return payoutInsertSelect(dialect)
            + QStringLiteral("ON CONFLICT (idempotency_key) DO UPDATE SET status = excluded.status, provider_ref = COALESCE(excluded.provider_ref, "
                             "payout.provider_ref), attempts = payout.attempts + excluded.attempts, updated_at_ms = excluded.updated_at_ms");
}

QString payoutInsertStatement(DbUrl::Dialect dialect)
{
    // MySQL: a key that is there is "updated" to itself, which changes nothing and counts no row
    // (the connection does not ask for CLIENT_FOUND_ROWS); INSERT IGNORE would also turn a value
    // too long for its column into a warning and a cut value.
    if (dialect == DbUrl::Dialect::MySql)
        return payoutInsertSelect(dialect) + QStringLiteral("ON DUPLICATE KEY UPDATE idempotency_key = idempotency_key");
    return payoutInsertSelect(dialect) + QStringLiteral("ON CONFLICT DO NOTHING");
}

QString payoutRows(const QList<const PayoutRecord *> &records)
{
    JsonRows rows(records.size(), 96);
    for (const PayoutRecord *record : records) {
        const PayoutTask &task = record->task;
        rows.beginRow();
        rows.string(task.idempotencyKey());
        rows.number(task.campaignId);
        rows.number(task.seq);
        rows.number(task.uid);
        rows.number(task.amountCents);
        rows.string(record->status);
        if (record->providerRef.isEmpty())
            rows.null();
        else
            rows.string(record->providerRef);
        rows.number(record->calls);
        rows.endRow();
    }
    return rows.finish();
}

} // namespace lantern
