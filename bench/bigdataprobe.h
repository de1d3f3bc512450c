#pragma once

#include <QList>
#include <QString>

namespace lantern {
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** One kind of Redis command's share of a ServerCost (INFO commandstats). */
struct CommandCost {
    QString name;
    double usec = 0;
    double calls = 0;
};

/** What the servers spent between ServerProbe::start() and stop(). */
struct ServerCost {
    double redisUsec = 0;        // INFO commandstats: usec of every command, summed
    qint64 redisCalls = 0;
    double dearestUsec = 0;      // commandstats: the command kind with the highest mean usec per call
    QString dearest;             // its name
    double slowestUsec = 0;      // SLOWLOG: the longest single command over the threshold; 0: none
    QString slowest;             // its name and first key
    qint64 overMs = 0;           // SLOWLOG: commands that took over 1 ms
    qint64 sqlRowsRead = 0;      // Handler_read_* summed: rows read through an index or a table scan
    double sqlCpuS = 0;          // mariadbd's user + system CPU (/proc/PID/stat), when its pid is known
    QList<CommandCost> byCommand;  // every kind of command, the dearest (usec) first

    /** The cost of one of `count` equal runs. */
    void divide(double count);
    /** The `kinds` dearest kinds of command: "llen 21000 us (36000 calls), ...". */
    QString byCommandText(int kinds) const;
};

/** Reads what a piece of console work costs the servers: Redis's commandstats (reset at start),
    its slow log (every command over SlowUsec kept), and MariaDB's global row-read counters and CPU. */
class ServerProbe final {
public:
    static constexpr int SlowUsec = 100;

    ServerProbe(RedisClient &redis, SqlConnection &sql, qint64 mariadbPid);

    void start();
    ServerCost stop();
    /** redis-server's used_cpu_user + used_cpu_sys so far, in seconds. */
    double redisCpuS();

private:
    qint64 sqlStatus(const QString &like);
    double mariadbCpuS() const;

    RedisClient &m_redis;
    SqlConnection &m_sql;
    qint64 m_mariadbPid;
    qint64 m_handlerReads = 0;
    double m_cpuS = 0;
};

/** The process's resident memory now and at its peak (VmRSS, VmHWM), in MiB. */
double residentMiB();
double peakResidentMiB();

} // namespace lantern::bench
