#pragma once

#include <QCoreApplication>
#include <QHostAddress>
#include <QString>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace lantern {

class ApiShared;
class BlockingEndpoints;
class HttpServerLoop;

/** `lanternd serve`'s HTTP server (docs/api.md): `threads` event loops (HttpServerLoop), each on
    its own SO_REUSEPORT listening socket on the same address so the kernel spreads connections
    over them, and the threads that answer calendar and metrics (BlockingEndpoints). Runs from
    construction until stop(); nothing here needs the executable, so tests run it in-process. */
class HttpServer final {
    Q_DECLARE_TR_FUNCTIONS(lantern::HttpServer)

public:
    struct Address {
        QHostAddress host;
        quint16 port = 0;  // 0: a port the kernel chooses
    };
    /** HOST:PORT with an IP address ([v6]:PORT); throws InvalidInputError. */
    static Address parseAddress(const QString &text);

    /** Listens (throws LanternError when it cannot) and starts the loops. `shared` outlives it. */
    HttpServer(ApiShared &shared, Address address, int threads);
    /** stop(). */
    ~HttpServer();
    Q_DISABLE_COPY_MOVE(HttpServer)

    /** Where it listens, as http://<where> shows it: 127.0.0.1:8080, [::1]:8080. */
    QString where() const;
    quint16 port() const { return m_address.port; }
    int threads() const { return int(m_loops.size()); }

    /** Each loop stops accepting, answers the requests under way and returns; then the blocking
        endpoints finish. Idempotent. */
    void stop();

private:
    ApiShared &m_shared;
    Address m_address;
    std::atomic<bool> m_stopping{false};
    std::unique_ptr<BlockingEndpoints> m_blocking;
    std::vector<std::unique_ptr<HttpServerLoop>> m_loops;
    std::vector<std::thread> m_running;
};

} // namespace lantern
