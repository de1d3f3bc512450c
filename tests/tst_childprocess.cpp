// endWithStarter: a server a process starts for itself ends with the thread that started it.
#include "core/childprocess.h"
#include "testsuite.h"

#include <QFile>
#include <QProcess>
#include <QTest>

#include <thread>

namespace tst_childprocess {

using namespace lantern;

namespace {

/** Starts `sleep 600` under endWithStarter from a thread of its own that then ends. The QProcess
    is left alive on purpose: its destructor would stop the program itself. */
qint64 startFromAThreadThatEnds()
{
    qint64 pid = 0;
    std::thread starter([&] {
        auto *process = new QProcess;  // not deleted: the program must outlive it on its own
        endWithStarter(*process);
        process->start(QStringLiteral("sleep"), {QStringLiteral("600")});
        if (process->waitForStarted())
            pid = process->processId();
    });
    starter.join();
    return pid;
}

/** Whether `pid` still runs (a zombie waiting for its parent's wait() does not). */
bool runs(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close > 0 && text.size() > close + 2 && text.at(close + 2) != 'Z';
}

} // namespace

class TestChildProcess : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void endsWithTheThreadThatStartedIt()
    {
        const qint64 pid = startFromAThreadThatEnds();
        QVERIFY(pid > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!runs(pid), 10'000);
    }
};

LANTERN_TEST_SUITE(TestChildProcess);

} // namespace tst_childprocess

#include "tst_childprocess.moc"
