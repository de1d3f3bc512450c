#include "users/daypalette.h"

#include "common/consoletheme.h"

namespace lantern::ui {

DayColors dayColors(CalendarModel::DayState state)
{
    using State = CalendarModel::DayState;
    if (ConsoleTheme::isDark()) {
        // Signed and make-up days keep their colours; the pale ones would glare at night.
        switch (state) {
        case State::Missed:
            return {QColor(0x4a, 0x24, 0x22), QColor(0x8c, 0x3b, 0x35), QColor(0xf2, 0x8b, 0x82)};
        case State::Today:
            return {QColor(0x1f, 0x20, 0x22), todayRingColor(), QColor(0x8a, 0xb4, 0xf8)};
        case State::Future:
            return {QColor(0x28, 0x2a, 0x2d), QColor(0x3c, 0x40, 0x43), QColor(0x80, 0x86, 0x8b)};
        case State::Unknown:
            return {QColor(0x35, 0x37, 0x3a), {}, QColor(0xbd, 0xc1, 0xc6)};
        default:
            break;
        }
    }
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
    return ConsoleTheme::isDark() ? QColor(0xe8, 0xea, 0xed) : QColor(0x20, 0x21, 0x24);
}

} // namespace lantern::ui
