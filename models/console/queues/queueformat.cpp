#include "console/queues/queueformat.h"

#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace lantern {

QString QueueFormat::age(std::optional<double> seconds)
{
    if (!seconds)
        return QStringLiteral("—");
    const QLocale locale;
    const double s = std::max(0.0, *seconds);
    if (s < 10)
        return tr("%1 s").arg(locale.toString(s, 'f', 1));
    const qint64 whole = qint64(std::llround(s));
    if (whole < 60)
        return tr("%1 s").arg(whole);
    if (whole < 3600)
        return tr("%1 min %2 s").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
    if (whole < 86400)
        return tr("%1 h %2 min").arg(whole / 3600).arg((whole % 3600) / 60, 2, 10, QLatin1Char('0'));
    return tr("%1 d %2 h").arg(whole / 86400).arg((whole % 86400) / 3600);
}

QString QueueFormat::stamp(qint64 atMs)
{
    if (atMs <= 0)
        return QStringLiteral("—");
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(atMs), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString QueueFormat::queueTitle(const QString &name)
{
    if (name == QLatin1String("checkin"))
        return tr("Check-in log");
    const qsizetype colon = name.indexOf(QLatin1Char(':'));
    const QString number = name.mid(colon + 1);
    if (name.startsWith(QLatin1String("payout:")))
        return tr("Payouts, campaign %1").arg(number);
    if (name.startsWith(QLatin1String("checkin:")))
        return tr("Check-in log, shard %1").arg(number);
    return name;
}

} // namespace lantern
