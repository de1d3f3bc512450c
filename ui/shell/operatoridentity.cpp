#include "shell/operatoridentity.h"

#include "shell/operatordialog.h"

#include <QFormLayout>
#include <QLabel>
#include <QProcessEnvironment>
#include <QSettings>

#include <algorithm>

namespace lantern::ui {

namespace {
const QString LastOperatorSetting = QStringLiteral("console/operator");
} // namespace

OperatorIdentity::OperatorIdentity(QObject *parent) : QObject(parent) {}

OperatorIdentity::~OperatorIdentity() = default;

QString OperatorIdentity::problemWith(const QString &name)
{
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty())
        return tr("Enter the name the audit log records for your changes.");
    if (trimmed.size() > MaxLength)
        return tr("At most %n characters.", nullptr, MaxLength);
    // As lanternd's --operator: no control characters in an audit row's actor.
    if (std::any_of(trimmed.cbegin(), trimmed.cend(), [](QChar c) { return c.category() == QChar::Other_Control; }))
        return tr("No control characters, please.");
    return {};
}

bool OperatorIdentity::setName(const QString &name)
{
    if (!problemWith(name).isEmpty())
        return false;
    const QString trimmed = name.trimmed();
    QSettings().setValue(LastOperatorSetting, trimmed);
    if (trimmed == m_name)
        return true;
    m_name = trimmed;
    Q_EMIT changed(m_name);
    return true;
}

QString OperatorIdentity::suggestion()
{
    const QString last = QSettings().value(LastOperatorSetting).toString();
    if (!last.isEmpty())
        return last;
    return QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
}

void OperatorIdentity::addRowTo(QFormLayout *form, const QString &name, QWidget *dialog)
{
    auto *label = new QLabel(name, dialog);
    label->setObjectName(QStringLiteral("operator"));
    label->setToolTip(tr("The session's operator, recorded in the audit log; change it in the window's status bar."));
    form->addRow(tr("Operator:"), label);
}

void OperatorIdentity::setAccount(const access::AccountIdentity &account)
{
    if (!account.role)
        return;  // a shared account: the operator still says who is at it
    m_account = account;
    m_name = account.account;
    Q_EMIT changed(m_name);
}

void OperatorIdentity::clearAccount()
{
    if (!m_account)
        return;
    m_account.reset();
    m_name.clear();
    Q_EMIT changed(m_name);
}

QString OperatorIdentity::refusal(access::Action action) const
{
    return m_account && !m_account->allows(action) ? m_account->refusal(action) : QString();
}

bool OperatorIdentity::ensure(QWidget *parent)
{
    return isSet() || ask(parent);
}

bool OperatorIdentity::ask(QWidget *parent)
{
    if (m_account)
        return true;  // the account is who acts; nothing to type
    OperatorDialog dialog(isSet() ? m_name : suggestion(), isSet(), parent);
    if (dialog.exec() != QDialog::Accepted)
        return false;
    return setName(dialog.name());
}

} // namespace lantern::ui
