#pragma once

// A payout provider for the tests: a real HTTP/1.1 server on 127.0.0.1 (Content-Length bodies,
// keep-alive) on a thread of its own, keeping its own ledger by Idempotency-Key, as a real
// provider would. The only stand-in the tests allow, and a real server at that.

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMutex>
#include <QObject>
#include <QSet>
#include <QThread>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace lantern::test {

struct SeenRequest {
    QByteArray method;
    QByteArray path;
    QByteArray idempotencyKey;
    QByteArray contentType;
    QByteArray body;
};

/** The first `times` requests get `status` (0: never answered; 200: a 200 without "ref"),
    every later one is paid: once per Idempotency-Key, the same ref for the same key. */
struct ProviderScript {
    int status = 200;
    int times = 0;
};

/** One payment the provider made: a key's first paying request. */
struct ProviderPayment {
    QByteArray ref;
    qint64 amountCents = 0;
    int requests = 0;  // requests that carried the key (the first paid, the others were told the same ref)
};

/** Lives on the provider's thread; the test talks to it through PayoutProvider. */
class ProviderServer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProviderServer)

public:
    explicit ProviderServer(ProviderScript script) : m_script(script) {}

    quint16 listen();
    /** From now on the answers of paying requests past the first `answered` ones are held back
        (the payment is made, the answer not sent) until release(). */
    void holdAfter(int answered);
    /** Sends every held answer and stops holding. */
    void release();

    QList<SeenRequest> seen() const;
    QHash<QByteArray, ProviderPayment> payments() const;
    int held() const;
    int connections() const;
    int maxOpen() const;

private:
    void acceptConnections();
    void serve(QTcpSocket *socket);
    void respond(QTcpSocket *socket, const SeenRequest &request);
    static QByteArray answer(int status, const QByteArray &body);

    const ProviderScript m_script;
    QTcpServer *m_server = nullptr;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<std::pair<QTcpSocket *, QByteArray>> m_held;  // sockets and their held answers, oldest first
    int m_holdAfter = -1;                               // -1: never hold
    int m_paying = 0;                                   // paying requests seen
    int m_open = 0;                                     // requests seen and not answered
    mutable QMutex m_mutex;
    QList<SeenRequest> m_seen;
    QHash<QByteArray, ProviderPayment> m_payments;
    int m_connections = 0;
    int m_maxOpen = 0;
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

    QList<SeenRequest> seen() const { return m_server->seen(); }
    /** Idempotency-Key -> the payment made for it. */
    QHash<QByteArray, ProviderPayment> payments() const { return m_server->payments(); }
    /** Idempotency-Key -> ref, for every key paid. */
    QHash<QByteArray, QByteArray> ledger() const;
    /** Paid requests whose answer is held back right now. */
    int held() const { return m_server->held(); }
    /** Connections accepted so far. */
    int connections() const { return m_server->connections(); }
    /** The most requests that were open (seen, not yet answered) at once. */
    int maxOpen() const { return m_server->maxOpen(); }

private:
    QThread m_thread;
    ProviderServer *m_server;  // deleted on its own thread when that thread finishes
    quint16 m_port = 0;
};

} // namespace lantern::test
