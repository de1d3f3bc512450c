#pragma once

#include <QByteArrayList>
#include <QCoreApplication>

#include <functional>

namespace lantern {

class RedisClient;

/** SCAN MATCH `pattern` on every master, a cursor each (one server: itself), for what lists keys
    (DESIGN §3: never KEYS). `page` gets each non-empty page of keys. A key a reshard moves
    meanwhile may be missed or seen twice; an error reply throws RedisReplyError. */
class MasterScan final {
    Q_DECLARE_TR_FUNCTIONS(lantern::MasterScan)

public:
    static void run(RedisClient &redis, const QByteArray &pattern, int count, const std::function<void(const QByteArrayList &keys)> &page);
};

} // namespace lantern
