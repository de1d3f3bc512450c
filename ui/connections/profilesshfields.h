#pragma once

#include "console/connections/connectionprofile.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace lantern::ui {

class FilePathField;

/** The profile form's SSH tunnel tab: whether the servers are reached through an SSH server (a
    bastion host), its host, port and user, and the login: the SSH agent, a key file with its
    passphrase, or a password (both secrets go to the keychain). The server's host key is checked
    against ~/.ssh/known_hosts: the console asks on first use and refuses a changed key. */
class ProfileSshFields final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileSshFields)

public:
    explicit ProfileSshFields(QWidget *parent = nullptr);

    void fill(const ConnectionProfile &profile);
    void apply(ConnectionProfile &profile) const;
    /** The passphrase or password, while the tunnel is on and its login needs one. */
    QString secret() const;
    void setSecret(const QString &secret);
    /** The secret's field may be enabled now (it waited for the keychain). */
    void updateFields();

    QCheckBox *tunnelBox() const { return m_enabled; }
    QLineEdit *hostField() const { return m_host; }
    QSpinBox *portField() const { return m_port; }
    QLineEdit *userField() const { return m_user; }
    QComboBox *authBox() const { return m_auth; }
    FilePathField *keyField() const { return m_key; }
    QLineEdit *secretField() const { return m_secret; }

private:
    QFormLayout *m_form = nullptr;
    QCheckBox *m_enabled;
    QLineEdit *m_host;
    QSpinBox *m_port;
    QLineEdit *m_user;
    QComboBox *m_auth;
    FilePathField *m_key;
    QLabel *m_secretLabel;
    QLineEdit *m_secret;
};

} // namespace lantern::ui
