#include "console/connections/connectionprofilemodel.h"

#include <QUrl>

namespace lantern {

namespace {

/** "host:port" of a URL, or the SQLite file's name: short enough for a list. */
QString serverOf(const QString &url)
{
    const QUrl parsed(url);
    if (parsed.scheme() == QLatin1String("sqlite"))
        return QStringLiteral("sqlite:") + parsed.fileName();
    if (parsed.host().isEmpty())
        return url;
    return parsed.host() + (parsed.port() > 0 ? QLatin1Char(':') + QString::number(parsed.port()) : QString());
}

} // namespace

ConnectionProfileModel::ConnectionProfileModel(QObject *parent) : QAbstractListModel(parent) {}

void ConnectionProfileModel::setProfiles(const QList<ConnectionProfile> &profiles)
{
    beginResetModel();
    m_profiles = profiles;
    endResetModel();
}

int ConnectionProfileModel::rowOf(const QString &name) const
{
    for (qsizetype row = 0; row < m_profiles.size(); ++row) {
        if (m_profiles.at(row).name == name)
            return static_cast<int>(row);
    }
    return -1;
}

void ConnectionProfileModel::setActiveName(const QString &name)
{
    const int before = rowOf(m_active);
    m_active = name;
    for (const int row : {before, rowOf(name)}) {
        if (row >= 0)
            Q_EMIT dataChanged(index(row), index(row));
    }
}

int ConnectionProfileModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_profiles.size());
}

QVariant ConnectionProfileModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ConnectionProfile &profile = m_profiles.at(index.row());
    const bool active = !m_active.isEmpty() && profile.name == m_active;
    switch (role) {
    case Qt::DisplayRole: {
        QStringList marks;
        if (active)
            marks << tr("in use");
        if (profile.readOnly)
            marks << tr("read-only");
        const QString title = marks.isEmpty() ? profile.name : tr("%1 (%2)").arg(profile.name, marks.join(tr(", ")));
        return QString(title + QLatin1Char('\n') + serverOf(profile.redisUrl) + QLatin1Char('\n') + serverOf(profile.dbUrl));
    }
    case Qt::ToolTipRole:
        return tr("Redis: %1\nSQL: %2\nKey prefix: %3").arg(profile.redisUrl, profile.dbUrl, profile.keyPrefix);
    case NameRole:
        return profile.name;
    case ReadOnlyRole:
        return profile.readOnly;
    case ActiveRole:
        return active;
    default:
        return {};
    }
}

} // namespace lantern
