#include "connections/profiletlsfields.h"

#include "common/consoletheme.h"
#include "common/filepathfield.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QHBoxLayout>

namespace lantern::ui {

namespace {

FilePathField *pemField(const QString &title, QWidget *parent)
{
    return new FilePathField(title, ProfileTlsFields::tr("PEM files (*.pem *.crt *.key *.cer);;All files (*)"), parent);
}

} // namespace

ProfileTlsFields::ProfileTlsFields(QWidget *parent)
    : QWidget(parent),
      m_redisTls(new QCheckBox(tr("Connect to Redis over TLS (rediss://)"), this)),
      m_redisCa(pemField(tr("The CA that signs the Redis servers' certificates"), this)),
      m_redisCert(pemField(tr("The client certificate for Redis (mutual TLS)"), this)),
      m_redisKey(pemField(tr("The client certificate's key"), this)),
      m_redisSni(new QLineEdit(this)),
      m_verify(new QComboBox(this)),
      m_verifyWarning(new QLabel(this)),
      m_dbCa(pemField(tr("The CA that signs the database server's certificate"), this)),
      m_dbCert(pemField(tr("The client certificate for the database (REQUIRE X509)"), this)),
      m_dbKey(pemField(tr("The database client certificate's key"), this))
{
    m_redisCa->lineEdit()->setPlaceholderText(tr("the system's CAs"));
    m_redisSni->setPlaceholderText(tr("the host of the URL"));
    m_redisSni->setToolTip(tr("Sent as SNI and checked in the certificate instead of the host connected to"));
    m_verify->addItem(tr("full: the chain and the host name or IP (recommended)"), QStringLiteral("full"));
    m_verify->addItem(tr("ca: the chain only (nodes announced by IP, certificates naming hosts)"), QStringLiteral("ca"));
    m_verify->addItem(tr("none: nothing is checked (insecure)"), QStringLiteral("none"));
    m_verifyWarning->setWordWrap(true);
    m_verifyWarning->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(ConsoleTheme::warningText()));
    m_verifyWarning->setText(tr("Nothing is checked: anyone on the path can read and change the traffic, passwords included. "
                                "The console says so wherever this connection is used."));

    auto *redisForm = new QFormLayout;
    redisForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    redisForm->addRow(m_redisTls);
    redisForm->addRow(tr("CA file"), m_redisCa);
    redisForm->addRow(tr("Client certificate"), m_redisCert);
    redisForm->addRow(tr("Client key"), m_redisKey);
    redisForm->addRow(tr("Server name (SNI)"), m_redisSni);
    redisForm->addRow(tr("Verify"), m_verify);
    redisForm->addRow(m_verifyWarning);
    auto *redisBox = new QGroupBox(tr("Redis"), this);
    redisBox->setLayout(redisForm);

    auto *dbForm = new QFormLayout;
    dbForm->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    dbForm->addRow(tr("CA file"), m_dbCa);
    dbForm->addRow(tr("Client certificate"), m_dbCert);
    dbForm->addRow(tr("Client key"), m_dbKey);
    dbForm->addRow(ConsoleTheme::hintLabel(tr("A CA file turns TLS on. Qt 6.4's MySQL driver checks that the server's certificate chain leads to "
                                "this CA, not that it names the host: use a CA that signs database servers only."),
                             this));
    auto *dbBox = new QGroupBox(tr("MySQL / MariaDB"), this);
    dbBox->setLayout(dbForm);

    // Side by side: the tab is no taller than the Servers tab, so the test report stays on screen.
    auto *layout = new QHBoxLayout(this);
    layout->addWidget(redisBox, 3);
    layout->addWidget(dbBox, 2);
    dbForm->setRowWrapPolicy(QFormLayout::DontWrapRows);

    connect(m_redisTls, &QCheckBox::toggled, this, &ProfileTlsFields::updateRedisFields);
    connect(m_redisTls, &QCheckBox::clicked, this, &ProfileTlsFields::redisTlsToggled);
    connect(m_verify, &QComboBox::currentIndexChanged, this, &ProfileTlsFields::updateRedisFields);
    updateRedisFields();
}

void ProfileTlsFields::fill(const ConnectionProfile &profile, bool redisTls)
{
    m_redisTls->setChecked(redisTls);
    m_redisCa->setText(profile.redisCa);
    m_redisCert->setText(profile.redisCert);
    m_redisKey->setText(profile.redisKey);
    m_redisSni->setText(profile.redisSni);
    m_verify->setCurrentIndex(std::max(0, m_verify->findData(profile.redisVerify)));
    m_dbCa->setText(profile.dbCa);
    m_dbCert->setText(profile.dbCert);
    m_dbKey->setText(profile.dbKey);
    updateRedisFields();
}

void ProfileTlsFields::apply(ConnectionProfile &profile) const
{
    // Files without rediss:// would be refused: they count only while TLS is on.
    const bool on = m_redisTls->isChecked();
    profile.redisCa = on ? m_redisCa->text() : QString();
    profile.redisCert = on ? m_redisCert->text() : QString();
    profile.redisKey = on ? m_redisKey->text() : QString();
    profile.redisSni = on ? m_redisSni->text().trimmed() : QString();
    profile.redisVerify = on ? m_verify->currentData().toString() : QStringLiteral("full");
    profile.dbCa = m_dbCa->text();
    profile.dbCert = m_dbCert->text();
    profile.dbKey = m_dbKey->text();
}

void ProfileTlsFields::showRedisTls(bool on)
{
    m_redisTls->setChecked(on);
}

bool ProfileTlsFields::redisTls() const
{
    return m_redisTls->isChecked();
}

void ProfileTlsFields::updateRedisFields()
{
    const bool on = m_redisTls->isChecked();
    for (QWidget *field : {static_cast<QWidget *>(m_redisCa), static_cast<QWidget *>(m_redisCert), static_cast<QWidget *>(m_redisKey),
                           static_cast<QWidget *>(m_redisSni), static_cast<QWidget *>(m_verify)})
        field->setEnabled(on);
    m_verifyWarning->setVisible(on && m_verify->currentData().toString() == QLatin1String("none"));
}

} // namespace lantern::ui
