#include "checkin/layoutmigration.h"

#include "checkin/checkinlayout.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/keyslot.h"
#include "redis/luascript.h"
#include "redis/masterscan.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QMap>

namespace lantern {

namespace {

const LuaScript &migrateScript()
{
    static const LuaScript script(QStringLiteral("checkin_migrate"));
    return script;
}

} // namespace

LayoutMigrationReport LayoutMigration::run(bool dryRun, const Progress &progress)
{
    m_redis.ensureConnected();
    LayoutMigrationReport report;
    report.dryRun = dryRun;
    if (!dryRun)
        m_redis.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), migrateScript().body()});
    scan(m_keys.checkinTagPattern() + "sign:*", [&](const QByteArrayList &keys) {
        report.scanned += keys.size();
        if (!dryRun)
            report.migrated += migratePage(keys);
        if (progress)
            progress(report);
    });
    scan(m_keys.checkinTagPattern() + "day:*", [&](const QByteArrayList &keys) {
        report.daySets += keys.size();
        if (!dryRun && !keys.isEmpty())
            report.daySetsRemoved += unlink(keys);
        if (progress)
            progress(report);
    });
    return report;
}

void LayoutMigration::scan(const QByteArray &pattern, const std::function<void(const QByteArrayList &)> &page)
{
    // SCAN describes the node that answers: every master, a cursor each (one server: itself).
    // A key a reshard moves meanwhile may be missed or seen twice; the migration is idempotent
    // and resumable, so a second run finds what the first missed.
    MasterScan::run(m_redis, pattern, m_scanCount, page);
}

qint64 LayoutMigration::unlink(const QByteArrayList &keys)
{
    // One UNLINK per slot: the day sets of different shards are different slots (CROSSSLOT on a
    // cluster); one round trip still, split by node.
    QMap<int, QByteArrayList> bySlot;
    for (const QByteArray &key : keys)
        bySlot[keyslot::of(key)] << key;
    QList<QByteArrayList> commands;
    for (const QByteArrayList &slotKeys : std::as_const(bySlot))
        commands << QByteArrayList{QByteArrayLiteral("UNLINK")} + slotKeys;
    qint64 removed = 0;
    for (const RedisValue &reply : m_redis.pipeline(commands)) {
        throwOnErrorReply(reply);
        removed += reply.toInteger();
    }
    return removed;
}

qint64 LayoutMigration::migratePage(const QByteArrayList &signKeys)
{
    const CheckinLayout layout(m_keys);
    QList<QByteArrayList> commands;
    for (const QByteArray &signKey : signKeys) {
        // <prefix>{ck:S}:sign:<uid>:<yyyyMM>
        const qsizetype at = signKey.lastIndexOf(":sign:");
        const QByteArrayList parts = signKey.mid(at + 6).split(':');
        bool uidOk = false;
        const qint64 uid = parts.value(0).toLongLong(&uidOk);
        const QDate month = QDate::fromString(QString::fromLatin1(parts.value(1)), QStringLiteral("yyyyMM"));
        if (at < 0 || parts.size() != 2 || !uidOk || uid < 0 || !month.isValid())
            continue;  // not a key this layout wrote: left alone
        const UserPlace user = layout.place(uid);
        QByteArray makeupKey = signKey;
        makeupKey.replace(at, 6, ":makeup:");
        const QByteArrayList keys{signKey, makeupKey, layout.signKey(user, month), layout.makeupKey(user, month),
                                  m_keys.monthBlocks(user.shard, month)};
        // The script is atomic only within one slot: on a cluster, the old key's {ck:S} tag must
        // be the shard the layout gives the uid now (it is, unless the shard count changed since).
        if (m_redis.isCluster() && keyslot::of(keys.front()) != keyslot::of(keys.back()))
            throw InvalidInputError(tr("%1 is in slot %2 but the uid's blocks are in slot %3 (shard %4): its shard tag was written "
                                       "with another shard count, so it cannot move in one step on a Redis Cluster; migrate it on "
                                       "a single server")
                                            .arg(QString::fromUtf8(signKey))
                                            .arg(keyslot::of(keys.front()))
                                            .arg(keyslot::of(keys.back()))
                                            .arg(user.shard));
        commands << migrateScript().evalshaCommand(keys, {QByteArray::number(uid), CheckinLayout::placeArgument(user)});
    }
    qint64 moved = 0;
    for (const RedisValue &reply : m_redis.pipeline(commands)) {
        throwOnErrorReply(reply);
        moved += reply.toInteger();
    }
    return moved;
}

} // namespace lantern
