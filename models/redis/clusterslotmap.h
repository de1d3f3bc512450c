#pragma once

#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QCoreApplication>
#include <QList>

#include <optional>
#include <vector>

namespace lantern {

/** Which master serves each of a Redis Cluster's 16384 slots, read from CLUSTER SLOTS. */
class ClusterSlotMap final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    ClusterSlotMap();

    /** Parses a CLUSTER SLOTS reply: [[start, end, [host, port, id, ...], replicas...], ...].
        A node entry may carry more fields than host and port (id, metadata: ignored); an empty or
        null host means `answeredBy`'s host, the node that sent the reply. Throws RedisReplyError
        for a reply of another shape. */
    static ClusterSlotMap fromSlotsReply(const RedisValue &reply, const RedisEndpoint &answeredBy);

    /** The master serving `slot`, if any serves it. */
    std::optional<RedisEndpoint> masterOf(int slot) const;
    /** Points `slot` at `master` (a MOVED reply), adding the master if it is new. */
    void assign(int slot, const RedisEndpoint &master);
    /** Every master that serves at least one slot, in the order CLUSTER SLOTS named them. */
    QList<RedisEndpoint> masters() const;
    /** Every node the map names, masters and replicas: candidates to ask for a fresh map. */
    const QList<RedisEndpoint> &knownNodes() const { return m_knownNodes; }
    /** Slots that no master serves. */
    int uncoveredSlots() const;

private:
    int indexOf(const RedisEndpoint &master);

    QList<RedisEndpoint> m_masters;
    QList<RedisEndpoint> m_knownNodes;
    std::vector<qint16> m_owner;     // slot -> index into m_masters, -1 when uncovered
    std::vector<int> m_slotCounts;   // per master: how many slots it serves
    int m_lastIndex = -1;            // of the master indexOf() found last
};

} // namespace lantern
