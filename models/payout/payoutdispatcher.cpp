#include "payout/payoutdispatcher.h"

#include "payout/payoutratelimit.h"

#include <QEventLoop>
#include <QTimer>

#include <algorithm>

namespace lantern {

namespace {
constexpr std::chrono::milliseconds KeepAliveEvery{250};
constexpr std::chrono::milliseconds MaxRetryBackoff{60000};
} // namespace

PayoutDispatcher::PayoutDispatcher(PayoutGateway &gateway, PayoutDispatchOptions options, QObject *parent)
    : QObject(parent), m_gateway(gateway), m_options(std::move(options)), m_window(std::max(1, m_options.maxInFlight)),
      m_rateTimer(new QTimer(this))
{
    if (m_gateway.concurrency() > 0)
        m_window = std::min(m_window, m_gateway.concurrency());
    m_options.attempts = std::max(1, m_options.attempts);
    m_rateTimer->setSingleShot(true);
    connect(m_rateTimer, &QTimer::timeout, this, &PayoutDispatcher::pump);
}

// Calls still in flight lose their answer with this object (the gateway checks the context).
PayoutDispatcher::~PayoutDispatcher() = default;

void PayoutDispatcher::submit(quint64 tag, const PayoutRequest &request)
{
    m_line.push_back({tag, request, 0});
    ++m_backlog;
    schedulePump();
}

void PayoutDispatcher::schedulePump()
{
    // Answers that arrive in one turn of the event loop are followed by one pump, so one token
    // request covers all the slots they freed.
    if (m_pumpScheduled)
        return;
    m_pumpScheduled = true;
    QTimer::singleShot(0, this, [this] {
        m_pumpScheduled = false;
        pump();
    });
}

void PayoutDispatcher::pump()
{
    if (m_error)
        return;
    try {
        while (!m_line.empty() && m_inFlight < m_window) {
            if (m_options.rate && m_tokens == 0) {
                if (m_rateTimer->isActive())
                    return;
                const int wanted = std::min(static_cast<int>(m_line.size()), m_window - m_inFlight);
                const PayoutRateLimit::Grant grant = m_options.rate->take(*m_options.redis, wanted);
                m_tokens = grant.granted;
                if (m_tokens == 0) {
                    m_rateTimer->start(grant.wait);
                    return;
                }
            }
            if (m_options.rate)
                --m_tokens;
            Pending pending = std::move(m_line.front());
            m_line.pop_front();
            ++pending.calls;
            ++m_inFlight;
            ++m_counts.calls;
            const PayoutRequest request = pending.request;
            m_gateway.start(request, this, [this, pending = std::move(pending)](const PayoutResult &result) { answered(pending, result); });
        }
    } catch (...) {
        fail(std::current_exception());
    }
}

void PayoutDispatcher::answered(Pending pending, const PayoutResult &result)
{
    --m_inFlight;
    if (result.status != PayoutResult::Status::Paid)
        ++m_counts.providerErrors;
    if (result.status == PayoutResult::Status::RetryableFailure && pending.calls < m_options.attempts) {
        // Unknown: the same request again later (same key), its slot free for others meanwhile.
        std::chrono::milliseconds backoff = m_options.backoff;
        for (int i = 1; i < pending.calls && backoff < MaxRetryBackoff; ++i)
            backoff *= 2;
        QTimer::singleShot(std::min(backoff, MaxRetryBackoff), Qt::PreciseTimer, this, [this, pending = std::move(pending)]() mutable {
            m_line.push_back(std::move(pending));
            pump();
        });
    } else {
        finish(std::move(pending), result);
    }
    schedulePump();
    checkWait();
}

void PayoutDispatcher::finish(Pending pending, const PayoutResult &result)
{
    --m_backlog;
    if (result.status == PayoutResult::Status::Paid)
        ++m_counts.paid;
    m_outcomes.append({pending.tag, std::move(pending.request), result, pending.calls});
}

QList<PayoutOutcome> PayoutDispatcher::takeOutcomes()
{
    return std::exchange(m_outcomes, {});
}

void PayoutDispatcher::fail(std::exception_ptr error)
{
    if (!m_error)
        m_error = error;
    if (m_loop) {
        m_loopEnded = true;
        m_loop->quit();
    }
}

void PayoutDispatcher::checkWait()
{
    if (m_loop && (m_backlog == 0 || (m_enough && m_enough()))) {
        m_loopEnded = true;
        m_loop->quit();
    }
}

void PayoutDispatcher::wait(const std::function<bool()> &enough, QDeadlineTimer deadline)
{
    if (m_error)
        std::rethrow_exception(m_error);
    pump();
    if (!m_error && (m_backlog == 0 || (enough && enough()) || deadline.hasExpired()))
        return;

    QEventLoop loop;
    QTimer timeUp;
    timeUp.setSingleShot(true);
    connect(&timeUp, &QTimer::timeout, &loop, [this, &loop] {
        m_loopEnded = true;
        loop.quit();
    });
    if (!deadline.isForever())
        timeUp.start(std::chrono::milliseconds(std::max<qint64>(0, deadline.remainingTime())));
    QTimer keepAlive;
    if (m_options.keepAlive) {
        connect(&keepAlive, &QTimer::timeout, this, [this] {
            try {
                m_options.keepAlive();
            } catch (...) {
                fail(std::current_exception());
            }
        });
        keepAlive.start(KeepAliveEvery);
    }
    m_loop = &loop;
    m_loopEnded = false;
    m_enough = enough;
    if (!m_error)
        loop.exec();
    m_loop = nullptr;
    m_enough = {};
    if (m_error)
        std::rethrow_exception(m_error);
    // Nothing here ended the loop: its thread is quitting (and would end every loop at once).
    if (!m_loopEnded) {
        m_error = std::make_exception_ptr(PayoutWaitInterrupted(tr("the worker stopped while %n payout(s) were in flight", nullptr, m_backlog)));
        std::rethrow_exception(m_error);
    }
}

} // namespace lantern
