#pragma once

#include <QTabWidget>

class QChart;
class QChartView;
class QTableView;

namespace lantern {
class CheckinHistoryModel;
class LedgerModel;
struct UserMonth;
}

namespace lantern::ui {

/** Under the Users view's figures: a streak chart over the last months (days signed, make-ups
    among them, and the longest run of each month), the recent check-in history and the recent
    points ledger of the user shown. */
class UserHistoryPanel final : public QTabWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UserHistoryPanel)

public:
    explicit UserHistoryPanel(QWidget *parent = nullptr);
    ~UserHistoryPanel() override;

    void showUser(const UserMonth &month);
    void clearUser();

    CheckinHistoryModel *historyModel() const { return m_history; }
    LedgerModel *ledgerModel() const { return m_ledger; }
    QChart *chart() const { return m_chart; }

private:
    void fillChart(const UserMonth &month);
    /** Ticks every week, or every two or four when the plot is too short for a label a week. */
    void fitDayTicks();

    CheckinHistoryModel *m_history;
    LedgerModel *m_ledger;
    QChart *m_chart;
    QChartView *m_chartView;
    QTableView *m_historyView;
    QTableView *m_ledgerView;
};

} // namespace lantern::ui
