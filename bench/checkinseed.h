#pragma once

#include <QByteArrayList>
#include <QDate>
#include <QList>

#include <vector>

namespace lantern {
class KeySchema;
class RedisClient;
}

namespace lantern::bench {

/** Sends commands in pipelines of `batch`; throws on the first error reply. */
class Pipeliner final {
public:
    Pipeliner(RedisClient &redis, int batch) : m_redis(redis), m_batch(batch) { m_commands.reserve(batch); }

    void add(QByteArrayList command);
    void flush();
    qint64 sent() const { return m_sent; }

private:
    RedisClient &m_redis;
    int m_batch;
    QList<QByteArrayList> m_commands;
    qint64 m_sent = 0;
};

/** One user's month: the signed days and the make-up days among them (MonthBits order: bit d-1 = day d). */
struct UserMonth {
    quint32 days = 0;
    quint32 makeups = 0;
};

/** The block layout as checkin.lua leaves it, without running the script once per user-day:
    each block the script's way (a whole zero string SET from Lua), then each user's month word
    (BITFIELD SET, the bits the script's SETBITs would leave; sparse users HSET), the make-up
    marks (HSET slot or m<uid>), the month's block sets (SADD). Returns the commands sent. */
qint64 seedBlocks(RedisClient &redis, const KeySchema &keys, QDate month, const std::vector<qint64> &uids,
                  const std::vector<UserMonth> &months, int batch);

} // namespace lantern::bench
