#include "queueconfirmdialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

QueueConfirmDialog::QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, const QString &operatorName,
                                       QWidget *parent)
    : QDialog(parent), m_operator(operatorName.trimmed())
{
    setWindowTitle(title);
    auto *message = new QLabel(text, this);
    message->setWordWrap(true);
    message->setMinimumWidth(message->fontMetrics().averageCharWidth() * 56);
    auto *operatorLabel = new QLabel(m_operator, this);
    operatorLabel->setObjectName(QStringLiteral("operator"));
    operatorLabel->setToolTip(tr("The session's operator; change it in the window's status bar."));
    auto *form = new QFormLayout;
    form->addRow(tr("Operator:"), operatorLabel);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_action = buttons->addButton(actionText, QDialogButtonBox::AcceptRole);
    m_action->setDefault(true);
    m_action->setEnabled(!m_operator.isEmpty());
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(message);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

} // namespace lantern::ui
