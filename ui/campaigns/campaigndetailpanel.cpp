#include "campaigns/campaigndetailpanel.h"

#include "console/campaigns/schedulewords.h"
#include "console/campaigns/timetablemodel.h"

#include "campaigns/campaigndrainbar.h"
#include "common/chartaxes.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/common/campaignmoney.h"
#include "common/consoletheme.h"
#include "common/viewscroller.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QListWidget>
#include <QLocale>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace lantern::ui {

namespace {

const QColor PaidColor(0x1e, 0x8e, 0x3e);
const QColor GrabbedColor(0xf2, 0x99, 0x00);
const QColor RemainingColor(0xc5, 0xd3, 0xe8);
const QColor RefundedColor(0x9a, 0xa0, 0xa6);

QString swatch(const QColor &color, const QString &text)
{
    return QStringLiteral("<span style=\"color:%1\">■</span> %2").arg(color.name(), text.toHtmlEscaped());
}

QString statusStyle(CampaignStatus status)
{
    switch (status) {
    case CampaignStatus::Live:
        return ConsoleTheme::pillStyle(ConsoleTheme::Tone::Good, QStringLiteral("padding: 2px 8px; font-weight: 600;"));
    case CampaignStatus::Paused:
        return ConsoleTheme::pillStyle(ConsoleTheme::Tone::Warning, QStringLiteral("padding: 2px 8px; font-weight: 600;"));
    case CampaignStatus::Draft:
    case CampaignStatus::Closed:
        break;
    }
    return QStringLiteral("QLabel { background: palette(alternate-base); border-radius: 4px; padding: 2px 8px; font-weight: 600; }");
}

} // namespace

CampaignDetailPanel::CampaignDetailPanel(QWidget *parent)
    : QWidget(parent),
      m_placeholder(new QLabel(this)),
      m_content(new QWidget(this)),
      m_title(new QLabel(m_content)),
      m_status(new QLabel(m_content)),
      m_subtitle(new QLabel(m_content)),
      m_times(new QLabel(m_content)),
      m_bar(new CampaignDrainBar(m_content)),
      m_legend(new QLabel(m_content)),
      m_pools(new QLabel(m_content)),
      m_ledger(new QLabel(m_content)),
      m_durability(new QLabel(m_content)),
      m_violations(new QListWidget(m_content)),
      m_rateView(new QChartView(m_content)),
      m_rateChart(new QChart),
      m_rateSeries(new QLineSeries),
      m_payoutSeries(new QLineSeries),
      m_timeAxis(new QDateTimeAxis),
      m_rateAxis(new QValueAxis),
      m_rateHint(new QLabel(m_content)),
      m_payouts(new QLabel(m_content))
{
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));

    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setObjectName(QStringLiteral("campaignTitle"));
    m_status->setObjectName(QStringLiteral("campaignStatus"));
    m_subtitle->setWordWrap(true);
    m_subtitle->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    m_times->setObjectName(QStringLiteral("campaignTimes"));
    m_times->setWordWrap(true);
    m_times->setVisible(false);
    auto *titleRow = new QHBoxLayout;
    titleRow->addWidget(m_title, 0);
    titleRow->addWidget(m_status, 0);
    titleRow->addStretch(1);

    m_legend->setTextFormat(Qt::RichText);
    m_legend->setWordWrap(true);

    // Figures: what has been grabbed, persisted and paid, and what is left.
    auto *figures = new QGroupBox(tr("Drain"), m_content);
    auto *grid = new QGridLayout(figures);
    grid->setHorizontalSpacing(18);
    grid->setVerticalSpacing(4);
    auto *envelopesHeader = new QLabel(tr("Envelopes"), figures);
    auto *amountHeader = new QLabel(tr("Amount"), figures);
    for (QLabel *header : {envelopesHeader, amountHeader}) {
        header->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        header->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); font-weight: 600; }"));
    }
    grid->addWidget(envelopesHeader, 0, 1);
    grid->addWidget(amountHeader, 0, 2);
    const QList<std::pair<QString, QString>> rows{{QStringLiteral("grabbed"), tr("Grabbed")},
                                                  {QStringLiteral("persisted"), tr("Saved to the ledger")},
                                                  {QStringLiteral("paid"), tr("Paid out")},
                                                  {QStringLiteral("pending"), tr("Payout pending (in flight or to be retried)")},
                                                  {QStringLiteral("remaining"), tr("Remaining in the pool")},
                                                  {QStringLiteral("refunded"), tr("Refunded at close")},
                                                  {QStringLiteral("refused"), tr("Refused by the ledger (Redis had lost them)")},
                                                  {QStringLiteral("total"), tr("Campaign total")}};
    for (int i = 0; i < rows.size(); ++i) {
        grid->addWidget(new QLabel(rows.at(i).second, figures), i + 1, 0);
        addFigure(grid, i + 1, 1, rows.at(i).first + QStringLiteral("Count"));
        addFigure(grid, i + 1, 2, rows.at(i).first + QStringLiteral("Amount"));
    }
    grid->setColumnStretch(0, 1);

    // The ledger check (DESIGN §4).
    auto *ledgerBox = new QGroupBox(tr("Ledger check"), m_content);
    auto *ledgerLayout = new QVBoxLayout(ledgerBox);
    m_ledger->setObjectName(QStringLiteral("ledgerCheck"));
    m_ledger->setWordWrap(true);
    m_ledger->setTextFormat(Qt::RichText);
    connect(m_ledger, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QLatin1String("view:")))
            Q_EMIT viewRequested(link.mid(5));
        else if (link == QLatin1String("check:rows"))
            Q_EMIT everyRowRequested();
    });
    m_violations->setObjectName(QStringLiteral("violations"));
    m_violations->setWordWrap(true);
    m_violations->setMaximumHeight(fontMetrics().lineSpacing() * 6);
    m_violations->setVisible(false);
    m_durability->setObjectName(QStringLiteral("durabilityWarning"));
    m_durability->setWordWrap(true);
    m_durability->setStyleSheet(ConsoleTheme::pillStyle(ConsoleTheme::Tone::Warning, QStringLiteral("padding: 6px;")));
    m_durability->setVisible(false);
    ledgerLayout->addWidget(m_ledger);
    ledgerLayout->addWidget(m_durability);
    ledgerLayout->addWidget(m_violations);

    // Grabs and payouts per second.
    m_rateSeries->setName(tr("Grabs per second"));
    m_payoutSeries->setName(tr("Payouts per second"));
    m_rateChart->addSeries(m_rateSeries);
    m_rateChart->addSeries(m_payoutSeries);
    m_timeAxis->setFormat(QStringLiteral("HH:mm:ss"));
    m_timeAxis->setTickCount(4);
    m_rateAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_rateAxis->setMin(0);
    m_rateChart->addAxis(m_timeAxis, Qt::AlignBottom);
    m_rateChart->addAxis(m_rateAxis, Qt::AlignLeft);
    for (QLineSeries *series : {m_rateSeries, m_payoutSeries}) {
        series->attachAxis(m_timeAxis);
        series->attachAxis(m_rateAxis);
    }
    // Payouts follow grabs closely: dashed, so the grabs line under it still shows.
    QPen payoutPen = m_payoutSeries->pen();
    payoutPen.setStyle(Qt::DashLine);
    payoutPen.setWidth(2);
    m_payoutSeries->setPen(payoutPen);
    m_rateChart->legend()->setVisible(true);
    m_rateChart->legend()->setAlignment(Qt::AlignBottom);
    m_rateChart->setTitle(tr("Grabs and payouts per second"));
    m_rateChart->setMargins(QMargins(4, 4, 4, 4));
    m_rateChart->setBackgroundRoundness(0);
    ConsoleTheme::style(m_rateChart);
    m_rateView->setChart(m_rateChart);
    m_rateView->setRenderHint(QPainter::Antialiasing);
    m_rateView->setMinimumSize(260, 180);
    m_rateHint->setWordWrap(true);
    m_rateHint->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    m_payouts->setObjectName(QStringLiteral("payoutFigures"));
    m_payouts->setWordWrap(true);

    auto *left = new QVBoxLayout;
    left->addWidget(figures);
    left->addWidget(ledgerBox);
    left->addStretch(1);
    auto *right = new QVBoxLayout;
    right->addWidget(m_rateView, 1);
    right->addWidget(m_rateHint);
    right->addWidget(m_payouts);
    // Under the chart, which gives up the height: the drain table keeps its rows.
    right->addWidget(m_pools);
    auto *columns = new QHBoxLayout;
    columns->setSpacing(16);
    columns->addLayout(left, 5);
    columns->addLayout(right, 6);

    auto *contentLayout = new QVBoxLayout(m_content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addLayout(titleRow);
    contentLayout->addWidget(m_subtitle);
    contentLayout->addWidget(m_times);
    contentLayout->addWidget(m_bar);
    contentLayout->addWidget(m_legend);
    m_pools->setObjectName(QStringLiteral("pools"));
    m_pools->setWordWrap(true);
    m_pools->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pools->setVisible(false);
    contentLayout->addLayout(columns, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_placeholder, 1);
    // Scrolls when the window is short, so the campaign list above keeps its rows.
    m_contentScroll = new ViewScroller(m_content, this);
    m_contentScroll->setObjectName(QStringLiteral("campaignDetailScroll"));
    layout->addWidget(m_contentScroll, 1);
    showNothing(tr("Select a campaign to watch it drain."));
}

QLabel *CampaignDetailPanel::addFigure(QGridLayout *grid, int row, int column, const QString &name)
{
    auto *label = new QLabel(QStringLiteral("—"), grid->parentWidget());
    label->setObjectName(name);
    label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(label, row, column);
    return label;
}

QString CampaignDetailPanel::figure(const QString &name) const
{
    const auto *label = findChild<QLabel *>(name);
    return label ? label->text() : QString();
}

void CampaignDetailPanel::showNothing(const QString &hint)
{
    m_shown = false;
    m_rate.clear();
    m_payoutRate.clear();
    m_placeholder->setText(hint);
    m_placeholder->setVisible(true);
    m_contentScroll->setVisible(false);
}

QString CampaignDetailPanel::timesText() const
{
    QStringList parts;
    for (const ScheduledTransition &row : m_snapshot.transitions) {
        if (row.state != ScheduledTransition::State::Pending)
            continue;
        const QString at = ScheduleWords::timeText(row.dueAtMs, m_zone);
        const QString in = TimetableModel::durationText(row.dueAtMs - m_snapshot.serverNowMs);
        parts << (row.action == ScheduledAction::Launch ? tr("Launches at %1 (in %2)").arg(at, in) : tr("Closes at %1 (in %2)").arg(at, in));
    }
    return parts.join(QStringLiteral(" · "));
}

void CampaignDetailPanel::showSnapshot(const CampaignSnapshot &snapshot)
{
    m_snapshot = snapshot;
    m_shown = true;
    m_placeholder->setVisible(false);
    m_contentScroll->setVisible(true);
    const CampaignSummary &summary = snapshot.summary;
    const Campaign &campaign = summary.campaign;
    const QLocale locale;

    m_title->setText(tr("#%1 %2").arg(campaign.id).arg(campaign.name));
    m_status->setText(CampaignListModel::statusText(campaign.status));
    m_status->setStyleSheet(statusStyle(campaign.status));
    m_subtitle->setText(tr("%1 in %Ln envelope(s) of at least %2 · %3 split, seed %4 · up to %5 grab attempts per user", nullptr, int(campaign.count))
                                .arg(formatYuan(campaign.totalCents), formatYuan(campaign.minCents),
                                     CampaignListModel::algorithmText(campaign.algorithm), QString::number(campaign.seed))
                                .arg(campaign.maxAttempts));

    m_times->setText(timesText());
    m_times->setVisible(!m_times->text().isEmpty());

    const qint64 unpaidCents = std::max<qint64>(0, summary.grabbedCents - summary.paidCents);
    m_bar->setSegments({{tr("Paid out"), summary.paidCents, PaidColor},
                        {tr("Grabbed, payout pending"), unpaidCents, GrabbedColor},
                        {tr("Remaining"), summary.remainingCents, RemainingColor},
                        {tr("Refunded"), campaign.refundedCents, RefundedColor}});
    m_legend->setText(QStringList{swatch(PaidColor, tr("Paid out %1").arg(formatYuan(summary.paidCents))),
                                  swatch(GrabbedColor, tr("Grabbed, payout pending %1").arg(formatYuan(unpaidCents))),
                                  swatch(RemainingColor, tr("Remaining %1").arg(formatYuan(summary.remainingCents))),
                                  swatch(RefundedColor, tr("Refunded %1").arg(formatYuan(campaign.refundedCents)))}
                              .join(QStringLiteral("&nbsp;&nbsp;&nbsp; ")));

    const auto set = [this](const QString &name, const QString &text) {
        if (auto *label = findChild<QLabel *>(name))
            label->setText(text);
    };
    set(QStringLiteral("grabbedCount"), locale.toString(summary.grabbedCount));
    set(QStringLiteral("grabbedAmount"), formatYuan(summary.grabbedCents));
    set(QStringLiteral("persistedCount"), locale.toString(summary.persistedCount));
    set(QStringLiteral("persistedAmount"), QStringLiteral("—"));
    set(QStringLiteral("paidCount"), locale.toString(summary.paidCount));
    set(QStringLiteral("paidAmount"), formatYuan(summary.paidCents));
    set(QStringLiteral("pendingCount"), locale.toString(summary.pendingCount));
    set(QStringLiteral("pendingAmount"), formatYuan(summary.pendingCents));
    // A draft has not filled its pool yet: all of its envelopes are still to come.
    set(QStringLiteral("remainingCount"), locale.toString(campaign.status == CampaignStatus::Draft ? campaign.count : summary.remainingCount));
    set(QStringLiteral("remainingAmount"), formatYuan(summary.remainingCents));
    // Closed: the envelopes nobody grabbed are the ones refunded.
    set(QStringLiteral("refundedCount"), campaign.status == CampaignStatus::Closed ? locale.toString(campaign.count - summary.grabbedCount)
                                                                                   : QStringLiteral("—"));
    set(QStringLiteral("refundedAmount"), formatYuan(campaign.refundedCents));
    set(QStringLiteral("refusedCount"), locale.toString(summary.refusedCount));
    set(QStringLiteral("refusedAmount"), formatYuan(summary.refusedCents));
    set(QStringLiteral("totalCount"), locale.toString(campaign.count));
    set(QStringLiteral("totalAmount"), formatYuan(campaign.totalCents));

    m_violations->clear();
    if (snapshot.violations.isEmpty()) {
        m_ledger->setText(tr("✔ The ledger checks out: the split, one envelope per user, one payout per grab and, once closed, "
                             "grabbed + refunded = total."));
        m_ledger->setStyleSheet(ConsoleTheme::pillStyle(ConsoleTheme::Tone::Good, QStringLiteral("padding: 6px;")));
    } else {
        // Where to act: dead letters are retried in Queues; the rest is for a recovery.
        const bool deadLettered = std::any_of(snapshot.violations.cbegin(), snapshot.violations.cend(),
                                              [](const Violation &violation) { return violation.deadLettered; });
        const bool other = std::any_of(snapshot.violations.cbegin(), snapshot.violations.cend(),
                                       [](const Violation &violation) { return !violation.deadLettered; });
        QStringList where;
        if (deadLettered)
            where << tr("retry its dead letters in <a href=\"view:queues\">Queues</a>");
        if (other)
            where << tr("run a recovery in <a href=\"view:recovery\">Recovery</a>");
        m_ledger->setText(tr("✘ %n rule(s) of the ledger are broken: %1, or escalate.", nullptr, int(snapshot.violations.size()))
                                  .arg(where.join(tr(" and "))));
        m_ledger->setStyleSheet(ConsoleTheme::pillStyle(ConsoleTheme::Tone::Error, QStringLiteral("padding: 6px;")));
        for (const Violation &violation : snapshot.violations)
            m_violations->addItem(tr("Rule %1: %2").arg(violation.invariant).arg(violation.detail));
    }
    // Where rules 2 and 3 took their figures from (issue 26): a user deciding on money asks.
    const QString source = snapshot.everyRow
            ? tr("Every grab and payout row was read, and the workers' tally compared with them, as <i>lanternd verify</i> does.")
            : tr("Grabs and payouts are judged from the tally the workers keep as they write them; a row changed by hand is counted "
                 "again, a row added by hand only by <a href=\"check:rows\">a check of every row</a>.");
    m_ledger->setText(m_ledger->text() + QStringLiteral("<br><small>") + source + QStringLiteral("</small>"));
    m_violations->setVisible(!snapshot.violations.isEmpty());
    // A campaign of sub-pools (campaign create --pools): each pool's progress, so a pool running
    // dry early (its users then borrow from the others) shows.
    QStringList pools;
    for (const PoolProgress &pool : summary.pools) {
        //: One sub-pool of a campaign: its name, envelopes left of those dealt to it, grabbed, borrowed from other pools.
        pools << tr("%1: %2 of %3 left, %4 grabbed, %5 borrowed")
                         .arg(QString::fromLatin1(pool.name))
                         .arg(pool.remainingCount)
                         .arg(pool.count)
                         .arg(pool.grabbedCount)
                         .arg(pool.borrowedCount);
    }
    m_pools->setText(summary.pools.size() > 1 ? tr("Sub-pools: %1").arg(pools.join(QStringLiteral(" · "))) : QString());
    m_pools->setVisible(summary.pools.size() > 1);
    m_durability->setText(snapshot.durabilityWarning.isEmpty() ? QString() : tr("⚠ %1").arg(snapshot.durabilityWarning));
    m_durability->setVisible(!snapshot.durabilityWarning.isEmpty());

    m_rate.addReading(campaign.id, snapshot.loadedAtMs, summary.grabbedCount);
    m_payoutRate.addReading(campaign.id, snapshot.loadedAtMs, summary.paidCount);
    updateRateChart();
}

void CampaignDetailPanel::updateRateChart()
{
    // One line per run of readings: a time nothing was read stays blank. The first run goes to the
    // series the legend names; each later run to a series drawn with the same pen, unnamed.
    for (QLineSeries *series : std::as_const(m_segmentSeries)) {
        m_rateChart->removeSeries(series);
        delete series;
    }
    m_segmentSeries.clear();
    const auto show = [this](QLineSeries *lead, const GrabRateSeries &rate) {
        const QList<QList<GrabRateSeries::Point>> runs = rate.segments();
        for (qsizetype i = 0; i < std::max<qsizetype>(1, runs.size()); ++i) {
            QList<QPointF> points;
            if (i < runs.size()) {
                for (const GrabRateSeries::Point &point : runs.at(i))
                    points << QPointF(double(point.atMs), point.perSecond);
            }
            QLineSeries *series = lead;
            if (i > 0) {
                series = new QLineSeries;
                m_rateChart->addSeries(series);
                series->attachAxis(m_timeAxis);
                series->attachAxis(m_rateAxis);
                series->setPen(lead->pen());
                for (QLegendMarker *marker : m_rateChart->legend()->markers(series))
                    marker->setVisible(false);
                m_segmentSeries << series;
            }
            series->replace(points);
        }
    };
    show(m_rateSeries, m_rate);
    show(m_payoutSeries, m_payoutRate);
    const qint64 now = m_snapshot.loadedAtMs;
    const qint64 first = m_rate.points().isEmpty() ? now - 60'000 : std::min(m_rate.points().constFirst().atMs, now - 60'000);
    setRoundTimeRange(m_timeAxis, first, now);
    const double peak = std::max(m_rate.peak(), m_payoutRate.peak());
    m_rateAxis->setRange(0, peak < 5 ? 5 : peak * 1.15);
    m_rateAxis->applyNiceNumbers();
    if (m_snapshot.summary.campaign.status != CampaignStatus::Live)
        m_rateHint->setText(tr("Grabs happen only while the campaign is live."));
    else if (m_rate.points().isEmpty())
        m_rateHint->setText(tr("The rate appears from the second refresh on (auto-refresh in the toolbar)."));
    else
        m_rateHint->setText(tr("Now %1 grabs/s, peak %2 grabs/s, over the last %n refresh(es).", nullptr, int(m_rate.points().size()))
                                    .arg(locale().toString(m_rate.points().constLast().perSecond, 'f', 1), locale().toString(m_rate.peak(), 'f', 1)));

    // The payouts (issue 12): how fast they land, how many are out, how many calls did not pay.
    const CampaignSummary &summary = m_snapshot.summary;
    const QString payoutsNow =
            m_payoutRate.points().isEmpty() ? QStringLiteral("—") : locale().toString(m_payoutRate.points().constLast().perSecond, 'f', 1);
    m_payouts->setText(tr("Payouts: %1/s now · %2 pending at the provider or to be retried · %n provider error(s) (calls that did not pay, "
                          "each retried with the same idempotency key)",
                          nullptr, int(std::min<qint64>(summary.providerErrors, INT_MAX)))
                               .arg(payoutsNow, locale().toString(summary.pendingCount)));
    m_payouts->setStyleSheet(summary.providerErrors > 0 && summary.providerErrors * 2 > summary.paidCount + summary.providerErrors
                                     ? QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText())
                                     : QStringLiteral("QLabel { color: palette(placeholder-text); }"));
}

QString CampaignDetailPanel::poolsText() const
{
    return m_pools->text();
}

QString CampaignDetailPanel::payoutText() const
{
    return m_payouts->text();
}

QString CampaignDetailPanel::ledgerText() const
{
    return m_ledger->text();
}

QStringList CampaignDetailPanel::violationTexts() const
{
    QStringList texts;
    for (int i = 0; i < m_violations->count(); ++i)
        texts << m_violations->item(i)->text();
    return texts;
}

} // namespace lantern::ui
