#pragma once

#include <QtGlobal>

#include <chrono>

namespace lantern {

/** Nanoseconds on the steady clock: for deadlines and durations, never for dates. */
inline qint64 monotonicNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace lantern
