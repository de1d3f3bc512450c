#pragma once

#include <QList>
#include <QPair>
#include <QString>

#include <functional>

namespace lantern::bench {

/** A function whose inclusive share (itself and what it calls) the profile summary reports, and
    what it stands for: {"lantern::UserTokens::verifyBearer", "bearer check"}. */
using PerfProbe = QPair<QString, QString>;

/** What perf says about a process under load. */
struct PerfReport {
    QString command;  // the perf record command line, as printed (without the output file)
    QString text;     // Markdown: samples by binary, the probes' inclusive shares, the top functions
};

/** Attaches `perf record --call-graph dwarf` to process `pid` while `action` runs, then summarises
    the profile with perf report. Throws LanternError when perf cannot record (perf_event_paranoid,
    no perf) or report. */
PerfReport profileProcess(const QString &perf, qint64 pid, const QString &dataPath, const std::function<void()> &action,
                          const QList<PerfProbe> &probes);

} // namespace lantern::bench
