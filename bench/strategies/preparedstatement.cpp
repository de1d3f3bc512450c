#include "preparedstatement.h"

#include "sql/sqlconnection.h"

#include <QSqlError>

namespace lantern::bench {

PreparedStatement::PreparedStatement(SqlConnection &sql, const QString &text) : m_sql(sql), m_text(text), m_query(sql.database())
{
    m_query.setForwardOnly(true);
    if (!m_query.prepare(text))
        m_sql.fail(QStringLiteral("preparing '%1'").arg(text.left(80)), m_query.lastError());
}

bool PreparedStatement::execute(const QVariantList &values)
{
    for (qsizetype i = 0; i < values.size(); ++i)
        m_query.bindValue(static_cast<int>(i), values.at(i));
    return m_query.exec();
}

QSqlQuery &PreparedStatement::run(const QVariantList &values)
{
    if (!execute(values))
        m_sql.fail(QStringLiteral("running '%1'").arg(m_text.left(80)), m_query.lastError());
    return m_query;
}

bool PreparedStatement::runUnlessDuplicate(const QVariantList &values)
{
    if (execute(values))
        return true;
    if (m_query.lastError().nativeErrorCode() == QLatin1String("1062"))
        return false;
    m_sql.fail(QStringLiteral("running '%1'").arg(m_text.left(80)), m_query.lastError());
}

QVariant PreparedStatement::scalar(const QVariantList &values)
{
    QSqlQuery &query = run(values);
    QVariant value;
    if (query.next())
        value = query.value(0);
    query.finish();
    return value;
}

bool isLockConflict(const std::exception &error)
{
    const QString text = QString::fromUtf8(error.what());
    return text.contains(QLatin1String("[1213]")) || text.contains(QLatin1String("[1205]"));
}

} // namespace lantern::bench
