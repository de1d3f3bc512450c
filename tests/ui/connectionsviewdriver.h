#pragma once

#include "console/connections/connectiontester.h"
#include "connections/connectionsview.h"

#include <memory>

namespace lantern::test {

/** What the Connections view tests share: a view on their own profile folder (keychain service
    "lantern-test"), shown at 1000x700 and attached to `session`. */
std::unique_ptr<ui::ConnectionsView> makeConnectionsView(const QString &profileDirectory, const Config &session);
/** Clicks Test connection and returns the report once it is on screen; an empty check when none
    came within `timeoutMs`. */
ConnectionCheck runConnectionTest(ui::ConnectionsView &view, int timeoutMs);

} // namespace lantern::test
