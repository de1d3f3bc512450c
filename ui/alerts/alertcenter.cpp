#include "alerts/alertcenter.h"

#include "alerts/alertthresholdsdialog.h"
#include "common/consoletheme.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QStyle>
#include <QSystemTrayIcon>

namespace lantern::ui {

AlertBar::AlertBar(QWidget *parent) : QFrame(parent), m_text(new QLabel(this))
{
    setObjectName(QStringLiteral("alertBar"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    m_text->setObjectName(QStringLiteral("alertText"));
    m_text->setTextFormat(Qt::RichText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::LinksAccessibleByMouse | Qt::LinksAccessibleByKeyboard);
    layout->addWidget(m_text, 1);
    m_text->setStyleSheet(ConsoleTheme::pillStyle(ConsoleTheme::Tone::Error, QStringLiteral("padding: 4px 8px;")));
    connect(m_text, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QLatin1String("view:")))
            Q_EMIT openView(link.mid(5));
    });
    hide();
}

AlertBar::~AlertBar() = default;

void AlertBar::setAlerts(const QList<ConsoleAlert> &alerts, const QHash<QString, QString> &titles)
{
    QStringList lines;
    for (const ConsoleAlert &alert : alerts) {
        //: An alert of the console, then a link to the view that shows it ("Open Queues").
        lines << tr("⚠ %1 <a href=\"view:%2\">Open %3</a>").arg(alert.text.toHtmlEscaped(), alert.view, titles.value(alert.view, alert.view));
    }
    m_text->setText(lines.join(QStringLiteral("<br>")));
    setVisible(!alerts.isEmpty());
}

AlertCenter::AlertCenter(QWidget *parent) : QObject(parent), m_monitor(new ConsoleAlertMonitor(this)), m_bar(new AlertBar(parent))
{
    connect(m_monitor, &ConsoleAlertMonitor::changed, this, [this] { m_bar->setAlerts(m_monitor->active(), m_titles); });
    connect(m_monitor, &ConsoleAlertMonitor::raised, this, &AlertCenter::onRaised);
    connect(m_bar, &AlertBar::openView, this, &AlertCenter::openView);
    setProfile(QString());
}

AlertCenter::~AlertCenter() = default;

void AlertCenter::setViewTitles(const QHash<QString, QString> &titles)
{
    m_titles = titles;
    m_bar->setAlerts(m_monitor->active(), m_titles);
}

void AlertCenter::setProfile(const QString &profile)
{
    m_profile = profile;
    m_monitor->setThresholds(AlertThresholds::load(QSettings(), profile));
    m_bar->setAlerts(m_monitor->active(), m_titles);
}

void AlertCenter::editThresholds(QWidget *parent)
{
    AlertThresholdsDialog dialog(m_profile, m_monitor->thresholds(), parent);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QSettings settings;
    dialog.thresholds().save(settings, m_profile);
    m_monitor->setThresholds(dialog.thresholds());
}

bool AlertCenter::desktopNotifications() const
{
    return QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages();
}

void AlertCenter::onRaised(const ConsoleAlert &alert)
{
    if (!desktopNotifications())
        return;  // the bar says it all the same
    if (!m_tray) {
        m_tray = new QSystemTrayIcon(QApplication::windowIcon().isNull() ? qApp->style()->standardIcon(QStyle::SP_MessageBoxWarning)
                                                                         : QApplication::windowIcon(),
                                     this);
        m_tray->setToolTip(tr("Lantern console"));
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] { Q_EMIT openView(m_lastNotifiedView); });
        connect(m_tray, &QSystemTrayIcon::activated, this, [this] { Q_EMIT openView(m_lastNotifiedView); });
        m_tray->show();
    }
    m_lastNotifiedView = alert.view;
    const QString title = tr("Lantern alert");
    m_notified << title + u'\n' + alert.text;
    m_tray->showMessage(title, alert.text, QSystemTrayIcon::Warning);
}

} // namespace lantern::ui
