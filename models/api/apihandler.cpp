#include "api/apihandler.h"

#include "api/apicalls.h"
#include "api/apigate.h"
#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "core/errors.h"
#include "envelope/campaignschedule.h"
#include "operations/ledgerbalancecheck.h"
#include "operations/queueoverview.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "redis/redisrunwatch.h"
#include "redis/redisconversation.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QUrlQuery>

#include <cstdio>

namespace lantern {

ApiResponse apiJson(const QJsonObject &object, int status)
{
    ApiResponse response;
    response.status = status;
    response.body = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return response;
}

ApiResponse apiText(QByteArray json)
{
    ApiResponse response;
    response.status = 200;
    response.body = std::move(json);
    return response;
}

const ApiResponse &apiAlive()
{
    static const ApiResponse alive = apiJson({{QStringLiteral("status"), QStringLiteral("ok")}});
    return alive;
}

ApiResponse apiError(int status, const char *code, const QString &message)
{
    return apiJson({{QStringLiteral("error"), QLatin1String(code)}, {QStringLiteral("message"), message}}, status);
}

ApiShared::ApiShared(Config config)
    : m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards),
      m_buckets{TokenBucket(m_config.api.checkin), TokenBucket(m_config.api.calendar), TokenBucket(m_config.api.grab),
                TokenBucket(m_config.api.campaign)}
{
}

QDate ApiShared::today() const
{
    if (m_config.todayOverride)
        return *m_config.todayOverride;
    struct Cache {
        const ApiShared *owner = nullptr;
        qint64 second = -1;
        QDate day;
    };
    thread_local Cache cache;
    const qint64 second = QDateTime::currentSecsSinceEpoch();
    if (cache.owner != this || cache.second != second)
        cache = {this, second, m_config.today()};
    return cache.day;
}

TokenBucket *ApiShared::bucket(ApiEndpoint endpoint)
{
    switch (endpoint) {
    case ApiEndpoint::Checkin: return &m_buckets[0];
    case ApiEndpoint::Calendar: return &m_buckets[1];
    case ApiEndpoint::Grab: return &m_buckets[2];
    case ApiEndpoint::Campaign: return &m_buckets[3];
    default: return nullptr;
    }
}

ApiHandler::ApiHandler(ApiShared &shared)
    : m_shared(shared), m_redis(std::make_unique<RedisClient>(shared.config().redis)),
      m_checkins(std::make_unique<CheckinService>(*m_redis, shared.keys(), shared.config().checkin))
{
}

ApiHandler::~ApiHandler() = default;

ApiResponse ApiHandler::answer(const ApiAdmission &admission, const ApiRequest &request)
{
    try {
        if (const std::unique_ptr<ApiCall> call = makeApiCall(m_shared, admission, request)) {
            runConversation(*m_redis, *call);
            return call->response();
        }
        if (admission.endpoint == ApiEndpoint::Calendar)
            return calendar(admission.uid, request);
        if (admission.endpoint == ApiEndpoint::Metrics)
            return metrics();
        if (admission.endpoint == ApiEndpoint::Live)
            return apiAlive();
        return apiError(404, "not_found", tr("no such endpoint: %1").arg(QString::fromUtf8(request.path)));
    } catch (...) {
        return apiErrorFor(std::current_exception(), request);
    }
}

ApiResponse ApiHandler::calendar(qint64 uid, const ApiRequest &request)
{
    if (!request.body.isEmpty())
        throw InvalidInputError(tr("GET /v1/calendar takes no body"));
    const QUrlQuery query(QString::fromUtf8(request.query));
    const QDate today = m_shared.today();
    QDate month(today.year(), today.month(), 1);
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (name != QLatin1String("month"))
            throw InvalidInputError(tr("unknown query parameter '%1': only month=YYYY-MM").arg(name));
        month = parseMonth(value);
    }
    // The month first (Redis), then the balance (SQL): an SQL outage answers 503 either way.
    const CalendarMonth days = m_checkins->calendar(uid, month, today);
    qint64 balance = 0;
    try {
        balance = CheckinStore(sql()).pointsBalance(uid);
    } catch (const UnavailableError &) {
        m_sql.reset();  // reopened by the next request
        throw;
    }
    return apiJson(calendarJson(days, balance));
}

namespace {
/** How far back /metrics reports the timetable's lateness. */
constexpr qint64 TimetableHistoryMs = 24LL * 3600 * 1000;
} // namespace

ApiResponse ApiHandler::metrics()
{
    MetricsScrape scrape;
    scrape.nowMs = QDateTime::currentMSecsSinceEpoch();
    try {
        // A master's run_id (one INFO each): a change since the last scrape is a restart or failover.
        RedisRunWatch runs;
        runs.changed(*m_redis);
        m_shared.metrics().observeRedisRuns(runs.seen());
        scrape.queues = QueueOverview::read(*m_redis, m_shared.keys(), scrape.nowMs);
        // What the workers' ledger check found (issue 27): read, never run, by a scrape.
        scrape.ledger = LedgerBalanceCheck::read(*m_redis, m_shared.keys());
        // The campaigns' timetable (issue 30): what is pending, and how late the last day's were.
        TimetableSnapshot snapshot;
        snapshot.nowMs = redisTimeMs(*m_redis);
        try {
            snapshot.transitions = CampaignSchedule(sql()).timetable(snapshot.nowMs - TimetableHistoryMs);
            scrape.timetable = std::move(snapshot);
        } catch (const UnavailableError &) {
            m_sql.reset();  // reopened by the next scrape; the timetable's series are left out meanwhile
        }
    } catch (const RedisNotReadyError &error) {
        scrape.queues.reset();
        scrape.redisLoading = error.state() == RedisNotReadyError::State::Loading;
    } catch (const UnavailableError &) {
        scrape.queues.reset();  // lantern_redis_up 0 says so; the counters are still worth scraping.
    }
    ApiResponse response;
    response.contentType = QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8");
    response.body = m_shared.metrics().render(scrape);
    return response;
}

SqlConnection &ApiHandler::sql()
{
    if (!m_sql)
        m_sql = openMigrated(m_shared.config().db);
    return *m_sql;
}

} // namespace lantern
