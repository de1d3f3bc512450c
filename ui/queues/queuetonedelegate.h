#pragma once

#include <QStyledItemDelegate>

namespace lantern::ui {

/** Paints a cell whose QueueFormat::ToneRole is not Neutral as a small coloured pill (green
    good, amber warning, red bad), so states read at a glance; other cells as usual. */
class QueueToneDelegate final : public QStyledItemDelegate {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueToneDelegate)

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace lantern::ui
