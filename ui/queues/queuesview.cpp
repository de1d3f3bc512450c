#include "queues/queuesview.h"

#include "console/queues/queueformat.h"
#include "console/queues/queueservice.h"
#include "console/queues/queuetablemodel.h"
#include "console/queues/queueworkermodel.h"
#include "common/consoletheme.h"
#include "queues/deadletterpanel.h"
#include "common/messagebanner.h"
#include "queues/queuethroughputchart.h"
#include "queues/queuetonedelegate.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <climits>

namespace lantern::ui {

namespace {

constexpr int ScreenshotSamples = 6;       // refreshes behind the chart of a screenshot
constexpr int ScreenshotSampleGapMs = 500;

QTableView *makeTable(QAbstractItemModel *model, int stretchColumn, QWidget *parent)
{
    auto *table = new QTableView(parent);
    // Sortable by a header click, on the raw values (a whole snapshot is on screen, no paging);
    // in the model's order until then.
    auto *sorted = new QSortFilterProxyModel(table);
    sorted->setSourceModel(model);
    sorted->setSortRole(QueueFormat::ValueRole);
    table->setModel(sorted);
    table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    table->setSortingEnabled(true);
    table->setItemDelegate(new QueueToneDelegate(table));
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setWordWrap(false);
    table->verticalHeader()->setVisible(false);
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 10);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    return table;
}

QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto *label = new QLabel(title, box);
    QFont bold = label->font();
    bold.setBold(true);
    label->setFont(bold);
    layout->addWidget(label);
    layout->addWidget(content, 1);
    return box;
}

} // namespace

QueuesView::QueuesView(QWidget *parent)
    : ConsoleView(parent),
      m_queues(new QueueTableModel(this)),
      m_workers(new QueueWorkerModel(this)),
      m_banner(new MessageBanner(this)),
      m_summary(new QLabel(this)),
      m_chart(new QueueThroughputChart(this)),
      m_deadLetters(new DeadLetterPanel(this))
{
    m_queueTable = makeTable(m_queues, QueueTableModel::Name, this);
    m_queueTable->setObjectName(QStringLiteral("queueTable"));
    m_workerTable = makeTable(m_workers, QueueWorkerModel::Worker, this);
    m_workerTable->setObjectName(QStringLiteral("workerTable"));
    m_summary->setObjectName(QStringLiteral("queueSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    connect(m_summary, &QLabel::linkActivated, this, &QueuesView::followLink);
    m_summary->setText(tr("Waiting for Redis…"));

    auto *tables = new QSplitter(Qt::Vertical, this);
    tables->addWidget(titled(tr("Queues"), m_queueTable, this));
    tables->addWidget(titled(tr("Workers"), m_workerTable, this));
    tables->setChildrenCollapsible(false);
    auto *top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(tables);
    top->addWidget(titled(tr("Throughput"), m_chart, this));
    top->setStretchFactor(0, 5);
    top->setStretchFactor(1, 4);
    top->setChildrenCollapsible(false);
    auto *main = new QSplitter(Qt::Vertical, this);
    main->addWidget(top);
    main->addWidget(m_deadLetters);
    main->setStretchFactor(0, 1);
    main->setStretchFactor(1, 1);
    main->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(8);
    layout->addWidget(m_banner);
    layout->addWidget(m_summary);
    layout->addWidget(main, 1);

    // A queue's dead-letter count opens its list below.
    connect(m_queueTable, &QTableView::clicked, this, [this](const QModelIndex &index) {
        if (index.column() == QueueTableModel::DeadLetter)
            m_deadLetters->openListOf(index.siblingAtColumn(QueueTableModel::Name).data(QueueTableModel::NameRole).toString());
    });
    // A double click anywhere on a queue's row does the same, or says it has none.
    connect(m_queueTable, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QModelIndex name = index.siblingAtColumn(QueueTableModel::Name);
        if (!m_deadLetters->openListOf(name.data(QueueTableModel::NameRole).toString()))
            m_banner->showMessage(MessageBanner::Kind::Information,
                                  tr("“%1” has no dead letters.").arg(name.data(Qt::DisplayRole).toString()));
    });
    connect(m_deadLetters, &DeadLetterPanel::failed, this, [this](const QString &message, const QString &detail) {
        m_banner->showMessage(MessageBanner::Kind::Error, message, detail);
        Q_EMIT failed(message);
    });
    connect(m_deadLetters, &DeadLetterPanel::notice, this,
            [this](const QString &message) { m_banner->showMessage(MessageBanner::Kind::Information, message); });
    connect(m_deadLetters, &DeadLetterPanel::jobDone, this, [this](const QString &summary) {
        m_banner->showMessage(MessageBanner::Kind::Positive, summary);
        refresh();
    });
    m_screenshotTimer.setSingleShot(true);
    m_screenshotTimer.setInterval(ScreenshotSampleGapMs);
    connect(&m_screenshotTimer, &QTimer::timeout, this, &QueuesView::refresh);
    m_hiddenSampling.setInterval(HiddenSampleMs);
    connect(&m_hiddenSampling, &QTimer::timeout, this, &QueuesView::refresh);
    sampleWhileHidden(&m_hiddenSampling);
}

QueuesView::~QueuesView() = default;

void QueuesView::attachBackend(const Config &config)
{
    m_thread = std::make_unique<DedicatedThread<QueueService>>(QStringLiteral("queues"), config);
    setService(m_thread->get());
}

void QueuesView::setService(QueueService *service)
{
    m_service = service;
    connect(this, &QueuesView::loadRequested, service, &QueueService::load, Qt::QueuedConnection);
    connect(service, &QueueService::loaded, this, &QueuesView::onLoaded, Qt::QueuedConnection);
    connect(service, &QueueService::loadFailed, this, &QueuesView::onLoadFailed, Qt::QueuedConnection);
    m_deadLetters->setService(service);
    refresh();
}

bool QueuesView::wantsAutoRefresh() const
{
    return !m_deadLetters->isJobRunning();
}

void QueuesView::refresh()
{
    if (!m_service || m_waitingFor != 0)
        return;  // never stack requests: the answer out will be fresh enough
    m_waitingFor = ++m_serial;
    Q_EMIT loadRequested(m_waitingFor);
}

void QueuesView::onLoaded(quint64 serial, const QueueSnapshot &snapshot)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_banner->readSucceeded();
    m_queues->setQueues(snapshot.overview.queues);
    m_workers->setWorkers(snapshot.overview.workers, snapshot.heartbeatTtlS);
    qint64 depth = 0;
    for (const QueueStatus &queue : snapshot.overview.queues)
        depth += queue.depth;
    m_history.add(snapshot.readAtMs, depth);
    m_chart->setHistory(m_history);
    m_deadLetters->setLists(snapshot.deadLetterLists);
    updateSummary(snapshot);
    Q_EMIT dataRead(ServerStatus::Server::Redis, QDateTime::fromMSecsSinceEpoch(snapshot.readAtMs));
    Q_EMIT loaded(snapshot);
}

void QueuesView::readOnlyChanged()
{
    m_deadLetters->setReadOnly(isReadOnly());
}

QVariantMap QueuesView::viewState() const
{
    QVariantMap state;
    state.insert(QStringLiteral("deadLetterList"), m_deadLetters->currentList());
    state.insert(QStringLiteral("deadLetterSortColumn"), m_deadLetters->sortColumn());
    state.insert(QStringLiteral("deadLetterSortOrder"), int(m_deadLetters->sortOrder()));
    return state;
}

void QueuesView::restoreViewState(const QVariantMap &state)
{
    const QString list = state.value(QStringLiteral("deadLetterList")).toString();
    if (!list.isEmpty())
        m_deadLetters->preferList(list);
    const int column = state.value(QStringLiteral("deadLetterSortColumn"), m_deadLetters->sortColumn()).toInt();
    const auto order = Qt::SortOrder(state.value(QStringLiteral("deadLetterSortOrder"), int(m_deadLetters->sortOrder())).toInt());
    if (column != m_deadLetters->sortColumn() || order != m_deadLetters->sortOrder())
        m_deadLetters->sortBy(column, order);
}

void QueuesView::followLink(const QString &link)
{
    if (link.startsWith(QLatin1String("view:"))) {
        Q_EMIT openView(link.mid(5));
        return;
    }
    if (link != QLatin1String("dead-letters"))
        return;
    // The first queue with dead letters, in the table's order.
    for (int row = 0; row < m_queues->rowCount(); ++row) {
        if (m_queues->index(row, QueueTableModel::DeadLetter).data(QueueFormat::ValueRole).toLongLong() > 0
            && m_deadLetters->openListOf(m_queues->index(row, QueueTableModel::Name).data(QueueTableModel::NameRole).toString()))
            return;
    }
}

void QueuesView::onLoadFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_banner->showReadFailure(message, detail);
    Q_EMIT failed(message);
}

void QueuesView::updateSummary(const QueueSnapshot &snapshot)
{
    qint64 waiting = 0;
    double oldest = 0;
    for (const QueueStatus &queue : snapshot.overview.queues) {
        waiting += queue.depth;
        if (queue.depth > 0)
            oldest = std::max(oldest, queue.oldestAgeS);
    }
    int alive = 0;
    int dead = 0;
    qint64 stranded = 0;
    for (const WorkerStatus &worker : snapshot.overview.workers) {
        if (worker.alive) {
            ++alive;
        } else {
            ++dead;
            stranded += worker.backupDepth;
        }
    }
    QStringList parts;
    parts << tr("%n task(s) waiting", nullptr, int(std::min<qint64>(waiting, INT_MAX)));
    if (waiting > 0)
        parts << tr("oldest %1").arg(QueueFormat::age(oldest));
    parts << tr("%n worker(s) alive", nullptr, alive);
    const WorkerPayoutFigures &payouts = snapshot.overview.payouts;
    if (payouts.calls > 0)
        parts << tr("payouts %1/s, %n call(s) out, provider errors: %2", nullptr, int(std::min<qint64>(payouts.inFlight, INT_MAX)))
                         .arg(QLocale().toString(payouts.paidPerSecond, 'f', 1), QLocale().toString(payouts.providerErrors));
    if (dead > 0)
        parts << tr("<span style=\"color:#a50e0e\">%n dead, holding %1</span> — <a href=\"view:recovery\">see Recovery</a>", nullptr, dead)
                         .arg(tr("%Ln task(s)", nullptr, int(std::min<qint64>(stranded, INT_MAX))));
    parts << (snapshot.overview.deadLetter > 0
                      ? tr("<a href=\"dead-letters\" style=\"color:#a50e0e\">%n dead letter(s)</a>", nullptr, int(std::min<qint64>(snapshot.overview.deadLetter, INT_MAX)))
                      : tr("no dead letters"));
    // The translations name the light theme's red; the dark theme has its own.
    m_summary->setText(parts.join(QStringLiteral(" · ")).replace(QLatin1String("#a50e0e"), ConsoleTheme::errorText()));
}

void QueuesView::prepareScreenshot(const ScreenshotRequest &request)
{
    // A few refreshes half a second apart, so the chart has a line, then the dead letters' page.
    auto *const once = new QObject(this);
    connect(this, &QueuesView::loaded, once, [this, once, request] {
        if (++m_screenshotSamples < ScreenshotSamples) {
            m_screenshotTimer.start();
            return;
        }
        delete once;
        if (request.campaignId > 0)
            m_deadLetters->selectList(QStringLiteral("payout:%1").arg(request.campaignId));
        const auto ready = [this] {
            QTableView *table = m_deadLetters->table();
            if (table->model()->rowCount() > 0)
                table->selectRow(0);
            Q_EMIT screenshotReady();
        };
        if (m_deadLetters->isLoading()) {
            auto *const page = new QObject(this);
            connect(m_deadLetters, &DeadLetterPanel::pageShown, page, [page, ready] {
                delete page;
                ready();
            });
        } else {
            ready();
        }
    });
    connect(this, &QueuesView::failed, once, [this, once](const QString &message) {
        delete once;
        Q_EMIT screenshotFailed(message);
    });
    m_screenshotSamples = 0;
    refresh();
}

} // namespace lantern::ui
