#include "daypalette.h"

namespace lantern::ui {

DayColors dayColors(CalendarModel::DayState state)
{
    using State = CalendarModel::DayState;
    switch (state) {
    case State::Signed:
        return {QColor(0x2e, 0x9d, 0x5b), {}, Qt::white};
    case State::MakeUp:
        return {QColor(0xe0, 0x8e, 0x1b), {}, Qt::white};
    case State::Missed:
        return {QColor(0xfc, 0xe8, 0xe6), QColor(0xee, 0xb4, 0xae), QColor(0xb3, 0x26, 0x1e)};
    case State::Today:
        return {Qt::white, todayRingColor(), todayRingColor()};
    case State::Future:
        return {QColor(0xfa, 0xfb, 0xfc), QColor(0xd5, 0xd9, 0xde), QColor(0x9a, 0xa0, 0xa6)};
    case State::Unknown:
        return {QColor(0xee, 0xf0, 0xf3), {}, QColor(0x5f, 0x63, 0x68)};
    case State::Outside:
        break;
    }
    return {};
}

QColor todayRingColor()
{
    return QColor(0x1a, 0x73, 0xe8);
}

QColor selectionColor()
{
    return QColor(0x20, 0x21, 0x24);
}

} // namespace lantern::ui
