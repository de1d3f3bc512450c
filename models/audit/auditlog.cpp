#include "audit/auditlog.h"

#include "sql/sqlconnection.h"

#include <QJsonDocument>

namespace lantern {

void AuditLog::record(const QString &actor, const QString &action, const QString &target, const QJsonObject &detail, qint64 atMs)
{
    m_connection.exec(QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail) VALUES (?, ?, ?, ?, ?)"),
                      {atMs, actor.left(64), action.left(32), target.left(128),
                       QString::fromUtf8(QJsonDocument(detail).toJson(QJsonDocument::Compact))});
}

} // namespace lantern
