#pragma once

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QObject>
#include <QThread>
#include <QUrl>

#include <random>

class QTcpServer;
class QTcpSocket;

namespace lantern::bench {

/** What the bench's provider did in a phase. */
struct PayoutServerFigures {
    qint64 requests = 0;        // requests answered
    qint64 payments = 0;        // keys paid (one payment each, however often a key came)
    qint64 paidCents = 0;
    qint64 repeatedKeys = 0;    // keys that came more than once
    qint64 connections = 0;     // connections accepted
    int maxOpen = 0;            // requests waiting for their answer at once, at most
};

/** A payout provider over HTTP/1.1 for lantern-bench-payout, on a thread of its own: each request
    is answered `delayMs` after it arrived; a `failRate` share fails, half before paying (503), half
    after paying (the payment made, 503 answered: a lost answer), as LANTERN_PAYOUT_FAIL_RATE does
    for the simulated provider; keeps its ledger by Idempotency-Key (one payment per key, the same
    ref every time). Keep-alive, Content-Length bodies. */
class PayoutServer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PayoutServer)

public:
    PayoutServer(int delayMs, double failRate, quint64 seed);

    quint16 listen();
    /** Forgets the ledger and the counts (between phases). */
    void reset();
    PayoutServerFigures figures() const;

private:
    void accept();
    void read(QTcpSocket *socket);
    void answer(QTcpSocket *socket, const QByteArray &key, qint64 amountCents);

    int m_delayMs;
    double m_failRate;
    std::mt19937_64 m_random;
    QTcpServer *m_server = nullptr;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_open = 0;
    mutable QMutex m_mutex;
    QHash<QByteArray, int> m_requests;  // key -> requests that carried it
    QHash<QByteArray, qint64> m_paid;   // key -> the amount paid for it
    PayoutServerFigures m_figures;
};

/** A PayoutServer on its own thread for the lifetime of this object. */
class PayoutServerThread final {
public:
    PayoutServerThread(int delayMs, double failRate, quint64 seed);
    ~PayoutServerThread();
    Q_DISABLE_COPY_MOVE(PayoutServerThread)

    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/v1/payouts").arg(m_port)); }
    void reset();
    PayoutServerFigures figures() const { return m_server->figures(); }

private:
    QThread m_thread;
    PayoutServer *m_server;
    quint16 m_port = 0;
};

} // namespace lantern::bench
