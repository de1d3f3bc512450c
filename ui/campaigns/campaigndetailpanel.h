#pragma once

#include "console/campaigns/campaignconsoleservice.h"
#include "console/campaigns/campaigngrabrate.h"

#include <QTimeZone>
#include <QWidget>

class QChart;
class QChartView;
class QDateTimeAxis;
class QGridLayout;
class QLabel;
class QLineSeries;
class QListWidget;
class QValueAxis;

namespace lantern::ui {

class CampaignDrainBar;
class ViewScroller;

/** The live view of one campaign while it drains: remaining vs grabbed vs paid (counts and
    amounts), grabs per second from successive refreshes, and the ledger check of DESIGN §4 in
    green or red with the violations listed. Shows what it is given; loads nothing itself. */
class CampaignDetailPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignDetailPanel)

public:
    explicit CampaignDetailPanel(QWidget *parent = nullptr);

    void showSnapshot(const CampaignSnapshot &snapshot);
    /** Nothing selected (or the list is empty). */
    void showNothing(const QString &hint);
    /** The zone the campaign's times are shown in (the console's business zone). */
    void setTimeZone(const QTimeZone &zone) { m_zone = zone; }
    /** The line naming the campaign's pending times; empty when it has none. */
    QString timesText() const;

    qint64 campaignId() const { return m_shown ? m_snapshot.summary.campaign.id : 0; }
    /** The snapshot shown (meaningful when campaignId() != 0). */
    const CampaignSnapshot &snapshot() const { return m_snapshot; }
    CampaignStatus status() const { return m_snapshot.summary.campaign.status; }
    bool ledgerOk() const { return m_shown && m_snapshot.violations.isEmpty(); }
    QString ledgerText() const;
    QStringList violationTexts() const;
    QString figure(const QString &name) const;
    const GrabRateSeries &rate() const { return m_rate; }
    /** Payouts per second, from successive readings of the paid count. */
    const GrabRateSeries &payoutRate() const { return m_payoutRate; }
    /** The line under the chart: payouts per second, pending, provider errors. */
    QString payoutText() const;
    /** Each sub-pool's progress; empty for a campaign of one pool. */
    QString poolsText() const;

Q_SIGNALS:
    /** A link of the ledger check was followed: "queues", "recovery". */
    void viewRequested(const QString &name);
    /** The ledger check over every row, asked for by the user (the refreshes judge from the tally). */
    void everyRowRequested();

private:
    QLabel *addFigure(QGridLayout *grid, int row, int column, const QString &name);
    void updateRateChart();

    CampaignSnapshot m_snapshot;
    bool m_shown = false;
    GrabRateSeries m_rate;
    GrabRateSeries m_payoutRate;

    QLabel *m_placeholder;
    ViewScroller *m_contentScroll = nullptr;
    QWidget *m_content;
    QLabel *m_title;
    QLabel *m_status;
    QLabel *m_subtitle;
    QLabel *m_times;
    QTimeZone m_zone = QTimeZone::systemTimeZone();
    CampaignDrainBar *m_bar;
    QLabel *m_legend;
    QLabel *m_pools;
    QLabel *m_ledger;
    QLabel *m_durability;
    QListWidget *m_violations;
    QChartView *m_rateView;
    QChart *m_rateChart;
    QLineSeries *m_rateSeries;
    QLineSeries *m_payoutSeries;
    QList<QLineSeries *> m_segmentSeries;  // the segments after a gap, drawn like their lead
    QDateTimeAxis *m_timeAxis;
    QValueAxis *m_rateAxis;
    QLabel *m_rateHint;
    QLabel *m_payouts;
};

} // namespace lantern::ui
