#include "connections/profilesentinelfields.h"

#include "common/consoletheme.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace lantern::ui {

ProfileSentinelFields::ProfileSentinelFields(QWidget *parent)
    : QWidget(parent),
      m_enabled(new QCheckBox(tr("Find the master through Redis Sentinel"), this)),
      m_sentinels(new QLineEdit(this)),
      m_master(new QLineEdit(this)),
      m_user(new QLineEdit(this)),
      m_password(new QLineEdit(this))
{
    m_enabled->setToolTip(tr("Every connection asks the sentinels for the master, so the console follows a failover by itself"));
    m_sentinels->setPlaceholderText(QStringLiteral("sentinel1:26379,sentinel2:26379,sentinel3:26379"));
    m_master->setPlaceholderText(tr("e.g. mymaster"));
    m_user->setPlaceholderText(tr("none"));
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(tr("none"));
    m_password->setClearButtonEnabled(true);
    QLabel *note = ConsoleTheme::hintLabel(tr("The user and password on the Servers tab are the master's; these are the sentinels' own, "
                               "when they ask for one (requirepass or an ACL user on the sentinels)."),
                            this);

    auto *form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(m_enabled);
    form->addRow(tr("Sentinels"), m_sentinels);
    form->addRow(tr("Master name"), m_master);
    form->addRow(tr("Sentinel user"), m_user);
    form->addRow(tr("Sentinel password"), m_password);
    form->addRow(note);

    connect(m_enabled, &QCheckBox::toggled, this, &ProfileSentinelFields::updateFields);
    connect(m_enabled, &QCheckBox::clicked, this, &ProfileSentinelFields::urlEdited);
    connect(m_sentinels, &QLineEdit::textEdited, this, &ProfileSentinelFields::urlEdited);
    connect(m_master, &QLineEdit::textEdited, this, &ProfileSentinelFields::urlEdited);
    updateFields();
}

void ProfileSentinelFields::showUrl(const RedisUrlParts &url)
{
    const QSignalBlocker blocker(m_enabled);
    m_enabled->setChecked(url.sentinel);
    if (url.sentinel) {
        m_sentinels->setText(url.hosts);
        m_master->setText(url.master);
    } else {
        m_plainHosts = url.hosts;
    }
    updateFields();
}

void ProfileSentinelFields::applyTo(RedisUrlParts &url) const
{
    url.sentinel = m_enabled->isChecked();
    url.hosts = url.sentinel ? m_sentinels->text().trimmed() : m_plainHosts;
    url.master = url.sentinel ? m_master->text().trimmed() : QString();
}

void ProfileSentinelFields::fill(const ConnectionProfile &profile)
{
    m_user->setText(profile.sentinelUser);
    showUrl(RedisUrlParts::split(profile.redisUrl));
}

void ProfileSentinelFields::apply(ConnectionProfile &profile) const
{
    profile.sentinelUser = m_enabled->isChecked() ? m_user->text().trimmed() : QString();
}

QString ProfileSentinelFields::password() const
{
    return m_enabled->isChecked() ? m_password->text() : QString();
}

void ProfileSentinelFields::setPassword(const QString &password)
{
    m_password->setText(password);
}

void ProfileSentinelFields::updateFields()
{
    for (QLineEdit *field : {m_sentinels, m_master, m_user, m_password})
        field->setEnabled(m_enabled->isChecked());
}

} // namespace lantern::ui
