#include "api/apicalls.h"

#include "envelope/campaignpools.h"

#include "api/answertext.h"
#include "api/resultjson.h"
#include "checkin/checkinrun.h"
#include "core/errors.h"
#include "core/monotonicclock.h"
#include "envelope/campaignpools.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/rediserror.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cstdio>

namespace lantern {

namespace {

class CheckinCall final : public ApiCall {
public:
    CheckinCall(ApiShared &shared, qint64 uid, QDate today, qint64 nowMs)
        : m_shared(shared), m_run(shared.keys(), shared.config().checkin, uid, today, today, nullptr, nowMs)
    {
    }
    QList<QByteArrayList> nextRound() override { return m_run.nextRound(); }
    void takeReplies(std::vector<RedisValue> replies) override { m_run.takeReplies(std::move(replies)); }
    ApiResponse response() const override
    {
        m_shared.metrics().recordCheckin(m_run.outcome().already);
        return apiText(checkinAnswerText(m_run.outcome()));
    }

private:
    ApiShared &m_shared;
    CheckinRun m_run;
};

class GrabCall final : public ApiCall {
public:
    GrabCall(ApiShared &shared, qint64 campaignId, qint64 uid, qint64 nowMs) : m_shared(shared), m_run(shared.keys(), campaignId, uid, nowMs, shared.config().grabWait) {}
    QList<QByteArrayList> nextRound() override { return m_run.nextRound(); }
    void takeReplies(std::vector<RedisValue> replies) override { m_run.takeReplies(std::move(replies)); }
    ApiResponse response() const override
    {
        m_shared.metrics().recordGrab(m_run.outcome().status);
        if (m_run.outcome().replicas >= 0 && m_run.outcome().replicas < m_shared.config().grabWait.replicas)
            m_shared.metrics().recordUnreplicatedGrab();
        return apiText(grabAnswerText(m_run.outcome()));
    }

private:
    ApiShared &m_shared;
    GrabRun m_run;
};

/** GET /v1/campaigns/{id}: status and counts, and the caller's own envelope: one round for a
    campaign of one pool, a second over every pool for one of sub-pools (its counts summed, the
    caller's envelope in its home pool). */
class CampaignCall final : public ApiCall {
    Q_DECLARE_TR_FUNCTIONS(lantern::ApiHandler)

public:
    CampaignCall(const KeySchema &keys, qint64 campaignId, qint64 uid)
        : m_keys(keys),
          m_campaignId(campaignId),
          m_uid(uid),
          m_round{{QByteArrayLiteral("HMGET"), keys.campaignMeta(campaignId), QByteArrayLiteral("status"), QByteArrayLiteral("grabbed_count"),
                   QByteArrayLiteral("pools")},
                  {QByteArrayLiteral("LLEN"), keys.campaignPool(campaignId)},
                  {QByteArrayLiteral("HGET"), keys.campaignDraws(campaignId), QByteArray::number(uid)}}
    {
    }
    QList<QByteArrayList> nextRound() override { return std::exchange(m_round, {}); }
    void takeReplies(std::vector<RedisValue> replies) override
    {
        throwOnErrorReply(replies);
        if (m_pools)
            return takePools(replies);
        const RedisValue &meta = replies.at(0);
        if (meta.elements.size() != 3 || meta.elements[0].isNil()) {
            m_response = apiError(404, "not_found", tr("campaign %1 is not launched or does not exist").arg(m_campaignId));
            return;
        }
        m_status = QString::fromUtf8(meta.elements[0].toBytes());
        if (!meta.elements[2].isNil()) {
            m_pools = CampaignPools::fromField(m_campaignId, meta.elements[2].toBytes());
            if (!m_pools)
                throw RedisReplyError(QStringLiteral("campaign %1's pools field in Redis is not a list of its pools").arg(m_campaignId));
            for (const QByteArray &pool : m_pools->names())
                m_round << QByteArrayList{QByteArrayLiteral("HGET"), m_keys.campaignMeta(pool), QByteArrayLiteral("grabbed_count")}
                        << QByteArrayList{QByteArrayLiteral("LLEN"), m_keys.campaignPool(pool)};
            m_round << QByteArrayList{QByteArrayLiteral("HGET"), m_keys.campaignDraws(m_pools->name(m_pools->homeOf(m_uid))), QByteArray::number(m_uid)};
            return;
        }
        respond(meta.elements[1].isNil() ? 0 : meta.elements[1].toInteger(), replies.at(1).toInteger(), replies.at(2));
    }
    ApiResponse response() const override { return m_response; }

private:
    void takePools(const std::vector<RedisValue> &replies)
    {
        qint64 grabbed = 0;
        qint64 remaining = 0;
        for (int pool = 0; pool < m_pools->count(); ++pool) {
            grabbed += replies.at(size_t(pool) * 2).isNil() ? 0 : replies.at(size_t(pool) * 2).toInteger();
            remaining += replies.at(size_t(pool) * 2 + 1).toInteger();
        }
        respond(grabbed, remaining, replies.back());
    }
    void respond(qint64 grabbed, qint64 remaining, const RedisValue &held)
    {
        QJsonObject json{{QStringLiteral("id"), m_campaignId},
                         {QStringLiteral("status"), m_status},
                         {QStringLiteral("grabbed_count"), grabbed},
                         {QStringLiteral("remaining_count"), remaining}};
        QJsonValue mine;  // null unless this user holds one
        if (!held.isNil()) {
            const QByteArray entry = held.toBytes();
            const qsizetype colon = entry.indexOf(':');
            mine = QJsonObject{{QStringLiteral("envelope"), entry.left(colon).toLongLong()},
                               {QStringLiteral("amount_cents"), entry.mid(colon + 1).toLongLong()}};
        }
        json.insert(QStringLiteral("mine"), mine);
        m_response = apiJson(json);
    }

    const KeySchema &m_keys;
    qint64 m_campaignId;
    qint64 m_uid;
    QList<QByteArrayList> m_round;
    QString m_status;
    std::optional<CampaignPools> m_pools;
    ApiResponse m_response;
};

/** GET /healthz: one PING, and how long the round trip took. */
class HealthCall final : public ApiCall {
public:
    QList<QByteArrayList> nextRound() override
    {
        if (m_sent)
            return {};
        m_sent = true;
        m_startNs = monotonicNs();
        return {{QByteArrayLiteral("PING")}};
    }
    void takeReplies(std::vector<RedisValue> replies) override
    {
        throwOnErrorReply(replies.at(0));
        m_redisMs = double(monotonicNs() - m_startNs) / 1e6;
    }
    ApiResponse response() const override
    {
        return apiJson({{QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("redis_ms"), m_redisMs}});
    }

private:
    bool m_sent = false;
    qint64 m_startNs = 0;
    double m_redisMs = 0;
};

} // namespace

void requireEmptyJsonObject(const QByteArray &body)
{
    if (body.trimmed().isEmpty())
        return;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        throw InvalidInputError(ApiHandler::tr("malformed JSON body at offset %1: %2").arg(error.offset).arg(error.errorString()));
    if (!document.isObject())
        throw InvalidInputError(ApiHandler::tr("the body must be a JSON object"));
    const QStringList fields = document.object().keys();
    if (!fields.isEmpty())
        throw InvalidInputError(ApiHandler::tr("unknown field '%1': this endpoint takes no fields").arg(fields.first()));
}

std::unique_ptr<ApiCall> makeApiCall(ApiShared &shared, const ApiAdmission &admission, const ApiRequest &request)
{
    switch (admission.endpoint) {
    case ApiEndpoint::Checkin:
        requireEmptyJsonObject(request.body);
        return std::make_unique<CheckinCall>(shared, admission.uid, shared.today(), QDateTime::currentMSecsSinceEpoch());
    case ApiEndpoint::Grab:
        requireEmptyJsonObject(request.body);
        return std::make_unique<GrabCall>(shared, admission.campaignId, admission.uid, QDateTime::currentMSecsSinceEpoch());
    case ApiEndpoint::Campaign: return std::make_unique<CampaignCall>(shared.keys(), admission.campaignId, admission.uid);
    case ApiEndpoint::Health: return std::make_unique<HealthCall>();
    default: return nullptr;
    }
}

ApiResponse apiErrorFor(std::exception_ptr error, const ApiRequest &request)
{
    const auto unavailable = [](const LanternError &failure) {
        ApiResponse response = apiError(503, "unavailable", failure.message());
        response.headers.append({QByteArrayLiteral("Retry-After"), QByteArrayLiteral("1")});
        return response;
    };
    try {
        std::rethrow_exception(std::move(error));
    } catch (const RedisUrlMismatchError &failure) {
        return unavailable(failure);  // the server is not what serve's own URL says: no client's fault
    } catch (const InvalidInputError &failure) {
        return apiError(400, "bad_request", failure.message());
    } catch (const UnavailableError &failure) {
        return unavailable(failure);
    } catch (const RefusedError &failure) {
        return apiError(409, "refused", failure.message());
    } catch (const std::exception &failure) {
        std::fprintf(stderr, "lanternd serve: %s %s failed: %s\n", request.method.constData(), request.path.constData(), failure.what());
        return apiError(500, "internal", ApiHandler::tr("internal error; the server log has the details"));
    }
}

} // namespace lantern
