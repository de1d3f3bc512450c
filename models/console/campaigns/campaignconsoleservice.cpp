#include "console/campaigns/campaignconsoleservice.h"

#include "access/accountidentity.h"
#include "api/resultjson.h"

#include "audit/auditlog.h"
#include "console/campaigns/schedulewords.h"
#include "console/common/connectionerrors.h"
#include "core/errors.h"
#include "core/wallclock.h"
#include "envelope/campaignapproval.h"
#include "envelope/campaignpools.h"
#include "envelope/campaignstore.h"
#include "envelope/poolcounters.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/redisclient.h"
#include "redis/redisdurability.h"
#include "redis/rediserror.h"
#include "settings/configconnections.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>

namespace lantern {


CampaignConsoleService::CampaignConsoleService(Config config, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards)
{
    qRegisterMetaType<lantern::CampaignPage>();
    qRegisterMetaType<lantern::CampaignSnapshot>();
    qRegisterMetaType<lantern::CampaignDraft>();
    qRegisterMetaType<lantern::ScheduleRequest>();
    qRegisterMetaType<QList<lantern::ScheduledTransition>>();
    qRegisterMetaType<lantern::Campaign>();
    qRegisterMetaType<lantern::CampaignAction>();
    qRegisterMetaType<lantern::TimetableOverview>();
}

CampaignConsoleService::~CampaignConsoleService() = default;

RedisClient &CampaignConsoleService::redis()
{
    return m_connections.redis();
}

SqlConnection &CampaignConsoleService::sql()
{
    return m_connections.sql();
}

void CampaignConsoleService::list(quint64 serial, qint64 offset, int limit, const CampaignListQuery &query)
{
    try {
        CampaignPage page;
        page.offset = std::max<qint64>(0, offset);
        SqlConnection &connection = sql();
        // The search is a bound value (LIKE with '!' escaping its wildcards, the same in both
        // dialects); the order a column of a fixed list, never text from the user.
        QString pattern = query.search.trimmed();
        pattern.replace(QLatin1String("!"), QLatin1String("!!")).replace(QLatin1String("%"), QLatin1String("!%")).replace(QLatin1String("_"), QLatin1String("!_"));
        bool numeric = false;
        const qint64 searchId = query.search.trimmed().toLongLong(&numeric);
        const QVariantList filter{query.search.trimmed(), QString(QStringLiteral("%") + pattern + QStringLiteral("%")), numeric ? searchId : qint64(-1),
                                  query.fourEyesOnly ? 1 : 0, campaignStatusName(CampaignStatus::Draft)};
        const QString condition = QStringLiteral("(? = '' OR name LIKE ? ESCAPE '!' OR id = ?) AND (? = 0 OR (needs_approval = 1 AND status = ?))");
        const QString where = QStringLiteral(" WHERE ") + condition;
        static const QHash<int, QString> Columns{{CampaignListModel::Id, QStringLiteral("id")},
                                                 {CampaignListModel::Name, QStringLiteral("name")},
                                                 {CampaignListModel::Status, QStringLiteral("status")},
                                                 {CampaignListModel::Total, QStringLiteral("total_cents")},
                                                 {CampaignListModel::Algorithm, QStringLiteral("algorithm")},
                                                 {CampaignListModel::Created, QStringLiteral("created_at_ms")},
                                                 {CampaignListModel::CreatedBy, QStringLiteral("created_by")}};
        const QString column = Columns.value(query.sortColumn, QStringLiteral("id"));
        const QString direction = query.order == Qt::AscendingOrder ? QStringLiteral(" ASC") : QStringLiteral(" DESC");
        // One pass counts what the query finds and the drafts awaiting a second manager (of all).
        QSqlQuery count = connection.exec(QStringLiteral("SELECT COALESCE(SUM(CASE WHEN ") + condition
                                                  + QStringLiteral(" THEN 1 ELSE 0 END), 0), COALESCE(SUM(CASE WHEN needs_approval = 1 AND status = ? "
                                                                   "AND approved_by IS NULL THEN 1 ELSE 0 END), 0) FROM campaign"),
                                          filter + QVariantList{campaignStatusName(CampaignStatus::Draft)});
        if (count.next()) {
            page.total = count.value(0).toLongLong();
            page.awaitingApproval = count.value(1).toLongLong();
        }
        QSqlQuery rows = connection.exec(QStringLiteral("SELECT id FROM campaign") + where + QStringLiteral(" ORDER BY ") + column + direction
                                                 + QStringLiteral(", id DESC LIMIT ? OFFSET ?"),
                                         filter + QVariantList{qint64(std::clamp(limit, 1, 500)), page.offset});
        QList<qint64> ids;
        while (rows.next())
            ids << rows.value(0).toLongLong();
        CampaignStore store(connection);
        QList<QByteArrayList> commands;
        QList<qsizetype> poolsOfRow;  // how many of the commands are each row's (one per pool)
        for (const qint64 id : std::as_const(ids)) {
            const auto campaign = store.find(id);
            if (!campaign)
                continue;  // deleted between the two reads
            page.rows << CampaignRow{*campaign, 0, 0};
            // A campaign of sub-pools: its pools' counters summed (names from SQL; none before launch).
            const CampaignPools pools = CampaignPools::named(*campaign).value_or(CampaignPools::single(id));
            for (const QByteArray &pool : pools.names())
                commands << PoolCounters::readCommand(m_keys, pool);
            poolsOfRow << pools.count();
        }
        // One round trip for the page's counters; Redis has the status grabs obey (the first pool's).
        const std::vector<RedisValue> replies = commands.isEmpty() ? std::vector<RedisValue>{} : redis().pipeline(commands);
        size_t at = 0;
        for (qsizetype r = 0; r < page.rows.size(); ++r) {
            CampaignRow &row = page.rows[r];
            for (qsizetype p = 0; p < poolsOfRow[r]; ++p, ++at) {
                const PoolCounters counters = PoolCounters::fromReply(replies[at]);
                if (p == 0 && counters.inRedis()) {
                    if (const auto status = campaignStatusFromName(QString::fromLatin1(counters.status)))
                        row.campaign.status = *status;
                }
                row.grabbedCount += counters.grabbedCount;
                row.grabbedCents += counters.grabbedCents;
            }
        }
        Q_EMIT pageLoaded(serial, page);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT requestFailed(serial, message, detail);
    }
}

void CampaignConsoleService::loadTimetable(quint64 serial)
{
    try {
        Q_EMIT timetableLoaded(serial, TimetableOverview::read(redis(), sql(), m_keys));
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT requestFailed(serial, message, detail);
    }
}

void CampaignConsoleService::load(quint64 serial, qint64 campaignId, bool everyRow)
{
    try {
        CampaignSnapshot snapshot;
        snapshot.loadedAtMs = nowMs();
        snapshot.summary = CampaignService(redis(), sql(), m_keys).show(campaignId);
        // As `lanternd verify`: the simulated provider's ledger can be read back, an HTTP one cannot.
        CampaignVerifier verifier(redis(), sql(), m_keys);
        const std::unique_ptr<SimulatedPayoutGateway> ledger = verifier.readSimulatedLedger();
        verifier.keepSplits(&m_splits);
        if (!everyRow)
            verifier.judgeFromTally(&m_tallies);
        snapshot.everyRow = everyRow;
        snapshot.violations = verifier.verify(campaignId);
        snapshot.durabilityWarning = RedisDurability::read(redis()).warning();
        snapshot.transitions = CampaignSchedule(sql()).of(campaignId);
        snapshot.serverNowMs = redisTimeMs(redis());
        Q_EMIT snapshotLoaded(serial, snapshot);
    } catch (const InvalidInputError &error) {
        Q_EMIT requestFailed(serial, tr("Campaign %1 does not exist (any more).").arg(campaignId), error.message());
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT requestFailed(serial, message, detail);
    }
}

void CampaignConsoleService::create(quint64 serial, const CampaignDraft &draft, const ScheduleRequest &schedule, const QString &operatorName)
{
    try {
        CampaignService::validate(draft);
        CampaignCreation creation{operatorName, nowMs(), QStringLiteral("console"), schedule, 0};
        if (!schedule.isEmpty())
            creation.serverNowMs = redisTimeMs(redis());
        Q_EMIT created(serial, CampaignService(redis(), sql(), m_keys).create(draft, creation));
    } catch (const ScheduleRefusedError &error) {
        Q_EMIT requestFailed(serial, tr("The campaign was not created: %1").arg(ScheduleWords::problemText(error.problem(), m_config.timeZone)),
                             error.message());
    } catch (const InvalidInputError &error) {
        Q_EMIT requestFailed(serial, tr("The campaign was not created: its settings were refused."), error.message());
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error, access::Action::CampaignCreate);
        Q_EMIT requestFailed(serial, tr("The campaign was not created. %1").arg(message), detail);
    }
}

void CampaignConsoleService::reschedule(quint64 serial, qint64 campaignId, const ScheduleRequest &request, const QString &operatorName)
{
    try {
        const qint64 serverNowMs = redisTimeMs(redis());
        const auto [status, transitions] = CampaignSchedule(sql()).change(campaignId, request, operatorName, serverNowMs);
        Q_EMIT rescheduled(serial, campaignId, transitions);
    } catch (const ScheduleRefusedError &error) {
        Q_EMIT requestFailed(serial, tr("The times were not changed: %1").arg(ScheduleWords::problemText(error.problem(), m_config.timeZone)),
                             error.message());
    } catch (const InvalidInputError &error) {
        Q_EMIT requestFailed(serial, tr("Campaign %1 does not exist (any more).").arg(campaignId), error.message());
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error, access::Action::CampaignSchedule);
        Q_EMIT requestFailed(serial, tr("The times were not changed. %1").arg(message), detail);
    }
}

void CampaignConsoleService::act(quint64 serial, qint64 campaignId, CampaignAction action, const QString &operatorName)
{
    try {
        // As `lanternd campaign <action>`: the change is audited once, in its SQL transaction.
        const TransitionAudit audit{operatorName, nowMs(), QStringLiteral("console"), {}};
        bool changed = false;
        Campaign campaign;
        if (action == CampaignAction::Approve) {
            // The database stamps and checks the approver: the connection's own account.
            const QString account = access::AccountIdentity::of(sql()).account;
            campaign = CampaignApproval(sql()).approve(campaignId, account, audit, &changed);
            Q_EMIT acted(serial, action, campaign, changed);
            return;
        }
        CampaignService service(redis(), sql(), m_keys);
        switch (action) {
        case CampaignAction::Launch:
            campaign = service.launch(campaignId, audit, &changed);
            break;
        case CampaignAction::Pause:
            campaign = service.pause(campaignId, audit, &changed);
            break;
        case CampaignAction::Resume:
            campaign = service.resume(campaignId, audit, &changed);
            break;
        case CampaignAction::Close:
            campaign = service.close(campaignId, audit, &changed);
            break;
        case CampaignAction::Approve:
            break;
        }
        Q_EMIT acted(serial, action, campaign, changed);
    } catch (const NamedRefusal &error) {
        Q_EMIT requestFailed(serial, refusal(error, campaignId), error.message());
    } catch (const RefusedError &error) {
        Q_EMIT requestFailed(serial, refusal(action), error.message());
    } catch (const InvalidInputError &error) {
        // An approval's own words: no campaign, or a database without accounts (SQLite).
        Q_EMIT requestFailed(serial, action == CampaignAction::Approve ? error.message() : tr("Campaign %1 does not exist (any more).").arg(campaignId),
                             error.message());
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error, accessAction(action));
        Q_EMIT requestFailed(serial, message, detail);
    }
}

access::Action CampaignConsoleService::accessAction(CampaignAction action)
{
    switch (action) {
    case CampaignAction::Launch: return access::Action::CampaignLaunch;
    case CampaignAction::Pause: return access::Action::CampaignPause;
    case CampaignAction::Resume: return access::Action::CampaignResume;
    case CampaignAction::Close: return access::Action::CampaignClose;
    case CampaignAction::Approve: return access::Action::CampaignApprove;
    }
    return access::Action::None;
}

QString CampaignConsoleService::refusal(const NamedRefusal &refusal, qint64 campaignId) const
{
    if (refusal.code() == QLatin1String("needs_approval"))
        return tr("Campaign #%1 is above the four-eyes bound: a manager other than its creator must approve it before it is launched.")
                .arg(campaignId);
    if (refusal.code() == QLatin1String("same_account"))
        return ownApprovalRefusal(campaignId);
    return refusal.message();
}

QString CampaignConsoleService::ownApprovalRefusal(qint64 campaignId)
{
    return tr("You created campaign #%1: another manager must approve it.").arg(campaignId);
}

QString CampaignConsoleService::refusal(CampaignAction action) const
{
    switch (action) {
    case CampaignAction::Launch:
        return tr("This campaign can no longer be launched: its status changed meanwhile. The list now shows it as it is.");
    case CampaignAction::Pause:
        return tr("This campaign cannot be paused: only a live campaign can. The list now shows it as it is.");
    case CampaignAction::Resume:
        return tr("This campaign cannot be resumed: only a paused campaign can. The list now shows it as it is.");
    case CampaignAction::Close:
        return tr("This campaign cannot be closed now. The list now shows it as it is.");
    case CampaignAction::Approve:
        return tr("Only a draft is approved: this campaign was launched or closed meanwhile. The list now shows it as it is.");
    }
    return {};
}

std::pair<QString, QString> CampaignConsoleService::explain(const std::exception &error)
{
    const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections);
    return {failure.message, failure.detail};
}

std::pair<QString, QString> CampaignConsoleService::explain(const std::exception &error, access::Action action)
{
    const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections, action);
    return {failure.message, failure.detail};
}

} // namespace lantern
