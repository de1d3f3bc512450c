#include "queues/deadletterpanel.h"

#include "console/queues/deadlettermodel.h"
#include "console/queues/queueformat.h"
#include "console/queues/queueservice.h"
#include "common/consoleview.h"
#include "queues/deadletteredit.h"
#include "queues/queueconfirmdialog.h"
#include "queues/queuejobbar.h"
#include "queues/queuetonedelegate.h"
#include "common/writeaction.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace lantern::ui {

DeadLetterPanel::DeadLetterPanel(QWidget *parent)
    : QWidget(parent),
      m_model(new DeadLetterModel(this)),
      m_list(new QComboBox(this)),
      m_newer(new QToolButton(this)),
      m_older(new QToolButton(this)),
      m_range(new QLabel(this)),
      m_retry(new QPushButton(tr("Retry"), this)),
      m_discard(new QPushButton(tr("Discard"), this)),
      m_retryAll(new QPushButton(tr("Retry all…"), this)),
      m_discardAll(new QPushButton(tr("Discard all…"), this)),
      m_editRetry(new QPushButton(tr("Edit and retry…"), this)),
      m_table(new QTableView(this)),
      m_inspector(new QPlainTextEdit(this)),
      m_note(new QLabel(this)),
      m_jobBar(new QueueJobBar(this))
{
    QHBoxLayout *header = buildHeader();
    setUpTable();
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(buildInspector());
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(split, 1);
    layout->addWidget(m_jobBar);

    connectActions();
    updateActions();
}

/** The title, the list chooser, the page arrows and the actions, in one row. */
QHBoxLayout *DeadLetterPanel::buildHeader()
{
    auto *title = new QLabel(tr("Dead letters"), this);
    QFont bold = title->font();
    bold.setBold(true);
    title->setFont(bold);
    m_list->setObjectName(QStringLiteral("deadLetterList"));
    m_list->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_list->setMinimumContentsLength(22);
    m_newer->setArrowType(Qt::LeftArrow);
    m_newer->setToolTip(tr("Previous page"));
    m_older->setArrowType(Qt::RightArrow);
    m_older->setToolTip(tr("Next page"));
    m_retry->setObjectName(QStringLiteral("retryButton"));
    m_discard->setObjectName(QStringLiteral("discardButton"));
    m_retryAll->setObjectName(QStringLiteral("retryAllButton"));
    m_discardAll->setObjectName(QStringLiteral("discardAllButton"));
    m_editRetry->setObjectName(QStringLiteral("editRetryButton"));
    m_editRetry->setToolTip(tr("Correct the selected entry and put it back on its queue in its place"));
    m_retry->setToolTip(tr("Put the selected entries back on their queue"));
    m_discard->setToolTip(tr("Remove the selected entries for good (the audit log keeps a copy)"));
    auto *header = new QHBoxLayout;
    header->addWidget(title);
    header->addWidget(m_list);
    header->addSpacing(8);
    header->addWidget(m_newer);
    header->addWidget(m_range);
    header->addWidget(m_older);
    header->addStretch();
    header->addWidget(m_retry);
    header->addWidget(m_editRetry);
    header->addWidget(m_discard);
    header->addSpacing(8);
    header->addWidget(m_retryAll);
    header->addWidget(m_discardAll);
    return header;
}

/** One row per entry; a header click sorts the whole list (the service reads and sorts it). */
void DeadLetterPanel::setUpTable()
{
    m_table->setModel(m_model);
    m_table->setItemDelegate(new QueueToneDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DeadLetterModel::Summary, QHeaderView::Stretch);
    // The reason can be a long provider message: a column of its own width, cut with "…" (the
    // whole text in its tool tip and the note beside the table), so the entry keeps its room.
    m_table->horizontalHeader()->setSectionResizeMode(DeadLetterModel::Reason, QHeaderView::Interactive);
    m_table->horizontalHeader()->resizeSection(DeadLetterModel::Reason, m_table->fontMetrics().averageCharWidth() * 24);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->setWordWrap(false);
    // A header click sorts the whole list, not the page shown (the service reads and sorts it).
    m_table->horizontalHeader()->setSectionsClickable(true);
    m_table->horizontalHeader()->setSortIndicatorShown(true);
    showSortIndicator();
    connect(m_table->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this, &DeadLetterPanel::sortBy);
}

/** The selected entry as stored, byte for byte, under its note. */
QWidget *DeadLetterPanel::buildInspector()
{
    m_inspector->setReadOnly(true);
    m_inspector->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_inspector->setPlaceholderText(tr("Select an entry to see it as it is stored, byte for byte."));
    m_inspector->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_note->setObjectName(QStringLiteral("deadLetterNote"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *inspectorPane = new QWidget(this);
    auto *inspectorLayout = new QVBoxLayout(inspectorPane);
    inspectorLayout->setContentsMargins(0, 0, 0, 0);
    inspectorLayout->setSpacing(4);
    inspectorLayout->addWidget(m_note);
    inspectorLayout->addWidget(m_inspector, 1);
    return inspectorPane;
}

void DeadLetterPanel::connectActions()
{
    connect(m_list, &QComboBox::currentIndexChanged, this, [this] { requestPage(0); });
    connect(m_newer, &QToolButton::clicked, this, [this] { requestPage(std::max<qint64>(0, m_offset - PageSize)); });
    connect(m_older, &QToolButton::clicked, this, [this] { requestPage(m_offset + PageSize); });
    connect(m_retry, &QPushButton::clicked, this, &DeadLetterPanel::retrySelected);
    connect(m_discard, &QPushButton::clicked, this, &DeadLetterPanel::discardSelected);
    connect(m_retryAll, &QPushButton::clicked, this, &DeadLetterPanel::retryAll);
    connect(m_discardAll, &QPushButton::clicked, this, &DeadLetterPanel::discardAll);
    connect(m_editRetry, &QPushButton::clicked, this, &DeadLetterPanel::editAndRetry);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateInspector();
        updateActions();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &DeadLetterPanel::updateInspector);
    connect(m_jobBar, &QueueJobBar::cancelRequested, this, [this] {
        if (m_job != 0)
            Q_EMIT jobCancelRequested(m_job);
    });
}

DeadLetterPanel::~DeadLetterPanel() = default;

void DeadLetterPanel::setService(QueueService *service)
{
    m_service = service;
    connect(this, &DeadLetterPanel::pageRequested, service, &QueueService::loadDeadLetters, Qt::QueuedConnection);
    connect(this, &DeadLetterPanel::jobRequested, service, &QueueService::runDeadLetterJob, Qt::QueuedConnection);
    connect(this, &DeadLetterPanel::jobCancelRequested, service, &QueueService::cancelJob, Qt::QueuedConnection);
    connect(this, &DeadLetterPanel::editRetryRequested, service, &QueueService::retryEdited, Qt::QueuedConnection);
    connect(service, &QueueService::deadLettersLoaded, this, &DeadLetterPanel::onPageLoaded, Qt::QueuedConnection);
    connect(service, &QueueService::deadLettersFailed, this, &DeadLetterPanel::onPageFailed, Qt::QueuedConnection);
    connect(service, &QueueService::jobProgress, this, &DeadLetterPanel::onJobProgress, Qt::QueuedConnection);
    connect(service, &QueueService::jobFinished, this, &DeadLetterPanel::onJobFinished, Qt::QueuedConnection);
    connect(service, &QueueService::jobFailed, this, &DeadLetterPanel::onJobFailed, Qt::QueuedConnection);
}

void DeadLetterPanel::setLists(const QList<DeadLetterList> &lists)
{
    const QString current = m_preferredList.isEmpty() ? currentList() : std::exchange(m_preferredList, QString());
    qint64 previousDepth = -1;
    for (const DeadLetterList &list : std::as_const(m_lists)) {
        if (list.name == current)
            previousDepth = list.depth;
    }
    m_lists = lists;
    {
        const QSignalBlocker blocker(m_list);
        m_list->clear();
        for (const DeadLetterList &list : lists)
            m_list->addItem(tr("%1 (%2)").arg(QueueFormat::queueTitle(list.name), QLocale().toString(list.depth)), list.name);
        if (lists.isEmpty())
            m_list->addItem(tr("No dead letters"));
        const int index = m_list->findData(current);
        m_list->setCurrentIndex(index >= 0 ? index : 0);
    }
    m_list->setEnabled(!lists.isEmpty());
    const QString now = currentList();
    qint64 depth = 0;
    for (const DeadLetterList &list : lists) {
        if (list.name == now)
            depth = list.depth;
    }
    if (now != current || depth != previousDepth || depth != m_model->page().depth)
        requestPage(now == current ? m_offset : 0);
    else
        updateActions();
}

QString DeadLetterPanel::currentList() const
{
    return m_list->currentData().toString();
}

bool DeadLetterPanel::selectList(const QString &name)
{
    const int index = m_list->findData(name);
    if (index < 0)
        return false;
    m_list->setCurrentIndex(index);
    return true;
}

void DeadLetterPanel::setReadOnly(bool readOnly)
{
    m_readOnly = readOnly;
    updateActions();
}

bool DeadLetterPanel::openListOf(const QString &queue)
{
    const QString shardPrefix = queue + QLatin1Char(':');
    for (const DeadLetterList &list : std::as_const(m_lists)) {
        if (list.depth > 0 && (list.name == queue || list.name.startsWith(shardPrefix)) && selectList(list.name)) {
            m_table->setFocus(Qt::OtherFocusReason);
            return true;
        }
    }
    return false;
}

void DeadLetterPanel::requestPage(qint64 offset)
{
    const QString list = currentList();
    if (!m_service || list.isEmpty()) {
        m_waitingFor = 0;
        m_offset = 0;
        m_model->clear();
        updateInspector();
        updateActions();
        Q_EMIT pageShown();
        return;
    }
    m_offset = offset;
    m_waitingFor = ++m_serial;
    updateActions();
    Q_EMIT pageRequested(m_waitingFor, list, offset, PageSize, m_sortColumn, m_sortOrder == Qt::DescendingOrder);
}

qint64 DeadLetterPanel::currentDepth() const
{
    const QString name = currentList();
    for (const DeadLetterList &list : m_lists) {
        if (list.name == name)
            return list.depth;
    }
    return 0;
}

void DeadLetterPanel::showSortIndicator()
{
    QHeaderView *header = m_table->horizontalHeader();
    const QSignalBlocker blocker(header);
    header->setSortIndicator(m_sortColumn, m_sortOrder);
}

void DeadLetterPanel::sortBy(int column, Qt::SortOrder order)
{
    if (column < 0 || column >= DeadLetterModel::ColumnCount)
        return;
    if (DeadLetterModel::needsWholeList(column) && currentDepth() > DeadLetters::SortableDepth) {
        showSortIndicator();
        Q_EMIT notice(tr("This list holds more than %1 entries: it can be shown newest or oldest first (click “#”), "
                         "not sorted by another column.")
                              .arg(QLocale().toString(DeadLetters::SortableDepth)));
        return;
    }
    m_sortColumn = column;
    m_sortOrder = order;
    showSortIndicator();
    requestPage(0);
}

void DeadLetterPanel::onPageLoaded(quint64 serial, const DeadLetterPage &page, int column, bool descending)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    const Qt::SortOrder order = descending ? Qt::DescendingOrder : Qt::AscendingOrder;
    if (column != m_sortColumn || order != m_sortOrder) {
        // The list grew past what can be sorted since the click: the service read it by position.
        m_sortColumn = column;
        m_sortOrder = order;
        m_offset = page.offset;
        showSortIndicator();
        Q_EMIT notice(tr("This list now holds more than %1 entries: it is shown by position instead.")
                              .arg(QLocale().toString(DeadLetters::SortableDepth)));
    }
    if (page.entries.isEmpty() && page.offset > 0 && page.depth > 0) {
        requestPage(std::max<qint64>(0, (page.depth - 1) / PageSize * PageSize));  // the list shrank under this page
        return;
    }
    const QByteArrayList selected = selectedEntries();
    m_model->setPage(page);
    for (const QByteArray &raw : selected) {
        const int row = m_model->rowOf(raw);
        if (row >= 0)
            m_table->selectionModel()->select(m_model->index(row, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    updateInspector();
    updateActions();
    Q_EMIT pageShown();
}

void DeadLetterPanel::onPageFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    updateActions();
    Q_EMIT failed(message, detail);
}

QByteArrayList DeadLetterPanel::selectedEntries() const
{
    QByteArrayList entries;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        entries << m_model->entryAt(index.row());
    return entries;
}

void DeadLetterPanel::updateInspector()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const QModelIndex shown = current.isValid() && m_table->selectionModel()->isRowSelected(current.row()) ? current
                            : rows.isEmpty()                                                              ? QModelIndex()
                                                                                                          : rows.first();
    // The bytes as they are stored: what a retry puts back, not a re-formatted copy.
    m_inspector->setPlainText(shown.isValid() ? DeadLetterModel::storedText(m_model->entryAt(shown.row())) : QString());
    if (!shown.isValid()) {
        m_note->clear();
        return;
    }
    const DeadLetterNote note = m_model->noteAt(shown.row());
    if (!note.isKnown()) {
        m_note->setText(tr("Set aside before Lantern kept the reason: when and why were not recorded."));
        return;
    }
    QString text = tr("Set aside %1: %2").arg(QueueFormat::stamp(note.failedAtMs),
                                             note.reason.isEmpty() ? tr("no reason given") : note.reason);
    if (note.attempts > 0)
        text += QLatin1Char(' ') + tr("(after %n tries)", nullptr, note.attempts);
    m_note->setText(text);
}

void DeadLetterPanel::updateActions()
{
    const bool idle = m_service && m_job == 0;
    const DeadLetterPage &page = m_model->page();
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    const bool hasSelection = !selected.isEmpty();
    // A worker cannot read an unreadable entry either: retried, it would be back here at once.
    const bool unreadable = std::any_of(selected.cbegin(), selected.cend(),
                                        [](const QModelIndex &row) { return !row.data(DeadLetterModel::ReadableRole).toBool(); });
    if (!m_readOnly)
        m_retry->setToolTip(unreadable ? tr("A worker cannot read this entry, so a retry would bring it straight back here. "
                                            "Correct it with “Edit and retry…”, or discard it (the audit log keeps a copy).")
                                       : tr("Put the selected entries back on their queue"));
    const OperatorIdentity *identity = ConsoleView::operatorOf(this);
    constexpr access::Action Handle = access::Action::DeadLetters;
    WriteAction::setAllowed(m_retry, idle && hasSelection && !unreadable, m_readOnly, {}, identity, Handle);
    WriteAction::setAllowed(m_discard, idle && hasSelection, m_readOnly, {}, identity, Handle);
    WriteAction::setAllowed(m_editRetry, idle && selected.size() == 1, m_readOnly, {}, identity, Handle);
    WriteAction::setAllowed(m_retryAll, idle && page.depth > 0, m_readOnly, {}, identity, Handle);
    WriteAction::setAllowed(m_discardAll, idle && page.depth > 0, m_readOnly, {}, identity, Handle);
    m_newer->setEnabled(m_offset > 0);
    m_older->setEnabled(page.offset + page.entries.size() < page.depth);
    if (page.depth == 0)
        m_range->setText(currentList().isEmpty() ? QString() : tr("empty"));
    else
        m_range->setText(tr("%1–%2 of %3")
                                 .arg(QLocale().toString(page.offset + 1), QLocale().toString(page.offset + page.entries.size()),
                                      QLocale().toString(page.depth)));
}

DeadLetterEditDialog *DeadLetterPanel::editAndRetry()
{
    const QByteArrayList entries = selectedEntries();
    const QString list = currentList();
    if (!m_service || m_job != 0 || m_readOnly || list.isEmpty() || entries.size() != 1)
        return nullptr;
    OperatorIdentity *identity = ConsoleView::operatorOf(this);
    if (!identity || !identity->ensure(this))
        return nullptr;
    auto *dialog = new DeadLetterEditDialog(list, entries.first(), identity->name(), this);
    dialog->setObjectName(QStringLiteral("editDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QString operatorName = identity->name();
    connect(dialog, &QDialog::accepted, this, [this, dialog, list, operatorName] {
        if (m_job != 0)
            return;
        m_job = ++m_serial;
        m_jobBar->start(tr("Putting the edited entry back…"));
        updateActions();
        Q_EMIT editRetryRequested(m_job, list, dialog->entry(), dialog->edited(), operatorName);
    });
    dialog->open();
    return dialog;
}

void DeadLetterPanel::confirm(bool retry, bool wholeList)
{
    const QString list = currentList();
    const QByteArrayList entries = wholeList ? QByteArrayList() : selectedEntries();
    const qint64 count = wholeList ? m_model->page().depth : entries.size();
    if (!m_service || m_job != 0 || m_readOnly || list.isEmpty() || count == 0 || (retry && !m_retry->isEnabled() && !wholeList))
        return;
    const QString name = QueueFormat::queueTitle(list);
    const int n = int(std::min<qint64>(count, std::numeric_limits<int>::max()));
    QString title;
    QString text;
    QString action;
    if (retry) {
        title = tr("Retry dead letters");
        text = wholeList ? tr("Put all %n entry(s) of “%1” back on its queue?", nullptr, n).arg(name)
                         : tr("Put %n selected entry(s) of “%1” back on its queue?", nullptr, n).arg(name);
        text += QLatin1Char(' ') + tr("Workers will process them again; a payout keeps its idempotency key, so nothing is paid twice.");
        if (wholeList)
            text += QLatin1Char(' ') + tr("Entries a worker cannot read stay in the list, to be edited or discarded.");
        action = wholeList ? tr("Retry all") : tr("Retry");
    } else {
        title = tr("Discard dead letters");
        text = wholeList ? tr("Discard all %n entry(s) of “%1”?", nullptr, n).arg(name)
                         : tr("Discard %n selected entry(s) of “%1”?", nullptr, n).arg(name);
        text += QLatin1Char(' ') + tr("They are removed for good; the audit log keeps a copy of each.");
        action = wholeList ? tr("Discard all") : tr("Discard");
    }
    OperatorIdentity *identity = ConsoleView::operatorOf(this);
    if (!identity || !identity->ensure(this))
        return;
    auto *dialog = new QueueConfirmDialog(title, text, action, identity->name(), this,
                                          retry ? QueueConfirmDialog::Kind::Reversible : QueueConfirmDialog::Kind::Destructive);
    dialog->setObjectName(QStringLiteral("confirmDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, retry, wholeList, list, entries, n] {
        if (m_job != 0)
            return;
        m_job = ++m_serial;
        m_jobBar->start(retry ? tr("Retrying %n entry(s)…", nullptr, n) : tr("Discarding %n entry(s)…", nullptr, n));
        updateActions();
        Q_EMIT jobRequested(m_job, retry, list, entries, wholeList, dialog->operatorName());
    });
    dialog->open();
}

void DeadLetterPanel::onJobProgress(quint64 job, qint64 done, qint64 total)
{
    if (job == m_job)
        m_jobBar->setProgress(done, total);
}

void DeadLetterPanel::onJobFinished(quint64 job, bool, const QString &summary)
{
    if (job != m_job)
        return;
    m_job = 0;
    m_jobBar->finish();
    m_table->clearSelection();
    updateActions();
    Q_EMIT jobDone(summary);
}

void DeadLetterPanel::onJobFailed(quint64 job, const QString &message, const QString &detail)
{
    if (job != m_job)
        return;
    m_job = 0;
    m_jobBar->finish();
    updateActions();
    Q_EMIT failed(message, detail);
}

} // namespace lantern::ui
