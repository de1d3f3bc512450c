#pragma once

#include "api/apihandler.h"

#include <QStringList>

#include <memory>
#include <variant>

namespace lantern {

class UserTokens;

/** Who asks for what, once the gate let a request through. */
struct ApiAdmission {
    ApiEndpoint endpoint = ApiEndpoint::Unknown;
    qint64 uid = 0;         // 0 for health and metrics (no bearer needed)
    qint64 campaignId = 0;  // grab and campaign
};

/** The checks every request passes before any Redis or SQL work, in this order: route (404),
    method (405), a query parameter sent twice (400), body size and campaign id (400), the
    endpoint's token bucket (429), the feature switch (503), the bearer (401). CPU only; one
    per server thread. */
class ApiGate final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ApiGate)

public:
    explicit ApiGate(ApiShared &shared);
    ~ApiGate();
    Q_DISABLE_COPY_MOVE(ApiGate)

    /** The refusal to send, or the admission. `switchedOff` is the list of features switched
        off as last read (FeatureSwitches); only check-in and grab look at it. */
    std::variant<ApiResponse, ApiAdmission> admit(const ApiRequest &request, const QStringList &switchedOff);

    /** The endpoint `path` names (Unknown for none). */
    static ApiEndpoint endpointOf(const QByteArray &path);
    /** Whether the endpoint can be switched off (then admit() needs fresh switches). */
    static bool isSwitchable(ApiEndpoint endpoint) { return endpoint == ApiEndpoint::Checkin || endpoint == ApiEndpoint::Grab; }

private:
    struct Route {
        ApiEndpoint endpoint = ApiEndpoint::Unknown;
        QByteArray method;  // the one method the endpoint answers
        qint64 campaignId = 0;
        bool badId = false;  // /v1/campaigns/<not an id>[/grab]
    };
    static Route route(const QByteArray &path);
    /** The caller's uid, or std::nullopt (then `failure` holds the 401). */
    std::optional<qint64> authenticate(const ApiRequest &request, ApiResponse *failure) const;

    ApiShared &m_shared;
    std::unique_ptr<UserTokens> m_tokens;
};

} // namespace lantern
