#pragma once

#include "core/errors.h"
#include "sql/dburl.h"

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariantList>

#include <list>
#include <utility>

class QSqlError;

namespace lantern {

/** SQL failed for a reason other than reachability (constraint, syntax, ...). */
class SqlError final : public LanternError {
public:
    using LanternError::LanternError;
};

/** SQL server unreachable or the connection dropped (exit 3). */
class SqlUnavailableError final : public UnavailableError {
public:
    using UnavailableError::UnavailableError;
};

/** A read-only connection refused a statement other than a SELECT (exit 4, like any refusal).
    The statement was not prepared or sent. */
class SqlReadOnlyError final : public RefusedError {
public:
    using RefusedError::RefusedError;
};

/** What a connection may do. ReadOnly: exec() runs SELECT only, and the server is told as well
    (MySQL: SET SESSION TRANSACTION READ ONLY; SQLite: the file opened with QSQLITE_OPEN_READONLY,
    never created, no WAL switch). */
enum class SqlAccess { ReadWrite, ReadOnly };

/** One Qt Sql connection owned by the thread that made it, under a unique name, removed on
    destruction (a QSqlDatabase must not cross threads). Prepared statements only. */
class SqlConnection final {
    Q_DECLARE_TR_FUNCTIONS(lantern::SqlConnection)

public:
    /** Opens the connection; throws SqlUnavailableError when the server cannot be reached. */
    explicit SqlConnection(const DbUrl &url, SqlAccess access = SqlAccess::ReadWrite);
    ~SqlConnection();
    Q_DISABLE_COPY_MOVE(SqlConnection)

    DbUrl::Dialect dialect() const { return m_url.dialect; }
    const DbUrl &url() const { return m_url; }
    bool isReadOnly() const { return m_access == SqlAccess::ReadOnly; }
    QSqlDatabase database() const;

    /** Prepares, binds positionally and executes; throws SqlError / SqlUnavailableError, and on
        a read-only connection SqlReadOnlyError for anything but a SELECT. */
    QSqlQuery exec(const QString &sql, const QVariantList &values = {});
    /** Like exec() for a statement that writes (INSERT, UPDATE, ...), through a prepared statement
        the connection keeps (the 16 texts used last), so running the same text again skips the
        prepare: the drain's multi-row statements of a full batch. Returns the rows affected. */
    int write(const QString &sql, const QVariantList &values);
    /** Runs a migration's statement that takes no values and that MySQL 8 cannot prepare
        (CREATE TRIGGER: ER_UNSUPPORTED_PS) as text. Only for statements compiled in. */
    void runMigrationText(const QString &sql);

    /** "INSERT IGNORE INTO " (MySQL) or "INSERT OR IGNORE INTO " (SQLite): a row whose key
        exists is skipped, which is how every idempotent write on business keys is spelled. */
    QString insertIgnoreInto() const;
    /** "(?,?),(?,?)..." for a multi-row VALUES list of `rows` rows of `columns` values. */
    static QString placeholderRows(qsizetype rows, int columns);

    void begin();
    void commit();
    void rollback();
    /** In a transaction, SQLite: takes the database's write lock now (a write that changes
        nothing), so what the transaction reads next no other writer changes before it commits.
        MySQL: nothing (its reads lock the rows they need, LOCK IN SHARE MODE / FOR UPDATE). */
    void lockForWriting();

    /** Runs body in a transaction, retrying on deadlock or lock timeout a few times. */
    template<typename Body>
    auto transaction(Body body)
    {
        for (int attempt = 1;; ++attempt) {
            begin();
            try {
                if constexpr (std::is_void_v<decltype(body())>) {
                    body();
                    commit();
                    return;
                } else {
                    auto result = body();
                    commit();
                    return result;
                }
            } catch (const SqlError &error) {
                rollback();
                if (attempt >= 5 || !isRetryable(error))
                    throw;
            } catch (...) {
                rollback();
                throw;
            }
        }
    }

    /** Throws the right error type for a failed Qt Sql operation. */
    [[noreturn]] void fail(const QString &during, const QSqlError &error) const;

private:
    static bool isRetryable(const SqlError &error);
    /** exec() without the read-only check, for the connection's own session setup. */
    QSqlQuery run(const QString &sql, const QVariantList &values = {});
    void enableWal();

    DbUrl m_url;
    SqlAccess m_access;
    QString m_name;
    std::list<std::pair<QString, QSqlQuery>> m_prepared;  // write()'s statements, the last used first
};

} // namespace lantern
