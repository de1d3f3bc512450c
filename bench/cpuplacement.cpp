#include "cpuplacement.h"

#include "core/errors.h"

#include <QDir>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sched.h>
#include <unistd.h>

namespace lantern::bench {

CpuSet onlineCpus()
{
    CpuSet cpus;
    const long count = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (int cpu = 0; cpu < count; ++cpu)
        cpus << cpu;
    return cpus;
}

QString cpuListText(const CpuSet &cpus)
{
    QStringList parts;
    for (qsizetype i = 0; i < cpus.size();) {
        qsizetype end = i;
        while (end + 1 < cpus.size() && cpus[end + 1] == cpus[end] + 1)
            ++end;
        parts << (end > i ? QStringLiteral("%1-%2").arg(cpus[i]).arg(cpus[end]) : QString::number(cpus[i]));
        i = end + 1;
    }
    return parts.join(QLatin1Char(','));
}

CpuSet parseCpuList(const QString &text)
{
    const CpuSet online = onlineCpus();
    CpuSet cpus;
    for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QStringList range = part.split(QLatin1Char('-'));
        bool firstOk = false;
        bool lastOk = range.size() == 1;
        const int first = range.first().toInt(&firstOk);
        const int last = range.size() == 2 ? range.last().toInt(&lastOk) : first;
        if (range.size() > 2 || !firstOk || !lastOk || first > last)
            throw InvalidInputError(QStringLiteral("'%1' is not a CPU list (e.g. 0 or 0-1 or 0,2)").arg(text));
        for (int cpu = first; cpu <= last; ++cpu) {
            if (!online.contains(cpu))
                throw InvalidInputError(QStringLiteral("CPU %1 is not online (this machine has %2)").arg(cpu).arg(cpuListText(online)));
            if (!cpus.contains(cpu))
                cpus << cpu;
        }
    }
    if (cpus.isEmpty())
        throw InvalidInputError(QStringLiteral("'%1' is not a CPU list (e.g. 0 or 0-1 or 0,2)").arg(text));
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

void placeProcess(qint64 pid, const CpuSet &cpus)
{
    if (cpus.isEmpty())
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int cpu : cpus)
        CPU_SET(cpu, &set);
    const QStringList threads = QDir(QStringLiteral("/proc/%1/task").arg(pid)).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    if (threads.isEmpty())
        throw LanternError(QStringLiteral("cannot list the threads of process %1").arg(pid));
    for (const QString &thread : threads) {
        if (::sched_setaffinity(static_cast<pid_t>(thread.toLongLong()), sizeof(set), &set) != 0 && errno != ESRCH)
            throw LanternError(QStringLiteral("cannot move thread %1 of process %2 to CPU %3: %4")
                                       .arg(thread)
                                       .arg(pid)
                                       .arg(cpuListText(cpus), QString::fromLocal8Bit(std::strerror(errno))));
    }
}

QStringList placedCommand(const QString &program, const QStringList &arguments, const CpuSet &cpus)
{
    if (cpus.isEmpty())
        return QStringList{program} + arguments;
    return QStringList{QStringLiteral("taskset"), QStringLiteral("-c"), cpuListText(cpus), program} + arguments;
}

} // namespace lantern::bench
