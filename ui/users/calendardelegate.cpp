#include "users/calendardelegate.h"

#include "console/users/calendarmodel.h"
#include "users/daypalette.h"

#include <QPainter>
#include <QPainterPath>

namespace lantern::ui {

namespace {

constexpr qreal Radius = 7.0;
constexpr int Margin = 3;

void drawCheck(QPainter *painter, const QRectF &area, const QColor &color)
{
    QPainterPath check;
    check.moveTo(area.left(), area.center().y());
    check.lineTo(area.left() + area.width() * 0.38, area.bottom());
    check.lineTo(area.right(), area.top());
    painter->setPen(QPen(color, qMax<qreal>(2.0, area.width() / 6.0), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(check);
}

} // namespace

void CalendarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    using State = CalendarModel::DayState;
    const auto state = index.data(CalendarModel::StateRole).value<State>();
    if (state == State::Outside)
        return;
    const bool isToday = index.data(CalendarModel::IsTodayRole).toBool();
    const bool selected = option.state & QStyle::State_Selected;
    const DayColors colors = dayColors(state);

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const QRectF tile = QRectF(option.rect).adjusted(Margin, Margin, -Margin, -Margin);

    painter->setPen(colors.border.isValid() ? QPen(colors.border, 1.0) : Qt::NoPen);
    painter->setBrush(colors.fill);
    painter->drawRoundedRect(tile.adjusted(0.5, 0.5, -0.5, -0.5), Radius, Radius);
    if (isToday && state != State::Today) {
        painter->setPen(QPen(todayRingColor(), 2.5));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(tile.adjusted(1.25, 1.25, -1.25, -1.25), Radius, Radius);
    }
    if (state == State::Today) {
        painter->setPen(QPen(todayRingColor(), 2.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(tile.adjusted(1.0, 1.0, -1.0, -1.0), Radius, Radius);
    }
    if (selected) {
        const QRectF outer = QRectF(option.rect).adjusted(0.75, 0.75, -0.75, -0.75);
        painter->setPen(QPen(selectionColor(), 2.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(outer, Radius + 2, Radius + 2);
    }

    // The day number, top left.
    QFont numberFont = option.font;
    numberFont.setBold(state != State::Future && state != State::Unknown);
    numberFont.setPointSizeF(option.font.pointSizeF() * 1.15);
    painter->setFont(numberFont);
    painter->setPen(colors.text);
    const QRectF text = tile.adjusted(7, 4, -6, -4);
    painter->drawText(text, Qt::AlignTop | Qt::AlignLeft, index.data(Qt::DisplayRole).toString());

    // A check mark on signed days, bottom right, sized to the tile.
    if (state == State::Signed || state == State::MakeUp) {
        const qreal size = qBound<qreal>(8.0, qMin(tile.width(), tile.height()) * 0.26, 16.0);
        const QRectF area(tile.right() - size - 7, tile.bottom() - size * 0.8 - 7, size, size * 0.8);
        drawCheck(painter, area, colors.text);
    }

    // A caption where colour alone would not say enough.
    QString caption;
    if (state == State::MakeUp)
        caption = tr("make-up", "calendar tile caption");
    else if (isToday)
        caption = tr("today", "calendar tile caption");
    if (!caption.isEmpty() && tile.height() >= 40) {
        QFont small = option.font;
        small.setPointSizeF(option.font.pointSizeF() * 0.82);
        painter->setFont(small);
        const QFontMetricsF metrics(small);
        const qreal room = tile.width() - 14 - ((state == State::Signed || state == State::MakeUp) ? 20 : 0);
        painter->drawText(text, Qt::AlignBottom | Qt::AlignLeft, metrics.elidedText(caption, Qt::ElideRight, room));
    }
    painter->restore();
}

QSize CalendarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const
{
    const int line = option.fontMetrics.height();
    return {line * 4, line * 3 + 2 * Margin};
}

} // namespace lantern::ui
