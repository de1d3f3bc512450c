#include "checkincommands.h"

#include "api/resultjson.h"
#include "audit/auditlog.h"
#include "checkin/auditedcheckin.h"
#include "checkin/checkinservice.h"
#include "checkin/checkinstore.h"
#include "checkin/layoutmigration.h"
#include "checkin/monthstats.h"
#include "checkin/reconciler.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <cstdio>

namespace lantern::cli {

int runCheckin(CommandContext &context)
{
    const qint64 uid = context.user();
    const QDate today = context.today();
    const QDate day = context.line().has(QStringLiteral("date")) ? parseDate(context.line().value(QStringLiteral("date"))) : today;
    CheckinService::validateCheckin(day, today);

    if (day == today) {  // the hot path: Redis only
        CheckinService service(context.redis(), context.keys(), context.config().checkin);
        printJson(checkinOutcomeJson(service.checkin(uid, day, today, context.nowMs())));
        return 0;
    }
    // A back-dated check-in is an operator replaying a lost one: audited like a make-up.
    AuditedCheckin audited(context.redis(), context.sql(), context.keys(), context.config().checkin);
    const CheckinOutcome outcome = audited.backdatedCheckin(uid, day, today, context.actor(), context.nowMs(), QStringLiteral("cli"));
    printJson(checkinOutcomeJson(outcome));
    return 0;
}

int runMakeup(CommandContext &context)
{
    MakeupRequest request;
    request.uid = context.user();
    request.date = parseDate(context.line().required(QStringLiteral("date")));
    request.reason = context.line().required(QStringLiteral("reason"));
    // An operator's own account names itself (issue 25); a shared account says who is at it.
    request.operatorName = context.identity().role ? context.actor() : context.line().required(QStringLiteral("operator"));
    const QDate today = context.today();
    CheckinService::validateMakeup(request, today, context.config().checkin);

    // SQL before Redis (the audit row must be writable first), then one audited action.
    SqlConnection &sql = context.sql();
    AuditedCheckin audited(context.redis(), sql, context.keys(), context.config().checkin);
    const CheckinOutcome outcome = audited.makeup(request, today, context.nowMs(), QStringLiteral("cli"));
    printJson(checkinOutcomeJson(outcome));
    return 0;
}

int runCalendar(CommandContext &context)
{
    const qint64 uid = context.user();
    const QDate month = context.line().has(QStringLiteral("month")) ? parseMonth(context.line().value(QStringLiteral("month")))
                                                                    : QDate(context.today().year(), context.today().month(), 1);
    const qint64 balance = CheckinStore(context.sql()).pointsBalance(uid);
    CheckinService service(context.redis(), context.keys(), context.config().checkin);
    const CalendarMonth calendar = service.calendar(uid, month, context.today());
    printJson(calendarJson(calendar, balance));
    return 0;
}

int runReconcile(CommandContext &context)
{
    const QDate day = parseDate(context.line().required(QStringLiteral("date")));
    if (day > context.today())
        throw InvalidInputError(QCoreApplication::translate("lantern::cli::Commands", "cannot reconcile %1: it is after today")
                                        .arg(day.toString(Qt::ISODate)));
    SqlConnection &sql = context.sql();
    Reconciler reconciler(context.redis(), sql, context.keys(), context.config().checkin);
    const ReconcileReport report = reconciler.reconcile(day, context.nowMs());
    if (report.backfilled > 0) {
        AuditLog(sql).record(context.actor(), QStringLiteral("checkin.reconcile"), day.toString(Qt::ISODate),
                             {{QStringLiteral("missing"), report.missing}, {QStringLiteral("backfilled"), report.backfilled}},
                             context.nowMs());
    }
    printJson({{QStringLiteral("date"), day.toString(Qt::ISODate)},
               {QStringLiteral("redis_count"), report.redisCount},
               {QStringLiteral("db_count"), report.dbCount},
               {QStringLiteral("missing"), report.missing},
               {QStringLiteral("backfilled"), report.backfilled}});
    return 0;
}

int runMigrateRedis(CommandContext &context)
{
    const bool dryRun = context.line().switches.contains(QStringLiteral("dry-run"));
    const int scanCount = static_cast<int>(context.line().integer(QStringLiteral("scan-count"), 10, 100'000, 1000));
    LayoutMigration migration(context.redis(), context.keys(), scanCount);
    const LayoutMigrationReport report = migration.run(dryRun, [](const LayoutMigrationReport &progress) {
        const QString line = QCoreApplication::translate("lantern::cli::Commands",
                                                         "migrate-redis: %1 user-months found, %2 moved; %3 day sets found, %4 removed\n")
                                     .arg(progress.scanned)
                                     .arg(progress.migrated)
                                     .arg(progress.daySets)
                                     .arg(progress.daySetsRemoved);
        std::fputs(line.toLocal8Bit().constData(), stderr);
    });
    printJson({{QStringLiteral("dry_run"), report.dryRun},
               {QStringLiteral("user_months"), report.scanned},
               {QStringLiteral("migrated"), report.migrated},
               {QStringLiteral("day_sets"), report.daySets},
               {QStringLiteral("day_sets_removed"), report.daySetsRemoved}});
    return 0;
}

int runStats(CommandContext &context)
{
    const QDate today = context.today();
    const QDate month = context.line().has(QStringLiteral("month")) ? parseMonth(context.line().value(QStringLiteral("month")))
                                                                    : QDate(today.year(), today.month(), 1);
    const MonthStats stats = MonthStatsReader(context.redis(), context.keys()).read(month, today);
    QJsonArray days;
    for (const DayStats &day : stats.days)
        days.append(QJsonObject{{QStringLiteral("date"), day.date.toString(Qt::ISODate)},
                                {QStringLiteral("checked_in"), day.checkedIn},
                                {QStringLiteral("makeups"), day.makeups}});
    printJson({{QStringLiteral("month"), stats.month.toString(u"yyyy-MM")},
               {QStringLiteral("days"), days},
               {QStringLiteral("active_users"), stats.activeUsers},
               {QStringLiteral("every_day_users"), stats.everyDayUsers}});
    return 0;
}

} // namespace lantern::cli
