#pragma once

#include "console/audit/auditentry.h"
#include "console/common/dedicatedthread.h"
#include "common/consoleview.h"

#include <QList>
#include <QTimer>

#include <memory>

class QComboBox;
class QHBoxLayout;
class QDateEdit;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QToolButton;

namespace lantern {
class AuditLogModel;
class AuditService;
}

namespace lantern::ui {

class AuditDetailPanel;
class MessageBanner;

/** The Audit log view: who did what, when and why, newest first or sorted by a header click
    (time, who, action, target: the database sorts the whole log), filtered by who, action,
    target and a period of business days, a page of 200 rows at a time (keyset pages: First /
    Previous / Next), with the selected row's detail spelled out below the table.
    It never touches SQL: an AuditService on its own thread answers queued requests, and only
    the answer to the newest request is shown. */
class AuditView final : public ConsoleView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditView)

public:
    static constexpr int PageSize = 200;

    explicit AuditView(QWidget *parent = nullptr);
    ~AuditView() override;

    QString viewName() const override { return QStringLiteral("audit"); }
    QString title() const override { return tr("Audit log"); }
    void attachBackend(const Config &config) override;
    /** Talks to `service` (on another thread, outliving this view's use of it). */
    void setService(AuditService *service);
    void refresh() override;
    void prepareScreenshot(const ScreenshotRequest &request) override;
    QVariantMap viewState() const override;
    void restoreViewState(const QVariantMap &state) override;

    /** Shows the newest page matching `filter` (also sets the filter fields). */
    void setFilter(const AuditFilter &filter);
    AuditFilter filter() const;
    /** Sorts the whole log by `column` (an AuditLogModel::Column; the details cannot be sorted)
        and shows its first page; the header's indicator follows. */
    void sortBy(int column, Qt::SortOrder order);
    AuditOrder order() const { return m_order; }
    void showFirst();
    void showNext();
    void showPrevious();
    /** 1 for the newest page. */
    int pageNumber() const { return static_cast<int>(m_cursors.size()); }

    bool isBusy() const { return m_waitingFor != 0; }
    AuditLogModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    MessageBanner *banner() const { return m_banner; }
    AuditDetailPanel *detailPanel() const { return m_detail; }
    QPushButton *firstButton() const { return m_firstButton; }
    QPushButton *previousButton() const { return m_previousButton; }
    QPushButton *nextButton() const { return m_nextButton; }
    QLabel *pageLabel() const { return m_pageLabel; }

Q_SIGNALS:
    void pageRequested(quint64 serial, const lantern::AuditFilter &filter, const lantern::AuditOrder &order,
                       const lantern::AuditCursor &after, int limit);
    /** A page is on screen. */
    void pageShown();

private:
    /** Who, action, target, period (and its days), Clear filters, refresh and the busy bar. */
    QHBoxLayout *buildFilterRow();
    /** The page's table; a header click sorts the whole log in the database. */
    void buildTable();
    /** Where the page is, and First, Previous and Next. */
    QHBoxLayout *buildPaging();
    void onPageLoaded(quint64 serial, const AuditPage &page);
    void onLoadFailed(quint64 serial, const QString &message, const QString &detail);
    void load(const AuditCursor &after);
    void applyFilterFields();
    void onPeriodChanged();
    void updatePaging();
    QString orderText() const;
    void showSelected();

    std::unique_ptr<DedicatedThread<AuditService>> m_thread;
    AuditService *m_service = nullptr;
    AuditLogModel *m_model;
    AuditFilter m_filter;
    AuditOrder m_order;
    QList<AuditCursor> m_cursors{AuditCursor{}};  // the cursor of every page up to the one shown
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;
    qint64 m_keepSelected = 0;   // the id to select again after a reload
    QDate m_today;
    QTimer m_typingDelay;
    bool m_settingFields = false;

    QLineEdit *m_actor;
    QComboBox *m_action;
    QLineEdit *m_target;
    QComboBox *m_period;
    QDateEdit *m_from;
    QDateEdit *m_to;
    QLabel *m_dash;
    QPushButton *m_clearButton;
    QToolButton *m_refreshButton;
    QProgressBar *m_busy;
    MessageBanner *m_banner;
    QTableView *m_table;
    QPushButton *m_firstButton;
    QPushButton *m_previousButton;
    QPushButton *m_nextButton;
    QLabel *m_pageLabel;
    AuditDetailPanel *m_detail;
};

} // namespace lantern::ui
