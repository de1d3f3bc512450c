#pragma once

#include "console/users/usermonth.h"
#include "redis/keyschema.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QObject>

#include <memory>

namespace lantern {

class RedisClient;
class SqlConnection;

/** The console's Redis and SQL work for the Users view, on a thread of its own.
    Move it to a dedicated QThread (see DedicatedThread) and talk to it only through queued
    calls of its slots; every answer comes back as a queued signal carrying the request's serial,
    so the caller can drop answers it no longer waits for. Its RedisClient and SqlConnection are
    opened inside that thread on first use and closed there when the object is destroyed. */
class UserLookupService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UserLookupService)

public:
    static constexpr int HistoryMonths = 6;  // months in the streak chart, the shown one last
    static constexpr int HistoryRows = 30;   // rows of check-in history and ledger

    explicit UserLookupService(Config config, QObject *parent = nullptr);
    ~UserLookupService() override;

    const Config &config() const { return m_config; }

public Q_SLOTS:
    /** `query` is a uid or a public user token; `month` is any day of the month to show. */
    void lookup(quint64 serial, const QString &query, QDate month);
    /** Grants a make-up through CheckinService::makeup, records it in the audit log, and
        answers with the reloaded month. */
    void makeup(quint64 serial, qint64 uid, QDate date, const QString &reason, const QString &operatorName);

Q_SIGNALS:
    void monthLoaded(quint64 serial, const lantern::UserMonth &month);
    /** `message` is plain, translated words for the window; `detail` is the technical cause. */
    void lookupFailed(quint64 serial, const QString &message, const QString &detail);
    /** `already`: the day was signed meanwhile and nothing changed (no audit row either). */
    void makeupGranted(quint64 serial, QDate date, bool already, const lantern::UserMonth &month);
    void makeupFailed(quint64 serial, const QString &message, const QString &detail);

private:
    RedisClient &redis();
    SqlConnection &sql();
    UserMonth load(qint64 uid, QDate month);
    /** Plain words for a failure, and its technical detail; drops a broken SQL connection. */
    std::pair<QString, QString> explain(const std::exception &error);

    Config m_config;
    KeySchema m_keys;
    LazyConnections m_connections{m_config};  // opened in the service thread
};

} // namespace lantern
