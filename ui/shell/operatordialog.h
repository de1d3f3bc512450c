#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

namespace lantern::ui {

/** "Who is at the console?": the one place the session's operator name is typed. */
class OperatorDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OperatorDialog)

public:
    /** `proposed`: pre-filled (the current name, or a suggestion to confirm); `changing`: a
        name is already set. */
    OperatorDialog(const QString &proposed, bool changing, QWidget *parent = nullptr);

    QString name() const;
    QLineEdit *nameField() const { return m_name; }
    QPushButton *okButton() const { return m_ok; }

private:
    void validate();

    QLineEdit *m_name;
    QLabel *m_problem;
    QPushButton *m_ok;
};

} // namespace lantern::ui
