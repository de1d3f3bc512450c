#include "bigdatafixture.h"

#include "checkinseed.h"

#include "checkin/checkinlayout.h"
#include "checkin/monthbits.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/envelopesplitter.h"
#include "envelope/grabservice.h"
#include "envelope/poolretirement.h"
#include "operations/workerheartbeat.h"
#include "queue/reliablequeue.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSqlQuery>
#include <QProcess>

#include <algorithm>

namespace lantern::bench {

namespace {

constexpr qint64 Day0 = 2451545;  // QDate(2000, 1, 1).toJulianDay(): the rule's day numbers start there
constexpr qint64 HourMs = 3'600'000;

qint64 msOf(QDate day) { return QDateTime(day, QTime(12, 0), QTimeZone::utc()).toMSecsSinceEpoch(); }

QString sqlDate(QDate day) { return QLatin1Char('\'') + day.toString(Qt::ISODate) + QLatin1Char('\''); }

/** The uid of the n-th grab of a campaign: a stride coprime with every user count the fixture
    uses (10^k), so n < users never repeats a uid. */
qint64 grabUid(qint64 n, qint64 users, qint64 campaign) { return ((n + campaign * 1'000'003) % users * 7'368'787 % users) + 1; }

} // namespace

BigDataSize BigDataSize::quick()
{
    BigDataSize size;
    size.users = 1'000'000;
    size.pastCampaigns = 1'000;
    size.bigEnvelopes = 100'000;
    size.bigGrabs = 30'000;
    size.liveEnvelopes = 1'000;
    size.deadLetters = 10'000;
    size.auditRows = 100'000;
    return size;
}

BigDataSize BigDataSize::smoke()
{
    BigDataSize size;
    size.users = 10'000;
    size.months = 6;
    size.pastCampaigns = 20;
    size.pastEnvelopes = 10;
    size.liveCampaigns = 3;
    size.bigEnvelopes = 2'000;
    size.bigGrabs = 500;
    size.liveEnvelopes = 100;
    size.deadLetters = 300;
    size.auditRows = 2'000;
    size.workers = 20;
    size.deadWorkers = 5;
    return size;
}

QString BigDataPlan::deadWorker(int n) const { return QStringLiteral("dead-%1").arg(n, 3, 10, QLatin1Char('0')); }
QString BigDataPlan::liveWorker(int n) const { return QStringLiteral("worker-%1").arg(n, 4, 10, QLatin1Char('0')); }

bool BigDataPlan::signs(qint64 uid, QDate day) const
{
    return (uid * 2654435761LL + (day.toJulianDay() - Day0) * 40503) % 1000 < size.activePermille;
}

QString BigDataPlan::signsSql(const QString &uidColumn, QDate day) const
{
    return QStringLiteral("(%1 * 2654435761 + %2) %% 1000 < %3").arg(uidColumn).arg((day.toJulianDay() - Day0) * 40503).arg(size.activePermille)
            .replace(QLatin1String("%%"), QLatin1String("%"));
}

QDate BigDataPlan::makeupDay(qint64 uid, QDate month) const
{
    const qint64 monthIndex = month.year() * 12 + month.month();
    if ((uid + monthIndex) % 100 != 0)
        return {};
    const QDate day = month.addDays((uid / 100) % 28);
    // Never today or later, and never the reconcile day (whose SQL rows are all normal check-ins).
    if (day >= today || day == reconcileDay() || signs(uid, day))
        return {};
    return day;
}

BigDataFixture::BigDataFixture(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, BigDataPlan plan, QString lanternd,
                               QProcessEnvironment environment, QTextStream &log)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_plan(std::move(plan)), m_lanternd(std::move(lanternd)), m_environment(std::move(environment)),
      m_log(log)
{
}

void BigDataFixture::step(const QString &name, const std::function<QString()> &body)
{
    const QByteArray field = name.toUtf8();
    const RedisValue done = m_redis.command({"HGET", doneKey(), field});
    if (!done.isNil()) {
        m_log << "| " << name << " | done before (" << QString::fromUtf8(done.toBytes()) << ") |\n";
        m_log.flush();
        return;
    }
    QElapsedTimer timer;
    timer.start();
    const QString what = body();
    const QString took = QString::number(double(timer.nsecsElapsed()) / 1e9, 'f', 1) + QStringLiteral(" s");
    m_redis.command({"HSET", doneKey(), field, took.toUtf8()});
    m_log << "| " << name << " | " << took << ": " << what << " |\n";
    m_log.flush();
}

void BigDataFixture::fill()
{
    m_log << "| fixture step | took: what it wrote |\n|---|---|\n";
    const QDate first = QDate(m_plan.today.year(), m_plan.today.month(), 1).addMonths(1 - m_plan.size.months);
    for (int m = 0; m < m_plan.size.months; ++m) {
        const QDate month = first.addMonths(m);
        step(QStringLiteral("check-ins ") + month.toString(QStringLiteral("yyyy-MM")), [this, month] { return checkinMonth(month); });
    }
    step(QStringLiteral("check-in log of the reconcile day"), [this] { return checkinLog(); });
    step(QStringLiteral("past campaigns (SQL)"), [this] { return pastCampaignsSql(); });
    step(QStringLiteral("past campaigns (Redis)"), [this] { return pastCampaignsRedis(); });
    step(QStringLiteral("live campaigns"), [this] { return liveCampaigns(); });
    step(QStringLiteral("grabs"), [this] { return grabs(); });
    step(QStringLiteral("dead letters"), [this] { return deadLetters(); });
    step(QStringLiteral("drain (lanternd work --once)"), [this] { return drain(); });
    step(QStringLiteral("workers"), [this] { return workers(); });
    step(QStringLiteral("retire the drained pools (PoolRetirement, as the workers do)"), [this] { return retirePools(); });
    step(QStringLiteral("audit log"), [this] { return auditLog(); });
    m_log << "\n";
}

QString BigDataFixture::checkinMonth(QDate month)
{
    const CheckinLayout layout(m_keys);
    const qint64 users = m_plan.size.users;
    const int shards = m_keys.shards();
    const qint64 blocksPerShard = (users / shards) / CheckinLayout::BlockUsers + 1;
    const int lastDay = month.year() == m_plan.today.year() && month.month() == m_plan.today.month() ? m_plan.today.day() - 1 : month.daysInMonth();
    Pipeliner pipe(m_redis, 1000);
    qint64 blocks = 0;
    qint64 makeups = 0;
    std::vector<quint32> dayNumbersOk;
    for (int shard = 0; shard < shards; ++shard) {
        QByteArrayList sadd{"SADD", m_keys.monthBlocks(shard, month)};
        for (qint64 block = 0; block < blocksPerShard; ++block) {
            QByteArray bytes(CheckinLayout::BlockBytes, '\0');
            bool any = false;
            for (int slot = 0; slot < CheckinLayout::BlockUsers; ++slot) {
                const qint64 uid = layout.denseUid(shard, block, slot);
                if (uid < 1 || uid > users)
                    continue;
                quint32 days = 0;
                for (int d = 1; d <= lastDay; ++d) {
                    if (m_plan.signs(uid, month.addDays(d - 1)))
                        days |= 1U << (d - 1);
                }
                if (const QDate makeup = m_plan.makeupDay(uid, month); makeup.isValid()) {
                    const quint32 mark = 1U << (makeup.day() - 1);
                    days |= mark;
                    const UserPlace user = layout.place(uid);
                    pipe.add({"HSET", layout.makeupKey(user, month), layout.makeupField(user), QByteArray::number(MonthBits{month, mark}.word())});
                    ++makeups;
                }
                if (days == 0)
                    continue;
                any = true;
                const quint32 word = MonthBits{month, days}.word();
                char *at = bytes.data() + qsizetype(slot) * CheckinLayout::WordBytes;
                at[0] = char(word >> 24);
                at[1] = char(word >> 16);
                at[2] = char(word >> 8);
                at[3] = char(word);
            }
            if (!any)
                continue;
            pipe.add({"SET", m_keys.monthBlock(shard, block, month), bytes});
            sadd << QByteArray::number(block);
            ++blocks;
            if (blocks % 8 == 0)
                pipe.flush();  // a few MB per round trip
        }
        if (sadd.size() > 2)
            pipe.add(sadd);
    }
    pipe.flush();
    return QStringLiteral("%1 blocks of 256 KiB, %2 make-up marks").arg(blocks).arg(makeups);
}

QString BigDataFixture::checkinLog()
{
    const QDate day = m_plan.reconcileDay();
    const qint64 users = m_plan.size.users;
    const qint64 chunk = 500'000;
    qint64 rows = 0;
    for (qint64 from = 1; from <= users; from += chunk) {
        const qint64 to = std::min(users, from + chunk - 1);
        const QString seq = QStringLiteral(" FROM seq_%1_to_%2 WHERE ").arg(from).arg(to) + m_plan.signsSql(QStringLiteral("seq"), day);
        rows += m_sql.write(QStringLiteral("INSERT IGNORE INTO checkin_log (uid, day, kind, points, signed_at) SELECT seq, %1, 'normal', 10, %2")
                                    .arg(sqlDate(day))
                                    .arg(msOf(day))
                            + seq,
                            {});
        m_sql.write(QStringLiteral("INSERT IGNORE INTO points_ledger (ref, uid, delta, source) SELECT CONCAT('checkin:', seq, ':%1'), seq, 10, 'checkin'")
                            .arg(day.toString(Qt::ISODate))
                    + seq,
                    {});
    }
    return QStringLiteral("%1 check-ins of %2 in checkin_log and points_ledger").arg(rows).arg(day.toString(Qt::ISODate));
}

QString BigDataFixture::pastCampaignsSql()
{
    const qint64 count = m_plan.size.pastCampaigns;
    const qint64 envelopes = m_plan.size.pastEnvelopes;
    const qint64 users = m_plan.size.users;
    const qint64 start = msOf(m_plan.today.addMonths(-m_plan.size.months));
    m_sql.write(QStringLiteral("INSERT IGNORE INTO campaign (id, name, total_cents, count, min_cents, algorithm, seed, max_attempts, status, "
                               "refunded_cents, created_at_ms, pools, pool_names) SELECT seq, CONCAT('Campaign ', seq), %1, %2, 1, '%3', seq, 9, "
                               "'closed', 0, %4 + seq * %5, 1, '' FROM seq_1_to_%6")
                        .arg(envelopes * 100)
                        .arg(envelopes)
                        .arg(splitAlgorithmName(SplitAlgorithm::DoubleMean))
                        .arg(start)
                        .arg(HourMs / 2)
                        .arg(count),
                {});
    const qint64 chunk = std::max<qint64>(1, 200'000 / envelopes);
    for (qint64 from = 1; from <= count; from += chunk) {
        const qint64 to = std::min(count, from + chunk - 1);
        const QString pairs = QStringLiteral(" FROM seq_%1_to_%2 c JOIN seq_1_to_%3 e").arg(from).arg(to).arg(envelopes);
        const QString uid = QStringLiteral("((c.seq * 7919 + e.seq * 104729) % %1) + 1").arg(users);
        const QString at = QStringLiteral("%1 + c.seq * %2 + e.seq * 1000").arg(start).arg(HourMs / 2);
        m_sql.write(QStringLiteral("INSERT IGNORE INTO envelope (campaign_id, seq, amount_cents) SELECT c.seq, e.seq, 100") + pairs, {});
        m_sql.write(QStringLiteral("INSERT IGNORE INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) SELECT c.seq, e.seq, %1, 100, %2")
                                .arg(uid, at)
                        + pairs,
                    {});
        m_sql.write(QStringLiteral("INSERT IGNORE INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, provider_ref, attempts, "
                                   "updated_at_ms) SELECT CONCAT('cp:', c.seq, ':', e.seq), c.seq, e.seq, %1, 100, 'paid', "
                                   "CONCAT('sim-', c.seq, '-', e.seq), 1, %2")
                                .arg(uid, at)
                        + pairs,
                    {});
    }
    // The ledger's running tally of those rows, as the migration's back-fill counts a database's
    // rows (writer -1): each grab of 100 cents, paid at the first call.
    m_sql.write(QStringLiteral("INSERT IGNORE INTO ledger_tally (campaign_id, writer, grab_rows, grab_cents, paid_count, paid_cents, payout_calls) "
                               "SELECT seq, -1, %1, %2, %1, %2, %1 FROM seq_1_to_%3")
                        .arg(envelopes)
                        .arg(envelopes * 100)
                        .arg(count),
                {});
    // The split each launch recorded (envelope_split), as CampaignStore writes it: every envelope 100 cents.
    m_sql.write(QStringLiteral("INSERT IGNORE INTO envelope_split (campaign_id, envelopes, envelope_cents, smallest_cents, first_seq, last_seq, "
                               "watch_changes) SELECT seq, %1, %2, 100, 1, %1, (SELECT changes FROM ledger_watch WHERE name = 'envelope') FROM seq_1_to_%3")
                        .arg(envelopes)
                        .arg(envelopes * 100)
                        .arg(count),
                {});
    return QStringLiteral("%1 closed campaigns, %2 envelopes, grabs and paid payouts each").arg(count).arg(count * envelopes);
}

QString BigDataFixture::pastCampaignsRedis()
{
    const qint64 count = m_plan.size.pastCampaigns;
    const qint64 envelopes = m_plan.size.pastEnvelopes;
    const qint64 users = m_plan.size.users;
    const QByteArray ledger = m_keys.prefix() + "payoutsim:ledger";  // SimulatedPayoutGateway::ledgerKey()
    Pipeliner pipe(m_redis, 200);
    QByteArrayList known{"SADD", m_keys.campaignSet()};
    for (qint64 c = 1; c <= count; ++c) {
        const QByteArray id = QByteArray::number(c);
        pipe.add({"HSET", m_keys.campaignMeta(c), "status", "closed", "max_attempts", "9", "total_cents", QByteArray::number(envelopes * 100), "count",
                  QByteArray::number(envelopes), "grabbed_count", QByteArray::number(envelopes), "grabbed_cents", QByteArray::number(envelopes * 100),
                  "loaded_seq", QByteArray::number(envelopes)});
        QByteArrayList draws{"HSET", m_keys.campaignDraws(c)};
        QByteArrayList attempts{"HSET", m_keys.campaignAttempts(c)};
        QByteArrayList paid{"HSET", ledger};
        for (qint64 e = 1; e <= envelopes; ++e) {
            const QByteArray uid = QByteArray::number((c * 7919 + e * 104729) % users + 1);
            const QByteArray seq = QByteArray::number(e);
            draws << uid << seq + ":100";
            attempts << uid << "1";
            paid << "cp:" + id + ':' + seq << "100|sim-" + id + '-' + seq;
        }
        pipe.add(std::move(draws));
        pipe.add(std::move(attempts));
        pipe.add(std::move(paid));
        known << id;
    }
    pipe.add(std::move(known));
    pipe.flush();
    return QStringLiteral("%1 closed campaigns' meta, draws, attempts; %2 entries of the simulated provider's ledger").arg(count).arg(count * envelopes);
}

QString BigDataFixture::liveCampaigns()
{
    CampaignService service(m_redis, m_sql, m_keys);
    qint64 envelopes = 0;
    for (int n = 0; n < m_plan.size.liveCampaigns; ++n) {
        const qint64 id = m_plan.firstLiveCampaign() + n;
        QSqlQuery existing = m_sql.exec(QStringLiteral("SELECT id FROM campaign WHERE id = ?"), {id});
        if (!existing.next()) {
            CampaignDraft draft;
            draft.name = n == 0 ? QStringLiteral("Singles' Day rain (1M envelopes)") : QStringLiteral("Live campaign %1").arg(n);
            draft.count = n == 0 ? m_plan.size.bigEnvelopes : m_plan.size.liveEnvelopes;
            draft.totalCents = draft.count * 188;
            draft.seed = quint64(id);
            const Campaign made = service.create(draft, msOf(m_plan.today) - HourMs);
            if (made.id != id)
                throw LanternError(QStringLiteral("the live campaign got id %1, the fixture expects %2 (the campaign table holds other rows)").arg(made.id).arg(id));
        }
        envelopes += service.launch(id).count;
    }
    return QStringLiteral("%1 campaigns launched through CampaignService, %2 envelopes in SQL and Redis").arg(m_plan.size.liveCampaigns).arg(envelopes);
}

QString BigDataFixture::grabs()
{
    GrabService grab(m_redis, m_keys);
    const qint64 perList = m_plan.size.deadLetters / m_plan.size.liveCampaigns;
    qint64 ok = 0;
    for (qint64 id = m_plan.firstLiveCampaign(); id <= m_plan.lastLiveCampaign(); ++id) {
        const qint64 target = id == m_plan.bigCampaign() ? m_plan.size.bigGrabs : std::min(m_plan.size.liveEnvelopes, perList + perList / 5);
        const qint64 done = m_redis.command({"HGET", m_keys.campaignMeta(id), "grabbed_count"}).toBytes().toLongLong();
        for (qint64 n = done; n < target; ++n)
            ok += grab.grab(id, grabUid(n, m_plan.size.users, id), msOf(m_plan.today) - HourMs + n).status == QLatin1String("ok");
    }
    return QStringLiteral("%1 grabs through GrabService (grab.lua)").arg(ok);
}

QString BigDataFixture::deadLetters()
{
    const qint64 perList = m_plan.size.deadLetters / m_plan.size.liveCampaigns;
    const QStringList reasons{QStringLiteral("provider answered 503 three times"), QStringLiteral("timeout after 10000 ms"),
                              QStringLiteral("account frozen by the provider")};
    qint64 moved = 0;
    for (qint64 id = m_plan.firstLiveCampaign(); id <= m_plan.lastLiveCampaign(); ++id) {
        const QByteArray dead = m_keys.campaignDeadLetter(id);
        qint64 left = perList - m_redis.command({"LLEN", dead}).toInteger();
        while (left > 0) {
            const RedisValue taken = m_redis.command({"RPOP", m_keys.campaignTasks(id), QByteArray::number(std::min<qint64>(left, 1000))});
            if (taken.isNil() || taken.elements.empty())
                throw LanternError(QStringLiteral("campaign %1's task queue ran out before its dead-letter list was filled").arg(id));
            QByteArrayList push{"LPUSH", dead};
            QByteArrayList notes{"HSET", DeadLetterNote::notesKey(dead)};
            for (const RedisValue &task : taken.elements) {
                const DeadLetterNote note{reasons.at(int(moved % reasons.size())), 3, msOf(m_plan.today) - HourMs / 2 + moved};
                push << task.toBytes();
                notes << task.toBytes() << note.toJson();
                ++moved;
            }
            left -= qint64(taken.elements.size());
            m_redis.pipeline({notes, push});
        }
    }
    return QStringLiteral("%1 payout tasks moved to %2 dead-letter lists with their notes").arg(moved).arg(m_plan.size.liveCampaigns);
}

QString BigDataFixture::drain()
{
    QProcess work;
    work.setProcessEnvironment(m_environment);
    work.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    work.start(m_lanternd, {QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("fixture-drain")});
    if (!work.waitForFinished(-1) || work.exitStatus() != QProcess::NormalExit || work.exitCode() != 0)
        throw LanternError(QStringLiteral("lanternd work --once failed (exit %1)").arg(work.exitCode()));
    QSqlQuery rows = m_sql.exec(QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id > ?"), {m_plan.size.pastCampaigns});
    return QStringLiteral("the live campaigns' other grabs persisted and paid: %1 payout rows").arg(rows.next() ? rows.value(0).toLongLong() : 0);
}

QString BigDataFixture::workers()
{
    GrabService grab(m_redis, m_keys);
    const qint64 big = m_plan.bigCampaign();
    const int live = m_plan.size.workers - m_plan.size.deadWorkers;
    const qint64 tasks = qint64(live) * m_plan.size.liveWorkerTasks + qint64(m_plan.size.deadWorkers) * m_plan.size.deadWorkerTasks;
    const qint64 start = m_plan.size.bigGrabs;
    for (qint64 n = 0; n < tasks; ++n)
        grab.grab(big, grabUid(start + n, m_plan.size.users, big), msOf(m_plan.today) - HourMs / 4 + n);
    QList<QByteArrayList> commands;
    for (int n = 0; n < live; ++n)
        hold(commands, m_keys, big, m_plan.liveWorker(n), m_plan.size.liveWorkerTasks);
    for (int n = 0; n < m_plan.size.deadWorkers; ++n)
        hold(commands, m_keys, big, m_plan.deadWorker(n), m_plan.size.deadWorkerTasks);
    run(std::move(commands));
    // The live ones beat (for a day: the bench must not see them die) and say what they hold, as
    // a worker's shift does (BackupTally); the dead ones never again.
    for (int n = 0; n < live; ++n) {
        WorkerPayoutFigures said;
        said.held = m_plan.size.liveWorkerTasks;
        WorkerHeartbeat(m_keys, m_plan.liveWorker(n), 86'400).beat(m_redis, QDateTime::currentMSecsSinceEpoch(), said);
    }
    return QStringLiteral("%1 workers (%2 dead), %3 payout tasks in their backup lists").arg(m_plan.size.workers).arg(m_plan.size.deadWorkers).arg(tasks);
}

void BigDataFixture::hold(QList<QByteArrayList> &commands, const KeySchema &keys, qint64 campaign, const QString &worker, int count)
{
    for (int t = 0; t < count; ++t)
        commands << QByteArrayList{"LMOVE", keys.campaignTasks(campaign), keys.campaignBackup(campaign, worker), "RIGHT", "LEFT"};
    commands << QByteArrayList{"SADD", keys.workerSet(), worker.toUtf8()};
}

void BigDataFixture::run(QList<QByteArrayList> commands)
{
    Pipeliner pipe(m_redis, 1000);
    for (QByteArrayList &command : commands)
        pipe.add(std::move(command));
    pipe.flush();
}

void BigDataFixture::replantDeadWorkers()
{
    if (m_plan.size.deadWorkers == 0)
        return;
    QList<QByteArrayList> lengths;
    for (int n = 0; n < m_plan.size.deadWorkers; ++n)
        lengths << QByteArrayList{"LLEN", m_keys.campaignBackup(m_plan.bigCampaign(), m_plan.deadWorker(n))};
    const std::vector<RedisValue> held = m_redis.pipeline(lengths);  // what each still holds, in one round trip
    QList<QByteArrayList> commands;
    for (int n = 0; n < m_plan.size.deadWorkers; ++n)
        hold(commands, m_keys, m_plan.bigCampaign(), m_plan.deadWorker(n),
             int(std::max<qint64>(0, m_plan.size.deadWorkerTasks - held[size_t(n)].toInteger())));
    run(std::move(commands));
}

QString BigDataFixture::retirePools()
{
    // What the workers' passes leave after a year: the closed campaigns' drained pools retired.
    qint64 retired = 0;
    for (;;) {
        const qint64 now = PoolRetirement(m_redis, m_keys).run(200, false).size();
        if (now == 0)
            break;
        retired += now;
    }
    return QStringLiteral("%1 pools of closed campaigns retired, %2 pools left launched")
            .arg(retired)
            .arg(m_redis.command({"SCARD", m_keys.campaignSet()}).toInteger());
}

QString BigDataFixture::auditLog()
{
    const qint64 rows = m_plan.size.auditRows;
    const qint64 start = msOf(m_plan.today.addMonths(-m_plan.size.months));
    const qint64 spacing = (msOf(m_plan.today) - start) / rows;
    const qint64 chunk = 250'000;
    for (qint64 from = 1; from <= rows; from += chunk) {
        const qint64 to = std::min(rows, from + chunk - 1);
        // 50 operators; make-ups, campaign changes and dead-letter retries over users and campaigns.
        m_sql.write(QStringLiteral("INSERT IGNORE INTO audit_log (id, at_ms, actor, action, target, detail) SELECT seq, %1 + seq * %2, "
                                   "CONCAT('operator-', seq % 50), ELT(1 + seq % 6, 'checkin.makeup', 'campaign.launch', 'campaign.pause', "
                                   "'campaign.resume', 'campaign.close', 'deadletter.retry'), IF(seq % 6 = 0, CONCAT('uid:', (seq * 7919) % %3 + 1), "
                                   "CONCAT('campaign:', 1 + seq % %4)), '{\"reason\":\"ticket\",\"via\":\"console\"}' FROM seq_%5_to_%6")
                            .arg(start)
                            .arg(spacing)
                            .arg(m_plan.size.users)
                            .arg(m_plan.size.pastCampaigns)
                            .arg(from)
                            .arg(to),
                    {});
    }
    m_sql.exec(QStringLiteral("ANALYZE TABLE audit_log, campaign, envelope, grab, payout, checkin_log, points_ledger"));
    return QStringLiteral("%1 audit_log rows over %2 months").arg(rows).arg(m_plan.size.months);
}

} // namespace lantern::bench
