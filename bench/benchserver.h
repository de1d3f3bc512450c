#pragma once

#include "redis/redisclient.h"

#include <QByteArrayList>

#include <functional>
#include <optional>

namespace lantern {
class LuaScript;
}

namespace lantern::bench {

/** The bench's own connection for set-up between phases: loading the script, capturing the
    library's command line, emptying the bench's keys. Never used while a phase is timed. */
class BenchServer final {
public:
    explicit BenchServer(RedisClient &redis) : m_redis(redis) {}

    /** SCRIPT LOAD; throws unless the server's SHA1 is the one LuaScript computed. */
    void loadScript(const LuaScript &script);

    /** Runs `action` with the slow log recording every command and returns the argv of the one
        command it sent that contains `marker`: the library's exact command line, as the server
        received it. The slow-log settings are restored afterwards. */
    QByteArrayList captureCommand(const std::function<void()> &action, const QByteArray &marker);

    /** SCAN MATCH prefix* on every master + DEL; returns how many keys went. */
    qint64 removeKeys(const QByteArray &prefix);

    qint64 listLength(const QByteArray &key);
    /** COPY from to REPLACE: `to` becomes a copy of `from` (one slot on a cluster). */
    void copyKey(const QByteArray &from, const QByteArray &to);

    /** CONFIG RESETSTAT, so the next commandMicros() covers one phase only. */
    void resetStats();
    /** The server's mean time per call of `command` (lowercase) since resetStats(), in µs:
        what the server spent on it, whoever the client. */
    double commandMicros(const QByteArray &command);
    /** CPU time the server process has used so far (used_cpu_user + used_cpu_sys), in µs. */
    double cpuMicros();
    /** How long the server's main thread has so far been ready to run but waiting for a CPU
        (the kernel's run delay, /proc/PID/task/PID/schedstat), in µs; none when the server is
        not a process of this machine (INFO's process_id and tcp_port name no local
        redis-server). */
    std::optional<double> waitingMicros();
    /** INFO memory's used_memory, in bytes. */
    qint64 usedMemory();

private:
    RedisClient &m_redis;
    std::optional<QString> m_schedstatPath;  // looked up once: empty when the server is not local
};

/** Removes the keys under a prefix when it goes out of scope, however the run ended. (A killed
    run leaves them; the next run removes them before it starts.) */
class KeysRemovedOnExit final {
public:
    KeysRemovedOnExit(BenchServer &server, QByteArray prefix) : m_server(server), m_prefix(std::move(prefix)) {}
    ~KeysRemovedOnExit();
    Q_DISABLE_COPY_MOVE(KeysRemovedOnExit)

private:
    BenchServer &m_server;
    QByteArray m_prefix;
};

} // namespace lantern::bench
