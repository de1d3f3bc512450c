#include "console/deadlettermodel.h"

#include "checkin/checkinentry.h"
#include "console/campaignmoney.h"
#include "console/queueformat.h"
#include "envelope/payouttask.h"

#include <QJsonDocument>
#include <QLocale>

namespace lantern {

DeadLetterModel::DeadLetterModel(QObject *parent) : QAbstractTableModel(parent) {}

DeadLetterModel::Row DeadLetterModel::describe(const QByteArray &raw)
{
    Row row;
    row.raw = raw;
    if (const auto task = PayoutTask::fromJson(raw)) {
        row.kind = tr("Payout");
        row.summary = tr("Campaign %1, envelope %2: %3 to user %4").arg(task->campaignId).arg(task->seq).arg(formatYuan(task->amountCents)).arg(task->uid);
        row.atMs = task->atMs;
        row.readable = true;
    } else if (const auto entry = CheckinEntry::fromJson(raw)) {
        row.kind = entry->kind == QLatin1String("makeup") ? tr("Make-up") : tr("Check-in");
        row.summary = tr("User %1 on %2, %n point(s)", nullptr, entry->points).arg(entry->uid).arg(entry->date.toString(Qt::ISODate));
        row.atMs = entry->atMs;
        row.readable = true;
    } else {
        row.kind = tr("Unreadable");
        QString text = QString::fromUtf8(raw).simplified();
        if (text.size() > 80)
            text = text.left(79) + QChar(0x2026);
        row.summary = text;
    }
    return row;
}

void DeadLetterModel::setPage(const DeadLetterPage &page)
{
    beginResetModel();
    m_page = page;
    m_rows.clear();
    m_rows.reserve(page.entries.size());
    for (const QByteArray &raw : page.entries)
        m_rows << describe(raw);
    endResetModel();
}

void DeadLetterModel::clear()
{
    setPage({});
}

QByteArray DeadLetterModel::entryAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).raw : QByteArray();
}

int DeadLetterModel::rowOf(const QByteArray &raw) const
{
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).raw == raw)
            return int(i);
    }
    return -1;
}

QString DeadLetterModel::prettyEntry(const QByteArray &raw)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(raw, &error);
    if (error.error == QJsonParseError::NoError && !document.isNull())
        return QString::fromUtf8(document.toJson(QJsonDocument::Indented)).trimmed();
    return QString::fromUtf8(raw);
}

int DeadLetterModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int DeadLetterModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeadLetterModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case RawRole:
        return row.raw;
    case QueueFormat::ToneRole:
        return int(index.column() == Kind && !row.readable ? QueueFormat::Tone::Bad : QueueFormat::Tone::Neutral);
    case Qt::TextAlignmentRole:
        return index.column() == Position ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
        return index.column() == Summary ? QVariant(prettyEntry(row.raw)) : QVariant();
    case QueueFormat::ValueRole:
    case Qt::DisplayRole: {
        const bool raw = role == QueueFormat::ValueRole;
        switch (Column(index.column())) {
        case Position:
            return raw ? QVariant(m_page.offset + index.row() + 1) : QVariant(QLocale().toString(m_page.offset + index.row() + 1));
        case Kind:
            return row.kind;
        case Summary:
            return row.summary;
        case QueuedAt:
            return raw ? QVariant(row.atMs) : QVariant(QueueFormat::stamp(row.atMs));
        case ColumnCount:
            break;
        }
        return {};
    }
    default:
        return {};
    }
}

QVariant DeadLetterModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Position:
        return tr("#");
    case Kind:
        return tr("Kind");
    case Summary:
        return tr("Entry");
    case QueuedAt:
        return tr("Queued at");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
