#include "redis/redisdurability.h"

#include "redis/redisclient.h"

#include <algorithm>
#include <optional>

namespace lantern {

namespace {

/** From CONFIG GET append* and CONFIG GET save replies: [name, value, name, value, ...]. */
RedisDurability durabilityOf(const RedisValue &append, const RedisValue &save)
{
    RedisDurability durability;
    if (append.isError() || append.elements.size() % 2 != 0)
        return durability;  // CONFIG renamed or refused by an ACL: Unknown
    for (size_t i = 0; i + 1 < append.elements.size(); i += 2) {
        const QByteArray name = append.elements[i].toBytes();
        if (name == "appendonly")
            durability.appendOnly = QString::fromLatin1(append.elements[i + 1].toBytes());
        else if (name == "appendfsync")
            durability.appendFsync = QString::fromLatin1(append.elements[i + 1].toBytes());
    }
    if (durability.appendOnly.isEmpty() || durability.appendFsync.isEmpty())
        return durability;
    const bool snapshots = save.isError() || save.elements.size() != 2 || !save.elements[1].toBytes().trimmed().isEmpty();
    if (!save.isError() && save.elements.size() == 2)
        durability.save = QString::fromLatin1(save.elements[1].toBytes().trimmed());
    if (durability.appendOnly != QLatin1String("yes"))
        durability.loss = snapshots ? RedisDurability::Loss::SinceSave : RedisDurability::Loss::Everything;
    else if (durability.appendFsync == QLatin1String("always"))
        durability.loss = RedisDurability::Loss::None;
    else if (durability.appendFsync == QLatin1String("everysec"))
        durability.loss = RedisDurability::Loss::OneSecond;
    else
        durability.loss = RedisDurability::Loss::OsFlush;
    return durability;
}

} // namespace

RedisDurability RedisDurability::read(RedisClient &redis)
{
    // On a cluster every master holds some campaigns: what the weakest one can lose is what
    // Lantern can lose (Loss is ordered from None to Unknown).
    std::optional<RedisDurability> weakest;
    const auto saves = redis.onEveryMaster({"CONFIG", "GET", "save"});
    for (const auto &[master, reply] : redis.onEveryMaster({"CONFIG", "GET", "append*"})) {
        const auto save = std::find_if(saves.cbegin(), saves.cend(), [&master = master](const auto &entry) { return entry.first == master; });
        const RedisDurability durability = durabilityOf(reply, save == saves.cend() ? RedisValue{} : save->second);
        if (!weakest || durability.loss > weakest->loss)
            weakest = durability;
    }
    return weakest.value_or(RedisDurability{});
}

QString RedisDurability::warning() const
{
    switch (loss) {
    case Loss::None:
        return {};
    case Loss::OneSecond:
        return tr("Redis writes its AOF to disk once a second (appendfsync everysec): an OS crash can lose about the last second of "
                  "grabs users were told they won. The ledger pays nobody twice and a repair rebuilds the campaign from SQL, but those "
                  "users are not paid. Set appendfsync always to lose none.");
    case Loss::OsFlush:
        return tr("Redis leaves flushing its AOF to the OS (appendfsync no): an OS crash can lose about the last 30 seconds of grabs "
                  "users were told they won. Set appendfsync always to lose none.");
    case Loss::SinceSave:
        return tr("Redis keeps no AOF (appendonly no): a restart loses every grab since its last snapshot, grabs users were told they "
                  "won. Set appendonly yes and appendfsync always to lose none.");
    case Loss::Everything:
        return tr("Redis keeps no AOF and takes no snapshots (appendonly no, save \"\"): a restart loses everything it holds, grabs "
                  "users were told they won among it. Set appendonly yes and appendfsync always to lose none.");
    case Loss::Unknown:
        return tr("Redis does not say how it persists (CONFIG GET is not allowed): unless it runs appendonly yes with appendfsync "
                  "always, a crash can lose grabs users were told they won.");
    }
    return {};
}

} // namespace lantern
