#pragma once

#include <QList>
#include <QString>

class QAbstractItemModel;
class QModelIndex;

namespace lantern {

/** A table model's rows as text, as they are shown (DisplayRole), for the clipboard (tab-
    separated, as spreadsheets paste it) and CSV files (RFC 4180: fields with a comma, quote or
    line break quoted, quotes doubled; CRLF line ends). Tree models are flattened depth first. */
class TableText final {
public:
    enum class Format { Tsv, Csv };

    /** Every row under `parent` (and their children), with the header line first. */
    static QString all(const QAbstractItemModel &model, Format format);
    /** The given rows (of any parent), in the order given, without a header. */
    static QString rows(const QAbstractItemModel &model, const QList<QModelIndex> &rows, Format format);
    /** One field as the format writes it. */
    static QString field(const QString &text, Format format);

private:
    static QString line(const QAbstractItemModel &model, const QModelIndex &row, Format format);
};

} // namespace lantern
