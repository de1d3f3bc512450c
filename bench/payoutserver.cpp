#include "payoutserver.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace lantern::bench {

PayoutServer::PayoutServer(int delayMs, double failRate, quint64 seed) : m_delayMs(delayMs), m_failRate(failRate), m_random(seed) {}

quint16 PayoutServer::listen()
{
    m_server = new QTcpServer(this);
    m_server->setMaxPendingConnections(4096);
    connect(m_server, &QTcpServer::newConnection, this, &PayoutServer::accept);
    return m_server->listen(QHostAddress::LocalHost, 0) ? m_server->serverPort() : 0;
}

void PayoutServer::reset()
{
    QMutexLocker lock(&m_mutex);
    m_requests.clear();
    m_paid.clear();
    m_figures = {};
}

PayoutServerFigures PayoutServer::figures() const
{
    QMutexLocker lock(&m_mutex);
    return m_figures;
}

void PayoutServer::accept()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        {
            QMutexLocker lock(&m_mutex);
            ++m_figures.connections;
        }
        m_buffers.insert(socket, {});
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { read(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }
}

void PayoutServer::read(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    for (;;) {
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        qsizetype contentLength = 0;
        QByteArray key;
        for (const QByteArray &line : buffer.left(headerEnd).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).trimmed().toLower();
            if (name == "content-length")
                contentLength = line.mid(colon + 1).trimmed().toLongLong();
            else if (name == "idempotency-key")
                key = line.mid(colon + 1).trimmed();
        }
        if (buffer.size() < headerEnd + 4 + contentLength)
            return;
        const qint64 amount = QJsonDocument::fromJson(buffer.mid(headerEnd + 4, contentLength)).object().value(QLatin1String("amount_cents")).toInteger();
        buffer.remove(0, headerEnd + 4 + contentLength);
        ++m_open;
        {
            QMutexLocker lock(&m_mutex);
            m_figures.maxOpen = std::max(m_figures.maxOpen, m_open);
        }
        // The answer after the provider's latency; a connection gone meanwhile gets none.
        QTimer::singleShot(m_delayMs, Qt::PreciseTimer, this, [this, socket = QPointer<QTcpSocket>(socket), key, amount] {
            --m_open;
            if (socket && m_buffers.contains(socket))
                answer(socket, key, amount);
        });
    }
}

void PayoutServer::answer(QTcpSocket *socket, const QByteArray &key, qint64 amountCents)
{
    // One draw per request decides its fate, as the simulated provider's does.
    const double draw = static_cast<double>(m_random() >> 11) * 0x1.0p-53;
    const bool failBeforePaying = draw < m_failRate / 2;
    const bool loseAnswer = !failBeforePaying && draw < m_failRate;
    QByteArray ref;
    {
        QMutexLocker lock(&m_mutex);
        ++m_figures.requests;
        if (++m_requests[key] == 2)
            ++m_figures.repeatedKeys;
        if (!failBeforePaying && !m_paid.contains(key)) {
            m_paid.insert(key, amountCents);
            ++m_figures.payments;
            m_figures.paidCents += amountCents;
        }
        if (m_paid.contains(key))
            ref = "bench-" + key;
    }
    QByteArray status = "200 OK";
    QByteArray body = "{\"ref\":\"" + ref + "\"}";
    if (failBeforePaying || loseAnswer) {
        status = "503 Service Unavailable";
        body = "{\"error\":\"injected\"}";
    }
    socket->write("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n"
                  + body);
}

PayoutServerThread::PayoutServerThread(int delayMs, double failRate, quint64 seed) : m_server(new PayoutServer(delayMs, failRate, seed))
{
    m_server->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_server, &QObject::deleteLater);
    m_thread.start();
    QMetaObject::invokeMethod(m_server, &PayoutServer::listen, Qt::BlockingQueuedConnection, &m_port);
}

PayoutServerThread::~PayoutServerThread()
{
    m_thread.quit();
    m_thread.wait();
}

void PayoutServerThread::reset()
{
    m_server->reset();
}

} // namespace lantern::bench
