#include "checkin/layoutmigration.h"

#include "checkin/checkinlayout.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

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
    if (m_redis.isCluster())
        throw InvalidInputError(tr("migrate-redis needs a single Redis server: it finds the old keys with SCAN, which a Redis Cluster "
                                   "answers per node (run it against each master's data before joining the cluster)"));
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
            report.daySetsRemoved += m_redis.command(QByteArrayList{QByteArrayLiteral("UNLINK")} + keys).toInteger();
        if (progress)
            progress(report);
    });
    return report;
}

void LayoutMigration::scan(const QByteArray &pattern, const std::function<void(const QByteArrayList &)> &page)
{
    QByteArray cursor = "0";
    do {
        const RedisValue reply = m_redis.command({QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("MATCH"), pattern,
                                                  QByteArrayLiteral("COUNT"), QByteArray::number(m_scanCount)});
        if (reply.isError())
            throw RedisReplyError(QString::fromUtf8(reply.string));
        if (reply.elements.size() != 2)
            throw RedisReplyError(tr("unexpected SCAN reply"));
        cursor = reply.elements[0].toBytes();
        const QByteArrayList keys = reply.elements[1].toBytesList();
        if (!keys.isEmpty())
            page(keys);
    } while (cursor != "0");
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
        commands << migrateScript().evalshaCommand({signKey, makeupKey, layout.signKey(user, month), layout.makeupKey(user, month),
                                                    m_keys.monthBlocks(user.shard, month)},
                                                   {QByteArray::number(uid), CheckinLayout::placeArgument(user)});
    }
    qint64 moved = 0;
    for (const RedisValue &reply : m_redis.pipeline(commands)) {
        if (reply.isError())
            throw RedisReplyError(QString::fromUtf8(reply.string));
        moved += reply.toInteger();
    }
    return moved;
}

} // namespace lantern
