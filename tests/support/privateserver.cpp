#include "privateserver.h"

#include <QFile>
#include <QHostAddress>
#include <QList>
#include <QRandomGenerator>
#include <QTcpServer>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lantern::test {

namespace {
/** The first port of the kernel's ephemeral range (outgoing connections), or `fallback`. */
int ephemeralLow(int above, int fallback = 32768)
{
    QFile range(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
    if (range.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> bounds = range.readAll().simplified().split(' ');
        if (!bounds.isEmpty() && bounds.first().toInt() > above)
            return bounds.first().toInt();
    }
    return fallback;
}
} // namespace

int pickPrivatePort(int below)
{
    const int high = std::min(ephemeralLow(11024), below);
    for (int attempt = 0; attempt < 500; ++attempt) {
        const int port = QRandomGenerator::global()->bounded(10000, high);
        QTcpServer probe;
        if (probe.listen(QHostAddress::LocalHost, static_cast<quint16>(port)))
            return port;
    }
    throw std::runtime_error("no free TCP port between 10000 and " + std::to_string(high));
}

QByteArray readFileFrom(const QString &path, qint64 offset)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly) || !file.seek(offset))
        return {};
    return file.readAll();
}

QByteArray infoField(const QByteArray &info, const QByteArray &name)
{
    const QByteArray key = QByteArray(name).append(':');
    for (const QByteArray &line : info.split('\n')) {
        if (line.startsWith(key))
            return line.mid(key.size()).trimmed();
    }
    return {};
}

} // namespace lantern::test
