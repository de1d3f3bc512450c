#pragma once

#include "console/connections/connectionprofile.h"

#include <QCoreApplication>
#include <QList>
#include <QString>

namespace lantern {

/** Connection profiles as files `NAME.conf` (QSettings, INI) in one directory, by default the
    one `--profile NAME` reads (~/.config/lantern/profiles). A file holds the settings redis,
    db, prefix, tz and read-only, and when set the TLS settings (redis-ca, ..., db-key) and
    sentinel-user, never a password: URLs are stripped of theirs on save. */
class ProfileStore final {
    Q_DECLARE_TR_FUNCTIONS(lantern::ProfileStore)

public:
    explicit ProfileStore(QString directory = defaultDirectory());

    static QString defaultDirectory();
    const QString &directory() const { return m_directory; }
    QString fileOf(const QString &name) const;

    /** Every readable profile, sorted by name. */
    QList<ConnectionProfile> list() const;
    /** Writes `profile` (passwords stripped); throws InvalidInputError when it cannot. */
    void save(const ConnectionProfile &profile) const;
    /** Deletes the profile's file; false when there was none. */
    bool remove(const QString &name) const;

private:
    QString m_directory;
};

} // namespace lantern
