#include "queues/queuethroughputchart.h"

#include "common/chartaxes.h"
#include "console/common/nicescale.h"
#include "console/queues/queuehistory.h"
#include "common/consoletheme.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>

namespace lantern::ui {

namespace {

constexpr qint64 MinimumSpanMs = 5000;

} // namespace

QueueThroughputChart::QueueThroughputChart(QWidget *parent)
    : QChartView(parent),
      m_depth(new QLineSeries),
      m_drained(new QLineSeries),
      m_time(new QDateTimeAxis),
      m_depthAxis(new QValueAxis),
      m_rateAxis(new QValueAxis)
{
    auto *chart = new QChart;
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_depth->setName(tr("Waiting (tasks)"));
    m_drained->setName(tr("Drained per second"));
    QPen depthPen(QColor(0x1a, 0x73, 0xe8));
    depthPen.setWidthF(2);
    m_depth->setPen(depthPen);
    QPen drainPen(QColor(0x18, 0x80, 0x38));
    drainPen.setWidthF(2);
    drainPen.setStyle(Qt::DashLine);
    m_drained->setPen(drainPen);
    chart->addSeries(m_depth);
    chart->addSeries(m_drained);

    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    m_time->setFormat(QStringLiteral("HH:mm:ss"));
    m_time->setTickCount(4);
    m_time->setLabelsFont(small);
    m_depthAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_depthAxis->setTitleText(tr("tasks"));
    m_depthAxis->setTitleFont(small);
    m_depthAxis->setLabelsFont(small);
    m_depthAxis->setTickCount(3);
    m_rateAxis->setLabelFormat(QStringLiteral("%.0f"));
    m_rateAxis->setTitleText(tr("per s"));
    m_rateAxis->setTitleFont(small);
    m_rateAxis->setLabelsFont(small);
    m_rateAxis->setTickCount(3);
    chart->addAxis(m_time, Qt::AlignBottom);
    chart->addAxis(m_depthAxis, Qt::AlignLeft);
    chart->addAxis(m_rateAxis, Qt::AlignRight);
    m_depth->attachAxis(m_time);
    m_depth->attachAxis(m_depthAxis);
    m_drained->attachAxis(m_time);
    m_drained->attachAxis(m_rateAxis);
    chart->legend()->setFont(small);
    ConsoleTheme::style(chart);
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(fontMetrics().height() * 11);
    const QDateTime now = QDateTime::currentDateTime();
    m_time->setRange(now.addSecs(-60), now);
    m_depthAxis->setRange(0, 1);
    m_depthAxis->setTickCount(2);
    m_rateAxis->setRange(0, 1);
    m_rateAxis->setTickCount(2);
    m_depthRuns << m_depth;
    m_drainRuns << m_drained;
}

QLineSeries *QueueThroughputChart::runSeries(QList<QLineSeries *> &runs, int index, QValueAxis *axis)
{
    while (runs.size() <= index) {
        QLineSeries *first = runs.constFirst();
        auto *series = new QLineSeries;
        series->setPen(first->pen());
        chart()->addSeries(series);
        series->attachAxis(m_time);
        series->attachAxis(axis);
        // One legend entry per kind of line, not per run.
        for (QLegendMarker *marker : chart()->legend()->markers(series))
            marker->setVisible(false);
        runs << series;
    }
    return runs.at(index);
}

void QueueThroughputChart::setHistory(const QueueHistory &history)
{
    const QList<QList<QueueSample>> runs = history.runs();
    for (qsizetype i = 0; i < std::max<qsizetype>(runs.size(), m_depthRuns.size()); ++i) {
        QList<QPointF> depth;
        QList<QPointF> drained;
        if (i < runs.size()) {
            for (const QueueSample &sample : runs.at(i)) {
                depth << QPointF(double(sample.atMs), double(sample.depth));
                if (sample.drainedPerS)
                    drained << QPointF(double(sample.atMs), *sample.drainedPerS);
            }
        }
        runSeries(m_depthRuns, int(i), m_depthAxis)->replace(depth);
        runSeries(m_drainRuns, int(i), m_rateAxis)->replace(drained);
    }
    if (history.samples().isEmpty())
        return;
    // The axis spans the samples (at least MinimumSpanMs), its ends on round times so the ticks
    // fall on them (every 1, 2, 5, 10, 15, 30 s, ...).
    const qint64 last = history.samples().constLast().atMs;
    const qint64 first = std::min(history.samples().constFirst().atMs, last - MinimumSpanMs);
    setRoundTimeRange(m_time, first, last);
    const NiceScale depth = NiceScale::covering(double(history.maxDepth()), 4, 1);
    m_depthAxis->setRange(0, depth.max);
    m_depthAxis->setTickCount(depth.intervals() + 1);
    const double rate = history.maxDrainedPerS();
    const NiceScale drained = NiceScale::covering(rate, 4, rate < 4 ? 0.1 : 1);
    m_rateAxis->setRange(0, drained.max);
    m_rateAxis->setTickCount(drained.intervals() + 1);
    m_rateAxis->setLabelFormat(drained.step < 1 ? QStringLiteral("%.1f") : QStringLiteral("%.0f"));
}

} // namespace lantern::ui
