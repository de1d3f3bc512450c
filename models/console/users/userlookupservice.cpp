#include "userlookupservice.h"

#include "checkin/auditedcheckin.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "console/common/connectionerrors.h"
#include "console/users/makeuppolicy.h"
#include "core/errors.h"
#include "core/wallclock.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "settings/configconnections.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

namespace lantern {

namespace {

/** Thrown for a search text that is neither a uid nor a token; carries translated words. */
class UnknownQueryError final : public LanternError {
public:
    using LanternError::LanternError;
};

} // namespace

UserLookupService::UserLookupService(Config config, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards)
{
    qRegisterMetaType<lantern::UserMonth>();
}

UserLookupService::~UserLookupService() = default;

RedisClient &UserLookupService::redis()
{
    return m_connections.redis();
}

SqlConnection &UserLookupService::sql()
{
    return m_connections.sql();
}

void UserLookupService::lookup(quint64 serial, const QString &query, QDate month)
{
    try {
        const QString text = query.trimmed();
        qint64 uid = 0;
        try {
            uid = parseUid(text);
        } catch (const InvalidInputError &) {
            const auto decoded = UserTokens(m_config.tokenSalt).uidOf(text);
            if (!decoded)
                throw UnknownQueryError(text);
            uid = *decoded;
        }
        Q_EMIT monthLoaded(serial, load(uid, month));
    } catch (const UnknownQueryError &error) {
        Q_EMIT lookupFailed(serial, tr("“%1” is neither a user id nor a user token.").arg(error.message()), {});
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT lookupFailed(serial, message, detail);
    }
}

void UserLookupService::makeup(quint64 serial, qint64 uid, QDate date, const QString &reason, const QString &operatorName)
{
    const QDate today = m_config.today();
    MakeupRequest request;
    request.uid = uid;
    request.date = date;
    request.reason = reason;
    request.operatorName = operatorName;
    try {
        CheckinService::validateMakeup(request, today, m_config.checkin);
        // As `lanternd makeup`: the audit row shares an SQL transaction with the Redis script.
        SqlConnection &connection = sql();
        const bool already = AuditedCheckin(redis(), connection, m_keys, m_config.checkin)
                                     .makeup(request, today, nowMs(), QStringLiteral("console"))
                                     .already;
        Q_EMIT makeupGranted(serial, date, already, load(uid, date));
    } catch (const RedisReadOnlyError &error) {
        Q_EMIT makeupFailed(serial, tr("This connection is read-only: make-ups cannot be granted here."), error.message());
    } catch (const SqlReadOnlyError &error) {
        Q_EMIT makeupFailed(serial, tr("This connection is read-only: make-ups cannot be granted here."), error.message());
    } catch (const RefusedError &error) {
        const MakeupPolicy policy(m_config.checkin);
        QString message;
        if (!policy.insideWindow(date, today)) {
            message = policy.windowDays() == 0
                    ? tr("Only days of the current month can be made up.")
                    : tr("Only the last %n day(s) can be made up.", nullptr, policy.windowDays());
        } else {
            message = tr("This month's quota of %n make-up(s) is used up.", nullptr, policy.quota());
        }
        Q_EMIT makeupFailed(serial, message, error.message());
    } catch (const InvalidInputError &error) {
        Q_EMIT makeupFailed(serial, tr("This make-up cannot be granted."), error.message());
    } catch (const std::exception &error) {
        const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections, access::Action::Makeup);
        Q_EMIT makeupFailed(serial, failure.message, failure.detail);
    }
}

UserMonth UserLookupService::load(qint64 uid, QDate month)
{
    const QDate today = m_config.today();
    // SQL first, Redis second: both are read before anything is reported.
    CheckinStore store(sql());
    const qint64 balance = store.pointsBalance(uid);
    QList<CheckinLogRow> checkins = store.recentCheckins(uid, HistoryRows);
    QList<LedgerRow> ledger = store.recentLedger(uid, HistoryRows);
    CheckinService service(redis(), m_keys, m_config.checkin);
    const CalendarMonth calendar = service.calendar(uid, month, today);
    QList<MonthFigure> history;
    for (int back = HistoryMonths - 1; back >= 1; --back) {
        const CalendarMonth earlier = service.calendar(uid, calendar.month.addMonths(-back), today);
        history.append({earlier.month, int(earlier.signedDays.size()), int(earlier.makeupDays.size()), earlier.longest});
    }
    history.append({calendar.month, int(calendar.signedDays.size()), int(calendar.makeupDays.size()), calendar.longest});

    UserMonth result;
    result.uid = uid;
    result.token = UserTokens(m_config.tokenSalt).tokenFor(uid);
    result.month = calendar.month;
    result.today = today;
    result.signedDays = calendar.signedDays;
    result.makeupDays = calendar.makeupDays;
    result.monthCount = calendar.monthCount;
    result.streak = calendar.streak;
    result.longest = calendar.longest;
    result.pointsBalance = balance;
    result.history = std::move(history);
    result.recentCheckins = std::move(checkins);
    result.recentLedger = std::move(ledger);
    result.loadedAt = QDateTime::currentDateTime();
    return result;
}

std::pair<QString, QString> UserLookupService::explain(const std::exception &error)
{
    const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections);
    return {failure.message, failure.detail};
}

} // namespace lantern
