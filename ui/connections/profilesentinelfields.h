#pragma once

#include "console/connections/connectionprofile.h"
#include "console/connections/redisurlparts.h"

#include <QWidget>

class QCheckBox;
class QLineEdit;

namespace lantern::ui {

/** The profile form's Sentinel tab: whether the master is found through Redis Sentinel, the
    sentinels (host:port, ...), the master's name, and the sentinels' own user and password (the
    password goes to the keychain with the others). The sentinels and the name are the URL's
    (redis-sentinel://...#MASTER): the form keeps both in step. */
class ProfileSentinelFields final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileSentinelFields)

public:
    explicit ProfileSentinelFields(QWidget *parent = nullptr);

    /** Shows the URL's sentinel part, without signalling. */
    void showUrl(const RedisUrlParts &url);
    /** Writes the switch, the sentinels and the name into `url`; the previous hosts come back
        when the switch goes off. */
    void applyTo(RedisUrlParts &url) const;
    void fill(const ConnectionProfile &profile);
    void apply(ConnectionProfile &profile) const;
    QString password() const;
    void setPassword(const QString &password);
    QLineEdit *passwordField() const { return m_password; }
    QCheckBox *sentinelBox() const { return m_enabled; }
    QLineEdit *sentinelsField() const { return m_sentinels; }
    QLineEdit *masterField() const { return m_master; }
    QLineEdit *userField() const { return m_user; }

Q_SIGNALS:
    /** The switch, the sentinels or the master's name changed by the operator. */
    void urlEdited();

private:
    void updateFields();

    QCheckBox *m_enabled;
    QLineEdit *m_sentinels;
    QLineEdit *m_master;
    QLineEdit *m_user;
    QLineEdit *m_password;
    QString m_plainHosts;  // the URL's hosts before the switch went on
};

} // namespace lantern::ui
