#include "campaigns/campaigntimesdialog.h"

#include "campaigns/campaigntimesform.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

CampaignTimesDialog::CampaignTimesDialog(const Campaign &campaign, const QList<ScheduledTransition> &current, const QTimeZone &zone,
                                         qint64 serverNowMs, QWidget *parent)
    : QDialog(parent),
      m_campaignId(campaign.id),
      m_form(new CampaignTimesForm(zone, serverNowMs, this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Times of campaign #%1").arg(campaign.id));
    auto *intro = new QLabel(tr("“%1”: a running worker (lanternd work) makes each change at its time, once, and the audit log records it "
                                "under the name of whoever set the time. Untick a time to drop it.")
                                     .arg(campaign.name),
                             this);
    intro->setWordWrap(true);
    m_form->setCurrent(campaign.status, current);
    m_buttons->button(QDialogButtonBox::Save)->setText(tr("Save times"));
    m_buttons->button(QDialogButtonBox::Save)->setObjectName(QStringLiteral("saveTimes"));
    // Enter never saves by accident: Cancel is the default until the operator clicks Save.
    m_buttons->button(QDialogButtonBox::Cancel)->setDefault(true);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (canSave())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_form, &CampaignTimesForm::edited, this, &CampaignTimesDialog::updateButtons);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addSpacing(6);
    layout->addWidget(m_form);
    layout->addStretch(1);
    layout->addWidget(m_buttons);
    setMinimumWidth(fontMetrics().averageCharWidth() * 70);
    updateButtons();
}

ScheduleRequest CampaignTimesDialog::request() const
{
    return m_form->request();
}

bool CampaignTimesDialog::canSave() const
{
    return m_form->changed() && m_form->isAcceptable();
}

void CampaignTimesDialog::updateButtons()
{
    QPushButton *save = m_buttons->button(QDialogButtonBox::Save);
    save->setEnabled(canSave());
    save->setToolTip(!m_form->changed() ? tr("Nothing changed yet.") : m_form->isAcceptable() ? QString() : m_form->problemText());
}

} // namespace lantern::ui
