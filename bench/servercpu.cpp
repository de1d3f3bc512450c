#include "servercpu.h"

#include "redis/redisclient.h"

#include <QStringList>

namespace lantern::bench {

QMap<QString, double> serverCpu(RedisClient &redis)
{
    QMap<QString, double> cpu;
    for (const auto &[master, info] : redis.onEveryMaster({"INFO", "cpu"})) {
        double seconds = 0;
        for (const QByteArray &line : info.toBytes().split('\n')) {
            if (line.startsWith("used_cpu_user:") || line.startsWith("used_cpu_sys:"))
                seconds += line.mid(line.indexOf(':') + 1).trimmed().toDouble();
        }
        cpu.insert(master.text(), seconds);
    }
    return cpu;
}

QString cpuSpent(const QMap<QString, double> &before, const QMap<QString, double> &after)
{
    QStringList parts;
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        parts << QStringLiteral("%1 %2 s").arg(it.key()).arg(it.value() - before.value(it.key()), 0, 'f', 2);
    return parts.join(QStringLiteral(", "));
}

} // namespace lantern::bench
