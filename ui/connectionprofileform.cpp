#include "connectionprofileform.h"

#include "consoletheme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTimeZone>
#include <QVBoxLayout>

namespace lantern::ui {

ConnectionProfileForm::ConnectionProfileForm(QWidget *parent)
    : QGroupBox(tr("Profile"), parent),
      m_name(new QLineEdit(this)),
      m_redisUrl(new QLineEdit(this)),
      m_redisPassword(new QLineEdit(this)),
      m_dbUrl(new QLineEdit(this)),
      m_dbPassword(new QLineEdit(this)),
      m_prefix(new QLineEdit(this)),
      m_timeZone(new QComboBox(this)),
      m_readOnly(new QCheckBox(tr("Read-only: only reads reach Redis and SQL; every change is refused"), this)),
      m_keychainNote(new QLabel(this))
{
    m_name->setPlaceholderText(tr("e.g. production"));
    m_name->setMaxLength(64);
    m_name->setToolTip(tr("Letters, digits, “_”, “.” and “-”; use it as lantern --profile NAME"));
    m_redisUrl->setPlaceholderText(QStringLiteral("redis://[user@]host:6379[/db] · redis://host1:7000,host2:7001"));
    m_dbUrl->setPlaceholderText(QStringLiteral("mysql://user@host:3306/lantern · sqlite:///path/lantern.db"));
    for (QLineEdit *password : {m_redisPassword, m_dbPassword}) {
        password->setEchoMode(QLineEdit::Password);
        password->setPlaceholderText(tr("none"));
        password->setClearButtonEnabled(true);
    }
    m_prefix->setPlaceholderText(QStringLiteral("lt:"));
    m_timeZone->setEditable(true);
    m_timeZone->setInsertPolicy(QComboBox::NoInsert);
    QStringList zones;
    for (const QByteArray &id : QTimeZone::availableTimeZoneIds())
        zones << QString::fromUtf8(id);
    m_timeZone->addItem(QString());
    m_timeZone->addItems(zones);
    m_timeZone->lineEdit()->setPlaceholderText(tr("System time zone (%1)").arg(QString::fromUtf8(QTimeZone::systemTimeZoneId())));
    m_readOnly->setToolTip(tr("Enforced by the connections themselves: Redis commands outside a list of reads and SQL other than "
                              "SELECT are never sent, whatever a view or lanternd tries."));
    m_keychainNote->setWordWrap(true);

    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Redis URL"), m_redisUrl);
    form->addRow(tr("Redis password"), m_redisPassword);
    form->addRow(tr("SQL URL"), m_dbUrl);
    form->addRow(tr("SQL password"), m_dbPassword);
    form->addRow(tr("Key prefix"), m_prefix);
    form->addRow(tr("Time zone"), m_timeZone);
    form->addRow(QString(), m_readOnly);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_keychainNote);
}

void ConnectionProfileForm::fill(const ConnectionProfile &profile)
{
    m_name->setText(profile.name);
    m_redisUrl->setText(profile.redisUrl);
    m_dbUrl->setText(profile.dbUrl);
    m_prefix->setText(profile.keyPrefix);
    m_timeZone->setEditText(profile.timeZone);
    m_readOnly->setChecked(profile.readOnly);
    m_redisPassword->clear();
    m_dbPassword->clear();
}

ConnectionProfile ConnectionProfileForm::profile() const
{
    ConnectionProfile profile;
    profile.name = m_name->text().trimmed();
    profile.redisUrl = m_redisUrl->text().trimmed();
    profile.dbUrl = m_dbUrl->text().trimmed();
    profile.keyPrefix = m_prefix->text().isEmpty() ? QStringLiteral("lt:") : m_prefix->text();
    profile.timeZone = m_timeZone->currentText().trimmed();
    profile.readOnly = m_readOnly->isChecked();
    profile.takeSecretsFromUrls();
    return profile;
}

ProfileSecret ConnectionProfileForm::secret() const
{
    // A password typed into a URL counts when its own field is empty.
    ProfileSecret secret{m_redisPassword->text(), m_dbPassword->text()};
    if (secret.redisPassword.isEmpty())
        secret.redisPassword = ConnectionProfile::passwordOf(m_redisUrl->text());
    if (secret.dbPassword.isEmpty())
        secret.dbPassword = ConnectionProfile::passwordOf(m_dbUrl->text());
    return secret;
}

void ConnectionProfileForm::showSaved(const ConnectionProfile &profile, const ProfileSecret &secret)
{
    m_redisUrl->setText(profile.redisUrl);
    m_dbUrl->setText(profile.dbUrl);
    m_redisPassword->setText(secret.redisPassword);
    m_dbPassword->setText(secret.dbPassword);
}

void ConnectionProfileForm::showPasswordsPending()
{
    for (QLineEdit *password : {m_redisPassword, m_dbPassword}) {
        password->setPlaceholderText(tr("reading the keychain…"));
        password->setEnabled(false);
    }
}

void ConnectionProfileForm::showPasswords(const ProfileSecret &secret)
{
    m_redisPassword->setText(secret.redisPassword);
    m_dbPassword->setText(secret.dbPassword);
    for (QLineEdit *password : {m_redisPassword, m_dbPassword}) {
        password->setEnabled(true);
        password->setPlaceholderText(tr("none"));
    }
}

void ConnectionProfileForm::showKeychainNote(bool inMemory, const QString &problem)
{
    if (inMemory) {
        m_keychainNote->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(ConsoleTheme::warningText()));
        m_keychainNote->setText(tr("No keychain service answers on this machine, so passwords are kept in memory until the "
                                   "console closes — never on disk. Type them again after a restart."));
        m_keychainNote->setToolTip(problem);
    } else {
        m_keychainNote->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
        m_keychainNote->setText(tr("Passwords are kept in the system keychain, never in the profile file."));
        m_keychainNote->setToolTip({});
    }
}

QString ConnectionProfileForm::name() const
{
    return m_name->text().trimmed();
}

void ConnectionProfileForm::focusName()
{
    m_name->setFocus();
}

int ConnectionProfileForm::fieldHeight() const
{
    return m_name->sizeHint().height();
}

} // namespace lantern::ui
