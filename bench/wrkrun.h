#pragma once

#include <QMap>
#include <QString>
#include <QStringList>

namespace lantern::bench {

/** One wrk run of bench/wrk/bearers.lua: every line of the bearer file sent once. */
struct WrkOptions {
    QString program = QStringLiteral("wrk");
    QString script;       // bench/wrk/bearers.lua
    QString url;          // http://127.0.0.1:PORT/v1/checkin
    QString bearerFile;   // one bearer per request
    int threads = 2;      // -t: each takes every threads-th line
    int connections = 50; // -c, shared out over the threads
    int timeoutSeconds = 10;  // --timeout: an answer later than this counts as a timeout
    int maxSeconds = 900;     // -d: only bounds a run that goes wrong (the script stops wrk)
};

/** What wrk and the script's done() report. Latencies are wrk's (with its correction for
    coordinated omission), over every answer including the fillers. */
struct WrkFigures {
    qint64 answered = 0;      // answers to the file's requests
    qint64 fillers = 0;       // answers to GET /healthz sent after a thread's slice (see the script)
    qint64 non2xx = 0;        // among `answered`
    qint64 socketErrors = 0;  // connect + read + write + timeout
    double seconds = 0;
    double perSecond = 0;     // answered / seconds
    double p50Ms = 0;
    double p99Ms = 0;
    double maxMs = 0;
    double clientMicros = 0;  // wrk's CPU time (user + system) per answered request
    QMap<QString, qint64> outcomes;  // answers by their "status" (grab) or new/already (check-in)
};

/** wrk's arguments, without the program; `donePath` is the script's stop file. */
QStringList wrkArguments(const WrkOptions &options, const QString &donePath);

/** Runs wrk, waits for it and reads the script's summary line. Throws LanternError if wrk fails
    or answers fewer requests than the file has lines (`expected`). */
WrkFigures runWrk(const WrkOptions &options, qint64 expected);

} // namespace lantern::bench
