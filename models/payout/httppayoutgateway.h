#pragma once

#include "payout/payoutgateway.h"

#include <QCoreApplication>
#include <QUrl>

#include <chrono>
#include <memory>
#include <vector>

class QNetworkAccessManager;

namespace lantern {

struct HttpPayoutOptions {
    QUrl endpoint;                            // http:// or https:// URL that takes the POST
    std::chrono::milliseconds timeout{3000};  // per attempt: connect, send and the whole answer
    int attempts = 3;                         // tries per pay() call, the first included (start() makes one)
    std::chrono::milliseconds backoff{100};   // wait before the 2nd try; doubles before each later one
    int connections = DefaultPayoutsInFlight; // keep-alive connections start() may open to the provider
};

/** POSTs JSON {"idempotency_key","campaign_id","seq","uid","amount_cents"} with header
    Idempotency-Key over Qt Network. 2xx with {"ref": "..."} -> Paid; 408/429/5xx, timeouts,
    connection errors and unreadable 2xx answers -> RetryableFailure (pay() retries them with
    exponential backoff up to `attempts` first); any other status -> PermanentFailure.
    pay() uses its own QNetworkAccessManager and a local QEventLoop, so it works on any thread with
    no running event loop, and one instance may be shared by several threads. start() sends on a
    pool of managers kept on the thread of the first start() call: Qt opens at most 6 connections
    per host and manager, so `connections` are spread over ceil(connections / 6) managers, each
    keeping its connections alive between requests. */
class HttpPayoutGateway final : public PayoutGateway {
    Q_DECLARE_TR_FUNCTIONS(lantern::HttpPayoutGateway)

public:
    /** Qt's HTTP/1.1 connections per host and QNetworkAccessManager (QHttpNetworkConnection). */
    static constexpr int ConnectionsPerManager = 6;

    /** Throws InvalidInputError for an endpoint that is not an http(s) URL, attempts < 1, or
        connections outside 1..1024. */
    explicit HttpPayoutGateway(HttpPayoutOptions options);
    ~HttpPayoutGateway() override;
    Q_DISABLE_COPY_MOVE(HttpPayoutGateway)

    PayoutResult pay(const PayoutRequest &request) override;
    void start(const PayoutRequest &request, QObject *context, Done done) override;
    int concurrency() const override { return m_options.connections; }

    const HttpPayoutOptions &options() const { return m_options; }

private:
    struct Manager {
        std::unique_ptr<QNetworkAccessManager> network;
        int inFlight = 0;
    };
    Manager &leastBusyManager();

    HttpPayoutOptions m_options;
    std::vector<Manager> m_managers;  // created by the first start(), on its thread
};

} // namespace lantern
