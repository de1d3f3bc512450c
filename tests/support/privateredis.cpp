#include "privateredis.h"

#include "privateserver.h"

#include "core/childprocess.h"

#include <hiredis/hiredis.h>

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace lantern::test {

namespace {

constexpr int RedisPortAttempts = 5;
// The highest port whose cluster bus port (+ 10000) still exists.
constexpr int HighestRedisPort = 55535;

struct RedisContextFree {
    void operator()(redisContext *context) const { redisFree(context); }
};
struct RedisReplyFree {
    void operator()(redisReply *reply) const { freeReplyObject(reply); }
};

/** One reply: `answered` false when the connection failed or timed out. */
struct RawReply {
    bool answered = false;
    bool error = false;
    QByteArray text;
};

QByteArray replyText(const redisReply *reply)
{
    switch (reply->type) {
    case REDIS_REPLY_INTEGER: return QByteArray::number(reply->integer);
    case REDIS_REPLY_NIL: return {};
    case REDIS_REPLY_ARRAY: {
        QByteArrayList elements;
        for (size_t i = 0; i < reply->elements; ++i)
            elements << replyText(reply->element[i]);
        return elements.join('\n');
    }
    default: return QByteArray(reply->str, qsizetype(reply->len));
    }
}

timeval redisTimeval(std::chrono::milliseconds ms)
{
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
    return tv;
}

/** Connects to 127.0.0.1:port, sends `args` (after AUTH `password` when given) and reads the
    reply, all within `timeout` each. */
RawReply exchange(int port, const QByteArrayList &args, std::chrono::milliseconds timeout, const QByteArray &password = {})
{
    const std::unique_ptr<redisContext, RedisContextFree> context(redisConnectWithTimeout("127.0.0.1", port, redisTimeval(timeout)));
    if (!context || context->err || redisSetTimeout(context.get(), redisTimeval(timeout)) != REDIS_OK)
        return {};
    QList<QByteArrayList> commands;
    if (!password.isEmpty())
        commands << QByteArrayList{QByteArrayLiteral("AUTH"), password};
    commands << args;
    RawReply last;
    for (const QByteArrayList &command : std::as_const(commands)) {
        std::vector<const char *> argv;
        std::vector<size_t> lengths;
        for (const QByteArray &arg : command) {
            argv.push_back(arg.constData());
            lengths.push_back(size_t(arg.size()));
        }
        const std::unique_ptr<redisReply, RedisReplyFree> reply(
                static_cast<redisReply *>(redisCommandArgv(context.get(), int(argv.size()), argv.data(), lengths.data())));
        if (!reply)
            return {};
        last = {true, reply->type == REDIS_REPLY_ERROR, replyText(reply.get())};
    }
    return last;
}

} // namespace

std::optional<QByteArray> rawRedisCommand(int port, const QByteArrayList &args, std::chrono::milliseconds timeout, const QByteArray &password)
{
    const RawReply reply = exchange(port, args, timeout, password);
    if (!reply.answered)
        return std::nullopt;
    return reply.error ? QByteArray(reply.text).prepend('-') : reply.text;
}

PrivateRedis::PrivateRedis(const QStringList &options)
    : m_dir(std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lantern-redis-XXXXXX"))), m_options(options)
{
    if (!m_dir->isValid())
        throw std::runtime_error("cannot create a temp dir: " + m_dir->errorString().toStdString());
    if (!QDir().mkpath(dataDir()))
        throw std::runtime_error("cannot create " + dataDir().toStdString());
    start();
}

PrivateRedis::~PrivateRedis()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString PrivateRedis::dataDir() const
{
    return m_dir->path() + QStringLiteral("/data");
}

QString PrivateRedis::appendDir() const
{
    return dataDir() + QStringLiteral("/appendonlydir");
}

RedisUrl PrivateRedis::url() const
{
    return RedisUrl::parse(urlText());
}

QString PrivateRedis::urlText() const
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(m_port);
}

QByteArray PrivateRedis::log() const
{
    return readFileFrom(m_dir->filePath(QStringLiteral("redis.log"))) + readFileFrom(m_dir->filePath(QStringLiteral("redis.out")));
}

void PrivateRedis::failWithLog(const QString &what) const
{
    throw std::runtime_error(what.toStdString() + "\n---- redis log ----\n" + log().right(4000).toStdString() + "\n---- end of redis log ----");
}

bool PrivateRedis::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 PrivateRedis::pid() const
{
    return m_process ? m_process->processId() : 0;
}

void PrivateRedis::start(const QStringList &extra)
{
    if (isRunning())
        failWithLog(QStringLiteral("redis-server is already running (pid %1)").arg(pid()));
    for (int attempt = 0; attempt < RedisPortAttempts; ++attempt) {
        if (!m_started)
            m_port = pickPrivatePort(HighestRedisPort + 1);
        if (tryStart(extra)) {
            m_started = true;
            return;
        }
    }
    failWithLog(QStringLiteral("redis-server: gave up after %1 ports in use").arg(RedisPortAttempts));
}

bool PrivateRedis::tryStart(const QStringList &extra)
{
    const QString logPath = m_dir->filePath(QStringLiteral("redis.log"));
    const qint64 logOffset = QFileInfo(logPath).size();
    QStringList arguments{QStringLiteral("--port"), QString::number(m_port),
                          QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                          QStringLiteral("--dir"), dataDir(),
                          QStringLiteral("--dbfilename"), QStringLiteral("dump.rdb"),
                          QStringLiteral("--appenddirname"), QFileInfo(appendDir()).fileName(),
                          QStringLiteral("--logfile"), logPath,
                          QStringLiteral("--daemonize"), QStringLiteral("no"),
                          QStringLiteral("--save"), QString(),
                          QStringLiteral("--enable-debug-command"), QStringLiteral("local"),
                          // Loading answers clients each time it has read this many bytes: with
                          // uncompressed 1 KiB values, after every key.
                          QStringLiteral("--rdbcompression"), QStringLiteral("no"),
                          QStringLiteral("--loading-process-events-interval-bytes"), QStringLiteral("1024")};
    arguments << m_options << extra;

    m_process = std::make_unique<QProcess>();
    endWithStarter(*m_process);  // a test that aborts leaves no server behind
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardOutputFile(m_dir->filePath(QStringLiteral("redis.out")), QIODevice::Append);
    m_process->setStandardInputFile(QProcess::nullDevice());
    m_process->start(QStringLiteral("redis-server"), arguments);
    if (!m_process->waitForStarted(static_cast<int>(Timeout.count())))
        failWithLog(QStringLiteral("cannot start redis-server: ") + m_process->errorString());

    // Ready means: answers a PING, with PONG or -LOADING. Poll it, watching for an early exit.
    const QDeadlineTimer deadline(Timeout);
    for (;;) {
        const RawReply pong = exchange(m_port, {QByteArrayLiteral("PING")}, std::chrono::milliseconds(500));
        if (pong.answered && (pong.text == "PONG" || (pong.error && pong.text.startsWith("LOADING"))))
            break;
        // Doubles as the poll interval: returns at once if the server exits.
        if (m_process->waitForFinished(20) || m_process->state() == QProcess::NotRunning) {
            if (!m_started && readFileFrom(logPath, logOffset).contains("Address already in use"))
                return false;
            failWithLog(QStringLiteral("redis-server exited during startup (exit code %1)").arg(m_process->exitCode()));
        }
        if (deadline.hasExpired()) {
            m_process->kill();
            m_process->waitForFinished(5000);
            failWithLog(QStringLiteral("redis-server did not answer within %1 ms").arg(Timeout.count()));
        }
    }

    // The port must lead to this very server, not to one that was there first (INFO works while loading).
    const RawReply info = exchange(m_port, {QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}, Timeout);
    if (!info.answered || info.error || infoField(info.text, "process_id").toLongLong() != pid())
        failWithLog(QStringLiteral("127.0.0.1:%1 does not reach the private redis-server (pid %2)").arg(m_port).arg(pid()));
    return true;
}

void PrivateRedis::stop(Stop how)
{
    if (!isRunning())
        return;
    switch (how) {
    case Stop::Shutdown: {
        // A successful SHUTDOWN closes the connection without a reply.
        const RawReply reply = exchange(m_port, {QByteArrayLiteral("SHUTDOWN"), QByteArrayLiteral("NOSAVE")}, Timeout);
        if (reply.answered)
            failWithLog(QStringLiteral("SHUTDOWN NOSAVE answered: ") + QString::fromUtf8(reply.text));
        break;
    }
    case Stop::Terminate: m_process->terminate(); break;
    case Stop::Kill: m_process->kill(); break;
    }
    if (m_process->waitForFinished(static_cast<int>(Timeout.count())))
        return;
    m_process->kill();
    m_process->waitForFinished(5000);
    failWithLog(QStringLiteral("redis-server did not exit within %1 ms and was killed").arg(Timeout.count()));
}

QByteArray PrivateRedis::command(const QByteArrayList &args) const
{
    const RawReply reply = exchange(m_port, args, Timeout);
    if (!reply.answered)
        failWithLog(QStringLiteral("no reply to %1").arg(QString::fromUtf8(args.value(0))));
    if (reply.error)
        failWithLog(QStringLiteral("%1 answered -%2").arg(QString::fromUtf8(args.value(0)), QString::fromUtf8(reply.text)));
    return reply.text;
}

QByteArray PrivateRedis::ping(std::chrono::milliseconds timeout) const
{
    const RawReply reply = exchange(m_port, {QByteArrayLiteral("PING")}, timeout);
    if (!reply.answered)
        return {};
    return reply.error ? QByteArray(reply.text).prepend('-') : reply.text;
}

bool PrivateRedis::isLoading() const
{
    const QByteArray pong = ping(Timeout);
    if (pong.isNull())
        failWithLog(QStringLiteral("no reply to PING"));
    return pong.startsWith("-LOADING");
}

void PrivateRedis::waitUntil(const char *what, const std::function<bool()> &done) const
{
    const QDeadlineTimer deadline(Timeout);
    while (!done()) {
        // Doubles as the poll interval: returns at once if the server exits.
        if (m_process->waitForFinished(20) || m_process->state() == QProcess::NotRunning)
            failWithLog(QStringLiteral("redis-server exited while waiting for %1").arg(QLatin1String(what)));
        if (deadline.hasExpired())
            failWithLog(QStringLiteral("waited %1 ms for %2").arg(Timeout.count()).arg(QLatin1String(what)));
    }
}

void PrivateRedis::waitUntilAofWritten() const
{
    // INFO is answered before the event loop writes the AOF buffer of its own iteration, so an
    // empty buffer in its reply means every earlier write has gone to the file.
    waitUntil("the AOF buffer to be written", [this] {
        return infoField(command({QByteArrayLiteral("INFO"), QByteArrayLiteral("persistence")}), "aof_buffer_length") == "0";
    });
}

void PrivateRedis::fill(int keys, int valueBytes)
{
    command({QByteArrayLiteral("DEBUG"), QByteArrayLiteral("POPULATE"), QByteArray::number(keys), QByteArrayLiteral("filler"),
             QByteArray::number(valueBytes)});
    if (!command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("GET"), QByteArrayLiteral("appendonly")}).endsWith("yes")) {
        command({QByteArrayLiteral("SAVE")});
        return;
    }
    // DEBUG POPULATE bypasses the AOF: a rewrite puts the keys into its base file.
    command({QByteArrayLiteral("BGREWRITEAOF")});
    QByteArray info;
    waitUntil("the AOF rewrite", [this, &info] {
        info = command({QByteArrayLiteral("INFO"), QByteArrayLiteral("persistence")});
        return infoField(info, "aof_rewrite_in_progress") == "0" && infoField(info, "aof_rewrite_scheduled") == "0";
    });
    if (infoField(info, "aof_last_bgrewrite_status") != "ok")
        failWithLog(QStringLiteral("the AOF rewrite failed"));
}

QStringList PrivateRedis::slowLoading(std::chrono::microseconds perKey)
{
    return {QStringLiteral("--key-load-delay"), QString::number(perKey.count())};
}

void PrivateRedis::finishLoading()
{
    command({QByteArrayLiteral("CONFIG"), QByteArrayLiteral("SET"), QByteArrayLiteral("key-load-delay"), QByteArrayLiteral("0")});
    waitUntil("the end of loading", [this] { return ping(Timeout) == "PONG"; });
}

} // namespace lantern::test
