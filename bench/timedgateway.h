#pragma once

#include "payout/payoutgateway.h"

#include <chrono>
#include <utility>
#include <vector>

namespace lantern::bench {

/** Where a drain's time went, told apart by when the gateway was called. EnvelopeDrain pays a
    batch's tasks one after another, and between two of them runs the previous task's payout
    UPDATE; everything else (claim, persist, SELECT, acknowledge) happens between two batches. */
struct DrainBreakdown {
    bool valid = false;      // one pay() per task, in whole batches: otherwise the split means nothing
    qint64 tasks = 0;
    qint64 batches = 0;
    double totalSeconds = 0;
    double gatewaySeconds = 0;  // inside pay()
    double perTaskSeconds = 0;  // between two pay() calls of one batch, for every task: its UPDATE and the loop
    double batchSeconds = 0;    // the rest: per batch, claim + persist + SELECT + acknowledge
};

/** A PayoutGateway that forwards to another and records when each pay() started and ended. */
class TimedGateway final : public PayoutGateway {
public:
    explicit TimedGateway(PayoutGateway &inner) : m_inner(inner) {}

    PayoutResult pay(const PayoutRequest &request) override;

    /** Forgets the calls so far; the phase starts now. */
    void start();
    /** Splits the time from start() to now, for a drain that claimed `batchSize` tasks per batch. */
    DrainBreakdown breakdown(int batchSize) const;

private:
    using Clock = std::chrono::steady_clock;

    PayoutGateway &m_inner;
    Clock::time_point m_start;
    std::vector<std::pair<Clock::time_point, Clock::time_point>> m_calls;
};

} // namespace lantern::bench
