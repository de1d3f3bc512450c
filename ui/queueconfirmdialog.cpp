#include "queueconfirmdialog.h"

#include "operatorname.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

QueueConfirmDialog::QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, QWidget *parent)
    : QDialog(parent), m_operator(new QLineEdit(savedOperatorName(), this))
{
    setWindowTitle(title);
    auto *message = new QLabel(text, this);
    message->setWordWrap(true);
    message->setMinimumWidth(message->fontMetrics().averageCharWidth() * 56);
    m_operator->setMaxLength(64);
    auto *form = new QFormLayout;
    form->addRow(tr("Operator:"), m_operator);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_action = buttons->addButton(actionText, QDialogButtonBox::AcceptRole);
    m_action->setDefault(true);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    const auto update = [this] { m_action->setEnabled(!operatorName().isEmpty()); };
    connect(m_operator, &QLineEdit::textChanged, this, update);
    update();
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(message);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

QString QueueConfirmDialog::operatorName() const
{
    return m_operator->text().trimmed();
}

void QueueConfirmDialog::accept()
{
    if (operatorName().isEmpty())
        return;
    saveOperatorName(operatorName());
    QDialog::accept();
}

} // namespace lantern::ui
