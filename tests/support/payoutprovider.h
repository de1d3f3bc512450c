#pragma once

// A payout provider for the tests and the benches: a real HTTP/1.1 server on 127.0.0.1
// (HttpRequestParser reads the requests, keep-alive) on a thread of its own, keeping its own
// ledger by Idempotency-Key, as a real provider would. The only stand-in the tests allow, and a
// real server at that. Library lantern_payoutprovider (tests/CMakeLists.txt).

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QThread>
#include <QUrl>

#include <memory>
#include <random>

class QTcpServer;
class QTcpSocket;

namespace lantern {
class HttpRequestParser;
}

namespace lantern::test {

struct SeenRequest {
    QByteArray method;
    QByteArray path;
    QByteArray idempotencyKey;
    QByteArray contentType;
    QByteArray body;
};

/** How the provider answers. The first `times` requests get `status` (0: never answered; 200: a
    200 without "ref"); every later one is paid, once per Idempotency-Key with the same ref for
    the same key, except a `failRate` share answered 503: half before paying, half after paying
    (the payment made, the answer lost), as LANTERN_PAYOUT_FAIL_RATE does for the simulated
    provider. Each answer goes out `delayMs` after its request arrived. */
struct ProviderScript {
    int status = 200;
    int times = 0;
    int delayMs = 0;
    double failRate = 0.0;
    quint64 seed = 1;          // the failures' draws
    bool keepRequests = true;  // seen() lists every request (a bench sending many turns it off)
};

/** One payment the provider made: a key's first paying request. */
struct ProviderPayment {
    QByteArray ref;
    qint64 amountCents = 0;
    int requests = 0;  // requests that carried the key (the first paid, the others were told the same ref)
};

/** What the provider did since it started or was reset. */
struct ProviderFigures {
    qint64 requests = 0;      // requests read
    qint64 payments = 0;      // keys paid (one payment each, however often a key came)
    qint64 paidCents = 0;
    qint64 repeatedKeys = 0;  // keys that came more than once
    int connections = 0;      // connections accepted
    int maxOpen = 0;          // requests read and not yet answered at once, at most
};

/** Lives on the provider's thread; the test talks to it through PayoutProvider. */
class ProviderServer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProviderServer)

public:
    explicit ProviderServer(ProviderScript script);
    ~ProviderServer() override;

    quint16 listen();
    /** From now on the answers of paying requests past the first `answered` ones are held back
        (the payment is made, the answer not sent) until release(). */
    void holdAfter(int answered);
    /** Sends every held answer and stops holding. */
    void release();
    /** Forgets the ledger, the requests and the figures (a bench between phases). */
    void reset();

    QList<SeenRequest> seen() const;
    QHash<QByteArray, ProviderPayment> payments() const;
    ProviderFigures figures() const;
    int held() const;

private:
    struct Connection;

    void acceptConnections();
    void serve(QTcpSocket *socket);
    void arrived(QTcpSocket *socket, const SeenRequest &request);
    void respond(QTcpSocket *socket, const SeenRequest &request, qint64 number);
    void send(QTcpSocket *socket, int status, const QByteArray &body);

    const ProviderScript m_script;
    std::mt19937_64 m_random;
    QTcpServer *m_server = nullptr;
    QHash<QTcpSocket *, std::shared_ptr<Connection>> m_connections;
    QList<std::pair<QTcpSocket *, QByteArray>> m_held;  // sockets and their held answers, oldest first
    int m_holdAfter = -1;                               // -1: never hold
    int m_paying = 0;                                   // paying answers so far
    int m_open = 0;                                     // requests read and not answered
    mutable QMutex m_mutex;                             // what the test's thread reads
    QList<SeenRequest> m_seen;
    QHash<QByteArray, ProviderPayment> m_payments;
    QHash<QByteArray, int> m_requestsByKey;
    ProviderFigures m_figures;
    int m_heldCount = 0;
};

/** A ProviderServer on a thread of its own for the lifetime of this object. */
class PayoutProvider final {
public:
    explicit PayoutProvider(ProviderScript script = {});
    ~PayoutProvider();
    Q_DISABLE_COPY_MOVE(PayoutProvider)

    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/v1/payouts").arg(m_port)); }
    quint16 port() const { return m_port; }
    void holdAfter(int answered);
    void release();
    void reset();

    QList<SeenRequest> seen() const { return m_server->seen(); }
    /** Idempotency-Key -> the payment made for it. */
    QHash<QByteArray, ProviderPayment> payments() const { return m_server->payments(); }
    /** Idempotency-Key -> ref, for every key paid. */
    QHash<QByteArray, QByteArray> ledger() const;
    ProviderFigures figures() const { return m_server->figures(); }
    /** Paid requests whose answer is held back right now. */
    int held() const { return m_server->held(); }
    /** Connections accepted so far. */
    int connections() const { return figures().connections; }
    /** The most requests that were open (seen, not yet answered) at once. */
    int maxOpen() const { return figures().maxOpen; }

private:
    QThread m_thread;
    ProviderServer *m_server;  // deleted on its own thread when that thread finishes
    quint16 m_port = 0;
};

} // namespace lantern::test
