#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {
struct ConnectionCheck;
}

namespace lantern::ui {

/** What a connection test found, as the Connections view shows it: one row per hop (Sentinel,
    TLS, Redis, SQL TLS, SQL), ✓ with what answered or ✗ with what failed, in plain words. */
class ConnectionCheckReport final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ui::ConnectionCheckReport)

public:
    /** The rows as rich text for a QLabel. */
    static QString html(const ConnectionCheck &result);
    /** A round trip: "0.42 ms", "12.3 ms". */
    static QString milliseconds(double ms);

private:
    /** The hops to Redis, a row each: Sentinel (the master it named), TLS (protocol, the
        certificate's subject and expiry, the verify mode; a warning for none), Redis (role). */
    static QString redisRows(const ConnectionCheck &result);
    /** A Redis Cluster's nodes, a row each: address, role and slots, a PING's round trip. */
    static QString clusterRows(const ConnectionCheck &result);
};

} // namespace lantern::ui
