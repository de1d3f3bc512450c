#include "serverstatus.h"

namespace lantern {

ServerStatus::ServerStatus(QObject *parent) : QObject(parent) {}

ServerStatus::~ServerStatus() = default;

bool ServerStatus::update(State &state, const QDateTime &at, bool up, double ms, const QString &problem)
{
    // Older news than the state's own is stale: a success asked for later already says more.
    // Only a round trip measured meanwhile is still worth showing.
    if (state.known && at < state.heardAt) {
        if (!up || ms < 0 || !state.up)
            return false;
        state.ms = ms;
        return true;
    }
    state.known = true;
    state.up = up;
    if (ms >= 0)
        state.ms = ms;
    state.problem = up ? QString() : problem;
    state.heardAt = at;
    return true;
}

void ServerStatus::recordAnswer(Servers servers, const QDateTime &askedAt, bool onScreen)
{
    bool changedAny = false;
    if (servers.testFlag(Server::Redis))
        changedAny |= update(m_redis, askedAt, true, -1, {});
    if (servers.testFlag(Server::Sql))
        changedAny |= update(m_sql, askedAt, true, -1, {});
    if (onScreen && (!m_lastRefresh.isValid() || askedAt > m_lastRefresh)) {
        m_lastRefresh = askedAt;
        changedAny = true;
    }
    if (changedAny)
        Q_EMIT changed();
}

void ServerStatus::recordProbe(const QDateTime &sentAt, double redisMs, double sqlMs, const QString &redisProblem)
{
    bool changedAny = update(m_redis, sentAt, redisMs >= 0, redisMs, redisProblem.isEmpty() ? tr("down") : redisProblem);
    changedAny |= update(m_sql, sentAt, sqlMs >= 0, sqlMs, tr("down"));
    if (changedAny)
        Q_EMIT changed();
}

void ServerStatus::recordWorker(const QString &text, bool trouble, const QString &detail)
{
    m_workerText = text;
    m_workerTrouble = trouble;
    m_workerDetail = detail;
    Q_EMIT changed();
}

} // namespace lantern
