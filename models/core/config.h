#pragma once

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

enum class StreakPolicy {
    Monthly,  // the count restarts on the 1st (the seeds' rule)
    Rolling,  // streaks cross month boundaries
};

/** The check-in rules of DESIGN §4, all configurable. */
struct CheckinRules {
    StreakPolicy streakPolicy = StreakPolicy::Monthly;
    QList<int> rewards{10, 20, 30, 50};  // points for day 1, 2, 3, 4+ of a streak
    int makeupWindowDays = 0;            // 0: any past day of the current month; N: the last N days
    int makeupQuota = 3;                 // make-ups per calendar month of the made-up day
    bool makeupGrantsPoints = false;     // a make-up restores the streak but grants nothing
};

/** A token bucket's shape for one API endpoint: `perSecond` tokens refill every second, up to
    `burst`. perSecond 0 means unlimited. */
struct RateLimit {
    int perSecond = 0;
    int burst = 0;
    bool unlimited() const { return perSecond == 0; }
};

/** The HTTP API's limits (DESIGN §5 settings rate-checkin, rate-calendar, rate-grab, rate-campaign:
    "R" or "R/B" requests per second and burst; 0 = unlimited, the default). */
struct ApiLimits {
    RateLimit checkin;
    RateLimit calendar;
    RateLimit grab;
    RateLimit campaign;
};

/** `grab-wait` "N/MS": after each grab's write, WAIT until N replicas have it or MS pass, before
    answering (docs/cluster.md "Acknowledged grabs and failover"). Off (0) by default. */
struct GrabWait {
    int replicas = 0;
    int timeoutMs = 0;
    bool enabled() const { return replicas > 0; }
};

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
