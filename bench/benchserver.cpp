#include "benchserver.h"

#include "redis/keyslot.h"
#include "redis/luascript.h"
#include "redis/masterscan.h"
#include "redis/rediserror.h"

#include <QFile>
#include <QMap>

namespace lantern::bench {

namespace {

const QByteArray SlowerThan = QByteArrayLiteral("slowlog-log-slower-than");
const QByteArray MaxLen = QByteArrayLiteral("slowlog-max-len");

/** Restores the slow-log settings on every exit from captureCommand. */
class SlowlogSettings final {
public:
    explicit SlowlogSettings(RedisClient &redis) : m_redis(redis)
    {
        m_slowerThan = configValue(SlowerThan);
        m_maxLen = configValue(MaxLen);
    }
    ~SlowlogSettings()
    {
        try {
            m_redis.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("SET"), SlowerThan, m_slowerThan, MaxLen, m_maxLen});
        } catch (const LanternError &) {
            // Best effort: the capture's own error, if any, is the one worth reporting.
        }
    }
    Q_DISABLE_COPY_MOVE(SlowlogSettings)

private:
    QByteArray configValue(const QByteArray &name)
    {
        const RedisValue reply = m_redis.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"), name});
        if (reply.elements.size() != 2)
            throw RedisReplyError(QStringLiteral("CONFIG GET %1 returned no value").arg(QString::fromLatin1(name)));
        return reply.elements[1].toBytes();
    }

    RedisClient &m_redis;
    QByteArray m_slowerThan;
    QByteArray m_maxLen;
};

} // namespace

void BenchServer::loadScript(const LuaScript &script)
{
    const QByteArray sha = m_redis.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), script.body()}).toBytes();
    if (sha != script.sha1())
        throw RedisReplyError(QStringLiteral("SCRIPT LOAD of %1 returned %2, expected %3")
                                      .arg(script.name(), QString::fromLatin1(sha), QString::fromLatin1(script.sha1())));
}

QByteArrayList BenchServer::captureCommand(const std::function<void()> &action, const QByteArray &marker)
{
    RedisValue log;
    {
        const SlowlogSettings restore(m_redis);
        m_redis.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("SET"), SlowerThan, QByteArrayLiteral("0"), MaxLen,
                         QByteArrayLiteral("128")});
        m_redis.command({QByteArrayLiteral("SLOWLOG"), QByteArrayLiteral("RESET")});
        action();
        log = m_redis.command({QByteArrayLiteral("SLOWLOG"), QByteArrayLiteral("GET"), QByteArrayLiteral("128")});
    }
    // Entries: id, time, duration, argv, client address, client name.
    for (const RedisValue &entry : log.elements) {
        if (entry.elements.size() < 4)
            continue;
        QByteArrayList argv;
        bool marked = false;
        for (const RedisValue &arg : entry.elements[3].elements) {
            argv << arg.toBytes();
            marked = marked || argv.back().contains(marker);
        }
        if (!marked)
            continue;
        // The slow log shortens arguments over 128 bytes and commands over 32 arguments.
        for (const QByteArray &arg : std::as_const(argv)) {
            if (arg.endsWith("more bytes)") || arg.endsWith("more arguments)"))
                throw RedisReplyError(QStringLiteral("the slow log shortened the captured command: %1").arg(QString::fromLatin1(arg)));
        }
        return argv;
    }
    throw RedisReplyError(QStringLiteral("no command containing %1 in the slow log").arg(QString::fromLatin1(marker)));
}

qint64 BenchServer::removeKeys(const QByteArray &prefix)
{
    qint64 removed = 0;
    MasterScan::run(m_redis, prefix + '*', 1000, [&](const QByteArrayList &keys) {
        // DEL, not UNLINK: the big day set and queue are freed now, not by a background thread
        // while the next phase is being timed. One DEL per slot (a cluster refuses keys of two).
        QMap<int, QByteArrayList> bySlot;
        for (const QByteArray &key : keys)
            bySlot[keyslot::of(key)] << key;
        QList<QByteArrayList> deletes;
        for (const QByteArrayList &slotKeys : std::as_const(bySlot))
            deletes << QByteArrayList{QByteArrayLiteral("DEL")} + slotKeys;
        for (const RedisValue &count : m_redis.pipeline(deletes))
            removed += count.toInteger();
    });
    return removed;
}

qint64 BenchServer::listLength(const QByteArray &key)
{
    return m_redis.command({QByteArrayLiteral("LLEN"), key}).toInteger();
}

void BenchServer::resetStats()
{
    m_redis.command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("RESETSTAT")});
}

void BenchServer::copyKey(const QByteArray &from, const QByteArray &to)
{
    if (m_redis.command({QByteArrayLiteral("COPY"), from, to, QByteArrayLiteral("REPLACE")}).toInteger() != 1)
        throw RedisReplyError(QStringLiteral("COPY %1 %2 copied nothing").arg(QString::fromUtf8(from), QString::fromUtf8(to)));
}

double BenchServer::commandMicros(const QByteArray &command)
{
    // A line such as  cmdstat_evalsha:calls=100000,usec=1880000,usec_per_call=18.80,...
    const QByteArray info = m_redis.command({QByteArrayLiteral("INFO"), QByteArrayLiteral("commandstats")}).toBytes();
    const QByteArray prefix = "cmdstat_" + command + ':';
    for (const QByteArray &line : info.split('\n')) {
        if (!line.startsWith(prefix))
            continue;
        for (const QByteArray &field : line.mid(prefix.size()).trimmed().split(',')) {
            if (field.startsWith("usec_per_call="))
                return field.mid(14).toDouble();
        }
    }
    return 0;
}

namespace {

/** The value of `field` in an INFO section's "field:value" lines; throws if it is missing. */
QByteArray infoField(RedisClient &redis, const QByteArray &section, const QByteArray &field)
{
    const QByteArray info = redis.command({QByteArrayLiteral("INFO"), section}).toBytes();
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith(QByteArray(field + ':')))
            return line.mid(field.size() + 1).trimmed();
    }
    throw RedisReplyError(QStringLiteral("INFO %1 has no %2").arg(QString::fromLatin1(section), QString::fromLatin1(field)));
}

} // namespace

double BenchServer::cpuMicros()
{
    return (infoField(m_redis, QByteArrayLiteral("cpu"), QByteArrayLiteral("used_cpu_user")).toDouble()
            + infoField(m_redis, QByteArrayLiteral("cpu"), QByteArrayLiteral("used_cpu_sys")).toDouble())
           * 1e6;
}

std::optional<double> BenchServer::waitingMicros()
{
    if (!m_schedstatPath) {
        const QByteArray pid = infoField(m_redis, QByteArrayLiteral("server"), QByteArrayLiteral("process_id"));
        const QByteArray port = infoField(m_redis, QByteArrayLiteral("server"), QByteArrayLiteral("tcp_port"));
        QFile title(QStringLiteral("/proc/%1/cmdline").arg(QString::fromLatin1(pid)));
        // redis-server sets its title to "redis-server HOST:PORT ...": the same server, not a namesake.
        const QByteArray cmdline = title.open(QIODevice::ReadOnly) ? title.readAll() : QByteArray();
        const bool local = cmdline.startsWith("redis-server") && cmdline.contains(QByteArray(':' + port));
        m_schedstatPath = local ? QStringLiteral("/proc/%1/task/%1/schedstat").arg(QString::fromLatin1(pid)) : QString();
    }
    if (m_schedstatPath->isEmpty())
        return std::nullopt;
    QFile file(*m_schedstatPath);
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    // "<ns on a CPU> <ns waiting on a run queue> <time slices>"
    const QList<QByteArray> fields = file.readAll().simplified().split(' ');
    bool ok = false;
    const double waitingNs = fields.size() >= 2 ? fields[1].toDouble(&ok) : 0;
    return ok ? std::optional<double>(waitingNs / 1000) : std::nullopt;
}

qint64 BenchServer::usedMemory()
{
    return infoField(m_redis, QByteArrayLiteral("memory"), QByteArrayLiteral("used_memory")).toLongLong();
}

KeysRemovedOnExit::~KeysRemovedOnExit()
{
    try {
        m_server.removeKeys(m_prefix);
    } catch (const LanternError &) {
        // Best effort: the error that ended the run is the one to report.
    }
}

} // namespace lantern::bench
