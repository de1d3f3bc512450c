#pragma once

#include <QChartView>

class QDateTimeAxis;
class QLineSeries;
class QValueAxis;

namespace lantern {
class QueueHistory;
}

namespace lantern::ui {

/** The backlog of every queue together over the last refreshes, and how fast it went down
    (net tasks per second between two refreshes), on two value axes (Qt 6 axis API). A time
    nothing was read for (QueueHistory::runs()) is a gap between lines, not a line across it;
    the axes tick at round values (NiceScale). */
class QueueThroughputChart final : public QChartView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueThroughputChart)

public:
    explicit QueueThroughputChart(QWidget *parent = nullptr);

    void setHistory(const QueueHistory &history);
    QLineSeries *depthSeries() const { return m_depth; }
    QLineSeries *drainSeries() const { return m_drained; }
    /** One series per run without a gap (the first is depthSeries()); the unused are empty. */
    const QList<QLineSeries *> &depthRuns() const { return m_depthRuns; }

private:
    /** The `index`th series of `runs`, made like `first` on the same axes when it is new. */
    QLineSeries *runSeries(QList<QLineSeries *> &runs, int index, QValueAxis *axis);

    QLineSeries *m_depth;
    QLineSeries *m_drained;
    QDateTimeAxis *m_time;
    QValueAxis *m_depthAxis;
    QValueAxis *m_rateAxis;
    QList<QLineSeries *> m_depthRuns;
    QList<QLineSeries *> m_drainRuns;
};

} // namespace lantern::ui
