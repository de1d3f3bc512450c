#include "connections/connectionprofileform.h"

#include "console/connections/redisurlparts.h"
#include "common/consoletheme.h"
#include "connections/profilesentinelfields.h"
#include "connections/profilesshfields.h"
#include "connections/profiletlsfields.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
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
      m_keychainNote(new QLabel(this)),
      m_tabs(new QTabWidget(this)),
      m_tls(new ProfileTlsFields(this)),
      m_sentinel(new ProfileSentinelFields(this)),
      m_ssh(new ProfileSshFields(this))
{
    m_tabs->addTab(buildServersTab(), tr("Servers"));
    m_tabs->addTab(m_tls, tr("TLS"));
    m_tabs->addTab(m_sentinel, tr("Sentinel"));
    m_tabs->addTab(m_ssh, tr("SSH tunnel"));
    m_keychainNote->setWordWrap(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs);
    layout->addWidget(m_keychainNote);
    connect(m_redisUrl, &QLineEdit::textEdited, this, &ConnectionProfileForm::onRedisUrlEdited);
    connect(m_tls, &ProfileTlsFields::redisTlsToggled, this, &ConnectionProfileForm::rewriteRedisUrl);
    connect(m_sentinel, &ProfileSentinelFields::urlEdited, this, &ConnectionProfileForm::rewriteRedisUrl);
}

QWidget *ConnectionProfileForm::buildServersTab()
{
    auto *tab = new QWidget(this);
    m_name->setPlaceholderText(tr("e.g. production"));
    m_name->setMaxLength(64);
    m_name->setToolTip(tr("Letters, digits, “_”, “.” and “-”; use it as lantern --profile NAME"));
    m_redisUrl->setPlaceholderText(QStringLiteral("redis[s]://[user@]host:6379[/db] · redis://host1:7000,host2:7001"));
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
    auto *form = new QFormLayout(tab);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Redis URL"), m_redisUrl);
    form->addRow(tr("Redis password"), m_redisPassword);
    form->addRow(tr("SQL URL"), m_dbUrl);
    form->addRow(tr("SQL password"), m_dbPassword);
    form->addRow(tr("Key prefix"), m_prefix);
    form->addRow(tr("Time zone"), m_timeZone);
    form->addRow(QString(), m_readOnly);
    return tab;
}

void ConnectionProfileForm::onRedisUrlEdited(const QString &url)
{
    const RedisUrlParts parts = RedisUrlParts::split(url);
    m_tls->showRedisTls(parts.tls);
    m_sentinel->showUrl(parts);
}

void ConnectionProfileForm::rewriteRedisUrl()
{
    RedisUrlParts parts = RedisUrlParts::split(m_redisUrl->text());
    parts.tls = m_tls->redisTls();
    m_sentinel->applyTo(parts);
    m_redisUrl->setText(parts.join());
}

QList<QLineEdit *> ConnectionProfileForm::passwordFields() const
{
    return {m_redisPassword, m_dbPassword, m_sentinel->passwordField(), m_ssh->secretField()};
}

void ConnectionProfileForm::fill(const ConnectionProfile &profile)
{
    m_name->setText(profile.name);
    m_redisUrl->setText(profile.redisUrl);
    m_dbUrl->setText(profile.dbUrl);
    m_prefix->setText(profile.keyPrefix);
    m_timeZone->setEditText(profile.timeZone);
    m_readOnly->setChecked(profile.readOnly);
    m_tls->fill(profile, RedisUrlParts::split(profile.redisUrl).tls);
    m_sentinel->fill(profile);
    m_ssh->fill(profile);
    for (QLineEdit *password : passwordFields())
        password->clear();
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
    m_tls->apply(profile);
    m_sentinel->apply(profile);
    m_ssh->apply(profile);
    profile.takeSecretsFromUrls();
    return profile;
}

ProfileSecret ConnectionProfileForm::secret() const
{
    // A password typed into a URL counts when its own field is empty.
    ProfileSecret secret{m_redisPassword->text(), m_dbPassword->text(), m_sentinel->password(), m_ssh->secret()};
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
    m_sentinel->setPassword(secret.sentinelPassword);
    m_ssh->setSecret(secret.sshSecret);
}

void ConnectionProfileForm::showPasswordsPending()
{
    for (QLineEdit *password : passwordFields()) {
        password->setPlaceholderText(tr("reading the keychain…"));
        password->setEnabled(false);
    }
}

void ConnectionProfileForm::showPasswords(const ProfileSecret &secret)
{
    m_redisPassword->setText(secret.redisPassword);
    m_dbPassword->setText(secret.dbPassword);
    m_sentinel->setPassword(secret.sentinelPassword);
    m_ssh->setSecret(secret.sshSecret);
    for (QLineEdit *password : passwordFields()) {
        password->setEnabled(true);
        password->setPlaceholderText(tr("none"));
    }
    // Their secrets' fields only while they are on.
    m_sentinel->showUrl(RedisUrlParts::split(m_redisUrl->text()));
    m_ssh->updateFields();
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
