#include "queues/queueconfirmdialog.h"

#include "shell/operatoridentity.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

QueueConfirmDialog::QueueConfirmDialog(const QString &title, const QString &text, const QString &actionText, const QString &operatorName,
                                       QWidget *parent, Kind kind)
    : QDialog(parent), m_operator(operatorName.trimmed())
{
    setWindowTitle(title);
    auto *message = new QLabel(text, this);
    message->setWordWrap(true);
    message->setMinimumWidth(message->fontMetrics().averageCharWidth() * 56);
    auto *form = new QFormLayout;
    OperatorIdentity::addRowTo(form, m_operator, this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_action = buttons->addButton(actionText, QDialogButtonBox::AcceptRole);
    m_cancel = buttons->button(QDialogButtonBox::Cancel);
    m_action->setEnabled(!m_operator.isEmpty());
    if (kind == Kind::Destructive) {
        // Going ahead takes a click, or Tab to it and Space: never a reflex Enter.
        m_action->setAutoDefault(false);
        m_cancel->setDefault(true);
        m_cancel->setFocus();
    } else {
        m_action->setDefault(true);
    }
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(message);
    layout->addLayout(form);
    layout->addWidget(buttons);
}

} // namespace lantern::ui
