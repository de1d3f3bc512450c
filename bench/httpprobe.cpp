#include "httpprobe.h"

#include "core/errors.h"

#include <QDeadlineTimer>
#include <QHostAddress>
#include <QTcpSocket>

namespace lantern::bench {

HttpAnswer httpRequest(quint16 port, const QByteArray &method, const QByteArray &path, const QByteArray &bearer)
{
    const QDeadlineTimer deadline(10'000);
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, port);
    if (!socket.waitForConnected(static_cast<int>(deadline.remainingTime())))
        throw LanternError(QStringLiteral("cannot connect to 127.0.0.1:%1: %2").arg(port).arg(socket.errorString()));
    QByteArray request = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 0\r\n";
    if (!bearer.isEmpty())
        request += "Authorization: Bearer " + bearer + "\r\n";
    socket.write(request + "\r\n");
    // Reads "HTTP/1.1 200 OK\r\n...headers...\r\n\r\nbody" until Content-Length bytes of body
    // have come (or the server closes the connection).
    QByteArray response;
    qsizetype headerEnd = -1;
    qsizetype length = -1;
    const auto complete = [&] {
        if (headerEnd < 0 && (headerEnd = response.indexOf("\r\n\r\n")) >= 0) {
            for (const QByteArray &line : response.left(headerEnd).split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
        }
        return headerEnd >= 0 && length >= 0 && response.size() >= headerEnd + 4 + length;
    };
    while (!complete() && socket.state() == QAbstractSocket::ConnectedState && !deadline.hasExpired()) {
        if (socket.waitForReadyRead(static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1))))
            response += socket.readAll();
    }
    response += socket.readAll();
    if (!complete() && headerEnd < 0)
        throw LanternError(QStringLiteral("%1 %2: no complete answer within 10 s: %3")
                                   .arg(QString::fromLatin1(method), QString::fromLatin1(path), QString::fromLatin1(response.left(200))));

    HttpAnswer answer;
    const QList<QByteArray> statusLine = response.left(response.indexOf("\r\n")).split(' ');
    answer.status = statusLine.size() >= 2 ? statusLine[1].toInt() : 0;
    answer.body = response.mid(headerEnd + 4, length >= 0 ? length : -1);
    if (answer.status == 0)
        throw LanternError(QStringLiteral("%1 %2: not an HTTP answer: %3")
                                   .arg(QString::fromLatin1(method), QString::fromLatin1(path), QString::fromLatin1(response.left(200))));
    return answer;
}

} // namespace lantern::bench
