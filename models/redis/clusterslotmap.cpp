#include "redis/clusterslotmap.h"

#include "redis/keyslot.h"
#include "redis/rediserror.h"

#include <numeric>

namespace lantern {

namespace {

[[noreturn]] void malformedSlots(const RedisEndpoint &from)
{
    throw RedisReplyError(ClusterSlotMap::tr("Redis at %1 answered CLUSTER SLOTS with a reply of an unexpected shape").arg(from.text()));
}

RedisEndpoint nodeOfEntry(const RedisValue &entry, const RedisEndpoint &answeredBy)
{
    if (entry.type != RedisValue::Type::Array || entry.elements.size() < 2 || entry.elements[1].type != RedisValue::Type::Integer)
        malformedSlots(answeredBy);
    const RedisValue &host = entry.elements[0];
    if (host.type != RedisValue::Type::String && host.type != RedisValue::Type::Nil)
        malformedSlots(answeredBy);
    const long long port = entry.elements[1].integer;
    if (port <= 0 || port > 65535)
        malformedSlots(answeredBy);
    // An unknown endpoint (null, "" or "?") means: the host this reply came from, this port.
    const QString name = QString::fromUtf8(host.string);
    const bool unknown = host.isNil() || name.isEmpty() || name == QLatin1String("?");
    return {unknown ? answeredBy.host : name, int(port)};
}

} // namespace

ClusterSlotMap::ClusterSlotMap() : m_owner(keyslot::SlotCount, qint16(-1)) {}

ClusterSlotMap ClusterSlotMap::fromSlotsReply(const RedisValue &reply, const RedisEndpoint &answeredBy)
{
    if (reply.type != RedisValue::Type::Array)
        malformedSlots(answeredBy);
    ClusterSlotMap map;
    for (const RedisValue &range : reply.elements) {
        if (range.type != RedisValue::Type::Array || range.elements.size() < 3)
            malformedSlots(answeredBy);
        const RedisValue &start = range.elements[0];
        const RedisValue &end = range.elements[1];
        if (start.type != RedisValue::Type::Integer || end.type != RedisValue::Type::Integer || start.integer < 0
            || end.integer >= keyslot::SlotCount || start.integer > end.integer)
            malformedSlots(answeredBy);
        const RedisEndpoint master = nodeOfEntry(range.elements[2], answeredBy);
        for (long long slot = start.integer; slot <= end.integer; ++slot)
            map.assign(int(slot), master);
        for (size_t i = 2; i < range.elements.size(); ++i) {
            const RedisEndpoint node = nodeOfEntry(range.elements[i], answeredBy);
            if (!map.m_knownNodes.contains(node))
                map.m_knownNodes.append(node);
        }
    }
    return map;
}

int ClusterSlotMap::indexOf(const RedisEndpoint &master)
{
    if (m_lastIndex >= 0 && m_masters.at(m_lastIndex) == master)  // ranges come master by master
        return m_lastIndex;
    qsizetype index = m_masters.indexOf(master);
    if (index < 0) {
        m_masters.append(master);
        m_slotCounts.push_back(0);
        index = m_masters.size() - 1;
        if (!m_knownNodes.contains(master))
            m_knownNodes.append(master);
    }
    m_lastIndex = int(index);
    return m_lastIndex;
}

std::optional<RedisEndpoint> ClusterSlotMap::masterOf(int slot) const
{
    const qint16 index = m_owner.at(size_t(slot));
    if (index < 0)
        return std::nullopt;
    return m_masters.at(index);
}

void ClusterSlotMap::assign(int slot, const RedisEndpoint &master)
{
    qint16 &owner = m_owner.at(size_t(slot));
    if (owner >= 0)
        --m_slotCounts[size_t(owner)];
    owner = qint16(indexOf(master));
    ++m_slotCounts[size_t(owner)];
}

QList<RedisEndpoint> ClusterSlotMap::masters() const
{
    QList<RedisEndpoint> serving;
    for (qsizetype i = 0; i < m_masters.size(); ++i) {
        if (m_slotCounts[size_t(i)] > 0)
            serving.append(m_masters.at(i));
    }
    return serving;
}

int ClusterSlotMap::uncoveredSlots() const
{
    return keyslot::SlotCount - std::accumulate(m_slotCounts.cbegin(), m_slotCounts.cend(), 0);
}

} // namespace lantern
