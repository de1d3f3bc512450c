#pragma once

#include "payout/payoutgateway.h"

#include <QCoreApplication>
#include <QUrl>

#include <chrono>

namespace lantern {

struct HttpPayoutOptions {
    QUrl endpoint;                            // http:// or https:// URL that takes the POST
    std::chrono::milliseconds timeout{3000};  // per attempt: connect, send and the whole answer
    int attempts = 3;                         // tries per pay() call, the first included
    std::chrono::milliseconds backoff{100};   // wait before the 2nd try; doubles before each later one
};

/** POSTs JSON {"idempotency_key","campaign_id","seq","uid","amount_cents"} with header
    Idempotency-Key over Qt Network. Each pay() uses its own QNetworkAccessManager and a local
    QEventLoop, so it works on any thread with no running event loop, and one instance may be
    shared by several threads. 2xx with {"ref": "..."} -> Paid; 408/429/5xx, timeouts, connection
    errors and unreadable 2xx answers -> retried with exponential backoff up to `attempts`, then
    RetryableFailure; any other status -> PermanentFailure. */
class HttpPayoutGateway final : public PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::HttpPayoutGateway)

public:
    /** Throws InvalidInputError for an endpoint that is not an http(s) URL, or attempts < 1. */
    explicit HttpPayoutGateway(HttpPayoutOptions options);

    PayoutResult pay(const PayoutRequest &request) override;

    const HttpPayoutOptions &options() const { return m_options; }

private:
    HttpPayoutOptions m_options;
};

} // namespace lantern
