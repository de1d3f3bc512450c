#include "tabletext.h"

#include <QAbstractItemModel>
#include <QDateTime>
#include <QStringList>

#include <cstdlib>

namespace lantern {

namespace {

QLatin1String separatorOf(TableText::Format format)
{
    return format == TableText::Format::Csv ? QLatin1String(",") : QLatin1String("\t");
}

QLatin1String endOf(TableText::Format format)
{
    return format == TableText::Format::Csv ? QLatin1String("\r\n") : QLatin1String("\n");
}

void collect(const QAbstractItemModel &model, const QModelIndex &parent, QList<QModelIndex> &rows)
{
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, 0, parent);
        rows << index;
        if (model.hasChildren(index))
            collect(model, index, rows);
    }
}

} // namespace

QString TableText::field(const QString &text, Format format)
{
    if (format == Format::Tsv) {
        // A tab or line break would start another cell or row when pasted.
        QString flat = text;
        flat.replace(QLatin1Char('\t'), QLatin1Char(' ')).replace(QLatin1Char('\n'), QLatin1Char(' ')).remove(QLatin1Char('\r'));
        return flat;
    }
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n'))
        && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString TableText::yuanNumber(qint64 cents)
{
    const qint64 whole = cents / 100;
    const qint64 part = std::abs(cents % 100);
    return (cents < 0 && whole == 0 ? QStringLiteral("-") : QString()) + QString::number(whole) + QLatin1Char('.')
           + QString::number(part).rightJustified(2, QLatin1Char('0'));
}

QString TableText::isoTime(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

int TableText::rowCount(const QAbstractItemModel &model)
{
    QList<QModelIndex> everything;
    collect(model, {}, everything);
    return int(everything.size());
}

QByteArray TableText::csvFile(const QAbstractItemModel &model)
{
    return QByteArrayLiteral("\xEF\xBB\xBF") + all(model, Format::Csv).toUtf8();
}

QString TableText::line(const QAbstractItemModel &model, const QModelIndex &row, Format format)
{
    QStringList fields;
    for (int column = 0; column < model.columnCount(row.parent()); ++column) {
        const QModelIndex cell = model.index(row.row(), column, row.parent());
        const QVariant values = format == Format::Csv ? cell.data(ExportRole) : QVariant();
        if (values.isValid()) {
            for (const QVariant &value : values.toList())
                fields << field(value.toString(), format);
        } else {
            fields << field(cell.data(Qt::DisplayRole).toString(), format);
        }
    }
    return fields.join(separatorOf(format)) + endOf(format);
}

QString TableText::all(const QAbstractItemModel &model, Format format)
{
    QStringList header;
    for (int column = 0; column < model.columnCount(); ++column) {
        const QVariant names = format == Format::Csv ? model.headerData(column, Qt::Horizontal, ExportRole) : QVariant();
        if (names.isValid()) {
            for (const QString &name : names.toStringList())
                header << field(name, format);
        } else {
            header << field(model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(), format);
        }
    }
    QList<QModelIndex> everything;
    collect(model, {}, everything);
    return header.join(separatorOf(format)) + endOf(format) + rows(model, everything, format);
}

QString TableText::rows(const QAbstractItemModel &model, const QList<QModelIndex> &rows, Format format)
{
    QString text;
    for (const QModelIndex &row : rows)
        text += line(model, row, format);
    return text;
}

} // namespace lantern
