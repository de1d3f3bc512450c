#pragma once

#include "access/role.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QCoreApplication>
#include <QString>

#include <exception>

namespace lantern {

/** A failure in plain, translated words for the window, and its technical cause. */
struct PlainFailure {
    QString message;
    QString detail;
};

/** Words for what went wrong while the console talked to the servers of `config`: Redis or the
    database not answering, Redis loading its dataset or busy, a wrong user name or password, a
    missing permission, a refusal of a read-only connection. */
class ConnectionErrors final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ConnectionErrors)

public:
    static PlainFailure explain(const std::exception &error, const Config &config);
    /** What follows "Redis" in the status bar after `error`: "is loading", "is busy", "down". */
    static QString redisStatus(const std::exception &error);
    /** Whether `error` means the SQL connection is broken and must be reopened. */
    static bool dropsSqlConnection(const std::exception &error);
    /** explain(), after dropping from `connections` what the error broke (a Redis context that
        reported an I/O error is never reused; a lost SQL connection is reopened next time). */
    static PlainFailure explain(const std::exception &error, const Config &config, LazyConnections &connections);
    /** explain(), but a server's refusal for want of a right (ForbiddenError) is said as the
        console's disabled button says it, naming `action` and the account's role as the
        database reports it now: "The account alice (support) may not launch campaigns: the
        servers refused it ..." (issue 25, point 4). */
    static PlainFailure explain(const std::exception &error, const Config &config, LazyConnections &connections, access::Action action);
};

} // namespace lantern
