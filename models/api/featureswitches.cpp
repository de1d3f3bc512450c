#include "api/featureswitches.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"

namespace lantern {

QByteArrayList FeatureSwitches::readCommand(const KeySchema &keys)
{
    return {QByteArrayLiteral("HGETALL"), keys.featureSwitches()};
}

QStringList FeatureSwitches::switchedOffIn(const RedisValue &reply)
{
    QStringList off;
    for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
        if (reply.elements[i + 1].toBytes() == "off")
            off << QString::fromUtf8(reply.elements[i].toBytes());
    }
    return off;
}

void FeatureSwitches::validateFeature(const QString &feature)
{
    if (!features().contains(feature))
        throw InvalidInputError(tr("unknown feature '%1': expected %2").arg(feature, features().join(QStringLiteral(" or "))));
}

void FeatureSwitches::set(RedisClient &redis, const KeySchema &keys, const QString &feature, bool on)
{
    validateFeature(feature);
    if (on)
        redis.command({QByteArrayLiteral("HDEL"), keys.featureSwitches(), feature.toUtf8()});
    else
        redis.command({QByteArrayLiteral("HSET"), keys.featureSwitches(), feature.toUtf8(), QByteArrayLiteral("off")});
}

} // namespace lantern
