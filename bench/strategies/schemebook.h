#pragma once

#include "scheme.h"

#include <QList>

#include <algorithm>

namespace lantern {
class KeySchema;
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** What a campaign's system of record holds, read from SQL and Redis after a phase. */
struct LedgerState {
    qint64 count = 0;           // envelopes the campaign was created with
    qint64 totalCents = 0;
    qint64 granted = 0;         // grab records in SQL
    qint64 grantedCents = 0;
    qint64 usersTwice = 0;      // users with more than one grab record
    qint64 envelopesTwice = 0;  // envelopes (seq) held by more than one user (schemes 4-6; 1-3 have no seq)
    qint64 available = 0;       // still to grab: the remaining counter, free rows or the pool list
    qint64 availableCents = 0;
    qint64 pending = 0;         // scheme 6: grabs Redis recorded that SQL does not hold (yet)

    /** Envelopes handed out beyond the campaign's count, plus envelopes held twice. */
    qint64 overIssued() const { return std::max<qint64>(0, granted - count) + envelopesTwice; }
    /** Envelopes neither granted nor still to grab: gone. */
    qint64 lost() const { return std::max<qint64>(0, count - granted - available); }
    /** Σ granted + Σ still to grab - the campaign's total; 0 when the money balances. */
    qint64 moneyOff() const { return grantedCents + availableCents - totalCents; }
};

/** The bench's own tables for schemes 1-5 (strategy_campaign, strategy_grab, strategy_envelope,
    InnoDB, dropped when the book goes), the campaigns of every scheme, and their ledgers. */
class SchemeBook final {
public:
    SchemeBook(RedisClient &redis, SqlConnection &sql, const KeySchema &keys);
    ~SchemeBook();
    Q_DISABLE_COPY_MOVE(SchemeBook)

    /** A campaign of `scheme` ready to grab: `count` envelopes worth 1.00 each on average, double
        mean from `seed` (computed at each grab for 1-3, pre-split for 4-6; 6 is created and
        launched through CampaignService). Returns its id. */
    qint64 create(Scheme scheme, qint64 count, quint64 seed);
    /** Grab records so far (for 6, grabs Redis counted): cheap enough to poll during a run. */
    qint64 granted(Scheme scheme, qint64 campaignId);
    LedgerState read(Scheme scheme, qint64 campaignId);

private:
    qint64 scalar(const QString &statement, const QVariantList &values);
    /** The pool list's envelopes and their cents. */
    std::pair<qint64, qint64> poolContents(const QByteArray &key);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    QList<qint64> m_lanternCampaigns;
};

} // namespace lantern::bench
