#include "users/makeupdialog.h"

#include "shell/operatoridentity.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

MakeupDialog::MakeupDialog(qint64 uid, QDate date, const QString &operatorName, QWidget *parent)
    : QDialog(parent),
      m_uid(uid),
      m_date(date),
      m_reason(new QPlainTextEdit(this)),
      m_operator(operatorName.trimmed()),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Grant a make-up check-in"));
    auto *intro = new QLabel(tr("Sign <b>%1</b> for user <b>%2</b> as a make-up. It restores the streak; "
                                "it is recorded in the audit log with your name and reason.")
                                     .arg(QLocale().toString(date, QLocale::LongFormat).toHtmlEscaped())
                                     .arg(uid),
                             this);
    intro->setWordWrap(true);

    m_reason->setPlaceholderText(tr("Why is it granted? For example: the app was down that evening."));
    m_reason->setTabChangesFocus(true);
    m_reason->setFixedHeight(m_reason->fontMetrics().lineSpacing() * 4 + 12);

    auto *form = new QFormLayout;
    form->addRow(tr("&Reason:"), m_reason);
    OperatorIdentity::addRowTo(form, m_operator, this);

    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Grant make-up"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_reason, &QPlainTextEdit::textChanged, this, &MakeupDialog::updateAcceptable);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addSpacing(6);
    layout->addLayout(form);
    layout->addWidget(m_buttons);
    setMinimumWidth(intro->fontMetrics().averageCharWidth() * 76);
    m_reason->setFocus();
    updateAcceptable();
}

QString MakeupDialog::reason() const
{
    return m_reason->toPlainText().simplified();
}

QString MakeupDialog::operatorName() const
{
    return m_operator;
}

void MakeupDialog::updateAcceptable()
{
    const QString reasonText = reason();
    const bool tooLong = reasonText.size() > MaxReasonLength;
    m_reason->setToolTip(tooLong ? tr("At most %n characters.", nullptr, MaxReasonLength) : QString());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!reasonText.isEmpty() && !tooLong && !operatorName().isEmpty());
}

} // namespace lantern::ui
