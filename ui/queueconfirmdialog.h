#pragma once

#include <QDialog>

class QPushButton;

namespace lantern::ui {

/** Asks before an action that changes queues or the ledger, naming the session's operator the
    audit log records it under. */
class QueueConfirmDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueConfirmDialog)

public:
    QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, const QString &operatorName,
                       QWidget *parent = nullptr);

    QString operatorName() const { return m_operator; }
    QPushButton *actionButton() const { return m_action; }

private:
    QString m_operator;
    QPushButton *m_action;
};

} // namespace lantern::ui
