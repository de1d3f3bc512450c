#include "console/connections/connectiontester.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "redis/redissentinel.h"
#include "sql/sqlconnection.h"
#include "tunnel/sshtunnel.h"

#include <QElapsedTimer>
#include <QFile>

namespace lantern {

namespace {

double elapsedMs(const QElapsedTimer &timer)
{
    return static_cast<double>(timer.nsecsElapsed()) / 1e6;
}

} // namespace

ConnectionTester::ConnectionTester(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<lantern::ConnectionCheck>();
    qRegisterMetaType<lantern::Config>();
}

ConnectionTester::~ConnectionTester() = default;

void ConnectionTester::check(quint64 serial, const Config &config)
{
    ConnectionCheck result;
    result.readOnly = config.readOnly;
    std::optional<Config> reached = config;
    if (config.ssh.enabled() && !config.redis.route)
        reached = openTunnel(config, result);
    if (reached) {
        checkRedis(*reached, result);
        checkSql(*reached, result);
    }
    Q_EMIT checked(serial, result);
}

std::optional<Config> ConnectionTester::openTunnel(const Config &config, ConnectionCheck &result)
{
    result.sshUsed = true;
    try {
        auto tunnel = std::make_shared<SshTunnel>(config.ssh);
        result.sshOk = true;
        result.sshSummary = ConnectionErrors::tr("%1 · host key %2").arg(config.ssh.text(), tunnel->fingerprint());
        result.tunnel = tunnel;
        return SshTunnel::through(config, tunnel);
    } catch (const SshUnknownHostError &unknown) {
        result.sshUnknownHost = unknown.host();
        result.sshUnknownFingerprint = unknown.fingerprint();
        result.sshFailure = {unknown.message(), {}};
    } catch (const LanternError &error) {
        result.sshFailure = {error.message(), {}};
    }
    const PlainFailure notTested{ConnectionErrors::tr("Not tested: the SSH tunnel is not open."), {}};
    result.redisFailure = notTested;
    result.sqlFailure = notTested;
    result.redisStatus = ConnectionErrors::tr("SSH tunnel down");
    return std::nullopt;
}

void ConnectionTester::checkRedis(const Config &config, ConnectionCheck &result)
{
    result.redisTlsWarning = config.redis.tls.warning(config.redis.redacted());
    RedisOptions options;
    options.connectTimeout = std::chrono::milliseconds(2000);
    options.commandTimeout = std::chrono::milliseconds(2000);
    options.readOnly = config.readOnly;
    if (config.redis.isSentinel()) {
        checkSentinel(config, options, result);
        if (result.sentinelMaster.isEmpty())
            return;
    }
    try {
        RedisClient redis(config.redis, options);
        redis.ensureConnected();
        QElapsedTimer timer;
        timer.start();
        redis.command({QByteArrayLiteral("PING")});
        result.redisMs = elapsedMs(timer);
        result.redisOk = true;
        result.redisNode = redis.connectedNode();
        result.redisTls = redis.transportSummary();
        readRedisDetails(redis, result);
        if (redis.isCluster()) {
            result.redisCluster = true;
            result.clusterNodes = probeClusterNodes(redis, config.redis, options);
            checkClusterState(redis, result);
        }
    } catch (const std::exception &error) {
        result.redisFailure = ConnectionErrors::explain(error, config);
        result.redisStatus = ConnectionErrors::redisStatus(error);
        result.redisFailedHop = dynamic_cast<const RedisTlsError *>(&error) ? ConnectionCheck::Hop::Tls : ConnectionCheck::Hop::Redis;
    }
}

void ConnectionTester::checkSentinel(const Config &config, const RedisOptions &options, ConnectionCheck &result)
{
    try {
        const RedisEndpoint master = RedisSentinel::askSentinels(config.redis, options);
        result.sentinelMaster = ConnectionErrors::tr("“%1” at %2").arg(config.redis.sentinelMaster, master.text());
    } catch (const std::exception &error) {
        result.redisFailure = ConnectionErrors::explain(error, config);
        result.redisStatus = ConnectionErrors::redisStatus(error);
        result.redisFailedHop = dynamic_cast<const RedisTlsError *>(&error) ? ConnectionCheck::Hop::Tls : ConnectionCheck::Hop::Sentinel;
    }
}

void ConnectionTester::readRedisDetails(RedisClient &redis, ConnectionCheck &result)
{
    // INFO may be forbidden by an ACL: the version and the role are niceties. A cluster's
    // roles are its node rows'.
    QList<QByteArray> sections{QByteArrayLiteral("server")};
    if (!redis.isCluster())
        sections << QByteArrayLiteral("replication");
    for (const QByteArray &section : sections) {
        try {
            const QByteArray info = redis.command({QByteArrayLiteral("INFO"), section}).toBytes();
            for (const QByteArray &line : info.split('\n')) {
                if (line.startsWith("redis_version:"))
                    result.redisVersion = QString::fromLatin1(line.mid(14).trimmed());
                else if (line.startsWith("role:"))
                    result.redisRole = QString::fromLatin1(line.mid(5).trimmed());
            }
        } catch (const LanternError &) {
        }
    }
}

void ConnectionTester::checkClusterState(RedisClient &redis, ConnectionCheck &result)
{
    // The cluster's own verdict: its nodes answering PING says nothing of a slot nobody serves.
    QByteArray info;
    try {
        info = redis.command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("INFO")}).toBytes();
    } catch (const RedisReplyError &) {
        return;  // refused by an ACL: the nodes' own answers are all there is to go on
    }
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith("cluster_state:"))
            result.clusterState = QString::fromLatin1(line.mid(14).trimmed());
        else if (line.startsWith("cluster_slots_ok:"))
            result.clusterSlotsOk = line.mid(17).trimmed().toInt();
    }
    if (result.clusterState == QLatin1String("ok"))
        return;
    result.redisOk = false;
    result.redisStatus = ConnectionErrors::tr("cluster failing");
    result.redisFailure = {ConnectionErrors::tr("The Redis Cluster reports cluster_state:%1: %2 of 16384 slots are served, so commands "
                                                "on the others are refused (CLUSTERDOWN). A master and its replicas may be down.")
                                   .arg(result.clusterState.isEmpty() ? QStringLiteral("?") : result.clusterState)
                                   .arg(std::max(result.clusterSlotsOk, 0)),
                           QString::fromLatin1(info.trimmed())};
}

void ConnectionTester::checkSql(const Config &config, ConnectionCheck &result)
{
    try {
        if (config.db.dialect == DbUrl::Dialect::Sqlite && !QFile::exists(config.db.path)) {
            result.sqlFailure = {ConnectionErrors::tr("There is no database file at %1 yet.").arg(config.db.path), {}};
            return;
        }
        SqlConnection sql(config.db, config.readOnly ? SqlAccess::ReadOnly : SqlAccess::ReadWrite);
        QElapsedTimer timer;
        timer.start();
        QSqlQuery one = sql.exec(QStringLiteral("SELECT 1"));
        one.next();
        result.sqlMs = elapsedMs(timer);
        result.sqlOk = true;
        if (config.db.dialect == DbUrl::Dialect::MySql)
            readSqlTls(sql, result);
        QSqlQuery version = sql.exec(config.db.dialect == DbUrl::Dialect::MySql ? QStringLiteral("SELECT VERSION()")
                                                                              : QStringLiteral("SELECT sqlite_version()"));
        if (version.next()) {
            result.sqlVersion = version.value(0).toString();
            if (config.db.dialect == DbUrl::Dialect::Sqlite)
                result.sqlVersion.prepend(QStringLiteral("SQLite "));
        }
        try {
            QSqlQuery schema = sql.exec(QStringLiteral("SELECT COALESCE(MAX(version), 0) FROM schema_version"));
            if (schema.next())
                result.schemaVersion = schema.value(0).toInt();
        } catch (const SqlError &) {
            result.schemaVersion = -1;  // no schema_version table: not a Lantern database yet
        }
    } catch (const std::exception &error) {
        result.sqlFailure = ConnectionErrors::explain(error, config);
    }
}

void ConnectionTester::readSqlTls(SqlConnection &sql, ConnectionCheck &result)
{
    // MariaDB keeps the session's status in information_schema, MySQL 8 in performance_schema.
    for (const QString &table : {QStringLiteral("information_schema.SESSION_STATUS"), QStringLiteral("performance_schema.session_status")}) {
        try {
            QSqlQuery status = sql.exec(QStringLiteral("SELECT VARIABLE_NAME, VARIABLE_VALUE FROM ") + table
                                        + QStringLiteral(" WHERE VARIABLE_NAME IN ('Ssl_version', 'Ssl_cipher') ORDER BY VARIABLE_NAME DESC"));
            QStringList values;
            while (status.next()) {
                if (!status.value(1).toString().isEmpty())
                    values << status.value(1).toString();
            }
            result.sqlTls = values.join(QStringLiteral(", "));
            return;
        } catch (const SqlError &) {
        }
    }
}

} // namespace lantern
