#include "envelope/campaignfigures.h"

#include "envelope/campaignpools.h"
#include "envelope/poolcounters.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/setscan.h"
#include "sql/sqlconnection.h"

#include <algorithm>

namespace lantern {

namespace {

constexpr size_t CommandsPerPool = 7;

/** envelope_split's envelopes, envelope_cents, smallest_cents, first_seq and last_seq, read from `column` on. */
SplitMemo recordedSplit(const QSqlQuery &query, int column)
{
    SplitMemo split;
    split.envelopes = query.value(column).toLongLong();
    split.envelopeCents = query.value(column + 1).toLongLong();
    split.smallestEnvelope = query.value(column + 2).toLongLong();
    split.firstSeq = query.value(column + 3).toLongLong();
    split.lastSeq = query.value(column + 4).toLongLong();
    return split;
}
} // namespace

CampaignFigures::CampaignFigures(RedisClient &redis, SqlConnection &sql, const KeySchema &keys) : m_redis(redis), m_sql(sql), m_keys(keys)
{
}

QList<RedisFigures> CampaignFigures::redis(const QList<qint64> &ids)
{
    QList<RedisFigures> all;
    all.reserve(ids.size());
    for (qsizetype start = 0; start < ids.size(); start += RedisChunk) {
        const QList<qint64> chunk = ids.mid(start, RedisChunk);
        // Round trip 1: each campaign's pools (one, or its sub-pools).
        QList<QByteArrayList> commands;
        for (qint64 id : chunk)
            commands << QByteArrayList{"HGET", m_keys.campaignMeta(id), "pools"};
        const std::vector<RedisValue> named = m_redis.pipeline(commands);
        throwOnErrorReply(named);
        size_t at = 0;
        QList<CampaignPools> pools;
        for (qint64 id : chunk)
            pools << CampaignPools::fromReply(id, named[at++]);

        // Round trip 2: what grabs did, and whether anything is still on its way to SQL.
        commands.clear();
        for (const CampaignPools &campaign : std::as_const(pools)) {
            for (const QByteArray &pool : campaign.names())
                commands << PoolCounters::readCommand(m_keys, pool) << QByteArrayList{"HLEN", m_keys.campaignDraws(pool)}
                         << QByteArrayList{"LLEN", m_keys.campaignTasks(pool)} << QByteArrayList{"LLEN", m_keys.campaignDeadLetter(pool)} << QByteArrayList{"LLEN", m_keys.campaignPool(pool)}
                         << QByteArrayList{"HLEN", m_keys.campaignLent(pool)} << QByteArrayList{"SISMEMBER", m_keys.campaignSet(), pool};
        }
        const std::vector<RedisValue> redis = m_redis.pipeline(commands);
        throwOnErrorReply(redis);
        QList<QByteArrayList> workedPools;  // per campaign: its pools in the launched set, whose tasks workers may hold
        at = 0;
        for (const CampaignPools &campaign : std::as_const(pools)) {
            RedisFigures figures;
            QByteArrayList worked;
            for (int index = 0; index < campaign.count(); ++index, at += CommandsPerPool) {
                const PoolCounters counters = PoolCounters::fromReply(redis[at]);
                if (index == 0) {  // the first pool's status is the campaign's
                    figures.launched = counters.inRedis();
                    figures.status = figures.launched ? QString::fromLatin1(counters.status) : QStringLiteral("draft");
                }
                figures.grabbedCount += counters.grabbedCount;
                figures.grabbedCents += counters.grabbedCents;
                figures.holders += redis[at + 1].toInteger();
                figures.inFlight += redis[at + 2].toInteger();
                figures.deadLetters += redis[at + 3].toInteger();
                figures.inPools += redis[at + 4].toInteger();
                figures.lent += redis[at + 5].toInteger();
                if (redis[at + 6].toInteger() == 1)
                    worked << campaign.name(index);
            }
            // Tasks queued or envelopes lent already say it is not drained: its backup lists
            // cannot change that, and are not counted (issue 26: a worker's LLEN per pool).
            if (!figures.drained())
                worked.clear();
            all << figures;
            workedPools << worked;
        }

        // Round trip 3: every worker's backup list of every pool still launched (a pool retired
        // by PoolRetirement, or never launched, is in no backup list), for the campaigns that
        // look drained: exact where it decides. The workers read once, in pages (SSCAN).
        if (std::all_of(workedPools.cbegin(), workedPools.cend(), [](const QByteArrayList &worked) { return worked.isEmpty(); }))
            continue;
        if (!m_workers)
            m_workers = scanSet(m_redis, m_keys.workerSet());
        commands.clear();
        for (const QByteArrayList &worked : std::as_const(workedPools)) {
            for (const QByteArray &pool : worked) {
                for (const QByteArray &worker : std::as_const(*m_workers))
                    commands << QByteArrayList{"LLEN", m_keys.campaignBackup(pool, QString::fromUtf8(worker))};
            }
        }
        if (commands.isEmpty())
            continue;
        const std::vector<RedisValue> lengths = m_redis.pipeline(commands);
        throwOnErrorReply(lengths);
        at = 0;
        for (qsizetype c = 0; c < workedPools.size(); ++c) {
            RedisFigures &figures = all[start + c];
            for (qsizetype held = workedPools[c].size() * m_workers->size(); held > 0; --held)
                figures.inFlight += lengths[at++].toInteger();
        }
    }
    return all;
}

QHash<qint64, LedgerFigures> CampaignFigures::ledger(std::optional<qint64> campaignId, const QSet<qint64> &drained, const ProviderBatchLookup &provider)
{
    // One statement per table, grouped by campaign: one campaign's rows, or every campaign's in
    // one pass (each table's primary key starts with campaign_id).
    QHash<qint64, LedgerFigures> figures;
    const QVariantList scope = campaignId ? QVariantList{*campaignId} : QVariantList{};

    SplitMemo probe;
    if (const auto kept = campaignId && m_splits ? keptSplit(*campaignId, probe) : std::nullopt) {
        LedgerFigures &row = figures[*campaignId];
        row.envelopes = kept->envelopes;
        row.envelopeCents = kept->envelopeCents;
        row.smallestEnvelope = kept->smallestEnvelope;
    } else {
        readSplits(campaignId, figures);
        if (campaignId && m_splits) {
            const LedgerFigures &row = figures[*campaignId];
            // Kept only without a gap in the seqs: a row inserted then moves the first or last.
            probe.envelopes = row.envelopes;
            probe.envelopeCents = row.envelopeCents;
            probe.smallestEnvelope = row.smallestEnvelope;
            if (probe.withoutGap()) {
                m_splits->insert(memoKey(*campaignId), probe);
            } else {
                m_splits->remove(memoKey(*campaignId));
            }
        }
    }
    if (campaignId && m_tallies) {
        readTallied(*campaignId, figures[*campaignId]);
        return figures;
    }
    // The full check: every row, and the running tally read in the same snapshot (a drain
    // commits its rows and its tally together), so they differ only by changes made by hand.
    m_sql.transaction([&] {
        for (auto it = figures.begin(); it != figures.end(); ++it)
            it->grabRows = it->grabUsers = it->grabCents = it->mismatched = it->forged = it->paid = it->paidCents = it->notAtProvider = 0;
        readGrabRows(campaignId, figures);
        QSqlQuery forged = m_sql.exec(QStringLiteral("SELECT campaign_id, COUNT(*) FROM grab_refused WHERE reason = 'not_launched'")
                                              + (campaignId ? QStringLiteral(" AND campaign_id = ?") : QString()) + QStringLiteral(" GROUP BY campaign_id"),
                                      scope);
        while (forged.next())
            figures[forged.value(0).toLongLong()].forged = forged.value(1).toLongLong();
        if (!drained.isEmpty())
            readPayouts(campaignId, drained, provider, figures);
        const QHash<qint64, TallyFigures> tallies = LedgerTally::read(m_sql, campaignId);
        for (auto it = tallies.cbegin(); it != tallies.cend(); ++it)
            figures[it.key()];  // a campaign with a tally and no row left
        for (auto it = figures.begin(); it != figures.end(); ++it) {
            const TallyFigures tally = tallies.value(it.key());
            it->offTally = {};
            it->offTally.grabRows = it->grabRows - tally.grabRows;
            it->offTally.grabCents = it->grabCents - tally.grabCents;
            if (drained.contains(it.key())) {  // the payouts are read of those only
                it->offTally.paid = it->paid - tally.paid;
                it->offTally.paidCents = it->paidCents - tally.paidCents;
            }
        }
    });
    return figures;
}

void CampaignFigures::readGrabRows(std::optional<qint64> campaignId, QHash<qint64, LedgerFigures> &figures)
{
    // Each grab row against its envelope in the same pass.
    QSqlQuery grabs = m_sql.exec(QStringLiteral("SELECT g.campaign_id, COUNT(*), COUNT(DISTINCT g.uid), COALESCE(SUM(g.amount_cents), 0), "
                                                "COALESCE(SUM(CASE WHEN e.seq IS NULL OR e.amount_cents <> g.amount_cents THEN 1 ELSE 0 END), 0) "
                                                "FROM grab g LEFT JOIN envelope e ON e.campaign_id = g.campaign_id AND e.seq = g.seq")
                                         + (campaignId ? QStringLiteral(" WHERE g.campaign_id = ?") : QString()) + QStringLiteral(" GROUP BY g.campaign_id"),
                                 campaignId ? QVariantList{*campaignId} : QVariantList{});
    while (grabs.next()) {
        LedgerFigures &row = figures[grabs.value(0).toLongLong()];
        row.grabRows = grabs.value(1).toLongLong();
        row.grabUsers = grabs.value(2).toLongLong();
        row.grabCents = grabs.value(3).toLongLong();
        row.mismatched = grabs.value(4).toLongLong();
    }
}

void CampaignFigures::readTallied(qint64 campaignId, LedgerFigures &figures)
{
    // Lantern writes grab rows with their envelope's amount (PayoutLedger) under the keys that
    // make each user's and each envelope's row unique: what the full check counts of those, the
    // tally cannot know otherwise, and holds as written.
    QSqlQuery watch = m_sql.exec(QStringLiteral("SELECT (SELECT changes FROM ledger_watch WHERE name = 'grab'), "
                                                "(SELECT changes FROM ledger_watch WHERE name = 'payout'), "
                                                "(SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ? AND reason = 'not_launched')"),
                                 {campaignId});
    TallyMemo seen;
    if (watch.next()) {
        seen.grabChanges = watch.value(0).toLongLong();
        seen.payoutChanges = watch.value(1).toLongLong();
        figures.forged = watch.value(2).toLongLong();
    }
    TallyFigures tally = LedgerTally::read(m_sql, campaignId).value(campaignId);
    const QString key = memoKey(campaignId);
    const auto kept = m_tallies->constFind(key);
    if (seen.grabChanges == 0 && seen.payoutChanges == 0) {
        m_tallies->remove(key);  // no grab or payout row was ever changed by hand
    } else if (kept != m_tallies->cend() && kept->grabChanges == seen.grabChanges && kept->payoutChanges == seen.payoutChanges) {
        seen = *kept;
    } else {
        // Changed by hand since the last count: the rows counted as the full check counts them,
        // with the tally in their snapshot.
        m_sql.transaction([&] {
            tally = LedgerTally::read(m_sql, campaignId).value(campaignId);
            QHash<qint64, LedgerFigures> rows;
            readGrabRows(campaignId, rows);
            const LedgerFigures grabs = rows.value(campaignId);
            const TallyFigures counted = LedgerTally::count(m_sql, campaignId, LedgerTally::Count::Payouts).value(campaignId);
            seen.offTally = {grabs.grabRows - tally.grabRows, grabs.grabCents - tally.grabCents, counted.paid - tally.paid,
                             counted.paidCents - tally.paidCents, 0, 0, 0};
            seen.sharedUsers = grabs.grabRows - grabs.grabUsers;
            seen.mismatched = grabs.mismatched;
        });
        m_tallies->insert(key, seen);
    }
    figures.fromTally = true;
    figures.offTally = seen.offTally;
    figures.grabRows = tally.grabRows + seen.offTally.grabRows;
    figures.grabUsers = figures.grabRows - seen.sharedUsers;
    figures.mismatched = seen.mismatched;
    figures.grabCents = tally.grabCents + seen.offTally.grabCents;
    figures.paid = tally.paid + seen.offTally.paid;
    figures.paidCents = tally.paidCents + seen.offTally.paidCents;
}

void CampaignFigures::readSplits(std::optional<qint64> campaignId, QHash<qint64, LedgerFigures> &figures)
{
    QSqlQuery split = m_sql.exec(QStringLiteral("SELECT campaign_id, COUNT(*), COALESCE(SUM(amount_cents), 0), MIN(amount_cents), MIN(seq), MAX(seq) "
                                                "FROM envelope")
                                         + (campaignId ? QStringLiteral(" WHERE campaign_id = ?") : QString()) + QStringLiteral(" GROUP BY campaign_id"),
                                 campaignId ? QVariantList{*campaignId} : QVariantList{});
    QHash<qint64, SplitMemo> rows;
    while (split.next()) {
        const qint64 id = split.value(0).toLongLong();
        LedgerFigures &row = figures[id];
        row.envelopes = split.value(1).toLongLong();
        row.envelopeCents = split.value(2).toLongLong();
        row.smallestEnvelope = split.value(3).toLongLong();
        rows.insert(id, SplitMemo{0, split.value(4).toLongLong(), split.value(5).toLongLong(), row.envelopes, row.envelopeCents, row.smallestEnvelope});
    }
    if (!m_splits)  // the full check
        compareRecordedSplits(campaignId, rows, figures);
}

QString CampaignFigures::memoKey(qint64 campaignId) const
{
    return m_sql.url().redacted() + QLatin1Char('#') + QString::number(campaignId);
}

std::optional<SplitMemo> CampaignFigures::keptSplit(qint64 campaignId, SplitMemo &probe)
{
    // Each MIN and MAX in a statement of its own: one index look-up each (SQLite takes the
    // shortcut only for a lone min() or max()); the split the launch recorded in the same read.
    QSqlQuery query = m_sql.exec(QStringLiteral("SELECT w.changes, (SELECT MIN(seq) FROM envelope WHERE campaign_id = ?), "
                                                "(SELECT MAX(seq) FROM envelope WHERE campaign_id = ?), s.envelopes, s.envelope_cents, "
                                                "s.smallest_cents, s.first_seq, s.last_seq, s.watch_changes "
                                                "FROM ledger_watch w LEFT JOIN envelope_split s ON s.campaign_id = ? WHERE w.name = 'envelope'"),
                                 {campaignId, campaignId, campaignId});
    if (!query.next())
        return std::nullopt;
    probe.changes = query.value(0).toLongLong();
    probe.firstSeq = query.value(1).toLongLong();
    probe.lastSeq = query.value(2).toLongLong();
    const auto unchanged = [&probe](const SplitMemo &memo) {
        return memo.changes == probe.changes && memo.firstSeq == probe.firstSeq && memo.lastSeq == probe.lastSeq;
    };
    const QString key = memoKey(campaignId);
    if (const auto kept = m_splits->constFind(key); kept != m_splits->constEnd() && unchanged(*kept))
        return *kept;
    if (query.isNull(3))
        return std::nullopt;  // launched before migration 0011 recorded splits, and not back-filled
    SplitMemo recorded = recordedSplit(query, 3);
    recorded.changes = query.value(8).toLongLong();
    if (!unchanged(recorded) || !recorded.withoutGap())
        return std::nullopt;
    m_splits->insert(key, recorded);
    return recorded;
}

void CampaignFigures::compareRecordedSplits(std::optional<qint64> campaignId, const QHash<qint64, SplitMemo> &rows,
                                            QHash<qint64, LedgerFigures> &figures)
{
    // The recorded splits a view would trust (the watch as they recorded it, the rows' first and
    // last seq theirs, no gap) against what the rows make.
    QSqlQuery recorded = m_sql.exec(QStringLiteral("SELECT campaign_id, envelopes, envelope_cents, smallest_cents, first_seq, last_seq FROM envelope_split "
                                                   "WHERE watch_changes = (SELECT changes FROM ledger_watch WHERE name = 'envelope')")
                                            + (campaignId ? QStringLiteral(" AND campaign_id = ?") : QString()),
                                    campaignId ? QVariantList{*campaignId} : QVariantList{});
    while (recorded.next()) {
        const qint64 id = recorded.value(0).toLongLong();
        const SplitMemo split = recordedSplit(recorded, 1);
        const auto read = rows.constFind(id);
        if (read == rows.constEnd() || read->firstSeq != split.firstSeq || read->lastSeq != split.lastSeq || !split.withoutGap())
            continue;  // no view trusts it
        if (read->envelopes != split.envelopes || read->envelopeCents != split.envelopeCents || read->smallestEnvelope != split.smallestEnvelope)
            figures[id].recordedSplitOff = split;
    }
}

void CampaignFigures::readPayouts(std::optional<qint64> campaignId, const QSet<qint64> &drained, const ProviderBatchLookup &provider,
                                  QHash<qint64, LedgerFigures> &figures)
{
    const QVariantList scope = campaignId ? QVariantList{*campaignId} : QVariantList{};
    const QString only = campaignId ? QStringLiteral(" AND campaign_id = ?") : QString();
    if (!provider) {
        QSqlQuery paid = m_sql.exec(QStringLiteral("SELECT campaign_id, COUNT(*), COALESCE(SUM(amount_cents), 0) FROM payout WHERE status = 'paid'")
                                            + only + QStringLiteral(" GROUP BY campaign_id"),
                                    scope);
        while (paid.next()) {
            LedgerFigures &row = figures[paid.value(0).toLongLong()];
            row.paid = paid.value(1).toLongLong();
            row.paidCents = paid.value(2).toLongLong();
        }
        return;
    }
    // The paid payouts streamed once: counted, and each asked of the provider in batches.
    QSqlQuery payouts = m_sql.exec(QStringLiteral("SELECT campaign_id, idempotency_key, amount_cents FROM payout WHERE status = 'paid'") + only, scope);
    QList<qint64> campaigns;
    QStringList keys;
    QList<qint64> amounts;
    const auto ask = [&] {
        const QList<std::optional<qint64>> paid = provider(keys);
        for (qsizetype i = 0; i < keys.size(); ++i)
            figures[campaigns[i]].notAtProvider += i >= paid.size() || !paid[i] || *paid[i] != amounts[i];
        campaigns.clear();
        keys.clear();
        amounts.clear();
    };
    while (payouts.next()) {
        const qint64 id = payouts.value(0).toLongLong();
        if (!drained.contains(id))
            continue;
        const qint64 amount = payouts.value(2).toLongLong();
        LedgerFigures &row = figures[id];
        ++row.paid;
        row.paidCents += amount;
        campaigns << id;
        keys << payouts.value(1).toString();
        amounts << amount;
        if (keys.size() == ProviderBatch)
            ask();
    }
    if (!keys.isEmpty())
        ask();
}

qint64 CampaignFigures::belowMinimum(qint64 campaignId, qint64 minCents)
{
    QSqlQuery query = m_sql.exec(QStringLiteral("SELECT COUNT(*) FROM envelope WHERE campaign_id = ? AND amount_cents < ?"), {campaignId, minCents});
    return query.next() ? query.value(0).toLongLong() : 0;
}

} // namespace lantern
