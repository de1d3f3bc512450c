#include "campaigns/campaigntimesform.h"

#include "console/campaigns/schedulewords.h"
#include "common/consoletheme.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDateTimeEdit>
#include <QGridLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace lantern::ui {

namespace {

constexpr qint64 HourMs = 3'600'000;
constexpr int MaxLateLimitMinutes = int(CampaignSchedule::MaxLateLimitS / 60);

const ScheduledTransition *pendingOf(const QList<ScheduledTransition> &rows, ScheduledAction action)
{
    for (const ScheduledTransition &row : rows) {
        if (row.action == action && row.state == ScheduledTransition::State::Pending)
            return &row;
    }
    return nullptr;
}

QDateTimeEdit *timeEdit(QWidget *parent, const QString &objectName)
{
    auto *edit = new QDateTimeEdit(parent);
    edit->setObjectName(objectName);
    edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    edit->setCalendarPopup(true);
    // The editor holds the wall-clock time of the business zone as it is written; UTC is only
    // the container, so no conversion through this machine's zone happens (timeOf()).
    edit->setTimeSpec(Qt::UTC);
    return edit;
}

} // namespace

CampaignTimesForm::CampaignTimesForm(const QTimeZone &zone, qint64 serverNowMs, QWidget *parent)
    : QWidget(parent),
      m_zone(zone),
      m_clockOffsetMs(serverNowMs > 0 ? serverNowMs - QDateTime::currentMSecsSinceEpoch() : 0),
      m_launchOn(new QCheckBox(tr("&Launch at"), this)),
      m_launchAt(timeEdit(this, QStringLiteral("launchAt"))),
      m_closeOn(new QCheckBox(tr("Cl&ose at"), this)),
      m_closeAt(timeEdit(this, QStringLiteral("closeAt"))),
      m_lateLimit(new QSpinBox(this)),
      m_zoneNote(new QLabel(this)),
      m_error(new QLabel(this))
{
    m_launchOn->setObjectName(QStringLiteral("launchOn"));
    m_closeOn->setObjectName(QStringLiteral("closeOn"));
    m_launchOn->setToolTip(tr("A worker prepares the envelopes ahead and opens grabs at this second, on the servers' clock."));
    m_closeOn->setToolTip(tr("A worker closes the campaign at this second and refunds what is left, as Close does."));
    m_lateLimit->setObjectName(QStringLiteral("lateLimit"));
    m_lateLimit->setRange(0, MaxLateLimitMinutes);
    m_lateLimit->setSpecialValueText(tr("however late"));
    m_lateLimit->setSuffix(tr(" min"));
    m_lateLimit->setToolTip(tr("When no worker was running at the time, a worker that comes back makes the change late; "
                               "past this limit it is skipped and marked missed instead."));
    m_zoneNote->setWordWrap(true);
    m_zoneNote->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    m_error->setObjectName(QStringLiteral("timesError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()));
    m_error->setVisible(false);

    auto *grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->addWidget(m_launchOn, 0, 0);
    grid->addWidget(m_launchAt, 0, 1);
    grid->addWidget(m_closeOn, 1, 0);
    grid->addWidget(m_closeAt, 1, 1);
    auto *lateLabel = new QLabel(tr("Late &limit:"), this);
    lateLabel->setBuddy(m_lateLimit);
    grid->addWidget(lateLabel, 2, 0);
    grid->addWidget(m_lateLimit, 2, 1);
    grid->setColumnStretch(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(grid);
    layout->addWidget(m_zoneNote);
    layout->addWidget(m_error);

    // A time first ticked is proposed at the next whole hour (a close an hour after the launch).
    const qint64 nextHour = (this->serverNowMs() / HourMs + 1) * HourMs;
    showTime(m_launchAt, nextHour);
    showTime(m_closeAt, nextHour + HourMs);
    for (QCheckBox *box : {m_launchOn, m_closeOn})
        connect(box, &QCheckBox::toggled, this, &CampaignTimesForm::update);
    for (QDateTimeEdit *edit : {m_launchAt, m_closeAt})
        connect(edit, &QDateTimeEdit::dateTimeChanged, this, &CampaignTimesForm::update);
    connect(m_lateLimit, &QSpinBox::valueChanged, this, &CampaignTimesForm::update);
    update();
}

qint64 CampaignTimesForm::serverNowMs() const
{
    return QDateTime::currentMSecsSinceEpoch() + m_clockOffsetMs;
}

void CampaignTimesForm::showTime(QDateTimeEdit *edit, qint64 ms)
{
    const QDateTime wall = QDateTime::fromMSecsSinceEpoch(ms, m_zone);
    edit->setDateTime(QDateTime(wall.date(), wall.time(), Qt::UTC));
}

bool CampaignTimesForm::wallTimeExists(const QDateTimeEdit *edit) const
{
    const QDateTime written = edit->dateTime();
    const QDateTime inZone(written.date(), written.time(), m_zone);
    return inZone.isValid() && inZone.date() == written.date() && inZone.time() == written.time();
}

std::optional<qint64> CampaignTimesForm::timeOf(const QCheckBox *on, const QDateTimeEdit *edit) const
{
    if (!on->isChecked() || !on->isEnabled())
        return std::nullopt;
    const QDateTime written = edit->dateTime();
    return QDateTime(written.date(), written.time(), m_zone).toMSecsSinceEpoch();
}

void CampaignTimesForm::setCurrent(CampaignStatus status, const QList<ScheduledTransition> &current)
{
    m_replace = true;
    m_status = status;
    m_current = current;
    const ScheduledTransition *launch = pendingOf(current, ScheduledAction::Launch);
    const ScheduledTransition *close = pendingOf(current, ScheduledAction::Close);
    setLaunchAt(launch ? std::optional<qint64>(launch->dueAtMs) : std::nullopt);
    setCloseAt(close ? std::optional<qint64>(close->dueAtMs) : std::nullopt);
    const ScheduledTransition *any = launch ? launch : close;
    setLateLimit(any ? any->lateLimitS : std::nullopt);
    update();
}

void CampaignTimesForm::setLaunchAt(std::optional<qint64> ms)
{
    m_launchOn->setChecked(ms.has_value());
    if (ms)
        showTime(m_launchAt, *ms);
}

void CampaignTimesForm::setCloseAt(std::optional<qint64> ms)
{
    m_closeOn->setChecked(ms.has_value());
    if (ms)
        showTime(m_closeAt, *ms);
}

void CampaignTimesForm::setLateLimit(std::optional<qint64> seconds)
{
    // Whole minutes here; a limit set in seconds by lanternd shows rounded up.
    m_lateLimit->setValue(seconds ? int((*seconds + 59) / 60) : 0);
}

ScheduleRequest CampaignTimesForm::request() const
{
    ScheduleRequest request;
    request.replace = m_replace;
    request.launchAtMs = timeOf(m_launchOn, m_launchAt);
    request.closeAtMs = timeOf(m_closeOn, m_closeAt);
    if (m_lateLimit->value() > 0 && (request.launchAtMs || request.closeAtMs)) {
        request.lateLimitS = qint64(m_lateLimit->value()) * 60;
        // Unchanged from a limit lanternd set in seconds: kept exactly.
        const ScheduledTransition *kept = pendingOf(m_current, ScheduledAction::Launch);
        if (!kept)
            kept = pendingOf(m_current, ScheduledAction::Close);
        if (kept && kept->lateLimitS && (*kept->lateLimitS + 59) / 60 == m_lateLimit->value())
            request.lateLimitS = kept->lateLimitS;
    }
    return request;
}

bool CampaignTimesForm::changed() const
{
    // -1 stands for "none" (times and limits are positive), which keeps the comparisons plain.
    const auto orNone = [](const std::optional<qint64> &value) { return value.value_or(-1); };
    const ScheduleRequest asked = request();
    const ScheduledTransition *launch = pendingOf(m_current, ScheduledAction::Launch);
    const ScheduledTransition *close = pendingOf(m_current, ScheduledAction::Close);
    const ScheduledTransition *any = launch ? launch : close;
    return orNone(asked.launchAtMs) != (launch ? launch->dueAtMs : -1) || orNone(asked.closeAtMs) != (close ? close->dueAtMs : -1)
           || orNone(asked.lateLimitS) != (any ? orNone(any->lateLimitS) : -1);
}

QString CampaignTimesForm::problemText() const
{
    for (const auto &[on, edit] : {std::pair{m_launchOn, m_launchAt}, std::pair{m_closeOn, m_closeAt}}) {
        if (on->isChecked() && on->isEnabled() && !wallTimeExists(edit))
            return tr("There is no such local time in %1 (the clocks skip it).").arg(QString::fromUtf8(m_zone.id()));
    }
    const ScheduleRequest asked = request();
    if (!m_replace && asked.isEmpty())
        return {};  // a new campaign without times
    if (m_replace && !changed())
        return {};  // nothing to save: the dialog's Save stays disabled
    const std::optional<ScheduleProblem> problem = CampaignSchedule::problem(asked, m_status, m_current, serverNowMs());
    return problem ? ScheduleWords::problemText(*problem, m_zone) : QString();
}

void CampaignTimesForm::update()
{
    // A launch time is for drafts only; a closed campaign takes no times.
    m_launchOn->setEnabled(m_status == CampaignStatus::Draft);
    m_closeOn->setEnabled(m_status != CampaignStatus::Closed);
    m_launchAt->setEnabled(m_launchOn->isEnabled() && m_launchOn->isChecked());
    m_closeAt->setEnabled(m_closeOn->isEnabled() && m_closeOn->isChecked());
    const bool anyTime = m_launchAt->isEnabled() || m_closeAt->isEnabled();
    m_lateLimit->setEnabled(anyTime);
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(serverNowMs(), m_zone);
    m_zoneNote->setText(tr("Times in %1 (%2). The servers' clock says %3.")
                                .arg(QString::fromUtf8(m_zone.id()), m_zone.displayName(now, QTimeZone::OffsetName),
                                     now.toString(QStringLiteral("yyyy-MM-dd HH:mm"))));
    const QString problem = problemText();
    m_error->setText(problem);
    m_error->setVisible(!problem.isEmpty());
    Q_EMIT edited();
}

} // namespace lantern::ui
