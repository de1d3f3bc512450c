#include "recovery/recoveryview.h"

#include "console/queues/queueformat.h"
#include "console/recovery/recoveryledgermodel.h"
#include "console/recovery/recoveryservice.h"
#include "console/recovery/recoverytaskmodel.h"
#include "common/messagebanner.h"
#include "queues/queueconfirmdialog.h"
#include "queues/queuejobbar.h"
#include "queues/queuetonedelegate.h"
#include "common/writeaction.h"

#include <QDateEdit>
#include <QDateTime>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

#include <climits>

namespace lantern::ui {

namespace {

QLabel *boldLabel(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    return label;
}

} // namespace

RecoveryView::RecoveryView(QWidget *parent)
    : ConsoleView(parent),
      m_tasks(new RecoveryTaskModel(this)),
      m_taskOrder(new QSortFilterProxyModel(this)),
      m_ledger(new RecoveryLedgerModel(this)),
      m_banner(new MessageBanner(this)),
      m_summary(new QLabel(this)),
      m_tree(new QTreeView(this)),
      m_compensate(new QPushButton(tr("Compensate worker…"), this)),
      m_compensateAll(new QPushButton(tr("Compensate all…"), this)),
      m_jobBar(new QueueJobBar(this)),
      m_ledgerTable(new QTableView(this)),
      m_date(new QDateEdit(this)),
      m_reconcile(new QPushButton(tr("Reconcile…"), this)),
      m_reconcileResult(new QLabel(this))
{
    m_summary->setObjectName(QStringLiteral("recoverySummary"));
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Waiting for Redis…"));

    m_tree->setObjectName(QStringLiteral("taskTree"));
    // Sortable by a header click, on the raw values (the whole snapshot is on screen: workers,
    // and each one's first RecoveryService::MaxTasksShown tasks, as its row says).
    m_taskOrder->setSourceModel(m_tasks);
    m_taskOrder->setSortRole(QueueFormat::ValueRole);
    m_tree->setModel(m_taskOrder);
    m_tree->header()->setSortIndicator(-1, Qt::AscendingOrder);
    m_tree->setSortingEnabled(true);
    m_tree->setItemDelegate(new QueueToneDelegate(m_tree));
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(RecoveryTaskModel::Item, QHeaderView::Stretch);
    m_compensate->setObjectName(QStringLiteral("compensateButton"));
    m_compensateAll->setObjectName(QStringLiteral("compensateAllButton"));
    m_compensate->setToolTip(tr("Complete what SQL says is done and put the rest back on its queue, for the selected worker"));
    m_compensateAll->setToolTip(tr("The same for every dead worker listed"));
    auto *workerButtons = new QHBoxLayout;
    workerButtons->addWidget(boldLabel(tr("Dead workers"), this));
    workerButtons->addStretch();
    workerButtons->addWidget(m_compensate);
    workerButtons->addWidget(m_compensateAll);
    auto *workers = new QWidget(this);
    auto *workersLayout = new QVBoxLayout(workers);
    workersLayout->setContentsMargins(0, 0, 0, 0);
    workersLayout->addLayout(workerButtons);
    workersLayout->addWidget(m_tree, 1);
    workersLayout->addWidget(m_jobBar);

    m_ledgerTable->setObjectName(QStringLiteral("ledgerTable"));
    auto *ledgerOrder = new QSortFilterProxyModel(this);
    ledgerOrder->setSourceModel(m_ledger);
    ledgerOrder->setSortRole(QueueFormat::ValueRole);
    m_ledgerTable->setModel(ledgerOrder);
    m_ledgerTable->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_ledgerTable->setSortingEnabled(true);
    m_ledgerTable->setItemDelegate(new QueueToneDelegate(m_ledgerTable));
    m_ledgerTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_ledgerTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ledgerTable->verticalHeader()->setVisible(false);
    m_ledgerTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_ledgerTable->verticalHeader()->setDefaultSectionSize(m_ledgerTable->fontMetrics().height() + 10);
    m_ledgerTable->setWordWrap(false);
    m_ledgerTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_ledgerTable->horizontalHeader()->setSectionResizeMode(RecoveryLedgerModel::Detail, QHeaderView::Stretch);
    auto *ledger = new QWidget(this);
    auto *ledgerLayout = new QVBoxLayout(ledger);
    ledgerLayout->setContentsMargins(0, 0, 0, 0);
    ledgerLayout->addWidget(boldLabel(tr("Ledger check of the campaigns involved"), this));
    ledgerLayout->addWidget(m_ledgerTable, 1);

    m_date->setCalendarPopup(true);
    m_date->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    m_date->setObjectName(QStringLiteral("reconcileDate"));
    m_reconcile->setObjectName(QStringLiteral("reconcileButton"));
    m_reconcileResult->setObjectName(QStringLiteral("reconcileResult"));
    m_reconcileResult->setWordWrap(true);
    m_reconcileResult->setText(tr("Compares the day's check-ins in Redis with the log in SQL and back-fills the rows that were lost."));
    m_reconcileResult->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto *dateRow = new QHBoxLayout;
    dateRow->addWidget(new QLabel(tr("Day:"), this));
    dateRow->addWidget(m_date);
    dateRow->addWidget(m_reconcile);
    dateRow->addStretch();
    auto *reconcile = new QWidget(this);
    auto *reconcileLayout = new QVBoxLayout(reconcile);
    reconcileLayout->setContentsMargins(0, 0, 0, 0);
    reconcileLayout->addWidget(boldLabel(tr("Check-in reconciliation"), this));
    reconcileLayout->addLayout(dateRow);
    reconcileLayout->addWidget(m_reconcileResult, 1);
    reconcile->setMinimumWidth(fontMetrics().averageCharWidth() * 40);

    auto *bottom = new QSplitter(Qt::Horizontal, this);
    bottom->addWidget(ledger);
    bottom->addWidget(reconcile);
    bottom->setStretchFactor(0, 3);
    bottom->setStretchFactor(1, 2);
    bottom->setChildrenCollapsible(false);
    auto *main = new QSplitter(Qt::Vertical, this);
    main->addWidget(workers);
    main->addWidget(bottom);
    main->setStretchFactor(0, 3);
    main->setStretchFactor(1, 2);
    main->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(8);
    layout->addWidget(m_banner);
    layout->addWidget(m_summary);
    layout->addWidget(main, 1);

    connect(m_compensate, &QPushButton::clicked, this, &RecoveryView::compensateSelected);
    connect(m_compensateAll, &QPushButton::clicked, this, &RecoveryView::compensateAll);
    connect(m_reconcile, &QPushButton::clicked, this, &RecoveryView::reconcileDay);
    connect(m_tree->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RecoveryView::updateActions);
    connect(m_jobBar, &QueueJobBar::cancelRequested, this, [this] {
        if (m_job != 0)
            Q_EMIT cancelRequested(m_job);
    });
    updateActions();
}

RecoveryView::~RecoveryView() = default;

void RecoveryView::attachBackend(const Config &config)
{
    m_thread = std::make_unique<DedicatedThread<RecoveryService>>(QStringLiteral("recovery"), config);
    setService(m_thread->get());
}

void RecoveryView::setService(RecoveryService *service)
{
    m_service = service;
    connect(this, &RecoveryView::loadRequested, service, &RecoveryService::load, Qt::QueuedConnection);
    connect(this, &RecoveryView::compensateRequested, service, &RecoveryService::compensate, Qt::QueuedConnection);
    connect(this, &RecoveryView::cancelRequested, service, &RecoveryService::cancelJob, Qt::QueuedConnection);
    connect(this, &RecoveryView::reconcileRequested, service, &RecoveryService::reconcile, Qt::QueuedConnection);
    connect(service, &RecoveryService::loaded, this, &RecoveryView::onLoaded, Qt::QueuedConnection);
    connect(service, &RecoveryService::loadFailed, this, &RecoveryView::onFailed, Qt::QueuedConnection);
    connect(service, &RecoveryService::reconciled, this, &RecoveryView::onReconciled, Qt::QueuedConnection);
    connect(service, &RecoveryService::reconcileFailed, this, [this](quint64 serial, const QString &message, const QString &detail) {
        if (serial != m_reconciling)
            return;
        m_reconciling = 0;
        updateActions();
        m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
        Q_EMIT failed(message);
    }, Qt::QueuedConnection);
    connect(service, &RecoveryService::jobProgress, this, [this](quint64 job, qint64 done, qint64 total) {
        if (job == m_job)
            m_jobBar->setProgress(done, total);
    }, Qt::QueuedConnection);
    connect(service, &RecoveryService::jobFinished, this, [this](quint64 job, bool, const QString &summary) {
        if (job != m_job)
            return;
        m_job = 0;
        m_jobBar->finish();
        m_banner->showMessage(MessageBanner::Kind::Positive, summary);
        updateActions();
        Q_EMIT jobDone(summary);
        refresh();
    }, Qt::QueuedConnection);
    connect(service, &RecoveryService::jobFailed, this, [this](quint64 job, const QString &message, const QString &detail) {
        if (job != m_job)
            return;
        m_job = 0;
        m_jobBar->finish();
        updateActions();
        m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
        Q_EMIT failed(message);
        refresh();
    }, Qt::QueuedConnection);
    m_today = service->config().today();
    m_date->setMaximumDate(m_today);
    m_date->setDate(m_today.addDays(-1));
    updateActions();
    refresh();
}

bool RecoveryView::wantsAutoRefresh() const
{
    return m_job == 0;
}

void RecoveryView::refresh()
{
    if (!m_service || m_waitingFor != 0)
        return;
    m_waitingFor = ++m_serial;
    Q_EMIT loadRequested(m_waitingFor);
}

void RecoveryView::onLoaded(quint64 serial, const RecoverySnapshot &snapshot)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_banner->readSucceeded();
    const QString selected = selectedWorker();
    m_tasks->setWorkers(snapshot.workers);
    m_ledger->setChecks(snapshot.ledger);
    // Workers with few tasks open; long lists stay folded.
    for (int row = 0; row < m_taskOrder->rowCount(); ++row) {
        const QModelIndex worker = m_taskOrder->index(row, 0);
        m_tree->setExpanded(worker, m_taskOrder->rowCount(worker) <= 20);
        if (worker.data(RecoveryTaskModel::WorkerRole).toString() == selected)
            m_tree->selectionModel()->select(worker, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }

    qint64 held = 0;
    for (const DeadWorkerBacklog &worker : snapshot.workers)
        held += worker.backupDepth;
    int balanced = 0;
    int broken = 0;
    for (const LedgerCheck &check : snapshot.ledger) {
        balanced += check.state == LedgerCheck::State::Balanced ? 1 : 0;
        broken += check.state == LedgerCheck::State::Broken ? 1 : 0;
    }
    QString text = snapshot.workers.isEmpty()
            ? tr("No dead worker: nothing waits for compensation.")
            : tr("%n dead worker(s)", nullptr, int(snapshot.workers.size())) + QStringLiteral(" · ")
                    + tr("%n task(s) held in their backup lists", nullptr, int(std::min<qint64>(held, INT_MAX)));
    if (!snapshot.ledger.isEmpty())
        text += QStringLiteral(" · ") + tr("ledger: %1 of %n campaign(s) balanced", nullptr, int(snapshot.ledger.size())).arg(balanced)
                + (broken > 0 ? QStringLiteral(" · ") + tr("%n with violations", nullptr, broken) : QString());
    m_summary->setText(text);
    updateActions();
    Q_EMIT dataRead(ServerStatus::both(), QDateTime::fromMSecsSinceEpoch(snapshot.readAtMs));
    Q_EMIT loaded(snapshot);
}

void RecoveryView::onFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_banner->showReadFailure(message, detail);
    Q_EMIT failed(message);
}

QString RecoveryView::selectedWorker() const
{
    const QModelIndexList rows = m_tree->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : rows.first().data(RecoveryTaskModel::WorkerRole).toString();
}

void RecoveryView::updateActions()
{
    const bool idle = m_service && m_job == 0;
    const bool readOnly = isReadOnly();
    const OperatorIdentity *identity = operatorIdentity();
    WriteAction::setAllowed(m_compensate, idle && !selectedWorker().isEmpty(), readOnly, {}, identity, access::Action::Recover);
    WriteAction::setAllowed(m_compensateAll, idle && m_tasks->rowCount() > 0, readOnly, {}, identity, access::Action::Recover);
    WriteAction::setAllowed(m_reconcile, m_service && m_reconciling == 0, readOnly, {}, identity, access::Action::Reconcile);
}

void RecoveryView::compensateSelected()
{
    const QString worker = selectedWorker();
    if (!worker.isEmpty())
        confirmCompensation({worker});
}

void RecoveryView::compensateAll()
{
    confirmCompensation(m_tasks->workerIds());
}

void RecoveryView::confirmCompensation(const QStringList &workers)
{
    if (!m_service || m_job != 0 || isReadOnly() || workers.isEmpty())
        return;
    qint64 held = 0;
    for (const DeadWorkerBacklog &worker : m_tasks->workers()) {
        if (workers.contains(worker.id))
            held += worker.backupDepth;
    }
    const QString text = (workers.size() == 1 ? tr("Compensate worker %1?").arg(workers.first())
                                              : tr("Compensate all %n dead worker(s)?", nullptr, int(workers.size())))
            + QLatin1Char(' ')
            + tr("Each of the %n task(s) they hold is completed when SQL records it as done, put back at the front of its queue "
                 "otherwise (a payout keeps its idempotency key, so nothing is paid twice), or set aside when unreadable.",
                 nullptr, int(std::min<qint64>(held, INT_MAX)));
    if (!operatorIdentity()->ensure(this))
        return;
    auto *dialog = new QueueConfirmDialog(tr("Compensate"), text, tr("Compensate"), operatorIdentity()->name(), this);
    dialog->setObjectName(QStringLiteral("confirmDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, workers] {
        if (m_job != 0)
            return;
        m_job = ++m_serial;
        m_jobBar->start(tr("Compensating %n worker(s)…", nullptr, int(workers.size())));
        updateActions();
        Q_EMIT compensateRequested(m_job, workers, dialog->operatorName());
    });
    dialog->open();
}

void RecoveryView::reconcileDay()
{
    if (!m_service || m_reconciling != 0 || isReadOnly())
        return;
    const QDate day = m_date->date();
    if (!operatorIdentity()->ensure(this))
        return;
    auto *dialog = new QueueConfirmDialog(
            tr("Reconcile check-ins"),
            tr("Compare the check-ins of %1 in Redis with the log in SQL and back-fill the rows that are missing?")
                    .arg(QLocale().toString(day, QLocale::LongFormat)),
            tr("Reconcile"), operatorIdentity()->name(), this);
    dialog->setObjectName(QStringLiteral("confirmDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, day] {
        if (m_reconciling != 0)
            return;
        m_reconciling = ++m_serial;
        m_reconcileResult->setText(tr("Reconciling %1…").arg(day.toString(Qt::ISODate)));
        updateActions();
        Q_EMIT reconcileRequested(m_reconciling, day, dialog->operatorName());
    });
    dialog->open();
}

void RecoveryView::onReconciled(quint64 serial, const ReconcileReport &report)
{
    if (serial != m_reconciling)
        return;
    m_reconciling = 0;
    updateActions();
    const QLocale locale;
    QString text = tr("<b>%1</b>: %Ln check-in(s) in Redis, %2 in SQL before.", nullptr, int(std::min<qint64>(report.redisCount, INT_MAX)))
                           .arg(report.date.toString(Qt::ISODate), locale.toString(report.dbCount));
    text += QLatin1String("<br>");
    text += report.missing == 0 ? tr("Nothing was missing.")
                                : tr("%1 missing, %2 back-filled.").arg(locale.toString(report.missing), locale.toString(report.backfilled));
    m_reconcileResult->setText(text);
    Q_EMIT reconcileShown(report);
}

void RecoveryView::prepareScreenshot(const ScreenshotRequest &)
{
    auto *const once = new QObject(this);
    connect(this, &RecoveryView::loaded, once, [this, once] {
        delete once;
        if (m_taskOrder->rowCount() > 0)
            m_tree->selectionModel()->select(m_taskOrder->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        Q_EMIT screenshotReady();
    });
    connect(this, &RecoveryView::failed, once, [this, once](const QString &message) {
        delete once;
        Q_EMIT screenshotFailed(message);
    });
    if (m_waitingFor == 0)
        refresh();
}

} // namespace lantern::ui
