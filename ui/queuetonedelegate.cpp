#include "queuetonedelegate.h"

#include "console/queues/queueformat.h"

#include <QApplication>
#include <QPainter>

namespace lantern::ui {

namespace {

using Tone = lantern::QueueFormat::Tone;

std::pair<QColor, QColor> colours(Tone tone)
{
    switch (tone) {
    case Tone::Good:
        return {QColor(0xe6, 0xf4, 0xea), QColor(0x13, 0x73, 0x33)};
    case Tone::Warning:
        return {QColor(0xfe, 0xf7, 0xe0), QColor(0x7a, 0x4f, 0x01)};
    case Tone::Bad:
        return {QColor(0xfc, 0xe8, 0xe6), QColor(0xa5, 0x0e, 0x0e)};
    case Tone::Neutral:
        break;
    }
    return {};
}

} // namespace

void QueueToneDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const auto tone = Tone(index.data(QueueFormat::ToneRole).toInt());
    if (tone == Tone::Neutral) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QStyle *style = opt.widget ? opt.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget);

    const auto [background, foreground] = colours(tone);
    const QRect area = opt.rect.adjusted(4, 3, -4, -3);
    const int width = std::min(area.width(), opt.fontMetrics.horizontalAdvance(text) + 14);
    QRect pill(area.left(), area.top(), width, area.height());
    if (opt.displayAlignment & Qt::AlignRight)
        pill.moveRight(area.right());
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(background);
    painter->drawRoundedRect(pill, 4, 4);
    painter->setPen(foreground);
    painter->setFont(opt.font);
    painter->drawText(pill, Qt::AlignCenter, opt.fontMetrics.elidedText(text, Qt::ElideRight, pill.width() - 8));
    painter->restore();
}

QSize QueueToneDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    if (Tone(index.data(QueueFormat::ToneRole).toInt()) != Tone::Neutral)
        size += QSize(22, 6);
    return size;
}

} // namespace lantern::ui
