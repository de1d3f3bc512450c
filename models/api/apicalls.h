#pragma once

#include "api/apigate.h"
#include "redis/redisconversation.h"

#include <exception>
#include <memory>

namespace lantern {

/** The Redis work of an admitted request to a hot endpoint (check-in, grab, campaign, health),
    as a conversation that ends in the response: `lanternd serve` runs it on its event loop's
    RedisPipe, batched with other requests; ApiHandler runs it on a blocking connection. */
class ApiCall : public RedisConversation {
public:
    /** Whom the answer goes to, for a server that runs many calls at once (`lanternd serve`: a
        connection and its request's number); the call itself never reads it. Kept here, the
        server's completion callback needs no captures of its own (no allocation per request). */
    struct Recipient {
        quint64 connection = 0;
        quint64 request = 0;
    };

    /** The answer, once the conversation ran to its end. */
    virtual ApiResponse response() const = 0;

    Recipient recipient;
};

/** The call for `admission`, or null for the endpoints that need SQL or many reads (calendar,
    metrics), which ApiHandler answers on blocking connections. Throws InvalidInputError for a
    body the endpoint does not take (nothing is sent then). */
std::unique_ptr<ApiCall> makeApiCall(ApiShared &shared, const ApiAdmission &admission, const ApiRequest &request);

/** The answer for a request that ended in `error`: 400 bad input, 503 unavailable (with
    Retry-After), 409 refused, else 500 (and the error goes to stderr with the request). */
ApiResponse apiErrorFor(std::exception_ptr error, const ApiRequest &request);

/** Throws InvalidInputError unless the body is empty or a JSON object without fields. */
void requireEmptyJsonObject(const QByteArray &body);

} // namespace lantern
