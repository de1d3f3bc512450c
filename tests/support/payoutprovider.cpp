#include "payoutprovider.h"

#include "api/apihandler.h"
#include "serve/httprequestparser.h"
#include "serve/httpresponse.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>

namespace lantern::test {

/** One client connection: its parser keeps what a payout request carries besides the body. */
struct ProviderServer::Connection {
    Connection() { parser.keepHeaders({QByteArrayLiteral("idempotency-key"), QByteArrayLiteral("content-type")}); }
    HttpRequestParser parser;
};

ProviderServer::ProviderServer(ProviderScript script) : m_script(script), m_random(script.seed) {}

ProviderServer::~ProviderServer() = default;

quint16 ProviderServer::listen()
{
    m_server = new QTcpServer(this);
    m_server->setMaxPendingConnections(4096);
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
        if (m_connections.contains(socket))  // still connected
            socket->write(bytes);
        --m_open;
    }
    QMutexLocker lock(&m_mutex);
    m_heldCount = 0;
}

void ProviderServer::reset()
{
    m_paying = 0;
    QMutexLocker lock(&m_mutex);
    m_seen.clear();
    m_payments.clear();
    m_requestsByKey.clear();
    m_figures = {};
}

QList<SeenRequest> ProviderServer::seen() const
{
    QMutexLocker lock(&m_mutex);
    return m_seen;
}

QHash<QByteArray, ProviderPayment> ProviderServer::payments() const
{
    QMutexLocker lock(&m_mutex);
    QHash<QByteArray, ProviderPayment> payments = m_payments;
    for (auto it = payments.begin(); it != payments.end(); ++it)
        it->requests = m_requestsByKey.value(it.key());
    return payments;
}

ProviderFigures ProviderServer::figures() const
{
    QMutexLocker lock(&m_mutex);
    return m_figures;
}

int ProviderServer::held() const
{
    QMutexLocker lock(&m_mutex);
    return m_heldCount;
}

void ProviderServer::acceptConnections()
{
    while (QTcpSocket *socket = m_server->nextPendingConnection()) {
        {
            QMutexLocker lock(&m_mutex);
            ++m_figures.connections;
        }
        m_connections.insert(socket, std::make_shared<Connection>());
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { serve(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_connections.remove(socket);
            socket->deleteLater();
        });
    }
}

void ProviderServer::serve(QTcpSocket *socket)
{
    const std::shared_ptr<Connection> connection = m_connections.value(socket);
    if (!connection)
        return;
    HttpRequestParser &parser = connection->parser;
    const QByteArray bytes = socket->readAll();
    qsizetype offset = 0;
    while (offset < bytes.size()) {
        const qsizetype used = parser.feed(bytes.constData() + offset, bytes.size() - offset);
        offset += used;
        if (parser.state() == HttpRequestParser::State::Complete) {
            ApiRequest request = parser.take();
            SeenRequest seen{request.method, request.path, {}, {}, request.body};
            for (const auto &[name, value] : std::as_const(request.headers))
                (name == "idempotency-key" ? seen.idempotencyKey : seen.contentType) = value;
            arrived(socket, seen);
        } else if (parser.state() == HttpRequestParser::State::Failed) {
            QByteArray out;
            appendHttpResponse(out, {parser.errorStatus(), QByteArrayLiteral("application/json"), QByteArrayLiteral("{\"error\":\"malformed\"}"), {}},
                               false);
            socket->write(out);
            socket->disconnectFromHost();
            return;
        } else if (used == 0) {
            return;
        }
    }
}

void ProviderServer::arrived(QTcpSocket *socket, const SeenRequest &request)
{
    ++m_open;
    qint64 number = 0;
    {
        QMutexLocker lock(&m_mutex);
        number = ++m_figures.requests;
        m_figures.maxOpen = std::max(m_figures.maxOpen, m_open);
        if (m_script.keepRequests)
            m_seen << request;
        if (++m_requestsByKey[request.idempotencyKey] == 2)
            ++m_figures.repeatedKeys;
    }
    if (m_script.delayMs <= 0) {
        respond(socket, request, number);
        return;
    }
    // The answer after the provider's latency; a connection gone meanwhile gets none.
    QTimer::singleShot(m_script.delayMs, Qt::PreciseTimer, this, [this, socket = QPointer<QTcpSocket>(socket), request, number] {
        if (socket && m_connections.contains(socket))
            respond(socket, request, number);
        else
            --m_open;
    });
}

void ProviderServer::respond(QTcpSocket *socket, const SeenRequest &request, qint64 number)
{
    if (number <= m_script.times) {
        if (m_script.status != 0)
            send(socket, m_script.status, QByteArrayLiteral("{\"error\":\"scripted\"}"));
        return;  // status 0, a stall: the client's timeout has to end this (it stays open)
    }
    // One draw per request decides its fate, as the simulated provider's does.
    bool failBeforePaying = false;
    bool loseAnswer = false;
    if (m_script.failRate > 0) {
        const double draw = static_cast<double>(m_random() >> 11) * 0x1.0p-53;
        failBeforePaying = draw < m_script.failRate / 2;
        loseAnswer = !failBeforePaying && draw < m_script.failRate;
    }
    QByteArray ref;
    if (!failBeforePaying) {
        QMutexLocker lock(&m_mutex);
        ProviderPayment &payment = m_payments[request.idempotencyKey];
        if (payment.ref.isEmpty()) {
            payment.ref = "prov-" + QByteArray::number(m_payments.size());
            payment.amountCents = QJsonDocument::fromJson(request.body).object().value(QLatin1String("amount_cents")).toInteger();
            ++m_figures.payments;
            m_figures.paidCents += payment.amountCents;
        }
        ref = payment.ref;
    }
    if (failBeforePaying || loseAnswer) {
        send(socket, 503, QByteArrayLiteral("{\"error\":\"injected\"}"));
        return;
    }
    const QByteArray body = "{\"ref\":\"" + ref + "\"}";
    if (m_holdAfter >= 0 && m_paying++ >= m_holdAfter) {
        QByteArray answer;
        appendHttpResponse(answer, {200, QByteArrayLiteral("application/json"), body, {}}, true);
        m_held.append({socket, answer});
        QMutexLocker lock(&m_mutex);
        ++m_heldCount;
        return;
    }
    send(socket, 200, body);
}

void ProviderServer::send(QTcpSocket *socket, int status, const QByteArray &body)
{
    QByteArray answer;
    appendHttpResponse(answer, {status, QByteArrayLiteral("application/json"), body, {}}, true);
    socket->write(answer);
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

void PayoutProvider::reset()
{
    QMetaObject::invokeMethod(m_server, &ProviderServer::reset, Qt::BlockingQueuedConnection);
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
