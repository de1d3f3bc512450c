#include "audit/auditview.h"

#include "audit/auditdetailpanel.h"
#include "console/audit/auditlogmodel.h"
#include "console/audit/auditquery.h"
#include "console/audit/auditservice.h"
#include "common/messagebanner.h"

#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace lantern::ui {

namespace {

enum Period { AnyTime, Today, Last7Days, Last30Days, CustomRange };

/** The actions Lantern records, for the action filter's list (any prefix can be typed). */
const QStringList KnownActions{
        QStringLiteral("checkin."),         QStringLiteral("checkin.makeup"),    QStringLiteral("checkin.backdated"),
        QStringLiteral("checkin.reconcile"), QStringLiteral("campaign."),        QStringLiteral("campaign.create"),
        QStringLiteral("campaign.launch"),  QStringLiteral("campaign.pause"),    QStringLiteral("campaign.resume"),
        QStringLiteral("campaign.close"),   QStringLiteral("campaign.approve"),  QStringLiteral("campaign.schedule"),
        QStringLiteral("campaign.missed"),  QStringLiteral("queue.recover"),     QStringLiteral("deadletter."),
        QStringLiteral("api.switch"),       QStringLiteral("operator."),         QStringLiteral("access.install")};

} // namespace

AuditView::AuditView(QWidget *parent)
    : ConsoleView(parent),
      m_model(new AuditLogModel(this)),
      m_actor(new QLineEdit(this)),
      m_action(new QComboBox(this)),
      m_target(new QLineEdit(this)),
      m_period(new QComboBox(this)),
      m_from(new QDateEdit(this)),
      m_to(new QDateEdit(this)),
      m_dash(new QLabel(QStringLiteral("–"), this)),
      m_clearButton(new QPushButton(tr("Clear filters"), this)),
      m_refreshButton(new QToolButton(this)),
      m_busy(new QProgressBar(this)),
      m_banner(new MessageBanner(this)),
      m_table(new QTableView(this)),
      m_firstButton(new QPushButton(tr("First page"), this)),
      m_previousButton(new QPushButton(tr("‹ Previous"), this)),
      m_nextButton(new QPushButton(tr("Next ›"), this)),
      m_pageLabel(new QLabel(this)),
      m_detail(new AuditDetailPanel(this))
{
    m_today = QDate::currentDate();

    auto *filters = buildFilterRow();
    buildTable();
    auto *paging = buildPaging();

    auto *tableArea = new QWidget(this);
    auto *tableLayout = new QVBoxLayout(tableArea);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    tableLayout->addLayout(paging);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(tableArea);
    splitter->addWidget(m_detail);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    // Room for the entry's five lines and a campaign repair's dozen fields before it scrolls.
    m_detail->setMinimumHeight(fontMetrics().height() * 12);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(16, 12, 16, 8);
    layout->setSpacing(10);
    layout->addLayout(filters);
    layout->addWidget(m_banner);
    layout->addWidget(splitter, 1);

    for (QWidget *widget : std::initializer_list<QWidget *>{m_actor, m_action, m_target, m_period, m_from, m_to, m_clearButton,
                                                             m_refreshButton})
        widget->setEnabled(false);
    updatePaging();
}

QHBoxLayout *AuditView::buildFilterRow()
{
    // Typing waits a moment before asking, choosing asks at once.
    m_actor->setPlaceholderText(tr("Who"));
    m_actor->setToolTip(tr("Operators whose name contains this text"));
    m_actor->setClearButtonEnabled(true);
    m_action->setEditable(true);
    m_action->addItem(QString());
    m_action->addItems(KnownActions);
    m_action->lineEdit()->setPlaceholderText(tr("Any action"));
    m_action->lineEdit()->setClearButtonEnabled(true);
    m_action->setToolTip(tr("Actions that start with this text, e.g. “campaign.” for every campaign action"));
    m_action->setInsertPolicy(QComboBox::NoInsert);
    m_target->setPlaceholderText(tr("Target, e.g. uid:10001"));
    m_target->setToolTip(tr("Targets that contain this text: a user (uid:10001), a campaign (campaign:3), a queue, …"));
    m_target->setClearButtonEnabled(true);
    m_period->addItem(tr("Any time"), AnyTime);
    m_period->addItem(tr("Today"), Today);
    m_period->addItem(tr("Last 7 days"), Last7Days);
    m_period->addItem(tr("Last 30 days"), Last30Days);
    m_period->addItem(tr("Custom range"), CustomRange);
    m_period->setToolTip(tr("Business days, in the configured time zone"));
    for (QDateEdit *edit : {m_from, m_to}) {
        edit->setCalendarPopup(true);
        edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
        edit->setDate(m_today);
        edit->setVisible(false);
    }
    m_from->setToolTip(tr("First day"));
    m_to->setToolTip(tr("Last day"));
    m_dash->setVisible(false);
    const int charWidth = fontMetrics().averageCharWidth();
    m_actor->setMinimumWidth(charWidth * 12);
    m_action->setMinimumWidth(charWidth * 20);
    m_target->setMinimumWidth(charWidth * 20);
    m_refreshButton->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refreshButton->setToolTip(tr("Read the shown page again (F5)"));
    m_busy->setRange(0, 0);
    m_busy->setTextVisible(false);
    m_busy->setFixedWidth(72);
    m_busy->setFixedHeight(m_actor->sizeHint().height() / 3);
    m_busy->setToolTip(tr("Waiting for the database…"));
    m_busy->setVisible(false);

    auto *filters = new QHBoxLayout;
    filters->addWidget(m_actor, 2);
    filters->addWidget(m_action, 3);
    filters->addWidget(m_target, 3);
    filters->addWidget(m_period, 0);
    filters->addWidget(m_from);
    filters->addWidget(m_dash);
    filters->addWidget(m_to);
    filters->addWidget(m_clearButton);
    filters->addWidget(m_refreshButton);
    filters->addWidget(m_busy);

    m_typingDelay.setSingleShot(true);
    m_typingDelay.setInterval(350);
    connect(&m_typingDelay, &QTimer::timeout, this, &AuditView::applyFilterFields);
    const auto typed = [this] {
        if (!m_settingFields)
            m_typingDelay.start();
    };
    connect(m_actor, &QLineEdit::textEdited, this, typed);
    connect(m_target, &QLineEdit::textEdited, this, typed);
    connect(m_action, &QComboBox::editTextChanged, this, typed);
    connect(m_actor, &QLineEdit::returnPressed, this, &AuditView::applyFilterFields);
    connect(m_target, &QLineEdit::returnPressed, this, &AuditView::applyFilterFields);
    connect(m_action->lineEdit(), &QLineEdit::returnPressed, this, &AuditView::applyFilterFields);
    connect(m_period, &QComboBox::currentIndexChanged, this, &AuditView::onPeriodChanged);
    connect(m_from, &QDateEdit::dateChanged, this, &AuditView::applyFilterFields);
    connect(m_to, &QDateEdit::dateChanged, this, &AuditView::applyFilterFields);
    connect(m_clearButton, &QPushButton::clicked, this, [this] { setFilter({}); });
    connect(m_refreshButton, &QToolButton::clicked, this, &AuditView::refresh);
    return filters;
}

void AuditView::buildTable()
{
    // One page, newest first until a header is clicked.
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->setVisible(false);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    const int charWidth = fontMetrics().averageCharWidth();
    QHeaderView *header = m_table->horizontalHeader();
    header->setHighlightSections(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(AuditLogModel::Time, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(AuditLogModel::Detail, QHeaderView::Stretch);
    header->resizeSection(AuditLogModel::Actor, charWidth * 14);
    header->setSectionResizeMode(AuditLogModel::Action, QHeaderView::ResizeToContents);  // the words vary by language
    // A target is read whole (queue names, worker ids): never cut.
    header->setSectionResizeMode(AuditLogModel::Target, QHeaderView::ResizeToContents);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &AuditView::showSelected);
    // A header click sorts the whole log in the database (the log is paged: sorting the page
    // in the view would sort a slice).
    header->setSectionsClickable(true);
    header->setSortIndicatorShown(true);
    header->setSortIndicator(AuditLogModel::Time, Qt::DescendingOrder);
    connect(header, &QHeaderView::sortIndicatorChanged, this, &AuditView::sortBy);
}

QHBoxLayout *AuditView::buildPaging()
{
    m_firstButton->setToolTip(tr("The first page in this order"));
    m_previousButton->setToolTip(tr("The previous page"));
    m_nextButton->setToolTip(tr("The next page"));
    auto *paging = new QHBoxLayout;
    paging->addWidget(m_pageLabel, 1);
    paging->addWidget(m_firstButton);
    paging->addWidget(m_previousButton);
    paging->addWidget(m_nextButton);
    connect(m_firstButton, &QPushButton::clicked, this, &AuditView::showFirst);
    connect(m_previousButton, &QPushButton::clicked, this, &AuditView::showPrevious);
    connect(m_nextButton, &QPushButton::clicked, this, &AuditView::showNext);
    return paging;
}

AuditView::~AuditView() = default;

void AuditView::attachBackend(const Config &config)
{
    m_thread = std::make_unique<DedicatedThread<AuditService>>(QStringLiteral("audit-log"), config);
    setService(m_thread->get());
}

void AuditView::setService(AuditService *service)
{
    m_service = service;
    connect(this, &AuditView::pageRequested, service, &AuditService::loadPage, Qt::QueuedConnection);
    connect(service, &AuditService::pageLoaded, this, &AuditView::onPageLoaded, Qt::QueuedConnection);
    connect(service, &AuditService::loadFailed, this, &AuditView::onLoadFailed, Qt::QueuedConnection);
    m_model->setTimeZone(service->config().timeZone);
    m_today = service->config().today();
    for (QDateEdit *edit : {m_from, m_to}) {
        const QSignalBlocker blocker(edit);
        edit->setDate(m_today);
    }
    for (QWidget *widget : std::initializer_list<QWidget *>{m_actor, m_action, m_target, m_period, m_from, m_to, m_clearButton,
                                                             m_refreshButton})
        widget->setEnabled(true);
    showFirst();
}

void AuditView::refresh()
{
    if (!m_service || isBusy())
        return;
    load(m_cursors.constLast());
}

void AuditView::prepareScreenshot(const ScreenshotRequest &)
{
    auto *const once = new QObject(this);
    connect(this, &AuditView::pageShown, once, [this, once] {
        delete once;
        if (m_model->rowCount() > 0)
            m_table->selectRow(0);
        Q_EMIT screenshotReady();
    });
    connect(this, &AuditView::failed, once, [this, once](const QString &message) {
        delete once;
        Q_EMIT screenshotFailed(message);
    });
    if (m_service && !isBusy())
        showFirst();
}

QVariantMap AuditView::viewState() const
{
    QVariantMap state;
    state.insert(QStringLiteral("actor"), m_filter.actor);
    state.insert(QStringLiteral("action"), m_filter.action);
    state.insert(QStringLiteral("target"), m_filter.target);
    state.insert(QStringLiteral("from"), m_filter.from);
    state.insert(QStringLiteral("to"), m_filter.to);
    state.insert(QStringLiteral("period"), m_period->currentData());
    state.insert(QStringLiteral("orderKey"), int(m_order.key));
    state.insert(QStringLiteral("orderDirection"), int(m_order.direction));
    return state;
}

void AuditView::restoreViewState(const QVariantMap &state)
{
    m_order = {AuditOrder::Key(state.value(QStringLiteral("orderKey"), int(m_order.key)).toInt()),
               Qt::SortOrder(state.value(QStringLiteral("orderDirection"), int(m_order.direction)).toInt())};
    {
        static const QHash<AuditOrder::Key, int> Columns{{AuditOrder::Key::Time, AuditLogModel::Time},
                                                         {AuditOrder::Key::Actor, AuditLogModel::Actor},
                                                         {AuditOrder::Key::Action, AuditLogModel::Action},
                                                         {AuditOrder::Key::Target, AuditLogModel::Target}};
        const QSignalBlocker blocker(m_table->horizontalHeader());
        m_table->horizontalHeader()->setSortIndicator(Columns.value(m_order.key), m_order.direction);
    }
    AuditFilter filter;
    filter.actor = state.value(QStringLiteral("actor")).toString();
    filter.action = state.value(QStringLiteral("action")).toString();
    filter.target = state.value(QStringLiteral("target")).toString();
    filter.from = state.value(QStringLiteral("from")).toDate();
    filter.to = state.value(QStringLiteral("to")).toDate();
    setFilter(filter);
    // "Last 7 days" and the like stay what they were, not the custom range they amount to.
    const int period = m_period->findData(state.value(QStringLiteral("period")));
    if (period >= 0 && period != m_period->currentIndex()) {
        m_settingFields = true;
        m_period->setCurrentIndex(period);
        for (QWidget *widget : std::initializer_list<QWidget *>{m_from, m_dash, m_to})
            widget->setVisible(m_period->currentData().toInt() == CustomRange);
        m_settingFields = false;
    }
}

AuditFilter AuditView::filter() const
{
    return m_filter;
}

void AuditView::setFilter(const AuditFilter &filter)
{
    m_settingFields = true;
    m_actor->setText(filter.actor);
    m_action->setEditText(filter.action);
    m_target->setText(filter.target);
    {
        const QSignalBlocker periodBlocker(m_period);
        const QSignalBlocker fromBlocker(m_from);
        const QSignalBlocker toBlocker(m_to);
        const bool range = filter.from.isValid() || filter.to.isValid();
        m_period->setCurrentIndex(m_period->findData(range ? CustomRange : AnyTime));
        m_from->setDate(filter.from.isValid() ? filter.from : m_today);
        m_to->setDate(filter.to.isValid() ? filter.to : m_today);
        for (QWidget *widget : std::initializer_list<QWidget *>{m_from, m_dash, m_to})
            widget->setVisible(range);
    }
    m_settingFields = false;
    m_typingDelay.stop();
    m_filter = filter;
    showFirst();
}

void AuditView::sortBy(int column, Qt::SortOrder order)
{
    static const QHash<int, AuditOrder::Key> Keys{{AuditLogModel::Time, AuditOrder::Key::Time},
                                                  {AuditLogModel::Actor, AuditOrder::Key::Actor},
                                                  {AuditLogModel::Action, AuditOrder::Key::Action},
                                                  {AuditLogModel::Target, AuditOrder::Key::Target}};
    QHeaderView *header = m_table->horizontalHeader();
    const auto key = Keys.constFind(column);
    if (key == Keys.cend()) {
        // The details are free JSON text: an order of them would mean nothing.
        const QSignalBlocker blocker(header);
        header->setSortIndicator(Keys.key(m_order.key), m_order.direction);
        return;
    }
    if (header->sortIndicatorSection() != column || header->sortIndicatorOrder() != order) {
        const QSignalBlocker blocker(header);
        header->setSortIndicator(column, order);
    }
    const AuditOrder wanted{*key, order};
    if (wanted == m_order)
        return;
    m_order = wanted;
    showFirst();
}

void AuditView::onPeriodChanged()
{
    const bool custom = m_period->currentData().toInt() == CustomRange;
    for (QWidget *widget : std::initializer_list<QWidget *>{m_from, m_dash, m_to})
        widget->setVisible(custom);
    applyFilterFields();
}

void AuditView::applyFilterFields()
{
    if (m_settingFields)
        return;
    m_typingDelay.stop();
    AuditFilter filter;
    filter.actor = m_actor->text().trimmed();
    filter.action = m_action->currentText().trimmed();
    filter.target = m_target->text().trimmed();
    switch (m_period->currentData().toInt()) {
    case Today:
        filter.from = filter.to = m_today;
        break;
    case Last7Days:
        filter.from = m_today.addDays(-6);
        filter.to = m_today;
        break;
    case Last30Days:
        filter.from = m_today.addDays(-29);
        filter.to = m_today;
        break;
    case CustomRange:
        filter.from = std::min(m_from->date(), m_to->date());
        filter.to = std::max(m_from->date(), m_to->date());
        break;
    default:
        break;
    }
    if (filter == m_filter)
        return;
    m_filter = filter;
    showFirst();
}

void AuditView::showFirst()
{
    m_cursors = {AuditCursor{}};
    m_keepSelected = 0;
    load(m_cursors.constLast());
}

void AuditView::showNext()
{
    if (isBusy() || !m_model->page().hasMore || m_model->rowCount() == 0)
        return;
    // The page shown was read in the order asked for last (a sort click starts at the first page).
    const AuditCursor cursor = AuditCursor::after(m_model->page().entries.constLast(), m_model->page().order.key);
    m_cursors << cursor;
    m_keepSelected = 0;
    load(cursor);
}

void AuditView::showPrevious()
{
    if (isBusy() || m_cursors.size() <= 1)
        return;
    m_cursors.removeLast();
    m_keepSelected = 0;
    load(m_cursors.constLast());
}

void AuditView::load(const AuditCursor &after)
{
    if (!m_service)
        return;
    const quint64 serial = ++m_serial;
    m_waitingFor = serial;
    m_busy->setVisible(true);
    updatePaging();
    Q_EMIT pageRequested(serial, m_filter, m_order, after, PageSize);
}

void AuditView::onPageLoaded(quint64 serial, const AuditPage &page)
{
    if (serial != m_waitingFor)
        return;  // superseded by a newer request
    m_waitingFor = 0;
    m_busy->setVisible(false);
    m_banner->readSucceeded();
    const qint64 keep = m_keepSelected;
    m_model->setPage(page);
    const int row = keep != 0 ? m_model->rowOf(keep) : -1;
    if (row >= 0)
        m_table->selectRow(row);
    else
        m_detail->showNothing();
    if (m_cursors.size() == 1 && page.entries.isEmpty() && !m_filter.isEmpty())
        m_banner->showDataNote(MessageBanner::Kind::Information, tr("No audit entries match these filters."));
    else if (m_cursors.size() == 1 && page.entries.isEmpty())
        m_banner->showDataNote(MessageBanner::Kind::Information, tr("The audit log is empty: no operator has changed anything yet."));
    updatePaging();
    Q_EMIT dataRead(ServerStatus::Server::Sql, QDateTime::currentDateTime());
    Q_EMIT pageShown();
}

void AuditView::onLoadFailed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_waitingFor)
        return;
    m_waitingFor = 0;
    m_busy->setVisible(false);
    m_banner->showReadFailure(message, detail);
    updatePaging();
    Q_EMIT failed(message);
}

void AuditView::updatePaging()
{
    const bool ready = m_service && !isBusy();
    const int rows = m_model->rowCount();
    m_firstButton->setEnabled(ready && m_cursors.size() > 1);
    m_previousButton->setEnabled(ready && m_cursors.size() > 1);
    m_nextButton->setEnabled(ready && m_model->page().hasMore);
    if (!m_service) {
        m_pageLabel->clear();
        return;
    }
    const int first = (pageNumber() - 1) * PageSize + 1;
    if (rows == 0)
        m_pageLabel->setText(tr("Page %1").arg(pageNumber()));
    else
        m_pageLabel->setText(tr("Page %1 · entries %2–%3, %4").arg(pageNumber()).arg(first).arg(first + rows - 1).arg(orderText()));
}

QString AuditView::orderText() const
{
    const bool ascending = m_order.direction == Qt::AscendingOrder;
    switch (m_order.key) {
    case AuditOrder::Key::Actor:
        return ascending ? tr("by who, A to Z") : tr("by who, Z to A");
    case AuditOrder::Key::Action:
        return ascending ? tr("by action, A to Z") : tr("by action, Z to A");
    case AuditOrder::Key::Target:
        return ascending ? tr("by target, A to Z") : tr("by target, Z to A");
    case AuditOrder::Key::Time:
        break;
    }
    return ascending ? tr("oldest first") : tr("newest first");
}

void AuditView::showSelected()
{
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    if (!current.isValid()) {
        m_detail->showNothing();
        return;
    }
    const AuditEntry &entry = m_model->entryAt(current.row());
    m_keepSelected = entry.id;
    const QTimeZone zone = m_service ? m_service->config().timeZone : QTimeZone::systemTimeZone();
    m_detail->showEntry(entry, m_model->timeText(entry.atMs), QString::fromUtf8(zone.id()));
}

} // namespace lantern::ui
