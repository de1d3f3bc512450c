#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <Qt>

class QAbstractItemModel;
class QModelIndex;

namespace lantern {

/** A model's rows as text: for the clipboard as they are shown (DisplayRole, tab-separated, as
    spreadsheets paste it), for CSV files as values (RFC 4180: fields with a comma, quote or line
    break quoted, quotes doubled; CRLF line ends; a UTF-8 byte order mark first, so Excel reads
    Chinese). Tree models are flattened depth first.
    A CSV exports values, not words: a model says how through ExportRole — headerData(section,
    Horizontal, ExportRole) is a QStringList naming the CSV columns a column becomes (a "165 / 200"
    column becomes two), data(index, ExportRole) a QVariantList of as many values (counts as
    numbers, money as yuanNumber(), times as isoTime(), stored JSON as it is stored). A column
    without them exports its display text. */
class TableText final {
public:
    enum class Format { Tsv, Csv };
    static constexpr int ExportRole = Qt::UserRole + 400;

    /** Money as a spreadsheet reads a number: yuan with two decimals, no symbol or separator. */
    static QString yuanNumber(qint64 cents);
    /** A time as spreadsheets read it, in local time: "2026-11-26 19:14:05". */
    static QString isoTime(qint64 msSinceEpoch);
    /** Every row under the root and their children, as all() writes them. */
    static int rowCount(const QAbstractItemModel &model);
    /** A CSV file's bytes: the byte order mark, then all(model, Csv) in UTF-8. */
    static QByteArray csvFile(const QAbstractItemModel &model);

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
