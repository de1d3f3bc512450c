#include "console/audit/auditservice.h"

#include "console/audit/auditquery.h"
#include "console/common/connectionerrors.h"
#include "settings/configconnections.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

namespace lantern {

AuditService::AuditService(Config config, QObject *parent) : QObject(parent), m_config(std::move(config))
{
    qRegisterMetaType<lantern::AuditFilter>();
    qRegisterMetaType<lantern::AuditOrder>();
    qRegisterMetaType<lantern::AuditCursor>();
    qRegisterMetaType<lantern::AuditPage>();
}

AuditService::~AuditService() = default;

SqlConnection &AuditService::sql()
{
    return m_connections.sql();
}

void AuditService::loadPage(quint64 serial, const AuditFilter &filter, const AuditOrder &order, const AuditCursor &after, int limit)
{
    try {
        Q_EMIT pageLoaded(serial, AuditQuery(sql(), m_config.timeZone).page(filter, order, after, limit));
    } catch (const std::exception &error) {
        const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections);
        Q_EMIT loadFailed(serial, failure.message, failure.detail);
    }
}

} // namespace lantern
