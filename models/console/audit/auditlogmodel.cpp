#include "console/audit/auditlogmodel.h"

#include "console/common/campaignmoney.h"
#include "console/common/tabletext.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

namespace lantern {

namespace {

bool isMoneyKey(const QString &key)
{
    return key.endsWith(QLatin1String("_cents"));
}

/** Identifiers stay as they are written ("12345", not "12,345"). */
bool isIdentifierKey(const QString &key)
{
    return key == QLatin1String("id") || key.endsWith(QLatin1String("_id"));
}

QString valueText(const QString &key, const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String: {
        // Some writers store numbers as strings ("amount_cents":"1943"): shown as the numbers they are.
        bool whole = false;
        const qint64 number = value.toString().toLongLong(&whole);
        if (whole && isMoneyKey(key))
            return formatYuan(number);
        return value.toString();
    }
    case QJsonValue::Bool:
        return value.toBool() ? AuditLogModel::tr("yes") : AuditLogModel::tr("no");
    case QJsonValue::Double: {
        // Cents and counts are whole; JSON carries them as doubles, exact up to 2^53.
        const double number = value.toDouble();
        const auto whole = static_cast<qint64>(number);
        if (static_cast<double>(whole) != number)
            return QLocale().toString(number);
        if (isMoneyKey(key))
            return formatYuan(whole);
        return isIdentifierKey(key) ? QString::number(whole) : QLocale().toString(whole);
    }
    case QJsonValue::Array: {
        // A list of workers, campaigns, days: its items, comma-separated, each shown as a value.
        QStringList items;
        for (const QJsonValue &item : value.toArray())
            items << valueText(key, item);
        return items.join(AuditLogModel::tr(", "));
    }
    case QJsonValue::Object:
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    case QJsonValue::Null:
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("null");
}

} // namespace

AuditLogModel::AuditLogModel(QObject *parent) : QAbstractTableModel(parent) {}

void AuditLogModel::setPage(const AuditPage &page)
{
    beginResetModel();
    m_page = page;
    endResetModel();
}

void AuditLogModel::clear()
{
    setPage({});
}

int AuditLogModel::rowOf(qint64 id) const
{
    for (qsizetype row = 0; row < m_page.entries.size(); ++row) {
        if (m_page.entries.at(row).id == id)
            return static_cast<int>(row);
    }
    return -1;
}

void AuditLogModel::setTimeZone(const QTimeZone &zone)
{
    m_zone = zone;
    if (!m_page.entries.isEmpty())
        Q_EMIT dataChanged(index(0, Time), index(rowCount() - 1, Time));
}

QString AuditLogModel::timeText(qint64 atMs) const
{
    return QDateTime::fromMSecsSinceEpoch(atMs, m_zone).toString(u"yyyy-MM-dd HH:mm:ss");
}

QString AuditLogModel::actionText(const QString &action)
{
    static const QHash<QString, const char *> words{
            {QStringLiteral("campaign.create"), QT_TR_NOOP("Campaign created")},
            {QStringLiteral("campaign.launch"), QT_TR_NOOP("Campaign launched")},
            {QStringLiteral("campaign.pause"), QT_TR_NOOP("Campaign paused")},
            {QStringLiteral("campaign.resume"), QT_TR_NOOP("Campaign resumed")},
            {QStringLiteral("campaign.close"), QT_TR_NOOP("Campaign closed")},
            {QStringLiteral("campaign.repair"), QT_TR_NOOP("Campaign rebuilt from SQL")},
            {QStringLiteral("checkin.makeup"), QT_TR_NOOP("Make-up granted")},
            {QStringLiteral("checkin.backdated"), QT_TR_NOOP("Back-dated check-in")},
            {QStringLiteral("checkin.reconcile"), QT_TR_NOOP("Check-ins reconciled")},
            {QStringLiteral("deadletter.retry"), QT_TR_NOOP("Dead letter retried")},
            {QStringLiteral("deadletter.discard"), QT_TR_NOOP("Dead letter discarded")},
            {QStringLiteral("deadletter.edit_retry"), QT_TR_NOOP("Dead letter edited and retried")},
            {QStringLiteral("queue.recover"), QT_TR_NOOP("Dead workers' tasks recovered")},
            {QStringLiteral("campaign.approve"), QT_TR_NOOP("Campaign approved")},
            {QStringLiteral("campaign.schedule"), QT_TR_NOOP("Campaign timetable set")},
            {QStringLiteral("campaign.missed"), QT_TR_NOOP("Scheduled transition missed")},
            {QStringLiteral("api.switch"), QT_TR_NOOP("API feature switched")},
            {QStringLiteral("access.install"), QT_TR_NOOP("Accounts and roles installed")},
            {QStringLiteral("operator.add"), QT_TR_NOOP("Operator added")},
            {QStringLiteral("operator.remove"), QT_TR_NOOP("Operator removed")},
            {QStringLiteral("operator.rotate"), QT_TR_NOOP("Operator's password changed")},
            {QStringLiteral("operator.set_role"), QT_TR_NOOP("Operator's role changed")},
    };
    const auto found = words.constFind(action);
    return found == words.cend() ? action : tr(found.value());
}

QString AuditLogModel::fieldLabel(const QString &key)
{
    // The keys the product writes (DESIGN §3's audit_log.detail); an unknown one is shown as
    // words ("pool_size" -> "Pool size"), and a money key without its "_cents".
    static const QHash<QString, const char *> labels{
            {QStringLiteral("backfilled"), QT_TR_NOOP("Back-filled")},
            {QStringLiteral("completed"), QT_TR_NOOP("Completed from SQL")},
            {QStringLiteral("count"), QT_TR_NOOP("Envelopes")},
            {QStringLiteral("date"), QT_TR_NOOP("Day")},
            {QStringLiteral("db_count"), QT_TR_NOOP("In SQL before")},
            {QStringLiteral("dead_lettered"), QT_TR_NOOP("Set aside as unreadable")},
            {QStringLiteral("edited"), QT_TR_NOOP("Put back as")},
            {QStringLiteral("draws_after"), QT_TR_NOOP("Users holding an envelope, after")},
            {QStringLiteral("draws_before"), QT_TR_NOOP("Users holding an envelope, before")},
            {QStringLiteral("entry"), QT_TR_NOOP("Entry")},
            {QStringLiteral("feature"), QT_TR_NOOP("Feature")},
            {QStringLiteral("grabbed_cents"), QT_TR_NOOP("Grabbed amount")},
            {QStringLiteral("grabbed_count"), QT_TR_NOOP("Envelopes grabbed")},
            {QStringLiteral("id"), QT_TR_NOOP("Campaign")},
            {QStringLiteral("in_flight"), QT_TR_NOOP("Grabs in flight")},
            {QStringLiteral("ledger_grabs"), QT_TR_NOOP("Grabs in the ledger")},
            {QStringLiteral("min_cents"), QT_TR_NOOP("Smallest envelope")},
            {QStringLiteral("missing"), QT_TR_NOOP("Missing")},
            {QStringLiteral("pool_after"), QT_TR_NOOP("Envelopes in the pool, after")},
            {QStringLiteral("pool_before"), QT_TR_NOOP("Envelopes in the pool, before")},
            {QStringLiteral("reason"), QT_TR_NOOP("Reason")},
            {QStringLiteral("redis_count"), QT_TR_NOOP("In Redis")},
            {QStringLiteral("refunded_cents"), QT_TR_NOOP("Refunded")},
            {QStringLiteral("refused_in_flight"), QT_TR_NOOP("Grabs in flight the ledger refuses")},
            {QStringLiteral("requeued"), QT_TR_NOOP("Re-queued")},
            {QStringLiteral("state"), QT_TR_NOOP("State")},
            {QStringLiteral("status"), QT_TR_NOOP("Status")},
            {QStringLiteral("total_cents"), QT_TR_NOOP("Total")},
            {QStringLiteral("via"), QT_TR_NOOP("Via")},
            {QStringLiteral("workers"), QT_TR_NOOP("Workers")},
            {QStringLiteral("acl_saved"), QT_TR_NOOP("ACL saved")},
            {QStringLiteral("algorithm"), QT_TR_NOOP("Split algorithm")},
            {QStringLiteral("approval_cents"), QT_TR_NOOP("Four-eyes bound")},
            {QStringLiteral("approved_by"), QT_TR_NOOP("Approved by")},
            {QStringLiteral("cleared"), QT_TR_NOOP("Cleared")},
            {QStringLiteral("close_at"), QT_TR_NOOP("Close at")},
            {QStringLiteral("created_by"), QT_TR_NOOP("Created by")},
            {QStringLiteral("due_at"), QT_TR_NOOP("Due at")},
            {QStringLiteral("late_limit_s"), QT_TR_NOOP("Late limit (s)")},
            {QStringLiteral("late_ms"), QT_TR_NOOP("Late by (ms)")},
            {QStringLiteral("launch_at"), QT_TR_NOOP("Launch at")},
            {QStringLiteral("lent_settled"), QT_TR_NOOP("Lent envelopes settled")},
            {QStringLiteral("max_attempts"), QT_TR_NOOP("Attempts per user")},
            {QStringLiteral("name"), QT_TR_NOOP("Name")},
            {QStringLiteral("needs_approval"), QT_TR_NOOP("Needs approval")},
            {QStringLiteral("pools"), QT_TR_NOOP("Pools")},
            {QStringLiteral("redis_nodes"), QT_TR_NOOP("Redis nodes")},
            {QStringLiteral("replaced"), QT_TR_NOOP("Replaced")},
            {QStringLiteral("role"), QT_TR_NOOP("Role")},
            {QStringLiteral("roles"), QT_TR_NOOP("Roles")},
            {QStringLiteral("scripts_loaded"), QT_TR_NOOP("Scripts loaded")},
            {QStringLiteral("seed"), QT_TR_NOOP("Random seed")},
            {QStringLiteral("transition"), QT_TR_NOOP("Transition")},
            {QStringLiteral("worker"), QT_TR_NOOP("Worker")},
    };
    if (const auto found = labels.constFind(key); found != labels.cend())
        return tr(found.value());
    QString words = key;
    if (isMoneyKey(words))
        words.chop(int(qstrlen("_cents")));
    words.replace(QLatin1Char('_'), QLatin1Char(' '));
    if (!words.isEmpty())
        words[0] = words.at(0).toUpper();
    return words;
}

QList<std::pair<QString, QString>> AuditLogModel::detailFields(const QString &json)
{
    QList<std::pair<QString, QString>> fields;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        if (!json.trimmed().isEmpty())
            fields.append({QString(), json});
        return fields;
    }
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString text = valueText(it.key(), it.value());
        if (!text.isEmpty())
            fields.append({fieldLabel(it.key()), text});
    }
    return fields;
}

QString AuditLogModel::readableDetail(const QString &json, const QString &separator)
{
    QStringList parts;
    for (const auto &[key, value] : detailFields(json))
        //: One field of an audit entry's details in the log's Details column: its label, then its value.
        parts << (key.isEmpty() ? value : tr("%1: %2").arg(key, value));
    return parts.join(separator);
}

int AuditLogModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_page.entries.size());
}

int AuditLogModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditLogModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditEntry &entry = m_page.entries.at(index.row());
    switch (role) {
    case TableText::ExportRole:
        // The stored values: the action's name and the detail's JSON as written.
        if (index.column() == Action)
            return QVariantList{entry.action};
        if (index.column() == Detail)
            return QVariantList{entry.detail};
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time:
            return timeText(entry.atMs);
        case Actor:
            return entry.actor;
        case Action:
            return actionText(entry.action);
        case Target:
            return entry.target;
        case Detail:
            return readableDetail(entry.detail);
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Detail)
            return readableDetail(entry.detail, QStringLiteral("\n"));
        if (index.column() == Time)
            return QDateTime::fromMSecsSinceEpoch(entry.atMs, m_zone).toString(Qt::ISODateWithMs);
        if (index.column() == Action)
            return entry.action;  // the name the filter and lanternd use
        return data(index, Qt::DisplayRole);
    case IdRole:
        return entry.id;
    case AtMsRole:
        return entry.atMs;
    default:
        break;
    }
    return {};
}

QVariant AuditLogModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == TableText::ExportRole && section == Detail)
        //: The CSV column that holds each audit entry's details as stored.
        return QStringList{tr("Details (JSON)")};
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Detail)
        return tr("Free text: the log cannot be sorted by it");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Time:
        return tr("Time");
    case Actor:
        return tr("Who");
    case Action:
        return tr("Action");
    case Target:
        return tr("Target");
    case Detail:
        return tr("Details");
    default:
        return {};
    }
}

} // namespace lantern
