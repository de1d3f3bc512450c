#include "connections/profilesshfields.h"

#include "common/consoletheme.h"
#include "common/filepathfield.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace lantern::ui {

ProfileSshFields::ProfileSshFields(QWidget *parent)
    : QWidget(parent),
      m_enabled(new QCheckBox(tr("Reach the servers through an SSH tunnel"), this)),
      m_host(new QLineEdit(this)),
      m_port(new QSpinBox(this)),
      m_user(new QLineEdit(this)),
      m_auth(new QComboBox(this)),
      m_key(new FilePathField(tr("The SSH private key"), tr("All files (*)"), this)),
      m_secretLabel(new QLabel(this)),
      m_secret(new QLineEdit(this))
{
    m_enabled->setToolTip(tr("Redis and the database are reached as the SSH server reaches them: give their addresses as seen from there"));
    m_host->setPlaceholderText(tr("e.g. bastion.example.com"));
    m_port->setRange(1, 65535);
    m_port->setValue(22);
    m_user->setPlaceholderText(tr("e.g. ops"));
    m_auth->addItem(tr("SSH agent (ssh-add)"), QStringLiteral("agent"));
    m_auth->addItem(tr("Key file"), QStringLiteral("key"));
    m_auth->addItem(tr("Password"), QStringLiteral("password"));
    m_key->lineEdit()->setPlaceholderText(QStringLiteral("~/.ssh/id_ed25519"));
    m_secret->setEchoMode(QLineEdit::Password);
    m_secret->setClearButtonEnabled(true);
    QLabel *note = ConsoleTheme::hintLabel(tr("The server's host key is checked against ~/.ssh/known_hosts: the first time, the console shows its "
                               "fingerprint and asks; a key that changed is refused."),
                            this);

    auto *form = m_form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(m_enabled);
    form->addRow(tr("SSH server"), m_host);
    form->addRow(tr("Port"), m_port);
    form->addRow(tr("User"), m_user);
    form->addRow(tr("Log in with"), m_auth);
    form->addRow(tr("Key file"), m_key);
    form->addRow(m_secretLabel, m_secret);
    form->addRow(note);

    connect(m_enabled, &QCheckBox::toggled, this, &ProfileSshFields::updateFields);
    connect(m_auth, &QComboBox::currentIndexChanged, this, &ProfileSshFields::updateFields);
    updateFields();
}

void ProfileSshFields::fill(const ConnectionProfile &profile)
{
    m_enabled->setChecked(!profile.sshHost.isEmpty());
    m_host->setText(profile.sshHost);
    m_port->setValue(profile.sshPort);
    m_user->setText(profile.sshUser);
    m_auth->setCurrentIndex(std::max(0, m_auth->findData(profile.sshAuth)));
    m_key->setText(profile.sshKey);
    updateFields();
}

void ProfileSshFields::apply(ConnectionProfile &profile) const
{
    const bool on = m_enabled->isChecked();
    profile.sshHost = on ? m_host->text().trimmed() : QString();
    profile.sshPort = m_port->value();
    profile.sshUser = on ? m_user->text().trimmed() : QString();
    profile.sshAuth = m_auth->currentData().toString();
    profile.sshKey = on && profile.sshAuth == QLatin1String("key") ? m_key->text() : QString();
}

QString ProfileSshFields::secret() const
{
    return m_enabled->isChecked() && m_auth->currentData().toString() != QLatin1String("agent") ? m_secret->text() : QString();
}

void ProfileSshFields::setSecret(const QString &secret)
{
    m_secret->setText(secret);
}

void ProfileSshFields::updateFields()
{
    const bool on = m_enabled->isChecked();
    const QString auth = m_auth->currentData().toString();
    for (QWidget *field : {static_cast<QWidget *>(m_host), static_cast<QWidget *>(m_port), static_cast<QWidget *>(m_user),
                           static_cast<QWidget *>(m_auth)})
        field->setEnabled(on);
    m_key->setEnabled(on && auth == QLatin1String("key"));
    m_secret->setEnabled(on && auth != QLatin1String("agent"));
    // Only the fields of the chosen login: the agent needs neither a file nor a secret.
    m_form->setRowVisible(m_key, auth == QLatin1String("key"));
    m_form->setRowVisible(m_secret, auth != QLatin1String("agent"));
    m_secretLabel->setText(auth == QLatin1String("password") ? tr("Password") : tr("Key passphrase"));
    m_secret->setPlaceholderText(auth == QLatin1String("key") ? tr("none") : QString());
}

} // namespace lantern::ui
