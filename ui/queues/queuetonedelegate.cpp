#include "queues/queuetonedelegate.h"

#include "console/queues/queueformat.h"
#include "common/consoletheme.h"

#include <QApplication>
#include <QPainter>

namespace lantern::ui {

namespace {

using Tone = lantern::QueueFormat::Tone;

std::pair<QColor, QColor> pill(ConsoleTheme::Tone tone)
{
    const ConsoleTheme::ToneColours colours = ConsoleTheme::tone(tone);
    return {QColor(colours.background), QColor(colours.foreground)};
}

std::pair<QColor, QColor> colours(Tone tone)
{
    switch (tone) {
    case Tone::Good:
        return pill(ConsoleTheme::Tone::Good);
    case Tone::Warning:
        return pill(ConsoleTheme::Tone::Warning);
    case Tone::Bad:
        return pill(ConsoleTheme::Tone::Error);
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
