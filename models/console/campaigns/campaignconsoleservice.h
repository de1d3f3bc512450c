#pragma once

#include "access/role.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/campaigns/timetablemodel.h"
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "redis/keyschema.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QObject>

#include <memory>

namespace lantern {

class RedisClient;
class SqlConnection;

/** The operator actions on a campaign, as the audit log names them ("campaign.launch", ...).
    Approve is the second manager's of four eyes (issue 25; CampaignApproval). */
enum class CampaignAction { Launch, Pause, Resume, Close, Approve };

/** The live view of one campaign: `campaign show` (DESIGN §6) plus `verify` (§4). */
struct CampaignSnapshot {
    CampaignSummary summary;
    QList<Violation> violations;  // empty: the ledger checks out
    qint64 loadedAtMs = 0;        // when it was read (for the grab rate)
    QString durabilityWarning;    // what a Redis crash can lose (RedisDurability); empty: nothing
    QList<ScheduledTransition> transitions;  // its timetable (issue 30), launch first
    qint64 serverNowMs = 0;                  // the servers' clock (Redis TIME) at the read
    bool everyRow = false;  // the ledger check read every grab and payout row (asked for), not the running tally
};

/** The console's Redis and SQL work for the Campaigns view, on a thread of its own (see
    DedicatedThread and UserLookupService for the pattern): list a page of campaigns, load one
    with its ledger check, create, launch, pause, resume and close. Every change goes through
    CampaignService and writes an audit_log row as `lanternd campaign ...` does: once per change,
    in its SQL transaction, even when other consoles or lanternd make the same one at the same
    time (a repeated transition that changed nothing writes none). Every answer carries its
    request's serial; failures come as plain translated words plus the technical detail. */
class CampaignConsoleService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignConsoleService)

public:
    explicit CampaignConsoleService(Config config, QObject *parent = nullptr);
    ~CampaignConsoleService() override;

    const Config &config() const { return m_config; }
    /** Four eyes: "You created campaign #N: another manager must approve it." — the database's
        same_account refusal, and the console's reason for a disabled Approve… alike. */
    static QString ownApprovalRefusal(qint64 campaignId);

public Q_SLOTS:
    /** `limit` campaigns from `offset` of those `query` finds, in its order (newest first by
        default). */
    void list(quint64 serial, qint64 offset, int limit, const lantern::CampaignListQuery &query);
    /** everyRow: the ledger check as `lanternd verify` makes it, over every row, instead of
        the view's (rules 2 and 3 from the running tally, CampaignVerifier::judgeFromTally). */
    void load(quint64 serial, qint64 campaignId, bool everyRow = false);
    /** A draft with the times asked with it (`schedule` empty: none), checked against the
        servers' clock, written with its audit rows in one transaction. */
    void create(quint64 serial, const lantern::CampaignDraft &draft, const lantern::ScheduleRequest &schedule, const QString &operatorName);
    /** `campaign schedule` (the "Times…" dialog sends a replacement of the pending times). */
    void reschedule(quint64 serial, qint64 campaignId, const lantern::ScheduleRequest &request, const QString &operatorName);
    void act(quint64 serial, qint64 campaignId, lantern::CampaignAction action, const QString &operatorName);
    /** The campaigns' timetable (issue 30): pending transitions and the last day's. */
    void loadTimetable(quint64 serial);

Q_SIGNALS:
    void pageLoaded(quint64 serial, const lantern::CampaignPage &page);
    void snapshotLoaded(quint64 serial, const lantern::CampaignSnapshot &snapshot);
    void created(quint64 serial, const lantern::Campaign &campaign);
    void rescheduled(quint64 serial, qint64 campaignId, const QList<lantern::ScheduledTransition> &transitions);
    /** `changed` false: the campaign already was where the action leads; nothing was audited. */
    void acted(quint64 serial, lantern::CampaignAction action, const lantern::Campaign &campaign, bool changed);
    void timetableLoaded(quint64 serial, const lantern::TimetableOverview &timetable);
    /** Any request failed: `message` is plain, translated words; `detail` the technical cause. */
    void requestFailed(quint64 serial, const QString &message, const QString &detail);

private:
    RedisClient &redis();
    SqlConnection &sql();
    std::pair<QString, QString> explain(const std::exception &error);
    /** explain(), but a server's refusal for want of a right names `action` as the console's
        disabled button would have ("the account alice (support) may not launch campaigns"). */
    std::pair<QString, QString> explain(const std::exception &error, access::Action action);
    QString refusal(CampaignAction action) const;
    static access::Action accessAction(CampaignAction action);
    /** The words for a refusal the ledger gave a name (four eyes: needs_approval, same_account). */
    QString refusal(const NamedRefusal &refusal, qint64 campaignId) const;

    Config m_config;
    KeySchema m_keys;
    LazyConnections m_connections{m_config};  // opened in the service thread
    SplitMemos m_splits;                       // the ledger check's splits, kept between refreshes
    TallyMemos m_tallies;                      // what the rows differed from the tally, kept until a change by hand
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::CampaignAction)
Q_DECLARE_METATYPE(lantern::CampaignDraft)
Q_DECLARE_METATYPE(lantern::ScheduleRequest)
Q_DECLARE_METATYPE(lantern::ScheduledTransition)
Q_DECLARE_METATYPE(lantern::Campaign)
Q_DECLARE_METATYPE(lantern::CampaignSnapshot)
