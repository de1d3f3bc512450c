#pragma once

#include "envelope/campaignschedule.h"

#include <QDialog>

class QDialogButtonBox;

namespace lantern::ui {

class CampaignTimesForm;

/** "Times…" on a campaign (issue 30): change, add or drop its launch and close times. Save
    sends the pending timetable as the form shows it (a replacement, audited once). */
class CampaignTimesDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CampaignTimesDialog)

public:
    CampaignTimesDialog(const Campaign &campaign, const QList<ScheduledTransition> &current, const QTimeZone &zone, qint64 serverNowMs,
                        QWidget *parent = nullptr);

    qint64 campaignId() const { return m_campaignId; }
    CampaignTimesForm *form() const { return m_form; }
    ScheduleRequest request() const;
    bool canSave() const;

private:
    void updateButtons();

    qint64 m_campaignId;
    CampaignTimesForm *m_form;
    QDialogButtonBox *m_buttons;
};

} // namespace lantern::ui
