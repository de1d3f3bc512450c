#include "console/queues/deadlettermodel.h"

#include "checkin/checkinentry.h"
#include "console/common/campaignmoney.h"
#include "console/common/tabletext.h"
#include "console/queues/queueformat.h"
#include "envelope/payouttask.h"

#include <QJsonDocument>
#include <QLocale>

#include <algorithm>

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

QVariant DeadLetterModel::sortValue(const Row &row, int column)
{
    switch (Column(column)) {
    case Kind:
        return row.kind;
    case Summary: {
        // Numbers padded so that they compare as numbers: user 9 before user 10.
        const auto padded = [](qint64 n) { return QStringLiteral("%1").arg(n, 20, 10, QLatin1Char('0')); };
        if (const auto task = PayoutTask::fromJson(row.raw))
            return QString(QStringLiteral("2 ") + padded(task->campaignId) + QLatin1Char(' ') + padded(task->seq));
        if (const auto entry = CheckinEntry::fromJson(row.raw))
            return QString(QStringLiteral("1 ") + padded(entry->uid) + QLatin1Char(' ') + entry->date.toString(Qt::ISODate));
        return QString(QStringLiteral("3 ") + row.summary);
    }
    case Reason:
        return row.note.reason;
    case Attempts:
        return row.note.attempts;
    case FailedAt:
        return row.note.failedAtMs;
    case QueuedAt:
        return row.atMs;
    case Position:
    case ColumnCount:
        break;
    }
    return {};
}

DeadLetterPage DeadLetterModel::sortedSlice(const DeadLetterPage &whole, int column, Qt::SortOrder order, qint64 offset, int count)
{
    struct Keyed {
        qsizetype index;
        bool noted;
        QVariant value;
    };
    QList<Keyed> keyed;
    keyed.reserve(whole.entries.size());
    for (qsizetype i = 0; i < whole.entries.size(); ++i) {
        Row row = describe(whole.entries.at(i));
        row.note = i < whole.notes.size() ? whole.notes.at(i) : DeadLetterNote();
        // Kind, entry and queued-at are in the entry itself: only the note's columns lack a value.
        const bool fromNote = column == Reason || column == Attempts || column == FailedAt;
        keyed << Keyed{i, !fromNote || row.note.isKnown(), sortValue(row, column)};
    }
    const bool descending = order == Qt::DescendingOrder;
    std::stable_sort(keyed.begin(), keyed.end(), [descending](const Keyed &a, const Keyed &b) {
        if (a.noted != b.noted)
            return a.noted;
        const QPartialOrdering cmp = QVariant::compare(a.value, b.value);
        return descending ? cmp == QPartialOrdering::Greater : cmp == QPartialOrdering::Less;
    });
    DeadLetterPage page;
    page.list = whole.list;
    page.depth = whole.entries.size();
    page.offset = std::clamp<qint64>(offset, 0, page.depth);
    const qint64 end = std::min<qint64>(page.depth, page.offset + std::clamp(count, 1, DeadLetters::MaxPage));
    for (qint64 at = page.offset; at < end; ++at) {
        const qsizetype i = keyed.at(at).index;
        page.entries << whole.entries.at(i);
        page.notes << (i < whole.notes.size() ? whole.notes.at(i) : DeadLetterNote());
        page.positions << (i < whole.positions.size() ? whole.positions.at(i) : i + 1);
    }
    return page;
}

void DeadLetterModel::setPage(const DeadLetterPage &page)
{
    beginResetModel();
    m_page = page;
    m_rows.clear();
    m_rows.reserve(page.entries.size());
    for (qsizetype i = 0; i < page.entries.size(); ++i) {
        m_rows << describe(page.entries.at(i));
        if (i < page.notes.size())
            m_rows.last().note = page.notes.at(i);
    }
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

DeadLetterNote DeadLetterModel::noteAt(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).note : DeadLetterNote();
}

QString DeadLetterModel::storedText(const QByteArray &raw)
{
    QString text;
    qsizetype i = 0;
    while (i < raw.size()) {
        // The longest valid UTF-8 run from here, as it decodes.
        qsizetype end = i;
        while (end < raw.size()) {
            const auto byte = static_cast<unsigned char>(raw.at(end));
            int length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
            if (length == 0 || end + length > raw.size())
                break;
            bool continuation = true;
            for (int k = 1; k < length; ++k)
                continuation = continuation && (static_cast<unsigned char>(raw.at(end + k)) >> 6) == 0x2;
            if (!continuation || (length == 1 && byte < 0x20 && byte != '\n' && byte != '\t'))
                break;
            end += length;
        }
        text += QString::fromUtf8(raw.constData() + i, end - i);
        if (end < raw.size()) {
            text += QStringLiteral("\\x%1").arg(static_cast<unsigned char>(raw.at(end)), 2, 16, QLatin1Char('0'));
            ++end;
        }
        i = end;
    }
    return text;
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
    case TableText::ExportRole:
        // The entry as stored (what a retry puts back), counts and times as values.
        switch (Column(index.column())) {
        case Position:
            return QVariantList{data(index, QueueFormat::ValueRole)};
        case Summary:
            return QVariantList{QString::fromUtf8(row.raw)};
        case Attempts:
            return QVariantList{row.note.attempts};
        case FailedAt:
            return QVariantList{row.note.isKnown() ? TableText::isoTime(row.note.failedAtMs) : QString()};
        case QueuedAt:
            return QVariantList{row.atMs > 0 ? TableText::isoTime(row.atMs) : QString()};
        default:
            return {};
        }
    case RawRole:
        return row.raw;
    case ReadableRole:
        return row.readable;
    case QueueFormat::ToneRole:
        return int(index.column() == Kind && !row.readable ? QueueFormat::Tone::Bad : QueueFormat::Tone::Neutral);
    case Qt::TextAlignmentRole:
        return index.column() == Position || index.column() == Attempts ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == Reason && row.note.isKnown())
            return row.note.reason;
        return index.column() == Summary ? QVariant(prettyEntry(row.raw)) : QVariant();
    case QueueFormat::ValueRole:
    case Qt::DisplayRole: {
        const bool raw = role == QueueFormat::ValueRole;
        switch (Column(index.column())) {
        case Position:
        {
            const qint64 position = index.row() < m_page.positions.size() ? m_page.positions.at(index.row()) : m_page.offset + index.row() + 1;
            return raw ? QVariant(position) : QVariant(QLocale().toString(position));
        }
        case Kind:
            return row.kind;
        case Summary:
            return row.summary;
        case Reason:
            return row.note.isKnown() ? (row.note.reason.isEmpty() ? tr("no reason given") : row.note.reason) : tr("not recorded");
        case Attempts:
            if (raw)
                return row.note.attempts;
            return row.note.attempts > 0 ? QLocale().toString(row.note.attempts) : QStringLiteral("—");
        case FailedAt:
            if (raw)
                return row.note.failedAtMs;
            return row.note.isKnown() ? QueueFormat::stamp(row.note.failedAtMs) : QStringLiteral("—");
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
    if (orientation == Qt::Horizontal && role == TableText::ExportRole && section == Summary)
        //: The CSV column holding each dead letter byte for byte.
        return QStringList{tr("Entry (as stored)")};
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Position:
        return tr("#");
    case Kind:
        return tr("Kind");
    case Summary:
        return tr("Entry");
    case Reason:
        return tr("Why it was set aside");
    case Attempts:
        return tr("Tries");
    case FailedAt:
        return tr("Set aside at");
    case QueuedAt:
        return tr("Queued at");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace lantern
