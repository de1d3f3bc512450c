#include "queues/queuejobbar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>

namespace lantern::ui {

QueueJobBar::QueueJobBar(QWidget *parent)
    : QWidget(parent), m_what(new QLabel(this)), m_progress(new QProgressBar(this)), m_cancel(new QPushButton(tr("Cancel"), this))
{
    m_cancel->setObjectName(QStringLiteral("cancelJobButton"));
    m_progress->setMinimumWidth(fontMetrics().averageCharWidth() * 30);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_what);
    layout->addWidget(m_progress, 1);
    layout->addWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        m_cancel->setEnabled(false);
        m_what->setText(tr("Cancelling after the current batch…"));
        Q_EMIT cancelRequested();
    });
    setVisible(false);
}

void QueueJobBar::start(const QString &what)
{
    m_running = true;
    m_what->setText(what);
    m_progress->setRange(0, 0);
    m_cancel->setEnabled(true);
    setVisible(true);
}

void QueueJobBar::setProgress(qint64 done, qint64 total)
{
    if (total <= 0) {
        m_progress->setRange(0, 0);
        return;
    }
    // QProgressBar counts in int: scale to per mille.
    m_progress->setRange(0, 1000);
    m_progress->setValue(int(done * 1000 / total));
    m_progress->setFormat(tr("%1 of %2").arg(QLocale().toString(done), QLocale().toString(total)));
}

void QueueJobBar::finish()
{
    m_running = false;
    setVisible(false);
}

} // namespace lantern::ui
