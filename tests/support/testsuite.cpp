#include "testsuite.h"

#include <QFileInfo>
#include <QList>
#include <QStringList>

#include <algorithm>

namespace lantern::test {

namespace {

/** Built on first use: registrations run during static initialisation, in no set order. */
QList<Suite> &registeredSuites()
{
    static QList<Suite> suites;
    return suites;
}

} // namespace

SuiteRegistration::SuiteRegistration(const char *sourceFile, SuiteApplication application,
                                     std::unique_ptr<QObject> (*create)())
{
    registeredSuites().append(Suite{QFileInfo(QString::fromUtf8(sourceFile)).completeBaseName(), application, create});
}

const Suite *findSuite(QStringView name)
{
    const QList<Suite> &suites = registeredSuites();
    const auto found = std::find_if(suites.cbegin(), suites.cend(), [name](const Suite &suite) { return suite.name == name; });
    return found == suites.cend() ? nullptr : &*found;
}

QStringList suiteNames()
{
    QStringList names;
    for (const Suite &suite : registeredSuites())
        names.append(suite.name);
    names.sort();
    return names;
}

} // namespace lantern::test
