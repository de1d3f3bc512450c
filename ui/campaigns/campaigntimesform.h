#pragma once

#include "envelope/campaignschedule.h"

#include <QTimeZone>
#include <QWidget>

#include <optional>

class QCheckBox;
class QDateTimeEdit;
class QLabel;
class QSpinBox;

namespace lantern::ui {

/** A campaign's launch and close times (issue 30), in the console's business zone: for a new
    campaign (its times, all optional) and for the "Times…" dialog (a replacement of the pending
    ones). The rules are CampaignSchedule::problem's, checked as the operator types against the
    servers' clock as last read; the service checks again when it writes. */
class CampaignTimesForm final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignTimesForm)

public:
    CampaignTimesForm(const QTimeZone &zone, qint64 serverNowMs, QWidget *parent = nullptr);

    /** The campaign's current timetable: the form shows its pending times and asks for a
        replacement of them (a launch time only for a draft). */
    void setCurrent(CampaignStatus status, const QList<ScheduledTransition> &current);

    void setLaunchAt(std::optional<qint64> ms);
    void setCloseAt(std::optional<qint64> ms);
    /** Seconds; none: however late. */
    void setLateLimit(std::optional<qint64> seconds);

    /** What the form asks for (empty for a new campaign without times). */
    ScheduleRequest request() const;
    /** For an existing campaign: whether the request differs from its pending times. */
    bool changed() const;
    /** Why the request cannot be saved, in words; empty when it can. */
    QString problemText() const;
    bool isAcceptable() const { return problemText().isEmpty(); }
    /** The servers' time now, as estimated from the last reading and the local clock. */
    qint64 serverNowMs() const;

Q_SIGNALS:
    void edited();

private:
    void update();
    std::optional<qint64> timeOf(const QCheckBox *on, const QDateTimeEdit *edit) const;
    void showTime(QDateTimeEdit *edit, qint64 ms);
    bool wallTimeExists(const QDateTimeEdit *edit) const;

    QTimeZone m_zone;
    qint64 m_clockOffsetMs;  // servers' clock minus this machine's
    bool m_replace = false;
    CampaignStatus m_status = CampaignStatus::Draft;
    QList<ScheduledTransition> m_current;

    QCheckBox *m_launchOn;
    QDateTimeEdit *m_launchAt;
    QCheckBox *m_closeOn;
    QDateTimeEdit *m_closeAt;
    QSpinBox *m_lateLimit;  // minutes; 0: however late
    QLabel *m_zoneNote;
    QLabel *m_error;
};

} // namespace lantern::ui
