#pragma once

#include <QSqlQuery>
#include <QString>
#include <QVariantList>

namespace lantern {
class SqlConnection;
}

namespace lantern::bench {

/** One statement prepared once on a connection and run many times with new values, as a grab
    path that cares for its round trips keeps it (SqlConnection::exec prepares on every call). */
class PreparedStatement final {
public:
    /** Prepares `text` on `sql`; throws like SqlConnection::exec. */
    PreparedStatement(SqlConnection &sql, const QString &text);

    /** Binds `values` and runs the statement; throws SqlError (with the server's error code in
        brackets) or SqlUnavailableError. Read a SELECT's rows from the returned query, then
        let the next run() reset it. */
    QSqlQuery &run(const QVariantList &values);
    /** run(), except that a duplicate key (MySQL 1062) returns false instead of throwing. */
    bool runUnlessDuplicate(const QVariantList &values);
    /** The first column of the first row, or an invalid QVariant when there is no row. */
    QVariant scalar(const QVariantList &values);
    /** Rows the last run() changed (MySQL: changed, not merely matched). */
    int rowsAffected() const { return m_query.numRowsAffected(); }

private:
    bool execute(const QVariantList &values);

    SqlConnection &m_sql;
    QString m_text;
    QSqlQuery m_query;
};

/** Whether a SqlError is a deadlock (1213) or a lock wait timeout (1205): the transaction was
    rolled back and may be tried again. */
bool isLockConflict(const std::exception &error);

} // namespace lantern::bench
