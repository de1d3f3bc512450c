#include "campaigns/timetablepanel.h"

#include "console/campaigns/campaignconsoleservice.h"
#include "common/tableactions.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace lantern::ui {

namespace {
/** The panel's serials, apart from the view's own (it ignores answers it did not ask for). */
constexpr quint64 SerialBase = quint64(1) << 62;
} // namespace

TimetablePanel::TimetablePanel(QWidget *parent)
    : QWidget(parent), m_model(new TimetableModel(this)), m_table(new QTableView(this)), m_summary(new QLabel(this)),
      m_warning(new QLabel(this)), m_ticker(new QTimer(this))
{
    setObjectName(QStringLiteral("timetablePanel"));
    m_summary->setObjectName(QStringLiteral("timetableSummary"));
    m_warning->setObjectName(QStringLiteral("timetableWarning"));
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("QLabel { color: #b35900; font-weight: bold; }"));
    m_warning->hide();
    m_table->setObjectName(QStringLiteral("timetableTable"));
    m_table->setModel(m_model);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_table->setWordWrap(false);
    // The campaign's name takes the room; every other column is as wide as what it holds.
    QHeaderView *header = m_table->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(TimetableModel::Campaign, QHeaderView::Stretch);
    TableActions::install(m_table, QStringLiteral("timetable"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_warning);
    layout->addWidget(m_table, 1);
    m_summary->setText(tr("Timetable: scheduled launches and closes"));
    m_ticker->setInterval(1000);
    connect(m_ticker, &QTimer::timeout, this, &TimetablePanel::tick);
}

TimetablePanel::~TimetablePanel() = default;

QSize TimetablePanel::sizeHint() const
{
    // The summary line, the header and a few rows: the live view above keeps the height.
    const int rows = m_table->horizontalHeader()->sizeHint().height() + VisibleRows * m_table->verticalHeader()->defaultSectionSize()
                     + 2 * m_table->frameWidth();
    return {QWidget::sizeHint().width(), m_summary->sizeHint().height() + layout()->spacing() + rows};
}

void TimetablePanel::setService(CampaignConsoleService *service)
{
    m_service = service;
    connect(service, &CampaignConsoleService::timetableLoaded, this, &TimetablePanel::show, Qt::QueuedConnection);
    connect(service, &CampaignConsoleService::requestFailed, this, &TimetablePanel::failed, Qt::QueuedConnection);
}

void TimetablePanel::refresh()
{
    if (!m_service || m_out != 0)
        return;
    m_out = SerialBase + ++m_serial;
    CampaignConsoleService *service = m_service;
    QMetaObject::invokeMethod(service, [service, serial = m_out] { service->loadTimetable(serial); }, Qt::QueuedConnection);
}

QString TimetablePanel::warningText() const
{
    return m_warning->isHidden() ? QString() : m_warning->text();
}

void TimetablePanel::show(quint64 serial, const TimetableOverview &overview)
{
    if (serial != m_out)
        return;
    m_out = 0;
    m_model->setOverview(overview);
    m_sinceRead.start();
    qint64 pending = 0;
    for (const TimetableEntry &entry : overview.entries)
        pending += entry.transition.state == ScheduledTransition::State::Pending ? 1 : 0;
    m_summary->setText(tr("Timetable: %n pending transition(s), %1 worker(s) alive", nullptr, int(pending)).arg(overview.workersAlive));
    if (const std::optional<qint64> due = overview.unattendedDueMs()) {
        m_warning->setText(tr("A transition is due at %1 and no worker is alive to make it: start a worker (lanternd work).").arg(m_model->timeText(*due)));
        m_warning->show();
    } else {
        m_warning->hide();
    }
    if (!m_ticker->isActive())
        m_ticker->start();
}

void TimetablePanel::failed(quint64 serial, const QString &message, const QString &detail)
{
    if (serial != m_out)
        return;
    m_out = 0;
    m_warning->setText(tr("The timetable could not be read: %1").arg(message));
    m_warning->setToolTip(detail);
    m_warning->show();
}

void TimetablePanel::tick()
{
    if (m_sinceRead.isValid())
        m_model->setServerNow(m_model->overview().serverNowMs + m_sinceRead.elapsed());
}

} // namespace lantern::ui
