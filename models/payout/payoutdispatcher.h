#pragma once

#include "core/errors.h"
#include "payout/payoutgateway.h"

#include <QDeadlineTimer>
#include <QList>
#include <QObject>

#include <chrono>
#include <deque>
#include <exception>
#include <functional>

class QEventLoop;
class QTimer;

namespace lantern {

class PayoutRateLimit;
class RedisClient;

struct PayoutDispatchOptions {
    int maxInFlight = DefaultPayoutsInFlight; // calls on the wire at once (capped by the gateway's concurrency())
    int attempts = 3;                         // calls per submitted payout before it comes back unpaid
    std::chrono::milliseconds backoff{50};    // before the 2nd call of a payout; doubles before each later one
    const PayoutRateLimit *rate = nullptr;    // calls per second shared by every worker; null: no limit
    RedisClient *redis = nullptr;             // where the rate's bucket lives (needed with `rate`)
    std::function<void()> keepAlive;          // called every 250 ms while wait() runs: the heartbeat
};

/** The thread's event loop was told to exit (QThread::quit) while payouts were in flight: the
    thread is stopping, and the payouts' answers will not come. Their tasks stay in the backup list. */
class PayoutWaitInterrupted final : public LanternError {
public:
    using LanternError::LanternError;
};

/** How a submitted payout ended: Paid, a PermanentFailure, or RetryableFailure after `attempts`
    calls (unknown: the caller retries it later with the same key). */
struct PayoutOutcome {
    quint64 tag = 0;
    PayoutRequest request;
    PayoutResult result;
    int calls = 0;
};

/** Running totals of a dispatcher, for the worker's figures. */
struct PayoutCallCounts {
    qint64 calls = 0;            // calls sent to the provider
    qint64 paid = 0;             // payouts that ended Paid
    qint64 providerErrors = 0;   // calls that did not come back Paid (each retry counts)

    PayoutCallCounts &operator+=(const PayoutCallCounts &other)
    {
        calls += other.calls;
        paid += other.paid;
        providerErrors += other.providerErrors;
        return *this;
    }
};

/** Keeps up to maxInFlight payout calls in flight on one thread (DESIGN §7: a worker pays many
    envelopes concurrently, bounded by a provider-wide rate). Submitted payouts wait in line; each
    call takes a token of the shared rate first; a RetryableFailure is called again after a backoff
    (its slot is free meanwhile) with the same request, so the same idempotency key, up to
    `attempts` calls. Everything happens inside wait(), on this thread's event loop. */
class PayoutDispatcher final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PayoutDispatcher)

public:
    PayoutDispatcher(PayoutGateway &gateway, PayoutDispatchOptions options, QObject *parent = nullptr);
    ~PayoutDispatcher() override;

    /** Queues a payout; its calls start in the next wait(). */
    void submit(quint64 tag, const PayoutRequest &request);
    /** Runs this thread's event loop until every submitted payout has an outcome, `enough()`
        holds (checked after each answer), or `deadline` passes. An exception of the keep-alive or
        the rate limit (Redis gone) ends the wait and is rethrown here, and the thread's event loop
        told to exit throws PayoutWaitInterrupted; the dispatcher is then spent (its payouts are
        unknown: the caller's backup list still holds them). */
    void wait(const std::function<bool()> &enough, QDeadlineTimer deadline);
    /** The outcomes since the last call. */
    QList<PayoutOutcome> takeOutcomes();
    /** Checks the running wait()'s condition again: for a condition that changes with something
        other than a payout's answer (queue a call to it from the thread where that happens). */
    void recheck() { checkWait(); }

    /** Submitted payouts without an outcome yet (in line, in flight or waiting to retry). */
    int backlog() const { return m_backlog; }
    bool idle() const { return m_backlog == 0; }
    int inFlight() const { return m_inFlight; }
    /** maxInFlight, capped by the gateway's concurrency. */
    int window() const { return m_window; }
    const PayoutCallCounts &counts() const { return m_counts; }

private:
    struct Pending {
        quint64 tag = 0;
        PayoutRequest request;
        int calls = 0;
    };

    /** Starts calls while there are free slots, payouts in line and tokens. */
    void pump();
    void schedulePump();
    void answered(Pending pending, const PayoutResult &result);
    void finish(Pending pending, const PayoutResult &result);
    /** Ends the running wait() when its condition holds. */
    void checkWait();
    void fail(std::exception_ptr error);

    PayoutGateway &m_gateway;
    PayoutDispatchOptions m_options;
    int m_window;
    std::deque<Pending> m_line;      // ready to be called
    int m_backlog = 0;
    int m_inFlight = 0;
    int m_tokens = 0;                // taken from the shared rate, not spent yet
    bool m_pumpScheduled = false;
    QTimer *m_rateTimer;             // runs the pump when the bucket has a token again
    QList<PayoutOutcome> m_outcomes;
    PayoutCallCounts m_counts;
    std::exception_ptr m_error;
    QEventLoop *m_loop = nullptr;    // the running wait(), if any
    bool m_loopEnded = false;        // this object ended it (not its thread quitting)
    std::function<bool()> m_enough;
};

} // namespace lantern
