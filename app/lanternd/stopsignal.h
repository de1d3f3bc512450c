#pragma once

#include <functional>

namespace lantern::cli {

/** Lets SIGTERM/SIGINT ask a long-running command (`work`, `serve`) to finish and stop: the
    handler only sets a flag (async-signal-safe), the command's loop looks at it. */
void installStopHandlers();
/** Whether SIGTERM/SIGINT arrived. */
bool stopRequested();
/** Waits up to `ms`, waking early when a stop is requested; runs `duringWait` every 50 ms. */
void pauseUnlessStopped(int ms, const std::function<void()> &duringWait = {});

} // namespace lantern::cli
