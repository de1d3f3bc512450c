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
    (net tasks per second between two refreshes), on two value axes (Qt 6 axis API). */
class QueueThroughputChart final : public QChartView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueThroughputChart)

public:
    explicit QueueThroughputChart(QWidget *parent = nullptr);

    void setHistory(const QueueHistory &history);
    QLineSeries *depthSeries() const { return m_depth; }
    QLineSeries *drainSeries() const { return m_drained; }

private:
    QLineSeries *m_depth;
    QLineSeries *m_drained;
    QDateTimeAxis *m_time;
    QValueAxis *m_depthAxis;
    QValueAxis *m_rateAxis;
};

} // namespace lantern::ui
