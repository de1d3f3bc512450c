#pragma once

#include <QJsonObject>
#include <QString>

namespace lantern {

class SqlConnection;

/** audit_log: who changed what, when and why (DESIGN §3), for every operator action. */
class AuditLog final {
public:
    explicit AuditLog(SqlConnection &connection) : m_connection(connection) {}

    void record(const QString &actor, const QString &action, const QString &target, const QJsonObject &detail, qint64 atMs);

private:
    SqlConnection &m_connection;
};

} // namespace lantern
