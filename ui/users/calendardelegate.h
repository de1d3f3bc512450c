#pragma once

#include <QStyledItemDelegate>

namespace lantern::ui {

/** Paints a CalendarModel day as a rounded tile: the day number, a check mark on signed days,
    a caption on make-ups and today, a ring around today and a frame around the selection. */
class CalendarDelegate final : public QStyledItemDelegate {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CalendarDelegate)

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace lantern::ui
