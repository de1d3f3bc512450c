#include "sqlbaseline.h"

#include "envelope/payouttask.h"
#include "sql/sqlconnection.h"

#include <QDateTime>
#include <QFile>
#include <QHash>
#include <QSqlError>
#include <QSqlQuery>

#include <unistd.h>

namespace lantern::bench {

QSqlQuery execText(SqlConnection &sql, const QString &statement)
{
    QSqlQuery query(sql.database());
    if (!query.exec(statement))
        sql.fail(statement.left(80), query.lastError());
    return query;
}

void insertRawRows(SqlConnection &sql, const QList<PayoutTask> &tasks, int rowsPerStatement, bool payouts)
{
    const QString now = QString::number(QDateTime::currentMSecsSinceEpoch());
    for (qsizetype start = 0; start < tasks.size(); start += rowsPerStatement) {
        const qsizetype end = std::min(tasks.size(), start + rowsPerStatement);
        QString grabs = QStringLiteral("INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES ");
        QString pending = QStringLiteral("INSERT INTO payout (idempotency_key, campaign_id, seq, uid, amount_cents, status, updated_at_ms) VALUES ");
        for (qsizetype i = start; i < end; ++i) {
            const PayoutTask &task = tasks.at(i);
            const QString separator = i == start ? QString() : QStringLiteral(",");
            const QString values = QString::number(task.campaignId) + QLatin1Char(',') + QString::number(task.seq) + QLatin1Char(',')
                    + QString::number(task.uid) + QLatin1Char(',') + QString::number(task.amountCents);
            grabs += separator + QLatin1Char('(') + values + QLatin1Char(',') + QString::number(task.atMs) + QLatin1Char(')');
            if (payouts)
                pending += separator + QStringLiteral("('") + task.idempotencyKey() + QStringLiteral("',") + values
                        + QStringLiteral(",'pending',") + now + QLatin1Char(')');
        }
        execText(sql, grabs);
        if (payouts)
            execText(sql, pending);
    }
}

qint64 selectLaunchedRows(SqlConnection &sql, const QList<PayoutTask> &tasks, int rowsPerStatement)
{
    qint64 rows = 0;
    for (qsizetype start = 0; start < tasks.size(); start += rowsPerStatement) {
        const qsizetype end = std::min(tasks.size(), start + rowsPerStatement);
        QStringList seqs;
        for (qsizetype i = start; i < end; ++i)
            seqs << QString::number(tasks.at(i).seq);
        QSqlQuery query = execText(sql, QStringLiteral("SELECT e.seq, e.amount_cents FROM envelope e JOIN campaign c ON c.id = e.campaign_id "
                                                       "WHERE e.campaign_id = %1 AND c.status <> 'draft' AND e.seq IN (%2) LOCK IN SHARE MODE")
                                                .arg(tasks.at(start).campaignId)
                                                .arg(seqs.join(QLatin1Char(','))));
        while (query.next())
            ++rows;
    }
    return rows;
}

namespace {
/** CPU seconds (user + system) of the process whose pid the file holds, from /proc; -1 when it
    cannot be read (a server on another host). */
double processCpuSeconds(const QString &pidFile)
{
    QFile pid(pidFile);
    if (!pid.open(QIODevice::ReadOnly))
        return -1;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(QString::fromLatin1(pid.readAll().trimmed())));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    // After the command name, in parentheses: state is field 3, utime 14, stime 15.
    const QByteArray line = stat.readAll();
    const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 13)
        return -1;
    return static_cast<double>(fields.at(11).toLongLong() + fields.at(12).toLongLong()) / static_cast<double>(sysconf(_SC_CLK_TCK));
}
} // namespace

ServerCounters ServerCounters::read(SqlConnection &sql)
{
    QSqlQuery query = execText(sql, QStringLiteral("SHOW GLOBAL STATUS WHERE Variable_name IN ('Questions', 'Com_stmt_prepare', "
                                                   "'Com_insert', 'Com_update', 'Com_select', 'Handler_commit')"));
    QHash<QString, qint64> values;
    while (query.next())
        values.insert(query.value(0).toString().toLower(), query.value(1).toLongLong());
    ServerCounters counters;
    counters.prepares = values.value(QStringLiteral("com_stmt_prepare"));
    counters.statements = values.value(QStringLiteral("questions")) + counters.prepares;
    counters.inserts = values.value(QStringLiteral("com_insert"));
    counters.updates = values.value(QStringLiteral("com_update"));
    counters.selects = values.value(QStringLiteral("com_select"));
    counters.commits = values.value(QStringLiteral("handler_commit"));
    QSqlQuery pidFile = execText(sql, QStringLiteral("SELECT @@pid_file"));
    counters.cpuSeconds = pidFile.next() ? processCpuSeconds(pidFile.value(0).toString()) : -1;
    return counters;
}

ServerCounters ServerCounters::operator-(const ServerCounters &before) const
{
    return {statements - before.statements, prepares - before.prepares, inserts - before.inserts,
            updates - before.updates,       selects - before.selects,   commits - before.commits,
            cpuSeconds < 0 || before.cpuSeconds < 0 ? -1 : cpuSeconds - before.cpuSeconds};
}

} // namespace lantern::bench
