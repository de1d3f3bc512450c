#pragma once

#include "console/connections/connectionprofile.h"

#include <QGroupBox>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QTabWidget;

namespace lantern::ui {

class ProfileSentinelFields;
class ProfileSshFields;
class ProfileTlsFields;

/** The Connections view's profile form: on its Servers tab name, Redis and SQL URLs with their
    passwords, key prefix, time zone, read-only; a TLS tab and a Sentinel tab (which edit the
    Redis URL's scheme, sentinels and master name with it); an SSH tunnel tab; and a note on where the passwords
    are kept. It only edits: saving, testing and switching are the view's. */
class ConnectionProfileForm final : public QGroupBox {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionProfileForm)

public:
    explicit ConnectionProfileForm(QWidget *parent = nullptr);

    /** Shows `profile`, with empty password fields. */
    void fill(const ConnectionProfile &profile);
    /** The profile as typed, passwords taken out of the URLs. */
    ConnectionProfile profile() const;
    /** The passwords: a field, or else the password typed into its URL. */
    ProfileSecret secret() const;
    /** Shows the URLs without passwords and the passwords in their fields (after a save). */
    void showSaved(const ConnectionProfile &profile, const ProfileSecret &secret);
    /** The passwords are being read from the keychain: their fields wait. */
    void showPasswordsPending();
    /** The passwords arrived (or the form is new): the fields are editable again. */
    void showPasswords(const ProfileSecret &secret);
    /** Where passwords are kept: the keychain, or memory only (`problem`: why, as a tooltip). */
    void showKeychainNote(bool inMemory, const QString &problem);
    QString name() const;
    void focusName();
    int fieldHeight() const;

    QLabel *keychainLabel() const { return m_keychainNote; }
    QLineEdit *nameField() const { return m_name; }
    QLineEdit *redisUrlField() const { return m_redisUrl; }
    QLineEdit *redisPasswordField() const { return m_redisPassword; }
    QLineEdit *dbUrlField() const { return m_dbUrl; }
    QLineEdit *dbPasswordField() const { return m_dbPassword; }
    QCheckBox *readOnlyBox() const { return m_readOnly; }
    QTabWidget *tabs() const { return m_tabs; }
    ProfileTlsFields *tlsFields() const { return m_tls; }
    ProfileSentinelFields *sentinelFields() const { return m_sentinel; }
    ProfileSshFields *sshFields() const { return m_ssh; }

private:
    QWidget *buildServersTab();
    /** The Redis URL typed: the TLS switch and the Sentinel fields follow it. */
    void onRedisUrlEdited(const QString &url);
    /** The TLS switch or a Sentinel field changed: the URL follows them. */
    void rewriteRedisUrl();
    QList<QLineEdit *> passwordFields() const;

    QLineEdit *m_name;
    QLineEdit *m_redisUrl;
    QLineEdit *m_redisPassword;
    QLineEdit *m_dbUrl;
    QLineEdit *m_dbPassword;
    QLineEdit *m_prefix;
    QComboBox *m_timeZone;
    QCheckBox *m_readOnly;
    QLabel *m_keychainNote;
    QTabWidget *m_tabs;
    ProfileTlsFields *m_tls;
    ProfileSentinelFields *m_sentinel;
    ProfileSshFields *m_ssh;
};

} // namespace lantern::ui
