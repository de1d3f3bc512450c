#pragma once

#include <QDialog>

class QPushButton;

namespace lantern::ui {

/** Asks before an action that changes queues or the ledger, naming the session's operator the
    audit log records it under. Enter goes ahead only when the action can be undone; before one
    that removes something for good (Discard) Enter, like Escape, cancels, as the campaign
    confirmations do for Launch and Close. */
class QueueConfirmDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueConfirmDialog)

public:
    enum class Kind { Reversible, Destructive };

    QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, const QString &operatorName,
                       QWidget *parent = nullptr, Kind kind = Kind::Reversible);

    QString operatorName() const { return m_operator; }
    QPushButton *actionButton() const { return m_action; }
    QPushButton *cancelButton() const { return m_cancel; }

private:
    QString m_operator;
    QPushButton *m_action;
    QPushButton *m_cancel;
};

} // namespace lantern::ui
