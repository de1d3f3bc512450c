#include "users/calendarlegend.h"

#include "console/users/calendarmodel.h"
#include "users/daypalette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPixmap>

namespace lantern::ui {

namespace {

QPixmap swatch(CalendarModel::DayState state, int size, qreal ratio)
{
    QPixmap pixmap(QSize(size, size) * ratio);
    pixmap.setDevicePixelRatio(ratio);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    painter.setRenderHint(QPainter::Antialiasing);
    const DayColors colors = dayColors(state);
    const QRectF box(1, 1, size - 2, size - 2);
    painter.setBrush(colors.fill);
    if (state == CalendarModel::DayState::Today)
        painter.setPen(QPen(todayRingColor(), 2.0));
    else
        painter.setPen(colors.border.isValid() ? QPen(colors.border, 1.0) : Qt::NoPen);
    painter.drawRoundedRect(box.adjusted(0.5, 0.5, -0.5, -0.5), 3, 3);
    return pixmap;
}

} // namespace

CalendarLegend::CalendarLegend(QWidget *parent)
    : QWidget(parent)
{
    using State = CalendarModel::DayState;
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->setSpacing(14);
    const int size = fontMetrics().height() - 2;
    for (const State state : {State::Signed, State::MakeUp, State::Missed, State::Today, State::Future}) {
        auto *entry = new QHBoxLayout;
        entry->setSpacing(5);
        auto *icon = new QLabel(this);
        icon->setPixmap(swatch(state, size, devicePixelRatioF()));
        auto *text = new QLabel(state == State::Today ? tr("Today") : CalendarModel::stateName(state), this);
        text->setForegroundRole(QPalette::PlaceholderText);
        entry->addWidget(icon);
        entry->addWidget(text);
        layout->addLayout(entry);
    }
    layout->addStretch();
}

} // namespace lantern::ui
