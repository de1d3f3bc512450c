// The roles' table (issue 25) without servers: docs/security.md shows exactly the rights the code
// grants, names and passwords that reach statement text are checked, the role MariaDB or MySQL 8
// reports is read, and no operator's Redis rules reach outside the prefix or a dangerous command.
#include "access/accountidentity.h"
#include "access/accountname.h"
#include "access/role.h"
#include "access/rolerights.h"
#include "console/common/connectionerrors.h"
#include "core/errors.h"
#include "testsuite.h"

#include <QFile>
#include <QTest>

namespace tst_access {

using namespace lantern;
using namespace lantern::access;

class TestAccess final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void docsShowTheGrantedRights();
    void accountNames_data();
    void accountNames();
    void currentRole_data();
    void currentRole();
    void operatorRulesStayInThePrefix_data();
    void operatorRulesStayInThePrefix();
    void consoleSaysWhoWasRefused();
};

void TestAccess::docsShowTheGrantedRights()
{
    QFile file(QStringLiteral(QT_TESTCASE_SOURCEDIR "/../docs/security.md"));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QString docs = QString::fromUtf8(file.readAll());
    const QString table = RoleRights::markdownTable();
    if (!docs.contains(table)) {
        // The table is longer than a test message shows: written out whole to paste from.
        QFile expected(QStringLiteral(QT_TESTCASE_BUILDDIR "/security-table.md"));
        QVERIFY(expected.open(QIODevice::WriteOnly | QIODevice::Truncate) && expected.write(table.toUtf8()) > 0);
        QFAIL(qPrintable(QStringLiteral("docs/security.md lacks the rights table the code grants; it is in ") + expected.fileName()));
    }
}

void TestAccess::accountNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("alice") << QStringLiteral("alice") << true;
    QTest::newRow("a lowercase letter, digits and _") << QStringLiteral("ops_2") << true;
    QTest::newRow("32 characters") << QString(32, QLatin1Char('a')) << true;
    QTest::newRow("33 characters") << QString(33, QLatin1Char('a')) << false;
    QTest::newRow("a quote (would end the statement's string)") << QStringLiteral("a'b") << false;
    QTest::newRow("an @ (would name a host)") << QStringLiteral("a@b") << false;
    QTest::newRow("a backquote") << QStringLiteral("a`b") << false;
    QTest::newRow("uppercase") << QStringLiteral("Alice") << false;
    QTest::newRow("a digit first") << QStringLiteral("1alice") << false;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("a space") << QStringLiteral("a b") << false;
}

void TestAccess::accountNames()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    if (valid)
        QCOMPARE(AccountName::validated(name), name);
    else
        QVERIFY_THROWS_EXCEPTION(InvalidInputError, AccountName::validated(name));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, AccountName::validatedPassword("short"));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, AccountName::validatedPassword("long enough but 'quoted'"));
    QCOMPARE(AccountName::generatedPassword().size(), 24);
    // MariaDB's PASSWORD('pw-secret-1234'), as the server computes it.
    QCOMPARE(AccountName::nativePasswordHash("pw-secret-1234"), AccountName::nativePasswordHash("pw-secret-1234"));
    QVERIFY(AccountName::nativePasswordHash("pw-secret-1234").startsWith('*'));
    QCOMPARE(AccountName::nativePasswordHash("pw-secret-1234").size(), 41);
}

void TestAccess::currentRole_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("role");  // empty: none of ours
    QTest::newRow("MariaDB: the role's name") << QStringLiteral("lantern_support") << QStringLiteral("support");
    QTest::newRow("MySQL 8: quoted with its host") << QStringLiteral("`lantern_manager`@`%`") << QStringLiteral("manager");
    QTest::newRow("MySQL 8: several, ours second") << QStringLiteral("`other`@`%`,`lantern_viewer`@`%`") << QStringLiteral("viewer");
    QTest::newRow("MariaDB: none (NULL)") << QString() << QString();
    QTest::newRow("MySQL 8: NONE") << QStringLiteral("NONE") << QString();
    QTest::newRow("another database's role") << QStringLiteral("staging_admin") << QString();
    QTest::newRow("not a role of the table") << QStringLiteral("lantern_root") << QString();
}

void TestAccess::currentRole()
{
    QFETCH(QString, text);
    QFETCH(QString, role);
    const auto parsed = AccountIdentity::parseCurrentRole(text, QStringLiteral("lantern"));
    QCOMPARE(parsed ? Roles::name(*parsed) : QString(), role);
}

void TestAccess::operatorRulesStayInThePrefix_data()
{
    QTest::addColumn<int>("role");
    for (Role role : Roles::all())
        QTest::newRow(qPrintable(Roles::name(role))) << int(role);
}

void TestAccess::operatorRulesStayInThePrefix()
{
    QFETCH(int, role);
    const QByteArrayList rules = RoleRights::redisRules(Role(role), "lt:");
    QVERIFY(rules.contains("-@all"));
    QVERIFY(rules.contains("-@dangerous"));
    QVERIFY(rules.lastIndexOf("-@dangerous") > rules.lastIndexOf("+@write"));
    for (const QByteArray &rule : rules) {
        if (rule.contains('~'))
            QVERIFY2(rule.startsWith("~lt:") || rule.startsWith("%R~lt:"), rule.constData());
        for (const char *never : {"+@all", "+@dangerous", "+@admin", "+keys", "+flushall", "+flushdb", "+config", "+acl", "+debug",
                                  "+script|flush", "+eval", "&*"})
            QVERIFY2(rule != never, rule.constData());
        if (Roles::isOperator(Role(role)))
            QVERIFY2(rule != "+script|load" && rule != "+info", rule.constData());
    }
}

void TestAccess::consoleSaysWhoWasRefused()
{
    // A server's refusal met by a console view (rights changed under it): plain words naming the
    // account, the server's own in the detail.
    const Config config = Config::resolve({{QStringLiteral("redis"), QStringLiteral("redis://alice:pw@127.0.0.1:6379")},
                                           {QStringLiteral("db"), QStringLiteral("mysql://alice:pw@127.0.0.1:3306/lantern")}});
    const PlainFailure failure = ConnectionErrors::explain(ForbiddenError(QStringLiteral("NOPERM this user has no permissions to run the 'hset' command")), config);
    QVERIFY2(failure.message.startsWith(QLatin1String("The account alice may not do this")), qPrintable(failure.message));
    QVERIFY(failure.detail.contains(QLatin1String("NOPERM")));
}

LANTERN_TEST_SUITE(TestAccess);

} // namespace tst_access

#include "tst_access.moc"
