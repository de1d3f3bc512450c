#include "testsentinels.h"

#include "privateserver.h"

#include "core/childprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <stdexcept>

namespace lantern::test {

TestSentinels::TestSentinels(const QString &name, const QByteArray &sentinelPassword)
    : m_name(name), m_password(sentinelPassword), m_dir(std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lantern-sentinel-XXXXXX")))
{
    if (!m_dir->isValid())
        throw std::runtime_error("cannot create a temp dir for the sentinels");
    m_nodes.push_back(std::make_unique<PrivateRedis>());
    m_nodes.push_back(std::make_unique<PrivateRedis>(
            QStringList{QStringLiteral("--replicaof"), QStringLiteral("127.0.0.1"), QString::number(m_nodes[0]->port())}));
    for (int i = 0; i < 3; ++i) {
        const int port = pickPrivatePort();
        m_sentinelPorts << port;
        QFile config(m_dir->filePath(QStringLiteral("sentinel-%1.conf").arg(i)));
        if (!config.open(QIODevice::WriteOnly))
            fail(QStringLiteral("cannot write ") + config.fileName());
        QByteArray text = "port " + QByteArray::number(port) + "\nbind 127.0.0.1\ndir " + m_dir->path().toUtf8() + "\nlogfile "
                + m_dir->filePath(QStringLiteral("sentinel-%1.log").arg(i)).toUtf8() + "\nsentinel monitor " + name.toUtf8()
                + " 127.0.0.1 " + QByteArray::number(m_nodes[0]->port()) + " 2\nsentinel down-after-milliseconds " + name.toUtf8()
                + " 1000\nsentinel failover-timeout " + name.toUtf8() + " 5000\n";
        if (!m_password.isEmpty())
            text += "requirepass " + m_password + "\nsentinel sentinel-pass " + m_password + "\n";
        config.write(text);
        config.close();
        m_sentinels.push_back(std::make_unique<QProcess>());
        endWithStarter(*m_sentinels.back());  // a test that aborts leaves no sentinel behind
        startSentinel(i);
    }
    waitUntil("every sentinel knows the replica and the two others, and the replica is in sync", [this] {
        if (infoField(m_nodes[1]->command({"INFO", "replication"}), "master_link_status") != "up")
            return false;
        for (int i = 0; i < 3; ++i) {
            const auto master = rawRedisCommand(m_sentinelPorts[i], {"SENTINEL", "MASTER", m_name.toUtf8()}, std::chrono::milliseconds(500),
                                                m_password);
            if (!master)
                return false;
            const QByteArrayList fields = master->split('\n');
            const auto value = [&](const char *key) {
                const qsizetype at = fields.indexOf(QByteArray(key));
                return at >= 0 && at + 1 < fields.size() ? fields.at(at + 1) : QByteArray();
            };
            if (value("num-slaves") != "1" || value("num-other-sentinels") != "2")
                return false;
        }
        return true;
    });
}

TestSentinels::~TestSentinels()
{
    for (auto &sentinel : m_sentinels) {
        if (sentinel->state() != QProcess::NotRunning) {
            sentinel->kill();
            sentinel->waitForFinished(5000);
        }
    }
}

QString TestSentinels::urlText() const
{
    QStringList sentinels;
    for (const int port : m_sentinelPorts)
        sentinels << QStringLiteral("127.0.0.1:%1").arg(port);
    return QStringLiteral("redis-sentinel://") + sentinels.join(QLatin1Char(',')) + QLatin1Char('#') + m_name;
}

QByteArray TestSentinels::sentinelCommand(int index, const QByteArrayList &args) const
{
    const auto reply = rawRedisCommand(m_sentinelPorts.at(index), args, std::chrono::milliseconds(2000), m_password);
    if (!reply)
        fail(QStringLiteral("sentinel %1 did not answer %2").arg(index).arg(QString::fromUtf8(args.join(' '))));
    return *reply;
}

int TestSentinels::masterPort() const
{
    int port = 0;
    for (int i = 0; i < m_sentinelPorts.size(); ++i) {
        const auto reply = rawRedisCommand(m_sentinelPorts[i], {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", m_name.toUtf8()},
                                           std::chrono::milliseconds(500), m_password);
        if (!reply)
            continue;  // a sentinel stopped by the test
        const int named = reply->split('\n').value(1).toInt();
        if (port != 0 && named != port)
            return 0;
        port = named;
    }
    return port;
}

int TestSentinels::failOver()
{
    const int before = masterPort();
    const int after = before == m_nodes[0]->port() ? m_nodes[1]->port() : m_nodes[0]->port();
    int index = 0;
    while (!rawRedisCommand(m_sentinelPorts[index], {"PING"}, std::chrono::milliseconds(500), m_password))
        ++index;  // the first sentinel still running
    // A sentinel promotes only a replica it sees healthy: asked until it agrees (-NOGOODSLAVE
    // right after an earlier failover, while the demoted node still syncs).
    waitUntil("a sentinel accepts SENTINEL FAILOVER", [&] {
        const QByteArray reply = sentinelCommand(index, {"SENTINEL", "FAILOVER", m_name.toUtf8()});
        if (reply != "OK" && !reply.startsWith("-NOGOODSLAVE") && !reply.startsWith("-INPROG"))
            fail(QStringLiteral("SENTINEL FAILOVER answered ") + QString::fromUtf8(reply));
        return reply == "OK";
    });
    // Done when every sentinel names the new master, it says so, and the old one follows it.
    waitUntil("the failover is complete", [&] {
        const auto role = rawRedisCommand(after, {"ROLE"}, std::chrono::milliseconds(500));
        const auto old = rawRedisCommand(before, {"INFO", "replication"}, std::chrono::milliseconds(500));
        return masterPort() == after && role && role->startsWith("master") && old && infoField(*old, "role") == "slave"
                && infoField(*old, "master_link_status") == "up";
    });
    return after;
}

void TestSentinels::stopSentinel(int index)
{
    QProcess &sentinel = *m_sentinels.at(size_t(index));
    sentinel.kill();
    if (!sentinel.waitForFinished(int(Timeout.count())))
        fail(QStringLiteral("sentinel %1 did not stop").arg(index));
}

void TestSentinels::startSentinel(int index)
{
    QProcess &sentinel = *m_sentinels.at(size_t(index));
    sentinel.setProcessChannelMode(QProcess::MergedChannels);
    sentinel.setStandardOutputFile(m_dir->filePath(QStringLiteral("sentinel-%1.out").arg(index)), QIODevice::Append);
    sentinel.start(QStringLiteral("redis-server"), {m_dir->filePath(QStringLiteral("sentinel-%1.conf").arg(index)), QStringLiteral("--sentinel")});
    if (!sentinel.waitForStarted(int(Timeout.count())))
        fail(QStringLiteral("cannot start sentinel %1: %2").arg(index).arg(sentinel.errorString()));
    waitUntil("the sentinel answers", [&] {
        return rawRedisCommand(m_sentinelPorts.at(index), {"PING"}, std::chrono::milliseconds(500), m_password).has_value();
    });
}

void TestSentinels::waitUntil(const char *what, const std::function<bool()> &done) const
{
    QDeadlineTimer deadline(Timeout);
    while (!done()) {
        if (deadline.hasExpired())
            fail(QStringLiteral("timed out waiting until ") + QLatin1String(what));
        QThread::msleep(50);  // a poll of the servers' own answers, with a deadline
    }
}

QByteArray TestSentinels::logs() const
{
    QByteArray text;
    for (int i = 0; i < 3; ++i)
        text += "---- sentinel " + QByteArray::number(i) + " ----\n" + readFileFrom(m_dir->filePath(QStringLiteral("sentinel-%1.log").arg(i))).right(1500);
    return text;
}

void TestSentinels::fail(const QString &what) const
{
    throw std::runtime_error(what.toStdString() + "\n" + logs().toStdString());
}

} // namespace lantern::test
