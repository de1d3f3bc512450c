#pragma once

#include "api/apilimits.h"
#include "checkin/checkinrules.h"
#include "envelope/grabwait.h"
#include "redis/redisurl.h"
#include "sql/dburl.h"
#include "tunnel/sshoptions.h"

#include <QCoreApplication>
#include <QDate>
#include <QHash>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QTimeZone>

#include <optional>

namespace lantern {

/** Everything a command needs to know about its environment (DESIGN §5).
    Resolution order for every setting: command-line flag, a systemd credential named after it
    ($CREDENTIALS_DIRECTORY/<name>, LoadCredential=), environment (LANTERN_*), the profile file
    (--profile NAME or --config FILE), the built-in default. */
struct Config {
    Q_DECLARE_TR_FUNCTIONS(lantern::Config)

public:
    RedisUrl redis;
    DbUrl db;
    QTimeZone timeZone = QTimeZone::systemTimeZone();
    std::optional<QDate> todayOverride;  // --today / LANTERN_TODAY
    QString keyPrefix = QStringLiteral("lt:");
    int shards = 16;
    CheckinRules checkin;
    QString tokenSalt = QStringLiteral("lantern");
    QString tokenSecret;  // never written to disk by Lantern
    ApiLimits api;
    GrabWait grabWait;
    bool readOnly = false;  // read-only: connections refuse every write (RedisOptions, SqlAccess)
    QString profile;        // the --profile NAME the settings came from; empty: none
    SshOptions ssh;         // the console's SSH tunnel (a profile's); lanternd has none

    /** The business day: the override, or the current date in the configured time zone. */
    QDate today() const;

    /** Setting names accepted as flags (--name value) and as LANTERN_NAME variables. */
    static QStringList settingNames();
    /** Throws InvalidInputError for any malformed value, naming its source. */
    static Config resolve(const QHash<QString, QString> &flags,
                          const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment());
};

/** Strict YYYY-MM-DD; throws InvalidInputError for malformed or impossible dates, naming the
    input as `what` (already translated; empty: "date"). */
QDate parseDate(const QString &text, const QString &what = {});
/** Strict YYYY-MM, returned as the month's first day. */
QDate parseMonth(const QString &text);
/** A positive decimal uid (1..2^63-1); throws InvalidInputError otherwise. */
qint64 parseUid(const QString &text);

} // namespace lantern
