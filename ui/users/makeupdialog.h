#pragma once

#include <QDate>
#include <QDialog>

class QDialogButtonBox;
class QPlainTextEdit;

namespace lantern::ui {

/** Asks who grants a make-up check-in and why. It only collects the answer: the Users view
    sends it to the lookup service, which applies the rules (CheckinService::makeup). */
class MakeupDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MakeupDialog)

public:
    static constexpr int MaxReasonLength = 255;

    MakeupDialog(qint64 uid, QDate date, const QString &operatorName, QWidget *parent = nullptr);

    qint64 uid() const { return m_uid; }
    QDate date() const { return m_date; }
    QString reason() const;
    QString operatorName() const;

    QPlainTextEdit *reasonEdit() const { return m_reason; }

private:
    void updateAcceptable();

    qint64 m_uid;
    QDate m_date;
    QPlainTextEdit *m_reason;
    QString m_operator;  // the session's, shown, not edited here
    QDialogButtonBox *m_buttons;
};

} // namespace lantern::ui
