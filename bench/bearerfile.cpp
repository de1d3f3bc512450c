#include "bearerfile.h"

#include "core/errors.h"
#include "token/usertoken.h"

#include <QFile>

#include <algorithm>
#include <random>

namespace lantern::bench {

qint64 writeBearerFile(const QString &path, const UserTokens &tokens, qint64 expiresAtSeconds, const std::vector<qint64> &uids, int attempts,
                       quint64 seed)
{
    std::vector<QByteArray> bearers;
    bearers.reserve(uids.size());
    for (const qint64 uid : uids)
        bearers.push_back(tokens.mintBearer(uid, expiresAtSeconds).toLatin1());

    // Line i is bearers[order[i]]: each uid `attempts` times, shuffled when there is more than one.
    std::vector<quint32> order;
    order.reserve(bearers.size() * static_cast<size_t>(attempts));
    for (int attempt = 0; attempt < attempts; ++attempt) {
        for (size_t i = 0; i < bearers.size(); ++i)
            order.push_back(static_cast<quint32>(i));
    }
    if (attempts > 1) {
        std::mt19937_64 random(seed);
        std::shuffle(order.begin(), order.end(), random);
    }

    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        throw LanternError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    QByteArray chunk;
    for (const quint32 index : order) {
        chunk += bearers[index];
        chunk += '\n';
        if (chunk.size() >= 1 << 20)
            file.write(std::exchange(chunk, QByteArray()));
    }
    file.write(chunk);
    if (!file.flush())
        throw LanternError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    return static_cast<qint64>(order.size());
}

} // namespace lantern::bench
