#include "alerts/alertthresholdsdialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>

#include <climits>

namespace lantern::ui {

AlertThresholdsDialog::AlertThresholdsDialog(const QString &profile, const AlertThresholds &thresholds, QWidget *parent)
    : QDialog(parent),
      m_deadLetters(new QCheckBox(tr("Dead letters appeared"), this)),
      m_workerDied(new QCheckBox(tr("A worker stopped beating"), this)),
      m_ledger(new QCheckBox(tr("The ledger does not balance for a campaign"), this)),
      m_backlogDepth(new QSpinBox(this)),
      m_backlogMinutes(new QSpinBox(this))
{
    setWindowTitle(tr("Alerts"));
    auto *form = new QFormLayout(this);
    auto *intro = new QLabel(profile.isEmpty() ? tr("When the console alerts for the servers in use:")
                                               : tr("When the console alerts for the profile “%1”:").arg(profile),
                             this);
    intro->setWordWrap(true);
    form->addRow(intro);
    m_deadLetters->setChecked(thresholds.deadLetters);
    m_workerDied->setChecked(thresholds.workerDied);
    m_ledger->setChecked(thresholds.ledger);
    form->addRow(m_deadLetters);
    form->addRow(m_workerDied);
    form->addRow(m_ledger);
    m_backlogDepth->setRange(0, INT_MAX);
    m_backlogDepth->setGroupSeparatorShown(true);
    m_backlogDepth->setValue(int(std::min<qint64>(thresholds.backlogDepth, INT_MAX)));
    //: The backlog alert: more than this many entries wait in the queues.
    m_backlogDepth->setSuffix(tr(" entries"));
    form->addRow(tr("Backlog above"), m_backlogDepth);
    m_backlogMinutes->setRange(0, 24 * 60);
    m_backlogMinutes->setValue(thresholds.backlogMinutes);
    m_backlogMinutes->setSuffix(tr(" min"));
    //: 0 minutes turns the backlog alert off.
    m_backlogMinutes->setSpecialValueText(tr("off"));
    form->addRow(tr("and growing for"), m_backlogMinutes);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

AlertThresholdsDialog::~AlertThresholdsDialog() = default;

AlertThresholds AlertThresholdsDialog::thresholds() const
{
    AlertThresholds thresholds;
    thresholds.deadLetters = m_deadLetters->isChecked();
    thresholds.workerDied = m_workerDied->isChecked();
    thresholds.ledger = m_ledger->isChecked();
    thresholds.backlogDepth = m_backlogDepth->value();
    thresholds.backlogMinutes = m_backlogMinutes->value();
    return thresholds;
}

} // namespace lantern::ui
