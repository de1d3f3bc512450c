#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <functional>

namespace lantern::bench {

/** A function whose inclusive share (itself and what it calls) the profile summary reports, and
    what it stands for: {"lantern::UserTokens::verifyBearer", "bearer check"}. */
using PerfProbe = QPair<QString, QString>;

/** A kind of work a sample of the profile is counted as: a sample goes to the category of the
    first frame of its call chain, leaf first, whose function name starts with one of `prefixes`
    (a kernel frame: the category whose prefixes include "[kernel]"). */
struct PerfCategory {
    QString name;        // "bearer check"
    QStringList prefixes;  // {"lantern::ApiGate::authenticate", "lantern::UserTokens::", ...}
};

/** lanternd serve's hot path, for the HTTP benches: the probes (inclusive shares) and the
    categories (parsing, routing, bearer check, Redis pipe, JSON, system calls, allocation, ...). */
QList<PerfProbe> serveProbes();
QList<PerfCategory> serveCategories();

/** What perf says about a process under load. */
struct PerfReport {
    QString command;  // the perf record command line, as printed (without the output file)
    QString text;     // Markdown: samples by binary, the probes' inclusive shares, the top functions
};

/** Attaches `perf record --call-graph dwarf` to process `pid` while `action` runs, then summarises
    the profile with perf report. Throws LanternError when perf cannot record (perf_event_paranoid,
    no perf) or report. */
PerfReport profileProcess(const QString &perf, qint64 pid, const QString &dataPath, const std::function<void()> &action,
                          const QList<PerfProbe> &probes, const QList<PerfCategory> &categories = {});

} // namespace lantern::bench
