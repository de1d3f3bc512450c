#pragma once

#include <QByteArrayList>

namespace lantern {

/** Where a command goes on a Redis Cluster: the node of its keys' slot, any node, every master,
    or nowhere (a command that cannot give a cluster-wide answer yet). Written for the commands
    Lantern sends; a command not listed is taken to have its key first (args[1]), the common form. */
struct CommandRoute {
    enum class Kind {
        Keys,         // the node that serves `keys` (one slot; several slots is a CROSSSLOT refusal)
        AnyNode,      // keyless, every node answers alike (PING, INFO, CONFIG GET, EVAL with no key)
        EveryMaster,  // keyless and per node, sent to every master (SCRIPT LOAD, FLUSHALL, DBSIZE, ...)
        NotOnCluster, // per-node state with no cluster-wide meaning here yet (SCAN, KEYS, WAIT, SELECT)
    };
    /** How EveryMaster replies become one: the first (errors first), or their sum (DBSIZE). */
    enum class Merge { First, Sum };

    Kind kind = Kind::AnyNode;
    QByteArrayList keys;
    Merge merge = Merge::First;

    /** The route of one command (args[0] its name, any case). */
    static CommandRoute of(const QByteArrayList &args);
};

} // namespace lantern
