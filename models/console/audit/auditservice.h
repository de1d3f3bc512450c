#pragma once

#include "console/audit/auditentry.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QObject>

#include <memory>

namespace lantern {

class SqlConnection;

/** The Audit log view's SQL work, on a thread of its own (DedicatedThread): pages of audit_log
    through AuditQuery. Talk to it through queued calls of loadPage(); the answer comes back as a
    queued signal carrying the request's serial. Its SqlConnection is opened in that thread on the
    first request (read-only when the configuration says so) and closed there. */
class AuditService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditService)

public:
    explicit AuditService(Config config, QObject *parent = nullptr);
    ~AuditService() override;

    const Config &config() const { return m_config; }

public Q_SLOTS:
    /** Rows matching `filter` in `order` after `after` (a null cursor: the first page), `limit`
        at most. */
    void loadPage(quint64 serial, const lantern::AuditFilter &filter, const lantern::AuditOrder &order,
                  const lantern::AuditCursor &after, int limit);

Q_SIGNALS:
    void pageLoaded(quint64 serial, const lantern::AuditPage &page);
    /** `message`: plain, translated words; `detail`: the technical cause. */
    void loadFailed(quint64 serial, const QString &message, const QString &detail);

private:
    SqlConnection &sql();

    Config m_config;
    LazyConnections m_connections{m_config};  // opened in the service thread
};

} // namespace lantern
