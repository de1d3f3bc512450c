#pragma once

#include <QDialog>

class QLineEdit;
class QPushButton;

namespace lantern::ui {

/** Asks before an action that changes queues or the ledger, and for the operator name the audit
    log records (remembered for next time). */
class QueueConfirmDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueConfirmDialog)

public:
    QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, QWidget *parent = nullptr);

    QString operatorName() const;
    QPushButton *actionButton() const { return m_action; }
    QLineEdit *operatorField() const { return m_operator; }

    void accept() override;

private:
    QLineEdit *m_operator;
    QPushButton *m_action;
};

} // namespace lantern::ui
