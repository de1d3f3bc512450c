#include "mainwindow.h"

#include "console/usermonth.h"
#include "usersview.h"

#include <QApplication>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace lantern::ui {

MainWindow::MainWindow(const CheckinRules &rules, QWidget *parent)
    : QMainWindow(parent),
      m_users(new UsersView(rules, this)),
      m_mode(new QLabel(this)),
      m_connection(new QLabel(this)),
      m_worker(new QLabel(this)),
      m_refreshed(new QLabel(this))
{
    setWindowTitle(tr("Lantern Console — Users"));
    setCentralWidget(m_users);

    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Lantern"), this, [this] {
        QMessageBox::about(this, tr("About Lantern"),
                           tr("<b>Lantern Console</b> %1<br>Daily check-in and red-envelope campaigns on Redis and SQL.")
                                   .arg(QApplication::applicationVersion()));
    });

    m_mode->setContentsMargins(6, 0, 6, 0);
    m_connection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_worker->setContentsMargins(6, 0, 6, 0);
    statusBar()->addWidget(m_mode);
    statusBar()->addWidget(m_connection, 1);
    statusBar()->addPermanentWidget(m_worker);
    statusBar()->addPermanentWidget(m_refreshed);
    m_connection->setText(tr("Not connected yet"));
    m_worker->setVisible(false);

    connect(m_users, &UsersView::monthShown, this, &MainWindow::showRefreshed);
    resize(1040, 700);
}

MainWindow::~MainWindow() = default;

void MainWindow::setConnection(const Config &config, bool sandbox)
{
    m_mode->setText(sandbox ? tr("Sandbox") : tr("Servers"));
    m_mode->setStyleSheet(sandbox ? QStringLiteral("QLabel { background: #fef7e0; color: #7a4f01; border-radius: 4px; padding: 1px 6px; }")
                                  : QStringLiteral("QLabel { background: #e8f0fe; color: #174ea6; border-radius: 4px; padding: 1px 6px; }"));
    m_mode->setToolTip(sandbox ? tr("A private Redis and an SQLite file with demo data; nothing here reaches production.")
                               : tr("Connected to the Redis and SQL servers given on the command line."));
    const QString redis = config.redis.redacted();
    const QString db = config.db.redacted();
    m_connection->setText(tr("Redis %1 · SQL %2").arg(redis, db));
    m_connection->setToolTip(tr("Redis: %1\nSQL: %2").arg(redis, db));
}

void MainWindow::setWorkerStatus(const QString &text, bool trouble)
{
    m_worker->setText(text);
    m_worker->setStyleSheet(trouble ? QStringLiteral("QLabel { color: #a50e0e; }") : QString());
    m_worker->setVisible(!text.isEmpty());
}

void MainWindow::showRefreshed(const UserMonth &month)
{
    m_refreshed->setText(tr("Last refresh %1").arg(month.loadedAt.time().toString(u"HH:mm:ss")));
    m_refreshed->setToolTip(QLocale().toString(month.loadedAt, QLocale::LongFormat));
}

} // namespace lantern::ui
