#pragma once

#include "console/connections/connectionprofile.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace lantern::ui {

class FilePathField;

/** The profile form's TLS tab: Redis over TLS (the switch that makes the URL rediss://, CA,
    client certificate and key, SNI, the verify mode with `none` shown as a warning) and TLS to
    MySQL/MariaDB (CA, certificate, key) with the sentence that its host name is not checked. */
class ProfileTlsFields final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileTlsFields)

public:
    explicit ProfileTlsFields(QWidget *parent = nullptr);

    /** Shows the profile's TLS settings; `redisTls`: whether its URL is rediss://. */
    void fill(const ConnectionProfile &profile, bool redisTls);
    /** Writes the fields into `profile` (not the URL: the form owns it). */
    void apply(ConnectionProfile &profile) const;
    /** The URL's scheme changed by hand: the switch follows, without signalling. */
    void showRedisTls(bool on);
    bool redisTls() const;

    QCheckBox *redisTlsBox() const { return m_redisTls; }
    QComboBox *verifyBox() const { return m_verify; }
    QLabel *verifyWarning() const { return m_verifyWarning; }
    FilePathField *redisCaField() const { return m_redisCa; }
    FilePathField *dbCaField() const { return m_dbCa; }

Q_SIGNALS:
    /** The operator switched Redis TLS on or off. */
    void redisTlsToggled(bool on);

private:
    void updateRedisFields();

    QCheckBox *m_redisTls;
    FilePathField *m_redisCa;
    FilePathField *m_redisCert;
    FilePathField *m_redisKey;
    QLineEdit *m_redisSni;
    QComboBox *m_verify;
    QLabel *m_verifyWarning;
    FilePathField *m_dbCa;
    FilePathField *m_dbCert;
    FilePathField *m_dbKey;
};

} // namespace lantern::ui
