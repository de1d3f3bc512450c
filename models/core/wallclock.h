#pragma once

#include <QDateTime>

namespace lantern {

/** Milliseconds since the epoch on the wall clock: for timestamps that are shown or stored. */
inline qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace lantern
