#include "envelope/payouttask.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace lantern {

std::optional<PayoutTask> PayoutTask::fromJson(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    // grab.lua writes ids and amounts as strings (exact for int64), the time as a number.
    const auto integer = [&object](const char *name, bool *ok) { return object.value(QLatin1String(name)).toString().toLongLong(ok); };
    PayoutTask task;
    bool okCampaign = false, okSeq = false, okUid = false, okAmount = false;
    task.campaignId = integer("campaign", &okCampaign);
    task.seq = integer("seq", &okSeq);
    task.uid = integer("uid", &okUid);
    task.amountCents = integer("amount", &okAmount);
    task.atMs = static_cast<qint64>(object.value(QLatin1String("at")).toDouble(-1));
    if (!okCampaign || !okSeq || !okUid || !okAmount || task.campaignId <= 0 || task.seq <= 0 || task.uid <= 0 || task.amountCents <= 0
        || task.atMs < 0)
        return std::nullopt;
    return task;
}

} // namespace lantern
