#pragma once

#include <QObject>

#include <memory>

namespace lantern::test {

// The QtTest classes of a test folder are compiled into one executable (one link, one moc run,
// and unity batches that parse Qt's headers once for several files: docs/contributing.md, "Build
// time"); CTest still runs each class in a process of its own: `EXECUTABLE SUITE [QTest options]`.
// A test file registers its class with LANTERN_TEST_SUITE or LANTERN_WIDGET_TEST_SUITE where a
// stand-alone test would say QTEST_GUILESS_MAIN or QTEST_MAIN.

/** The application a suite runs in, as QTEST_GUILESS_MAIN and QTEST_MAIN create it. */
enum class SuiteApplication { Core, Widgets };

struct Suite
{
    /** The test file's name without its folder and extension (`tst_checkin`): the CTest name. */
    QString name;
    SuiteApplication application = SuiteApplication::Core;
    std::unique_ptr<QObject> (*create)() = nullptr;
};

/** Adds a suite to the executable's list; done once per file by the macros below. */
class SuiteRegistration
{
public:
    SuiteRegistration(const char *sourceFile, SuiteApplication application, std::unique_ptr<QObject> (*create)());
};

/** The suite called `name`, or nullptr. */
const Suite *findSuite(QStringView name);
/** The names of every registered suite, sorted. */
QStringList suiteNames();

} // namespace lantern::test

#define LANTERN_TEST_SUITE_AS(TestObject, application)                                                    \
    static const lantern::test::SuiteRegistration lanternSuiteRegistration##TestObject(                  \
        __FILE__, application, []() -> std::unique_ptr<QObject> { return std::make_unique<TestObject>(); })

/** Registers TestObject to run in a QCoreApplication (QTEST_GUILESS_MAIN). */
#define LANTERN_TEST_SUITE(TestObject) LANTERN_TEST_SUITE_AS(TestObject, lantern::test::SuiteApplication::Core)
/** Registers TestObject to run in a QApplication (QTEST_MAIN of a widget test). */
#define LANTERN_WIDGET_TEST_SUITE(TestObject) \
    LANTERN_TEST_SUITE_AS(TestObject, lantern::test::SuiteApplication::Widgets)
