#pragma once

#include "console/campaigns/timetablemodel.h"

#include <QElapsedTimer>
#include <QWidget>

class QLabel;
class QTableView;
class QTimer;

namespace lantern {
class CampaignConsoleService;
}

namespace lantern::ui {

/** The Campaigns view's timetable (issue 30): scheduled launches and closes of today and the next
    days, each with its countdown, prepared ✓ and what happened (made and how late, missed and
    why), and a warning when a transition is due within 10 minutes and no worker is alive. Read
    through the view's CampaignConsoleService on its thread; the countdown ticks every second on
    the servers' clock between reads. */
class TimetablePanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TimetablePanel)

public:
    explicit TimetablePanel(QWidget *parent = nullptr);
    ~TimetablePanel() override;

    /** Rows the panel asks room for; it scrolls past them. */
    static constexpr int VisibleRows = 4;
    QSize sizeHint() const override;

    /** `service` lives on another thread and outlives this panel's use of it. */
    void setService(CampaignConsoleService *service);
    void setTimeZone(const QTimeZone &zone) { m_model->setTimeZone(zone); }
    /** Asks for the timetable again (ignored while a read is out). */
    void refresh();

    TimetableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    /** The no-worker warning, empty when there is none; or why the timetable could not be read. */
    QString warningText() const;

private:
    void show(quint64 serial, const TimetableOverview &overview);
    void failed(quint64 serial, const QString &message, const QString &detail);
    void tick();

    TimetableModel *m_model;
    QTableView *m_table;
    QLabel *m_summary;
    QLabel *m_warning;
    QTimer *m_ticker;
    CampaignConsoleService *m_service = nullptr;
    QElapsedTimer m_sinceRead;
    quint64 m_serial = 0;
    quint64 m_out = 0;  // the read under way
};

} // namespace lantern::ui
