#pragma once

#include "queue/deadletters.h"

#include <QAbstractTableModel>

namespace lantern {

/** One page of a dead-letter list (at most DeadLetters::MaxPage entries), newest first:
    position, what the entry is (a check-in or a payout task, or unreadable) and when it was
    queued. RawRole gives the entry byte for byte, as retry/discard need it. */
class DeadLetterModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DeadLetterModel)

public:
    enum Column { Position, Kind, Summary, QueuedAt, ColumnCount };
    static constexpr int RawRole = Qt::UserRole + 1;

    explicit DeadLetterModel(QObject *parent = nullptr);

    void setPage(const DeadLetterPage &page);
    void clear();
    const DeadLetterPage &page() const { return m_page; }
    QByteArray entryAt(int row) const;
    /** The row holding exactly `raw` on this page, or -1. */
    int rowOf(const QByteArray &raw) const;

    /** An entry as indented JSON, or as text when it is not JSON. */
    static QString prettyEntry(const QByteArray &raw);

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
    };
    static Row describe(const QByteArray &raw);

    DeadLetterPage m_page;
    QList<Row> m_rows;
};

} // namespace lantern
