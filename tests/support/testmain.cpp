// The main() of a test executable (lantern_test_executable in tests/CMakeLists.txt):
// `EXECUTABLE SUITE [QTest options and test functions]` runs one registered suite as
// QTEST_GUILESS_MAIN or QTEST_MAIN would. Compiled with LANTERN_TEST_WIDGETS in executables that
// link QtWidgets.

#include "testsuite.h"

#include <QCoreApplication>
#include <QTest>
#ifdef LANTERN_TEST_WIDGETS
#include <QApplication>
#endif

#include <cstdio>
#include <memory>
#include <vector>

namespace {

int runSuite(const lantern::test::Suite &suite, int argc, char **argv)
{
    // The application name QTEST_MAIN would have given a stand-alone test: its settings and test
    // paths (QStandardPaths test mode) stay apart from those of suites running beside it.
    std::unique_ptr<QCoreApplication> app;
#ifdef LANTERN_TEST_WIDGETS
    if (suite.application == lantern::test::SuiteApplication::Widgets)
        app = std::make_unique<QApplication>(argc, argv);
#endif
    if (!app) {
        if (suite.application != lantern::test::SuiteApplication::Core) {
            std::fprintf(stderr, "%s is a widget test: register it in an executable that links QtWidgets\n",
                         qPrintable(suite.name));
            return 2;
        }
        app = std::make_unique<QCoreApplication>(argc, argv);
    }
    QCoreApplication::setApplicationName(suite.name);
    QCoreApplication::setAttribute(Qt::AA_Use96Dpi, true);
    const std::unique_ptr<QObject> test = suite.create();
    return QTest::qExec(test.get(), argc, argv);
}

} // namespace

int main(int argc, char *argv[])
{
    const lantern::test::Suite *suite = argc > 1 ? lantern::test::findSuite(QString::fromLocal8Bit(argv[1])) : nullptr;
    if (!suite) {
        std::fprintf(stderr, "usage: %s SUITE [QTest options]\nsuites:\n", argv[0]);
        for (const QString &name : lantern::test::suiteNames())
            std::fprintf(stderr, "  %s\n", qPrintable(name));
        return 2;
    }
    // QTest reads its options from what follows the suite's name.
    std::vector<char *> arguments{argv[0]};
    arguments.insert(arguments.end(), argv + 2, argv + argc);
    int count = int(arguments.size());
    arguments.push_back(nullptr);
    return runSuite(*suite, count, arguments.data());
}
