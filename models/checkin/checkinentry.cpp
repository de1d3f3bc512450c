#include "checkin/checkinentry.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace lantern {

std::optional<CheckinEntry> CheckinEntry::fromJson(const QByteArray &json)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();

    CheckinEntry entry;
    bool ok = false;
    entry.uid = object.value(QLatin1String("uid")).toString().toLongLong(&ok);
    entry.date = QDate::fromString(object.value(QLatin1String("date")).toString(), u"yyyy-MM-dd");
    entry.kind = object.value(QLatin1String("kind")).toString();
    const QJsonValue points = object.value(QLatin1String("points"));
    entry.points = points.toInt(-1);
    entry.operatorName = object.value(QLatin1String("operator")).toString();
    entry.reason = object.value(QLatin1String("reason")).toString();
    entry.atMs = static_cast<qint64>(object.value(QLatin1String("at")).toDouble(-1));
    if (!ok || entry.uid <= 0 || !entry.date.isValid() || entry.points < 0 || entry.atMs < 0
        || (entry.kind != QLatin1String("normal") && entry.kind != QLatin1String("makeup")))
        return std::nullopt;
    return entry;
}

QByteArray CheckinEntry::toJson() const
{
    const QJsonObject object{
            {QStringLiteral("uid"), QString::number(uid)},
            {QStringLiteral("date"), date.toString(Qt::ISODate)},
            {QStringLiteral("kind"), kind},
            {QStringLiteral("points"), points},
            {QStringLiteral("operator"), operatorName},
            {QStringLiteral("reason"), reason},
            {QStringLiteral("at"), static_cast<double>(atMs)},
    };
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QString CheckinEntry::ledgerRef() const
{
    return QStringLiteral("checkin:%1:%2").arg(uid).arg(date.toString(Qt::ISODate));
}

} // namespace lantern
