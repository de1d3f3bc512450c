#pragma once

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace lantern::ui {

/** Edit-before-retry of one dead letter: its text to correct (e.g. a task a bug wrote wrong),
    checked as a worker of its list would read it, and put back on the queue in its place. */
class DeadLetterEditDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DeadLetterEditDialog)

public:
    DeadLetterEditDialog(const QString &list, const QByteArray &entry, const QString &operatorName, QWidget *parent = nullptr);

    QByteArray entry() const { return m_entry; }
    QByteArray edited() const;
    QPlainTextEdit *editor() const { return m_editor; }
    QPushButton *retryButton() const { return m_retry; }

private:
    void validate();

    QString m_list;
    QByteArray m_entry;
    QPlainTextEdit *m_editor;
    QLabel *m_problem;
    QPushButton *m_retry;
};

} // namespace lantern::ui
