#pragma once

#include <QDateTime>
#include <QFlags>
#include <QObject>
#include <QString>

namespace lantern {

/** What the console knows about its servers and its in-process worker: the status bar's one
    source of truth. Every answer counts, not only the periodic probe: a view that just read
    fresh data marks its servers up at once, and news older than what is known is ignored (a
    probe that was sent before a view's success and failed does not turn Redis red again). */
class ServerStatus final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerStatus)

public:
    enum class Server { Redis = 0x1, Sql = 0x2 };
    Q_DECLARE_FLAGS(Servers, Server)

    /** One server as last heard of. */
    struct State {
        bool known = false;   // nothing heard yet
        bool up = false;
        double ms = -1;       // the last round trip a probe measured; -1: none yet
        QString problem;      // when down: what follows "Redis" in the status bar ("down", "is loading")
        QDateTime heardAt;    // when the news this state comes from was asked for
    };

    /** Redis and SQL: what most views read. */
    static Servers both() { return Servers(Server::Redis) | Server::Sql; }

    explicit ServerStatus(QObject *parent = nullptr);
    ~ServerStatus() override;

    /** A call to `servers` asked at `askedAt` succeeded: they are up; `onScreen`: what it read
        is what is shown (lastRefresh), not a read of a view in the background. */
    void recordAnswer(Servers servers, const QDateTime &askedAt, bool onScreen = true);
    /** A probe sent at `sentAt` measured these round trips; negative for a server that failed,
        `redisProblem` saying how ("down", "is loading"). */
    void recordProbe(const QDateTime &sentAt, double redisMs, double sqlMs, const QString &redisProblem);
    /** The in-process worker's last word (sandbox only); `trouble`: it is retrying, `detail` why. */
    void recordWorker(const QString &text, bool trouble, const QString &detail = {});

    State redis() const { return m_redis; }
    State sql() const { return m_sql; }
    QDateTime lastRefresh() const { return m_lastRefresh; }
    QString workerText() const { return m_workerText; }
    bool workerTrouble() const { return m_workerTrouble; }
    QString workerDetail() const { return m_workerDetail; }

Q_SIGNALS:
    void changed();

private:
    static bool update(State &state, const QDateTime &at, bool up, double ms, const QString &problem);

    State m_redis;
    State m_sql;
    QDateTime m_lastRefresh;
    QString m_workerText;
    bool m_workerTrouble = false;
    QString m_workerDetail;
};

Q_DECLARE_OPERATORS_FOR_FLAGS(ServerStatus::Servers)

} // namespace lantern
