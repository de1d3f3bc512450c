#include "shell/operatordialog.h"

#include "common/consoletheme.h"
#include "shell/operatoridentity.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace lantern::ui {

OperatorDialog::OperatorDialog(const QString &proposed, bool changing, QWidget *parent)
    : QDialog(parent), m_name(new QLineEdit(proposed, this)), m_problem(new QLabel(this))
{
    setWindowTitle(changing ? tr("Change the operator") : tr("Who is at the console?"));
    auto *intro = new QLabel(tr("Every change made in this console — make-ups, campaign actions, dead letters, recovery — is "
                                "recorded in the audit log under this name, until you change it here or close the console."),
                             this);
    intro->setWordWrap(true);
    m_name->setObjectName(QStringLiteral("operatorName"));
    m_name->setMaxLength(OperatorIdentity::MaxLength);
    m_name->setPlaceholderText(tr("Your name"));
    m_name->selectAll();
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::errorText()));
    auto *form = new QFormLayout;
    form->addRow(tr("&Operator:"), m_name);
    form->addRow(QString(), m_problem);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Use this name"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_name, &QLineEdit::textChanged, this, &OperatorDialog::validate);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(buttons);
    setMinimumWidth(intro->fontMetrics().averageCharWidth() * 60);
    validate();
}

QString OperatorDialog::name() const
{
    return m_name->text().trimmed();
}

void OperatorDialog::validate()
{
    const QString problem = OperatorIdentity::problemWith(m_name->text());
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty() && !m_name->text().isEmpty());
    m_ok->setEnabled(problem.isEmpty());
}

} // namespace lantern::ui
