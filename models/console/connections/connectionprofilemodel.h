#pragma once

#include "console/connections/connectionprofile.h"

#include <QAbstractListModel>
#include <QList>

namespace lantern {

/** The saved connection profiles, by name, marking the one in use: first line the name (and
    "in use" / "read-only"), then the Redis and the SQL server, one line each. */
class ConnectionProfileModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionProfileModel)

public:
    enum Role {
        NameRole = Qt::UserRole + 1,  // QString
        ReadOnlyRole,                 // bool
        ActiveRole,                   // bool: the profile in use
    };

    explicit ConnectionProfileModel(QObject *parent = nullptr);

    void setProfiles(const QList<ConnectionProfile> &profiles);
    const QList<ConnectionProfile> &profiles() const { return m_profiles; }
    /** The row of profile `name`, or -1. */
    int rowOf(const QString &name) const;
    const ConnectionProfile &profileAt(int row) const { return m_profiles.at(row); }
    /** Marks `name` as the profile in use (empty: none). */
    void setActiveName(const QString &name);
    const QString &activeName() const { return m_active; }

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    QList<ConnectionProfile> m_profiles;
    QString m_active;
};

} // namespace lantern
