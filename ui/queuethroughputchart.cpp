#include "queuethroughputchart.h"

#include "console/queuehistory.h"

#include <QChart>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QLegend>
#include <QLineSeries>
#include <QValueAxis>

#include <cmath>

namespace lantern::ui {

namespace {

/** A round upper bound so the axis labels stay short (1, 2, 5, 10, 20, 50, ...). */
double niceCeiling(double value)
{
    if (value <= 1)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        if (value <= step * magnitude)
            return step * magnitude;
    }
    return 10 * magnitude;
}

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
    setChart(chart);
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(fontMetrics().height() * 11);
    const QDateTime now = QDateTime::currentDateTime();
    m_time->setRange(now.addSecs(-60), now);
    m_depthAxis->setRange(0, 1);
    m_rateAxis->setRange(0, 1);
}

void QueueThroughputChart::setHistory(const QueueHistory &history)
{
    QList<QPointF> depth;
    QList<QPointF> drained;
    for (const QueueSample &sample : history.samples()) {
        depth << QPointF(double(sample.atMs), double(sample.depth));
        if (sample.drainedPerS)
            drained << QPointF(double(sample.atMs), *sample.drainedPerS);
    }
    m_depth->replace(depth);
    m_drained->replace(drained);
    if (history.samples().isEmpty())
        return;
    const qint64 last = history.samples().constLast().atMs;
    // The axis spans the samples (at least MinimumSpanMs), so the lines fill the chart.
    const qint64 first = std::min(history.samples().constFirst().atMs, last - MinimumSpanMs);
    m_time->setRange(QDateTime::fromMSecsSinceEpoch(first), QDateTime::fromMSecsSinceEpoch(last));
    m_depthAxis->setRange(0, niceCeiling(double(history.maxDepth())));
    m_rateAxis->setRange(0, niceCeiling(history.maxDrainedPerS()));
}

} // namespace lantern::ui
