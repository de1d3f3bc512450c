#pragma once

#include "operations/deadletters.h"

#include <QWidget>

class QComboBox;
class QHBoxLayout;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QToolButton;

namespace lantern {
class DeadLetterModel;
class QueueService;
}

namespace lantern::ui {

class DeadLetterEditDialog;
class QueueJobBar;

/** The dead-letter part of the Queues view: pick a list, page through it (PageSize entries at a
    time, newest first, or sorted by a header click over the whole list: see sortBy) with why, when and after how many tries each entry was set aside,
    inspect an entry byte for byte as it is stored, and retry or discard the selected
    entries or the whole list, each confirmed with the operator's name, run in batches on the
    service's thread with a progress bar and Cancel. */
class DeadLetterPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DeadLetterPanel)

public:
    static constexpr int PageSize = 50;

    explicit DeadLetterPanel(QWidget *parent = nullptr);
    ~DeadLetterPanel() override;

    void setService(QueueService *service);
    /** The lists as the latest overview found them; reloads the shown page when its list changed. */
    void setLists(const QList<DeadLetterList> &lists);
    QString currentList() const;
    bool selectList(const QString &name);
    /** Shows list `name` once the lists are read (a new window opening where the last one was). */
    void preferList(const QString &name) { m_preferredList = name; }
    /** On a read-only connection retry and discard stay disabled (WriteAction). */
    void setReadOnly(bool readOnly);
    /** Shows the dead letters of queue `queue` ("payout:7", or "checkin" for the first check-in
        shard's list with entries) and moves the focus to them; false when it has none. */
    bool openListOf(const QString &queue);
    /** Sorts the whole list by `column` (a DeadLetterModel::Column) and shows its first page; the
        order stays when another list is chosen. Position sorts any list (newest or oldest first);
        the other columns lists of up to DeadLetters::SortableDepth entries: for a deeper one the
        click is refused (the indicator stays) and notice() says why. */
    void sortBy(int column, Qt::SortOrder order);
    int sortColumn() const { return m_sortColumn; }
    Qt::SortOrder sortOrder() const { return m_sortOrder; }

    bool isLoading() const { return m_waitingFor != 0; }
    bool isJobRunning() const { return m_job != 0; }
    DeadLetterModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QPlainTextEdit *inspector() const { return m_inspector; }
    QLabel *noteLabel() const { return m_note; }
    QPushButton *retryButton() const { return m_retry; }
    QToolButton *nextPageButton() const { return m_older; }
    QueueJobBar *jobBar() const { return m_jobBar; }

    /** Open the confirmation dialog of each action. */
    void retrySelected() { confirm(true, false); }
    void discardSelected() { confirm(false, false); }
    void retryAll() { confirm(true, true); }
    void discardAll() { confirm(false, true); }
    /** Opens the edit-before-retry dialog on the one selected entry (returned for tests). */
    DeadLetterEditDialog *editAndRetry();

Q_SIGNALS:
    void pageRequested(quint64 serial, const QString &list, qint64 offset, int count, int column, bool descending);
    void jobRequested(quint64 job, bool retry, const QString &list, const QByteArrayList &entries, bool wholeList, const QString &operatorName);
    void jobCancelRequested(quint64 job);
    void editRetryRequested(quint64 job, const QString &list, const QByteArray &entry, const QByteArray &edited, const QString &operatorName);

    void pageShown();
    /** A job ended: `summary` in words; the view refreshes the overview. */
    void jobDone(const QString &summary);
    void failed(const QString &message, const QString &detail);
    /** Something the operator should know that is not a failure (a sort that was refused). */
    void notice(const QString &message);

private:
    void requestPage(qint64 offset);
    void onPageLoaded(quint64 serial, const DeadLetterPage &page, int column, bool descending);
    void showSortIndicator();
    qint64 currentDepth() const;
    void onPageFailed(quint64 serial, const QString &message, const QString &detail);
    void onJobProgress(quint64 job, qint64 done, qint64 total);
    void onJobFinished(quint64 job, bool cancelled, const QString &summary);
    void onJobFailed(quint64 job, const QString &message, const QString &detail);
    void confirm(bool retry, bool wholeList);
    QByteArrayList selectedEntries() const;
    void updateInspector();
    QHBoxLayout *buildHeader();
    void setUpTable();
    QWidget *buildInspector();
    void connectActions();
    void updateActions();

    QueueService *m_service = nullptr;
    DeadLetterModel *m_model;
    QList<DeadLetterList> m_lists;
    QString m_preferredList;  // preferList(): chosen when the lists come
    quint64 m_serial = 0;
    quint64 m_waitingFor = 0;
    quint64 m_job = 0;
    qint64 m_offset = 0;
    int m_sortColumn = 0;  // DeadLetterModel::Position
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;

    QComboBox *m_list;
    QToolButton *m_newer;
    QToolButton *m_older;
    QLabel *m_range;
    QPushButton *m_retry;
    QPushButton *m_discard;
    QPushButton *m_retryAll;
    QPushButton *m_discardAll;
    QPushButton *m_editRetry;
    QTableView *m_table;
    QPlainTextEdit *m_inspector;
    QLabel *m_note;  // the inspected entry's note: why, when, after how many tries
    QueueJobBar *m_jobBar;
    bool m_readOnly = false;
};

} // namespace lantern::ui
