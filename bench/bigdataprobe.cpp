#include "bigdataprobe.h"

#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QFile>
#include <QSqlQuery>
#include <QStringList>

#include <unistd.h>

#include <algorithm>

namespace lantern::bench {

namespace {

double statusMiB(const QByteArray &field)
{
    QFile file(QStringLiteral("/proc/self/status"));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : file.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(field.size()).trimmed().split(' ').first().toDouble() / 1024.0;
    }
    return 0;
}

} // namespace

double residentMiB() { return statusMiB("VmRSS:"); }
double peakResidentMiB() { return statusMiB("VmHWM:"); }

void ServerCost::divide(double count)
{
    redisUsec /= count;
    redisCalls = qint64(double(redisCalls) / count + 0.5);
    sqlRowsRead = qint64(double(sqlRowsRead) / count + 0.5);
    sqlCpuS /= count;
    for (CommandCost &command : byCommand) {
        command.usec /= count;
        command.calls /= count;
    }
}

QString ServerCost::byCommandText(int kinds) const
{
    QStringList parts;
    for (const CommandCost &command : byCommand.mid(0, kinds))
        parts << QStringLiteral("%1 %2 us (%3 calls)").arg(command.name, QString::number(command.usec, 'f', 0), QString::number(command.calls, 'f', command.calls < 10 ? 1 : 0));
    if (byCommand.size() > kinds)
        parts << QStringLiteral("%1 more kinds").arg(byCommand.size() - kinds);
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QStringLiteral(", "));
}

ServerProbe::ServerProbe(RedisClient &redis, SqlConnection &sql, qint64 mariadbPid) : m_redis(redis), m_sql(sql), m_mariadbPid(mariadbPid) {}

qint64 ServerProbe::sqlStatus(const QString &like)
{
    qint64 sum = 0;
    QSqlQuery query = m_sql.exec(QStringLiteral("SHOW GLOBAL STATUS LIKE '%1'").arg(like));
    while (query.next())
        sum += query.value(1).toLongLong();
    return sum;
}

double ServerProbe::mariadbCpuS() const
{
    if (m_mariadbPid <= 0)
        return 0;
    QFile file(QStringLiteral("/proc/%1/stat").arg(m_mariadbPid));
    if (!file.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray text = file.readAll();
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    return fields.size() > 12 ? double(fields[11].toLongLong() + fields[12].toLongLong()) / double(sysconf(_SC_CLK_TCK)) : 0;
}

double ServerProbe::redisCpuS()
{
    double seconds = 0;
    for (const QByteArray &line : m_redis.command({"INFO", "cpu"}).toBytes().split('\n')) {
        if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:"))
            seconds += line.mid(line.indexOf(':') + 1).trimmed().toDouble();
    }
    return seconds;
}

void ServerProbe::start()
{
    m_redis.pipeline({{"CONFIG", "SET", "slowlog-log-slower-than", QByteArray::number(SlowUsec)},
                      {"CONFIG", "SET", "slowlog-max-len", "100000"},
                      {"SLOWLOG", "RESET"}});
    m_handlerReads = sqlStatus(QStringLiteral("Handler_read_%"));
    m_cpuS = mariadbCpuS();
    m_redis.command({"CONFIG", "RESETSTAT"});
}

ServerCost ServerProbe::stop()
{
    ServerCost cost;
    const QByteArray stats = m_redis.command({"INFO", "commandstats"}).toBytes();
    for (const QByteArray &raw : stats.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (!line.startsWith("cmdstat_"))
            continue;
        const QByteArray name = line.mid(8, line.indexOf(':') - 8);
        qint64 calls = 0;
        double usec = 0;
        for (const QByteArray &pair : line.mid(line.indexOf(':') + 1).split(',')) {
            if (pair.startsWith("calls="))
                calls = pair.mid(6).toLongLong();
            else if (pair.startsWith("usec="))
                usec = pair.mid(5).toDouble();
        }
        if (name.startsWith("config") || name.startsWith("info") || name.startsWith("slowlog"))
            continue;  // the probe's own (CONFIG RESETSTAT counts itself)
        cost.redisUsec += usec;
        cost.redisCalls += calls;
        const QString kind = QString::fromLatin1(name).replace(QLatin1Char('|'), QLatin1Char(' '));  // "cluster|slots": not a table's column
        if (calls > 0 && usec / double(calls) > cost.dearestUsec) {
            cost.dearestUsec = usec / double(calls);
            cost.dearest = kind;
        }
        if (calls > 0)
            cost.byCommand << CommandCost{kind, usec, double(calls)};
    }
    std::sort(cost.byCommand.begin(), cost.byCommand.end(), [](const CommandCost &a, const CommandCost &b) { return a.usec > b.usec; });
    for (const RedisValue &entry : m_redis.command({"SLOWLOG", "GET", "100000"}).elements) {
        if (entry.elements.size() < 4)
            continue;
        const double usec = double(entry.elements[2].toInteger());
        const auto &argv = entry.elements[3].elements;
        const QString name = argv.empty() ? QString() : QString::fromUtf8(argv[0].toBytes()).toLower();
        if (name == QLatin1String("config") || name == QLatin1String("slowlog") || name == QLatin1String("info"))
            continue;  // the probe's own
        cost.overMs += usec > 1000;
        if (usec > cost.slowestUsec) {
            cost.slowestUsec = usec;
            cost.slowest = name + (argv.size() > 1 ? QLatin1Char(' ') + QString::fromUtf8(argv[1].toBytes()).left(60) : QString());
            if (argv.size() > 2)
                cost.slowest += QLatin1Char(' ') + QString::fromUtf8(argv[2].toBytes()).left(20);
        }
    }
    m_redis.command({"CONFIG", "SET", "slowlog-log-slower-than", "10000"});
    // MariaDB 10.11 has no Innodb_rows_read: the handler's row reads (index and table, every kind).
    cost.sqlRowsRead = sqlStatus(QStringLiteral("Handler_read_%")) - m_handlerReads;
    cost.sqlCpuS = mariadbCpuS() - m_cpuS;
    return cost;
}

} // namespace lantern::bench
