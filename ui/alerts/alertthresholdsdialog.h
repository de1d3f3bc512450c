#pragma once

#include "console/alerts/consolealerts.h"

#include <QDialog>

class QCheckBox;
class QSpinBox;

namespace lantern::ui {

/** The console's alert thresholds of one connection profile (issue 27). */
class AlertThresholdsDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AlertThresholdsDialog)

public:
    AlertThresholdsDialog(const QString &profile, const AlertThresholds &thresholds, QWidget *parent = nullptr);
    ~AlertThresholdsDialog() override;

    AlertThresholds thresholds() const;

private:
    QCheckBox *m_deadLetters;
    QCheckBox *m_workerDied;
    QCheckBox *m_ledger;
    QSpinBox *m_backlogDepth;
    QSpinBox *m_backlogMinutes;
};

} // namespace lantern::ui
