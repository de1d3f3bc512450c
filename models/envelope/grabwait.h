#pragma once

namespace lantern {

/** `grab-wait` "N/MS": after each grab's write, WAIT until N replicas have it or MS pass, before
    answering (docs/cluster.md "Acknowledged grabs and failover"). Off (0) by default. */
struct GrabWait {
    int replicas = 0;
    int timeoutMs = 0;
    bool enabled() const { return replicas > 0; }
};

} // namespace lantern
