#include "timedgateway.h"

namespace lantern::bench {

PayoutResult TimedGateway::pay(const PayoutRequest &request)
{
    const Clock::time_point start = Clock::now();
    PayoutResult result = m_inner.pay(request);
    m_calls.emplace_back(start, Clock::now());
    return result;
}

void TimedGateway::start()
{
    m_calls.clear();
    m_calls.reserve(1 << 20);
    m_start = Clock::now();
}

DrainBreakdown TimedGateway::breakdown(int batchSize) const
{
    const auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
    DrainBreakdown split;
    split.totalSeconds = seconds(Clock::now() - m_start);
    split.tasks = static_cast<qint64>(m_calls.size());
    split.batches = (split.tasks + batchSize - 1) / batchSize;
    if (split.tasks < 2 || batchSize < 2)
        return split;

    double betweenTasks = 0;
    qint64 gapsBetweenTasks = 0;
    for (size_t i = 0; i < m_calls.size(); ++i) {
        split.gatewaySeconds += seconds(m_calls[i].second - m_calls[i].first);
        if (i > 0 && i % static_cast<size_t>(batchSize) != 0) {
            betweenTasks += seconds(m_calls[i].first - m_calls[i - 1].second);
            ++gapsBetweenTasks;
        }
    }
    // Every task has one UPDATE after its pay(); a batch's last one falls into the gap before the
    // next batch, so it is counted at the mean of the others and taken out of the batch's time.
    const double perTask = gapsBetweenTasks > 0 ? betweenTasks / static_cast<double>(gapsBetweenTasks) : 0;
    split.perTaskSeconds = perTask * static_cast<double>(split.tasks);
    split.batchSeconds = split.totalSeconds - split.gatewaySeconds - split.perTaskSeconds;
    split.valid = split.batchSeconds > 0;
    return split;
}

} // namespace lantern::bench
