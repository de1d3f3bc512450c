#pragma once

#include "operations/deadletters.h"

#include <QAbstractTableModel>

namespace lantern {

/** One page of a dead-letter list (at most DeadLetters::MaxPage entries), in the order it was
    read in (newest first unless sorted): position in the list, what the entry is (a check-in
    or a payout task, or unreadable), why it was set aside, after how many tries and when (its
    note; "not recorded" for entries set aside before notes were kept), and when it was queued. RawRole gives the entry byte for byte, as
    retry/discard need it; ReadableRole whether a worker can read it (a retry can succeed). */
class DeadLetterModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DeadLetterModel)

public:
    enum Column { Position, Kind, Summary, Reason, Attempts, FailedAt, QueuedAt, ColumnCount };
    static constexpr int RawRole = Qt::UserRole + 1;
    static constexpr int ReadableRole = Qt::UserRole + 2;

    explicit DeadLetterModel(QObject *parent = nullptr);

    /** Whether the page can be sorted by `column` over the whole list: Position at any depth
        (Redis reads from either end), the others up to DeadLetters::SortableDepth entries. */
    static bool needsWholeList(int column) { return column != Position; }
    /** Entries `offset`..`offset + count` of `whole` (DeadLetters::whole) sorted by `column`
        (a Column other than Position) on raw values: a check-in by user and day, a payout by
        campaign and envelope, tries as numbers, times as ms. Entries without a note (set aside
        before notes were kept) come after the others in both directions; ties keep list order. */
    static DeadLetterPage sortedSlice(const DeadLetterPage &whole, int column, Qt::SortOrder order, qint64 offset, int count);

    void setPage(const DeadLetterPage &page);
    void clear();
    const DeadLetterPage &page() const { return m_page; }
    QByteArray entryAt(int row) const;
    /** The row holding exactly `raw` on this page, or -1. */
    int rowOf(const QByteArray &raw) const;

    /** An entry as indented JSON, or as text when it is not JSON. */
    static QString prettyEntry(const QByteArray &raw);
    /** An entry exactly as stored: its bytes as UTF-8, each byte that is not valid UTF-8 or is a
        control character other than a line break or tab shown as \xNN. */
    static QString storedText(const QByteArray &raw);
    DeadLetterNote noteAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QByteArray raw;
        QString kind;
        QString summary;
        qint64 atMs = 0;
        bool readable = false;
        DeadLetterNote note;
    };
    static Row describe(const QByteArray &raw);
    /** The raw value an entry sorts by in `column`. */
    static QVariant sortValue(const Row &row, int column);

    DeadLetterPage m_page;
    QList<Row> m_rows;
};

} // namespace lantern
