#include "accesscommands.h"

#include "access/accountname.h"
#include "access/redisaccounts.h"
#include "access/sqlaccounts.h"
#include "api/resultjson.h"
#include "audit/auditlog.h"
#include "commandcontext.h"
#include "core/errors.h"
#include "envelope/campaignapproval.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QProcessEnvironment>

#include <cstdio>
#include <limits>

namespace lantern::cli {

namespace {

struct AccessText {
    Q_DECLARE_TR_FUNCTIONS(AccessText)
};

access::Role roleOption(CommandContext &context)
{
    const QString name = context.line().required(QStringLiteral("role"));
    const auto role = access::Roles::fromName(name);
    if (!role)
        throw InvalidInputError(AccessText::tr("unknown --role '%1': expected viewer, support, manager, oncall, worker, api or admin").arg(name));
    return *role;
}

QString nameOption(CommandContext &context)
{
    return access::AccountName::validated(context.line().required(QStringLiteral("name")));
}

/** --password-file's first line, or a generated password (then `generated` is set). */
QByteArray passwordOption(CommandContext &context, bool *generated)
{
    *generated = !context.line().has(QStringLiteral("password-file"));
    if (*generated)
        return access::AccountName::generatedPassword();
    const QString path = context.line().value(QStringLiteral("password-file"));
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InvalidInputError(AccessText::tr("cannot read --password-file %1: %2").arg(path, file.errorString()));
    return access::AccountName::validatedPassword(file.readLine().trimmed());
}

void audit(CommandContext &context, const QString &action, const QString &name, const QJsonObject &detail)
{
    AuditLog(context.sql()).record(context.actor(), action, QStringLiteral("account:") + name, detail, context.nowMs());
}

/** The nodes a change of ACL users was written on, each with whether its aclfile has it, and a
    warning when some node could not save it. */
void addRedisOutcome(QJsonObject &json, const QList<access::RedisAclWrite> &written)
{
    QJsonArray nodes;
    qsizetype saved = 0;
    for (const access::RedisAclWrite &write : written) {
        nodes.append(QJsonObject{{QStringLiteral("node"), write.node.endpoint.text()},
                                 {QStringLiteral("role"), write.node.master ? QStringLiteral("master") : QStringLiteral("replica")},
                                 {QStringLiteral("acl_saved"), write.saved}});
        saved += write.saved ? 1 : 0;
    }
    json.insert(QStringLiteral("redis_nodes"), nodes);
    json.insert(QStringLiteral("acl_saved"), saved == written.size());
    if (saved < written.size()) {
        std::fprintf(stderr, "lanternd: %s\n",
                     AccessText::tr("warning: %1 of %2 Redis nodes have no aclfile: the change is lost when they restart (docs/security.md)")
                             .arg(written.size() - saved)
                             .arg(written.size())
                             .toLocal8Bit()
                             .constData());
        std::fflush(stderr);
    }
}

/** Every Redis data node found and reached before anything is written (see RedisAccounts). */
access::RedisAccounts reachedRedisAccounts(CommandContext &context)
{
    access::RedisAccounts accounts(context.redis(), context.keys().prefix());
    accounts.reachEveryNode();
    return accounts;
}

} // namespace

int runAccessInstall(CommandContext &context)
{
    const QString fromEnvironment = QProcessEnvironment::systemEnvironment().value(QStringLiteral("LANTERN_APPROVAL_CENTS"));
    const qint64 approvalCents = context.line().integer(QStringLiteral("approval-cents"), 0, std::numeric_limits<qint64>::max(),
                                                        fromEnvironment.isEmpty() ? 1'000'000 : fromEnvironment.toLongLong());
    access::SqlAccounts(context.sql()).install(approvalCents);
    const int scripts = access::RedisAccounts(context.redis(), context.keys().prefix()).loadScripts();
    QJsonArray roles;
    for (access::Role role : access::Roles::all())
        roles.append(access::Roles::name(role));
    const QJsonObject json{{QStringLiteral("roles"), roles}, {QStringLiteral("approval_cents"), approvalCents}, {QStringLiteral("scripts_loaded"), scripts}};
    audit(context, QStringLiteral("access.install"), QStringLiteral("*"), json);
    printJson(json);
    return 0;
}

namespace {

/** The Redis side of add, rotate and set-role (the ACL user with `role`'s rules and the new
    password on every node), the audit row and the printed result; a generated password is
    printed this once and kept nowhere. */
int finishAccountChange(CommandContext &context, access::RedisAccounts &redis, const QString &action, const QString &name, access::Role role,
                        const QByteArray &password, bool generated)
{
    QJsonObject json{{QStringLiteral("name"), name}, {QStringLiteral("role"), access::Roles::name(role)}};
    addRedisOutcome(json, redis.setUser(name, role, password));
    audit(context, action, name, json);
    if (generated)
        json.insert(QStringLiteral("password"), QString::fromLatin1(password));
    printJson(json);
    return 0;
}

} // namespace

int runOperatorAdd(CommandContext &context)
{
    const QString name = nameOption(context);
    const access::Role role = roleOption(context);
    bool generated = false;
    const QByteArray password = passwordOption(context, &generated);
    access::RedisAccounts redis = reachedRedisAccounts(context);
    access::SqlAccounts(context.sql()).add(name, role, password);
    return finishAccountChange(context, redis, QStringLiteral("operator.add"), name, role, password, generated);
}

int runOperatorList(CommandContext &context)
{
    QJsonArray operators;
    for (const access::SqlAccount &account : access::SqlAccounts(context.sql()).list())
        operators.append(QJsonObject{{QStringLiteral("name"), account.name}, {QStringLiteral("role"), access::Roles::name(account.role)}});
    printJson({{QStringLiteral("operators"), operators}});
    return 0;
}

int runOperatorRemove(CommandContext &context)
{
    const QString name = nameOption(context);
    access::RedisAccounts redis = reachedRedisAccounts(context);
    access::SqlAccounts(context.sql()).remove(name);
    QJsonObject json{{QStringLiteral("name"), name}, {QStringLiteral("removed"), true}};
    addRedisOutcome(json, redis.deleteUser(name));
    audit(context, QStringLiteral("operator.remove"), name, json);
    printJson(json);
    return 0;
}

int runOperatorRotate(CommandContext &context)
{
    const QString name = nameOption(context);
    bool generated = false;
    const QByteArray password = passwordOption(context, &generated);
    access::SqlAccounts accounts(context.sql());
    const std::optional<access::SqlAccount> account = accounts.find(name);
    if (!account)
        throw RefusedError(AccessText::tr("there is no operator account %1").arg(name));
    access::RedisAccounts redis = reachedRedisAccounts(context);
    accounts.rotate(name, password);
    return finishAccountChange(context, redis, QStringLiteral("operator.rotate"), name, account->role, password, generated);
}

int runOperatorSetRole(CommandContext &context)
{
    const QString name = nameOption(context);
    const access::Role role = roleOption(context);
    bool generated = false;
    // Redis keeps no password it could hand back: the ACL user gets a new one with its new rules.
    const QByteArray password = passwordOption(context, &generated);
    access::RedisAccounts redis = reachedRedisAccounts(context);
    access::SqlAccounts accounts(context.sql());
    accounts.setRole(name, role);
    accounts.rotate(name, password);
    return finishAccountChange(context, redis, QStringLiteral("operator.set_role"), name, role, password, generated);
}

int runCampaignApprove(CommandContext &context)
{
    const qint64 id = context.line().integer(QStringLiteral("id"), 1, std::numeric_limits<qint64>::max());
    const TransitionAudit audit{context.actor(), context.nowMs(), {}, {}};
    printJson(campaignJson(CampaignApproval(context.sql()).approve(id, context.identity().account, audit)));
    return 0;
}

} // namespace lantern::cli
