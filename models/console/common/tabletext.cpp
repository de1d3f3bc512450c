#include "tabletext.h"

#include <QAbstractItemModel>
#include <QStringList>

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

QString TableText::line(const QAbstractItemModel &model, const QModelIndex &row, Format format)
{
    QStringList fields;
    for (int column = 0; column < model.columnCount(row.parent()); ++column)
        fields << field(model.index(row.row(), column, row.parent()).data(Qt::DisplayRole).toString(), format);
    return fields.join(separatorOf(format)) + endOf(format);
}

QString TableText::all(const QAbstractItemModel &model, Format format)
{
    QStringList header;
    for (int column = 0; column < model.columnCount(); ++column)
        header << field(model.headerData(column, Qt::Horizontal, Qt::DisplayRole).toString(), format);
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
