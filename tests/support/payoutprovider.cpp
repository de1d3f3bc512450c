#include "payoutprovider.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>

namespace lantern::test {

quint16 ProviderServer::listen()
{
    m_server = new QTcpServer(this);
    m_server->setMaxPendingConnections(1024);
    connect(m_server, &QTcpServer::newConnection, this, &ProviderServer::acceptConnections);
    return m_server->listen(QHostAddress::LocalHost, 0) ? m_server->serverPort() : 0;
}

void ProviderServer::holdAfter(int answered)
{
    m_holdAfter = answered;
}

void ProviderServer::release()
{
    m_holdAfter = -1;
    const auto held = std::exchange(m_held, {});
    for (const auto &[socket, bytes] : held) {
        if (m_buffers.contains(socket))  // still connected
            socket->write(bytes);
        --m_open;
    }
    QMutexLocker lock(&m_mutex);
    m_heldCount = 0;
}

QList<SeenRequest> ProviderServer::seen() const
{
    QMutexLocker lock(&m_mutex);
    return m_seen;
}

QHash<QByteArray, ProviderPayment> ProviderServer::payments() const
{
    QMutexLocker lock(&m_mutex);
    return m_payments;
}

int ProviderServer::held() const
{
    QMutexLocker lock(&m_mutex);
    return m_heldCount;
}

int ProviderServer::connections() const
{
    QMutexLocker lock(&m_mutex);
    return m_connections;
}

int ProviderServer::maxOpen() const
{
    QMutexLocker lock(&m_mutex);
    return m_maxOpen;
}

void ProviderServer::acceptConnections()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        {
            QMutexLocker lock(&m_mutex);
            ++m_connections;
        }
        m_buffers.insert(socket, {});
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { serve(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }
}

void ProviderServer::serve(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    for (;;) {
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QList<QByteArray> lines = buffer.left(headerEnd).split('\n');
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        SeenRequest request{requestLine.value(0), requestLine.value(1), {}, {}, {}};
        qsizetype contentLength = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines[i].indexOf(':');
            const QByteArray name = lines[i].left(colon).trimmed().toLower();
            const QByteArray value = lines[i].mid(colon + 1).trimmed();
            if (name == "content-length")
                contentLength = value.toLongLong();
            else if (name == "idempotency-key")
                request.idempotencyKey = value;
            else if (name == "content-type")
                request.contentType = value;
        }
        if (buffer.size() < headerEnd + 4 + contentLength)
            return;
        request.body = buffer.mid(headerEnd + 4, contentLength);
        buffer.remove(0, headerEnd + 4 + contentLength);
        respond(socket, request);
    }
}

QByteArray ProviderServer::answer(int status, const QByteArray &body)
{
    return "HTTP/1.1 " + QByteArray::number(status) + " Scripted\r\n"
           "Content-Type: application/json\r\n"
           "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

void ProviderServer::respond(QTcpSocket *socket, const SeenRequest &request)
{
    int status = 200;
    QByteArray body;
    ++m_open;
    {
        QMutexLocker lock(&m_mutex);
        m_seen << request;
        m_maxOpen = std::max(m_maxOpen, m_open);
        if (m_seen.size() <= m_script.times) {
            status = m_script.status;
            body = "{\"error\":\"scripted\"}";
        } else {
            ProviderPayment &payment = m_payments[request.idempotencyKey];
            if (payment.ref.isEmpty()) {
                payment.ref = "prov-" + QByteArray::number(m_payments.size());
                payment.amountCents = QJsonDocument::fromJson(request.body).object().value(QLatin1String("amount_cents")).toInteger();
            }
            ++payment.requests;
            body = "{\"ref\":\"" + payment.ref + "\"}";
        }
    }
    if (status == 0)
        return;  // stall: the client's timeout has to end this (it stays open)
    if (status == 200 && !body.contains("error") && m_holdAfter >= 0 && m_paying++ >= m_holdAfter) {
        m_held.append({socket, answer(status, body)});
        QMutexLocker lock(&m_mutex);
        ++m_heldCount;
        return;
    }
    socket->write(answer(status, body));
    --m_open;
}

PayoutProvider::PayoutProvider(ProviderScript script) : m_server(new ProviderServer(script))
{
    m_server->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_server, &QObject::deleteLater);
    m_thread.start();
    QMetaObject::invokeMethod(m_server, &ProviderServer::listen, Qt::BlockingQueuedConnection, &m_port);
}

PayoutProvider::~PayoutProvider()
{
    m_thread.quit();
    m_thread.wait();
}

void PayoutProvider::holdAfter(int answered)
{
    QMetaObject::invokeMethod(m_server, [this, answered] { m_server->holdAfter(answered); }, Qt::BlockingQueuedConnection);
}

void PayoutProvider::release()
{
    QMetaObject::invokeMethod(m_server, &ProviderServer::release, Qt::BlockingQueuedConnection);
}

QHash<QByteArray, QByteArray> PayoutProvider::ledger() const
{
    QHash<QByteArray, QByteArray> refs;
    const QHash<QByteArray, ProviderPayment> all = payments();
    for (auto it = all.cbegin(); it != all.cend(); ++it)
        refs.insert(it.key(), it.value().ref);
    return refs;
}

} // namespace lantern::test
