#include "console/auditlogmodel.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace lantern {

namespace {

QString valueText(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::String:
        return value.toString();
    case QJsonValue::Bool:
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double: {
        const double number = value.toDouble();
        const auto whole = static_cast<qint64>(number);
        return static_cast<double>(whole) == number ? QString::number(whole) : QString::number(number);
    }
    case QJsonValue::Array:
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
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
        const QString text = valueText(it.value());
        if (!text.isEmpty())
            fields.append({it.key(), text});
    }
    return fields;
}

QString AuditLogModel::readableDetail(const QString &json, const QString &separator)
{
    QStringList parts;
    for (const auto &[key, value] : detailFields(json))
        parts << (key.isEmpty() ? value : key + QStringLiteral(": ") + value);
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
    case Qt::DisplayRole:
        switch (index.column()) {
        case Time:
            return timeText(entry.atMs);
        case Actor:
            return entry.actor;
        case Action:
            return entry.action;
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
