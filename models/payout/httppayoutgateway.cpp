#include "payout/httppayoutgateway.h"

#include "core/errors.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <algorithm>

namespace lantern {

namespace {

constexpr std::chrono::milliseconds MaxBackoff{60000};
constexpr int MaxConnections = 1024;
/** Set on a reply whose attempt ran out of time before it was aborted. */
const char *const TimedOutProperty = "lantern_payout_timed_out";

/** A provider's answer, shortened for an error message. */
QString excerpt(const QByteArray &body)
{
    constexpr qsizetype Max = 200;
    const QString text = QString::fromUtf8(body.left(Max)).simplified();
    return body.size() > Max ? text + QStringLiteral("…") : text;
}

bool isRetryableStatus(int status)
{
    return status == 408 || status == 429 || status >= 500;
}

/** What a finished reply means for the payment. */
PayoutResult resultOf(QNetworkReply &reply, std::chrono::milliseconds timeout)
{
    if (reply.property(TimedOutProperty).toBool())
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     HttpPayoutGateway::tr("the payout provider did not answer within %1 ms").arg(timeout.count()));
    const QVariant statusAttribute = reply.attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (!statusAttribute.isValid())
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     HttpPayoutGateway::tr("could not reach the payout provider: %1").arg(reply.errorString()));

    const int status = statusAttribute.toInt();
    const QByteArray answer = reply.readAll();
    if (status >= 200 && status < 300) {
        const QJsonValue ref = QJsonDocument::fromJson(answer).object().value(QLatin1String("ref"));
        if (ref.isString() && !ref.toString().isEmpty())
            return {PayoutResult::Status::Paid, ref.toString(), {}};
        // It may have paid: asking again with the same key is safe and should return the reference.
        return PayoutResult::failure(
                PayoutResult::Status::RetryableFailure,
                HttpPayoutGateway::tr("the payout provider answered HTTP %1 without a payment reference: %2").arg(status).arg(excerpt(answer)));
    }
    if (isRetryableStatus(status))
        return PayoutResult::failure(PayoutResult::Status::RetryableFailure,
                                     HttpPayoutGateway::tr("the payout provider is unavailable (HTTP %1): %2").arg(status).arg(excerpt(answer)));
    return PayoutResult::failure(PayoutResult::Status::PermanentFailure,
                                 HttpPayoutGateway::tr("the payout provider refused the payout (HTTP %1): %2").arg(status).arg(excerpt(answer)));
}

/** Aborts `reply` when `timeout` passes first, marking it timed out (abort emits finished). */
void boundInTime(QNetworkReply *reply, std::chrono::milliseconds timeout)
{
    auto *timer = new QTimer(reply);
    timer->setSingleShot(true);
    QObject::connect(timer, &QTimer::timeout, reply, [reply] {
        reply->setProperty(TimedOutProperty, true);
        reply->abort();
    });
    QObject::connect(reply, &QNetworkReply::finished, timer, &QTimer::stop);
    timer->start(timeout);
}

QNetworkRequest httpRequest(const QUrl &endpoint, const PayoutRequest &request)
{
    QNetworkRequest http(endpoint);
    http.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    http.setRawHeader(QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json"));
    http.setRawHeader(QByteArrayLiteral("Idempotency-Key"), request.idempotencyKey.toUtf8());
    // A redirected POST may turn into a GET: a provider that redirects is misconfigured, and says so.
    http.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    return http;
}

QByteArray httpBody(const PayoutRequest &request)
{
    return QJsonDocument(QJsonObject{{QLatin1String("idempotency_key"), request.idempotencyKey},
                                     {QLatin1String("campaign_id"), request.campaignId},
                                     {QLatin1String("seq"), request.seq},
                                     {QLatin1String("uid"), request.uid},
                                     {QLatin1String("amount_cents"), request.amountCents}})
            .toJson(QJsonDocument::Compact);
}

/** One POST, waited for in a local event loop; the timer bounds the whole exchange. */
PayoutResult attempt(QNetworkAccessManager &network, const QNetworkRequest &request, const QByteArray &body,
                     std::chrono::milliseconds timeout)
{
    const std::unique_ptr<QNetworkReply> reply(network.post(request, body));
    QEventLoop loop;
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    boundInTime(reply.get(), timeout);
    if (!reply->isFinished())
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    return resultOf(*reply, timeout);
}

} // namespace

HttpPayoutGateway::HttpPayoutGateway(HttpPayoutOptions options) : m_options(std::move(options))
{
    const QUrl &url = m_options.endpoint;
    const QString scheme = url.scheme();
    if (!url.isValid() || url.host().isEmpty() || (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
        throw InvalidInputError(tr("invalid payout provider URL '%1': expected http://host[:port]/path or https://...")
                                        .arg(url.toDisplayString(QUrl::RemoveUserInfo)));
    if (m_options.attempts < 1 || m_options.attempts > 100)
        throw InvalidInputError(tr("invalid payout attempts %1: expected 1 to 100").arg(m_options.attempts));
    if (m_options.timeout.count() < 1 || m_options.backoff.count() < 0)
        throw InvalidInputError(tr("invalid payout timeout or backoff: the timeout must be positive and the backoff not negative"));
    if (m_options.connections < 1 || m_options.connections > MaxConnections)
        throw InvalidInputError(tr("invalid payout connections %1: expected 1 to %2").arg(m_options.connections).arg(MaxConnections));
}

HttpPayoutGateway::~HttpPayoutGateway() = default;

PayoutResult HttpPayoutGateway::pay(const PayoutRequest &request)
{
    if (const QString invalid = validate(request); !invalid.isEmpty())
        return PayoutResult::failure(PayoutResult::Status::PermanentFailure, invalid);

    const QByteArray body = httpBody(request);
    const QNetworkRequest http = httpRequest(m_options.endpoint, request);
    // Created on the calling thread, so pay() needs no event loop of its own and threads share nothing.
    QNetworkAccessManager network;
    std::chrono::milliseconds backoff = m_options.backoff;
    PayoutResult result;
    for (int tries = 1;; ++tries) {
        result = attempt(network, http, body, m_options.timeout);
        if (result.status != PayoutResult::Status::RetryableFailure)
            return result;
        if (tries == m_options.attempts)
            break;
        QThread::msleep(static_cast<unsigned long>(backoff.count()));
        backoff = std::min(backoff * 2, MaxBackoff);
    }
    result.error = tr("%1 (gave up after %n attempt(s))", nullptr, m_options.attempts).arg(result.error);
    return result;
}

HttpPayoutGateway::Manager &HttpPayoutGateway::leastBusyManager()
{
    if (m_managers.empty()) {
        const int count = (m_options.connections + ConnectionsPerManager - 1) / ConnectionsPerManager;
        m_managers.resize(static_cast<size_t>(count));
        for (Manager &manager : m_managers)
            manager.network = std::make_unique<QNetworkAccessManager>();
    }
    return *std::min_element(m_managers.begin(), m_managers.end(),
                             [](const Manager &a, const Manager &b) { return a.inFlight < b.inFlight; });
}

void HttpPayoutGateway::start(const PayoutRequest &request, QObject *context, Done done)
{
    if (const QString invalid = validate(request); !invalid.isEmpty()) {
        QTimer::singleShot(0, context, [done = std::move(done), invalid] { done(PayoutResult::failure(PayoutResult::Status::PermanentFailure, invalid)); });
        return;
    }
    Manager &manager = leastBusyManager();
    QNetworkReply *reply = manager.network->post(httpRequest(m_options.endpoint, request), httpBody(request));
    ++manager.inFlight;
    boundInTime(reply, m_options.timeout);
    // The manager's bookkeeping first, so a callback that starts the next call sees this one done;
    // a context destroyed meanwhile only loses its answer (the call ends within the timeout).
    QNetworkAccessManager *network = manager.network.get();
    QObject::connect(reply, &QNetworkReply::finished, network, [this, network, reply] {
        for (Manager &candidate : m_managers) {
            if (candidate.network.get() == network)
                --candidate.inFlight;
        }
        reply->deleteLater();
    });
    QObject::connect(reply, &QNetworkReply::finished, context,
                     [reply, done = std::move(done), timeout = m_options.timeout] { done(resultOf(*reply, timeout)); });
}

} // namespace lantern
