#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace lantern::bench {

/** Which CPUs a bench's processes may run on: empty means wherever they land (a child inherits
    the bench's own), as when nothing is pinned. */
using CpuSet = QList<int>;

/** Every CPU online on this machine: 0 .. n-1. */
CpuSet onlineCpus();
/** "0", "0-1", "0,2": the list taskset and the reports show. */
QString cpuListText(const CpuSet &cpus);
/** `cpus` parsed from that list; throws InvalidInputError for a CPU that is not online. */
CpuSet parseCpuList(const QString &text);

/** Moves every thread process `pid` has now onto `cpus` (sched_setaffinity on each of
    /proc/PID/task; threads it starts later inherit their starter's); nothing for empty `cpus`.
    Throws LanternError when a thread cannot be moved. */
void placeProcess(qint64 pid, const CpuSet &cpus);

/** The command that runs `program arguments` on `cpus` (through taskset, from util-linux), or
    the command itself for empty `cpus`: {program, arguments...}. */
QStringList placedCommand(const QString &program, const QStringList &arguments, const CpuSet &cpus);

} // namespace lantern::bench
