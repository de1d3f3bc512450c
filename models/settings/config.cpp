#include "settings/config.h"

#include "core/errors.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>

namespace lantern {

namespace {

QString envName(const QString &setting)
{
    return QStringLiteral("LANTERN_") + setting.toUpper().replace(QLatin1Char('-'), QLatin1Char('_'));
}

int parseInt(const QString &text, const QString &what, int min, int max)
{
    bool ok = false;
    const int value = text.trimmed().toInt(&ok);
    if (!ok || value < min || value > max)
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid %1 '%2': expected a whole number from %3 to %4")
                                        .arg(what, text)
                                        .arg(min)
                                        .arg(max));
    return value;
}

bool parseBool(const QString &text, const QString &what)
{
    const QString value = text.trimmed().toLower();
    if (value == QLatin1String("1") || value == QLatin1String("true") || value == QLatin1String("yes"))
        return true;
    if (value == QLatin1String("0") || value == QLatin1String("false") || value == QLatin1String("no"))
        return false;
    throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid %1 '%2': expected true or false").arg(what, text));
}

QList<int> parseRewards(const QString &text)
{
    QList<int> rewards;
    for (const QString &part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok || value < 0 || value > 1000000)
            throw InvalidInputError(
                    QCoreApplication::translate("lantern::Config", "invalid reward table '%1': expected comma-separated points such as 10,20,30,50")
                            .arg(text));
        rewards << value;
    }
    if (rewards.isEmpty() || rewards.size() > 31)
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid reward table '%1': expected 1 to 31 entries").arg(text));
    return rewards;
}

/** A setting's value from a systemd credential ($CREDENTIALS_DIRECTORY/<name>, LoadCredential=):
    the file's text without its final line break; nothing when there is no such file. */
std::optional<QString> credential(const QString &name, const QProcessEnvironment &environment)
{
    const QString directory = environment.value(QStringLiteral("CREDENTIALS_DIRECTORY"));
    if (directory.isEmpty())
        return std::nullopt;
    QFile file(directory + QLatin1Char('/') + name);
    if (!file.exists())
        return std::nullopt;
    if (!file.open(QIODevice::ReadOnly))
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "cannot read credential %1: %2").arg(file.fileName(), file.errorString()));
    QByteArray value = file.readAll();
    if (value.endsWith('\n'))
        value.chop(value.endsWith("\r\n") ? 2 : 1);
    return QString::fromUtf8(value);
}

QString defaultSqlitePath()
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + QStringLiteral("/.local/share");
    return dir + QStringLiteral("/lantern/lantern.db");
}

/** Settings from a profile: --config FILE, or --profile NAME under the user's config dir. */
QHash<QString, QString> profileSettings(const QHash<QString, QString> &flags, const QProcessEnvironment &environment)
{
    QString file = flags.value(QStringLiteral("config"), environment.value(QStringLiteral("LANTERN_CONFIG")));
    const QString profile = flags.value(QStringLiteral("profile"), environment.value(QStringLiteral("LANTERN_PROFILE")));
    if (file.isEmpty() && !profile.isEmpty()) {
        static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
        if (!validName.match(profile).hasMatch())
            throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid profile name '%1'").arg(profile));
        file = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + QStringLiteral("/lantern/profiles/")
                + profile + QStringLiteral(".conf");
    }
    QHash<QString, QString> values;
    if (file.isEmpty())
        return values;
    if (!QFile::exists(file))
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "configuration file %1 does not exist").arg(file));
    QSettings settings(file, QSettings::IniFormat);
    for (const QString &key : settings.allKeys()) {
        // The console's Connections view opens an SSH tunnel itself; a command cannot (docs/connect.md).
        if (key == QLatin1String("ssh-host"))
            throw InvalidInputError(QCoreApplication::translate("lantern::Config", "%1 reaches its servers through an SSH tunnel, which only "
                                                                                     "the console's Connections view opens: run this where the "
                                                                                     "servers are reached directly, or open the profile there")
                                            .arg(file));
        if (key.startsWith(QLatin1String("ssh-")))
            continue;
        if (!Config::settingNames().contains(key))
            throw InvalidInputError(QCoreApplication::translate("lantern::Config", "unknown setting '%1' in %2").arg(key, file));
        values.insert(key, settings.value(key).toString());
    }
    return values;
}

/** "R" or "R/B": R requests per second (0 = unlimited, else 1..10000000), burst B (1..10000000,
    default R). */
RateLimit parseRateLimit(const QString &text, const QString &source)
{
    static const QRegularExpression shape(QStringLiteral("^(\\d{1,8})(?:/(\\d{1,8}))?$"));
    const QRegularExpressionMatch match = shape.match(text);
    const auto invalid = [&] {
        return InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid rate limit '%1' in %2: expected R or R/B "
                                                                                 "(requests per second and burst, 0 for unlimited)")
                                         .arg(text, source));
    };
    if (!match.hasMatch())
        throw invalid();
    RateLimit limit;
    limit.perSecond = match.captured(1).toInt();
    limit.burst = match.captured(2).isEmpty() ? limit.perSecond : match.captured(2).toInt();
    if (limit.perSecond > 10'000'000 || limit.burst > 10'000'000 || (limit.perSecond > 0 && limit.burst < 1))
        throw invalid();
    return limit;
}

/** Each setting given, as it is, into its field. */
template<typename Setting>
void readTexts(const Setting &setting, std::initializer_list<std::pair<const char *, QString *>> fields)
{
    for (const auto &[name, value] : fields) {
        if (const auto text = setting(QLatin1String(name)))
            *value = *text;
    }
}

/** --redis-ca, --redis-cert, --redis-key, --redis-sni, --redis-verify (docs/connect.md). */
template<typename Setting>
void resolveRedisTls(RedisTlsOptions &tls, const Setting &setting, const QHash<QString, QString> &sources)
{
    readTexts(setting, {{"redis-ca", &tls.caFile}, {"redis-cert", &tls.certFile}, {"redis-key", &tls.keyFile}, {"redis-sni", &tls.serverName}});
    if (const auto verify = setting(QStringLiteral("redis-verify")))
        tls.verify = RedisTlsOptions::parseVerify(*verify, sources.value(QStringLiteral("redis-verify")));
    tls.check();
}

} // namespace

QStringList Config::settingNames()
{
    return {QStringLiteral("redis"),         QStringLiteral("db"),
            QStringLiteral("today"),         QStringLiteral("tz"),
            QStringLiteral("prefix"),        QStringLiteral("shards"),
            QStringLiteral("streak-policy"), QStringLiteral("rewards"),
            QStringLiteral("makeup-window-days"), QStringLiteral("makeup-quota"),
            QStringLiteral("makeup-points"), QStringLiteral("token-salt"),
            QStringLiteral("token-secret"),  QStringLiteral("rate-checkin"),
            QStringLiteral("rate-calendar"), QStringLiteral("rate-grab"),
            QStringLiteral("rate-campaign"), QStringLiteral("read-only"),
            QStringLiteral("grab-wait"),     QStringLiteral("redis-ca"),
            QStringLiteral("redis-cert"),    QStringLiteral("redis-key"),
            QStringLiteral("redis-sni"),     QStringLiteral("redis-verify"),
            QStringLiteral("db-ca"),         QStringLiteral("db-cert"),
            QStringLiteral("db-key"),        QStringLiteral("sentinel-user"),
            QStringLiteral("sentinel-password")};
}

Config Config::resolve(const QHash<QString, QString> &flags, const QProcessEnvironment &environment)
{
    const QHash<QString, QString> profile = profileSettings(flags, environment);
    QHash<QString, QString> sources;  // setting -> where its value came from, for messages
    const auto setting = [&](const QString &name) -> std::optional<QString> {
        if (flags.contains(name)) {
            sources.insert(name, QStringLiteral("--") + name);
            return flags.value(name);
        }
        if (const auto value = credential(name, environment)) {
            sources.insert(name, tr("credential %1").arg(name));
            return value;
        }
        if (environment.contains(envName(name))) {
            sources.insert(name, envName(name));
            return environment.value(envName(name));
        }
        if (profile.contains(name)) {
            sources.insert(name, tr("%1 in the profile").arg(name));
            return profile.value(name);
        }
        return std::nullopt;
    };

    Config config;
    config.redis = RedisUrl::parse(setting(QStringLiteral("redis")).value_or(QStringLiteral("redis://127.0.0.1:6379")));
    resolveRedisTls(config.redis.tls, setting, sources);
    readTexts(setting, {{"sentinel-user", &config.redis.sentinelUser}, {"sentinel-password", &config.redis.sentinelPassword}});
    if (!config.redis.isSentinel() && (!config.redis.sentinelUser.isEmpty() || !config.redis.sentinelPassword.isEmpty()))
        throw InvalidInputError(tr("--sentinel-user and --sentinel-password are for a redis-sentinel:// URL"));
    config.db = DbUrl::parse(setting(QStringLiteral("db")).value_or(QStringLiteral("sqlite://") + defaultSqlitePath()));
    readTexts(setting, {{"db-ca", &config.db.tls.caFile}, {"db-cert", &config.db.tls.certFile}, {"db-key", &config.db.tls.keyFile}});
    config.db.checkTls();
    if (const auto tz = setting(QStringLiteral("tz"))) {
        config.timeZone = QTimeZone(tz->toUtf8());
        if (!config.timeZone.isValid())
            throw InvalidInputError(tr("unknown time zone '%1': expected an IANA name such as Asia/Shanghai").arg(*tz));
    }
    if (const auto today = setting(QStringLiteral("today")))
        config.todayOverride = parseDate(*today, sources.value(QStringLiteral("today")));
    if (const auto prefix = setting(QStringLiteral("prefix")))
        config.keyPrefix = *prefix;
    if (const auto shards = setting(QStringLiteral("shards")))
        config.shards = parseInt(*shards, tr("shard count"), 1, 16384);
    if (const auto policy = setting(QStringLiteral("streak-policy"))) {
        if (*policy == QLatin1String("monthly"))
            config.checkin.streakPolicy = StreakPolicy::Monthly;
        else if (*policy == QLatin1String("rolling"))
            config.checkin.streakPolicy = StreakPolicy::Rolling;
        else
            throw InvalidInputError(tr("invalid streak policy '%1': expected monthly or rolling").arg(*policy));
    }
    if (const auto rewards = setting(QStringLiteral("rewards")))
        config.checkin.rewards = parseRewards(*rewards);
    if (const auto window = setting(QStringLiteral("makeup-window-days")))
        config.checkin.makeupWindowDays = parseInt(*window, tr("make-up window"), 0, 366);
    if (const auto quota = setting(QStringLiteral("makeup-quota")))
        config.checkin.makeupQuota = parseInt(*quota, tr("make-up quota"), 0, 31);
    if (const auto points = setting(QStringLiteral("makeup-points")))
        config.checkin.makeupGrantsPoints = parseBool(*points, tr("make-up points switch"));
    if (const auto salt = setting(QStringLiteral("token-salt")))
        config.tokenSalt = *salt;
    if (const auto secret = setting(QStringLiteral("token-secret")))
        config.tokenSecret = *secret;
    const std::pair<const char *, RateLimit *> rates[] = {{"rate-checkin", &config.api.checkin},
                                                          {"rate-calendar", &config.api.calendar},
                                                          {"rate-grab", &config.api.grab},
                                                          {"rate-campaign", &config.api.campaign}};
    for (const auto &[name, limit] : rates) {
        if (const auto text = setting(QLatin1String(name)))
            *limit = parseRateLimit(*text, sources.value(QLatin1String(name)));
    }
    if (const auto readOnly = setting(QStringLiteral("read-only")))
        config.readOnly = parseBool(*readOnly, tr("read-only switch"));
    if (const auto wait = setting(QStringLiteral("grab-wait"))) {
        const QStringList parts = wait->split(QLatin1Char('/'));
        if (parts.size() != 2)
            throw InvalidInputError(tr("invalid %1 '%2': expected REPLICAS/MILLISECONDS such as 1/50")
                                            .arg(sources.value(QStringLiteral("grab-wait")), *wait));
        config.grabWait.replicas = parseInt(parts[0], tr("replicas to wait for"), 1, 16);
        config.grabWait.timeoutMs = parseInt(parts[1], tr("wait for replicas, in milliseconds"), 1, 10000);
    }
    if (flags.value(QStringLiteral("config"), environment.value(QStringLiteral("LANTERN_CONFIG"))).isEmpty())
        config.profile = flags.value(QStringLiteral("profile"), environment.value(QStringLiteral("LANTERN_PROFILE")));
    return config;
}

QDate Config::today() const
{
    if (todayOverride)
        return *todayOverride;
    return QDateTime::currentDateTimeUtc().toTimeZone(timeZone).date();
}

QDate parseDate(const QString &text, const QString &what)
{
    static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    const QDate date = shape.match(text).hasMatch() ? QDate::fromString(text, u"yyyy-MM-dd") : QDate();
    if (!date.isValid() || date.year() < 2000 || date.year() > 2999)
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid %1 '%2': expected an existing day as YYYY-MM-DD")
                                        .arg(what.isEmpty() ? QCoreApplication::translate("lantern::Config", "date") : what, text));
    return date;
}

QDate parseMonth(const QString &text)
{
    static const QRegularExpression shape(QStringLiteral("^\\d{4}-\\d{2}$"));
    const QDate month = shape.match(text).hasMatch() ? QDate::fromString(text + QStringLiteral("-01"), u"yyyy-MM-dd") : QDate();
    if (!month.isValid() || month.year() < 2000 || month.year() > 2999)
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid month '%1': expected YYYY-MM").arg(text));
    return month;
}

qint64 parseUid(const QString &text)
{
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,19}$"));
    bool ok = false;
    const qint64 uid = digits.match(text).hasMatch() ? text.toLongLong(&ok) : 0;
    if (!ok || uid <= 0)
        throw InvalidInputError(QCoreApplication::translate("lantern::Config", "invalid uid '%1': expected a positive whole number").arg(text));
    return uid;
}

} // namespace lantern
