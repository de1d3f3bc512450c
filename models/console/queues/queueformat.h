#pragma once

#include <QCoreApplication>
#include <QString>

#include <optional>

namespace lantern {

/** How the Queues and Recovery models word things, and the roles they share with the views. */
class QueueFormat final {
    Q_DECLARE_TR_FUNCTIONS(lantern::QueueFormat)

public:
    /** How a cell should look (the view picks the colours): ToneRole holds a Tone as int. */
    enum class Tone { Neutral, Good, Warning, Bad };
    static constexpr int ToneRole = Qt::UserRole + 40;
    /** The raw value behind a cell (numbers for sorting and tests). */
    static constexpr int ValueRole = Qt::UserRole + 41;

    /** "—" for nothing, "0.4 s", "12 s", "3 min 05 s", "2 h 10 min", "3 d 4 h". */
    static QString age(std::optional<double> seconds);
    /** Local date and time of an epoch-ms stamp, "—" for 0. */
    static QString stamp(qint64 atMs);
    /** "payout:7" -> "Payouts of campaign 7", "checkin" -> "Check-in log", "checkin:3" -> "Check-in log, shard 3". */
    static QString queueTitle(const QString &name);
};

} // namespace lantern
