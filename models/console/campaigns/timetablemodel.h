#pragma once

#include "operations/timetableoverview.h"

#include <QAbstractTableModel>
#include <QMetaType>
#include <QTimeZone>

namespace lantern {

/** The campaigns' timetable for the Campaigns view (issue 30): each scheduled launch and close,
    pending ones counting down, with prepared ✓ and what happened (made, how late; missed, why).
    Bounded by what TimetableOverview reads (pending, and the last day's). The countdown runs on
    the servers' clock: setServerNow() moves it without a new read. */
class TimetableModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TimetableModel)

public:
    enum Column { Campaign, Transition, Due, Countdown, Prepared, Approved, State, ScheduledBy, ColumnCount };
    /** Due, Countdown: ms; Prepared, Approved: bool (none where it does not apply); State: the state name. */
    static constexpr int ValueRole = Qt::UserRole + 1;

    explicit TimetableModel(QObject *parent = nullptr);

    /** Times are shown in `zone` (the console's business zone). */
    void setTimeZone(const QTimeZone &zone) { m_zone = zone; }
    void setOverview(const TimetableOverview &overview);
    const TimetableOverview &overview() const { return m_overview; }
    /** The servers' time now (the read's time plus what passed since): the countdowns follow. */
    void setServerNow(qint64 serverNowMs);
    qint64 serverNowMs() const { return m_nowMs; }

    /** A time as the Time column shows it, in the model's zone. */
    QString timeText(qint64 ms) const;
    /** "3 h 04 min", "4 min 05 s", "12 s": a countdown's words. */
    static QString durationText(qint64 ms);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString stateText(const TimetableEntry &entry) const;
    QString countdownText(const TimetableEntry &entry) const;

    TimetableOverview m_overview;
    qint64 m_nowMs = 0;
    QTimeZone m_zone = QTimeZone::systemTimeZone();
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::TimetableOverview)
