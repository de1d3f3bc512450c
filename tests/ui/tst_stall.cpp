// The GUI thread never waits on Redis (issue 4): a Redis that stalls — a script busy for
// seconds on a private redis-server — leaves the Users view's event loop turning, shows that a
// request is out, lets the user cancel it, and ends a request the server never answers with a
// plain message once the client's command timeout passes. The event loop's longest gap between
// two 10 ms timer ticks is measured throughout.
#include "checkin/checkinservice.h"
#include "console/sandbox/sandboxredis.h"
#include "common/messagebanner.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "testsuite.h"
#include "users/usersview.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <algorithm>

namespace tst_stall {

using namespace lantern;
using lantern::ui::MessageBanner;
using lantern::ui::UsersView;

namespace {

constexpr qint64 Uid = 4242;
constexpr int StartTimeoutMs = 60000;
// A gap this long would be a frozen window to a person; a blocking Redis call would show up as
// the whole stall (seconds).
constexpr qint64 MaxResponsiveGapMs = 300;

/** The longest pause of the GUI thread's event loop while it runs. */
class LoopWatch final {
public:
    LoopWatch()
    {
        m_clock.start();
        m_last = 0;
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            const qint64 now = m_clock.elapsed();
            m_longestGap = std::max(m_longestGap, now - m_last);
            m_last = now;
        });
        m_timer.start(10);
    }
    qint64 longestGapMs() const { return m_longestGap; }
    qint64 elapsedMs() const { return m_clock.elapsed(); }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_longestGap = 0;
};

/** Makes the server busy for `ms` with a script that spins (every other client then waits). */
void stallServer(QTcpSocket &socket, int ms)
{
    static const QByteArray script = "local function now() local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000) end "
                                     "local start = now() while now() - start < tonumber(ARGV[1]) do end return 1";
    const QByteArray milliseconds = QByteArray::number(ms);
    QByteArray command = "*4\r\n$4\r\nEVAL\r\n$" + QByteArray::number(script.size()) + "\r\n" + script + "\r\n$1\r\n0\r\n$" +
                         QByteArray::number(milliseconds.size()) + "\r\n" + milliseconds + "\r\n";
    socket.write(command);
    QVERIFY(socket.waitForBytesWritten(5000));
}

/** The stall script's reply (the event loop may already have read it into the socket). */
bool stallAnswered(QTcpSocket &socket)
{
    if (socket.bytesAvailable() == 0 && !socket.waitForReadyRead(10000))
        return false;
    return socket.readAll().startsWith(":1");
}

} // namespace

class TestStall final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void stalledLookupKeepsWindowResponsive();
    void lookupThatNeverAnswersTimesOutWithMessage();
    void cancelDropsTheLateAnswer();
    void cleanupTestCase();

private:
    void connectStallSocket();

    QTemporaryDir m_dir;
    std::unique_ptr<SandboxRedis> m_server;
    Config m_config;
    std::unique_ptr<UsersView> m_view;
    QTcpSocket m_stall;
};

void TestStall::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_server = std::make_unique<SandboxRedis>(m_dir.filePath(QStringLiteral("redis")));
    QSignalSpy ready(m_server.get(), &SandboxRedis::ready);
    QSignalSpy failed(m_server.get(), &SandboxRedis::failed);
    m_server->start();
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() || !failed.isEmpty(), StartTimeoutMs);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));

    m_config = Config::resolve({{QStringLiteral("redis"), m_server->url().redacted()},
                                {QStringLiteral("db"), QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("stall.db"))},
                                {QStringLiteral("today"), QStringLiteral("2025-03-20")}});
    RedisClient redis(m_config.redis);
    const KeySchema keys(m_config.keyPrefix, m_config.shards);
    CheckinService(redis, keys, m_config.checkin).checkin(Uid, QDate(2025, 3, 20), QDate(2025, 3, 20), QDateTime::currentMSecsSinceEpoch());

    m_view = std::make_unique<UsersView>(m_config.checkin);
    m_view->attachBackend(m_config);
    m_view->show();
    QSignalSpy shown(m_view.get(), &UsersView::monthShown);
    m_view->lookUp(QString::number(Uid));
    QVERIFY(shown.wait(15000));
    connectStallSocket();
}

void TestStall::connectStallSocket()
{
    m_stall.abort();
    m_stall.connectToHost(m_config.redis.host, quint16(m_config.redis.port));
    QVERIFY(m_stall.waitForConnected(5000));
}

void TestStall::stalledLookupKeepsWindowResponsive()
{
    QSignalSpy shown(m_view.get(), &UsersView::monthShown);
    stallServer(m_stall, 2000);
    LoopWatch watch;
    m_view->lookUp(QString::number(Uid));
    QVERIFY(m_view->isBusy());
    QVERIFY(m_view->cancelButton()->isVisibleTo(m_view.get()));
    QVERIFY(shown.wait(15000));
    // The answer waited for the stall, and the event loop never did.
    QVERIFY2(watch.elapsedMs() >= 1500, qPrintable(QString::number(watch.elapsedMs())));
    QVERIFY2(watch.longestGapMs() < MaxResponsiveGapMs, qPrintable(QStringLiteral("longest gap %1 ms").arg(watch.longestGapMs())));
    QVERIFY(!m_view->isBusy());
    QVERIFY(!m_view->cancelButton()->isVisibleTo(m_view.get()));
    QVERIFY(stallAnswered(m_stall));
}

void TestStall::lookupThatNeverAnswersTimesOutWithMessage()
{
    // Longer than the client's 3 s command timeout, shorter than Redis's 5 s busy threshold.
    QSignalSpy failed(m_view.get(), &UsersView::failed);
    stallServer(m_stall, 4500);
    LoopWatch watch;
    m_view->lookUp(QString::number(Uid));
    QVERIFY(failed.wait(15000));
    QVERIFY2(watch.elapsedMs() >= 2500, qPrintable(QString::number(watch.elapsedMs())));
    QVERIFY2(watch.longestGapMs() < MaxResponsiveGapMs, qPrintable(QStringLiteral("longest gap %1 ms").arg(watch.longestGapMs())));
    QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("did not answer in time")), qPrintable(failed.first().at(0).toString()));
    QVERIFY(m_view->banner()->isVisibleTo(m_view.get()));
    QVERIFY(!m_view->isBusy());
    QVERIFY(stallAnswered(m_stall));
    // Once the server answers again, so does the view (the client reconnected).
    QSignalSpy shown(m_view.get(), &UsersView::monthShown);
    m_view->lookUp(QString::number(Uid));
    QVERIFY(shown.wait(15000));
}

void TestStall::cancelDropsTheLateAnswer()
{
    QSignalSpy shown(m_view.get(), &UsersView::monthShown);
    QSignalSpy failed(m_view.get(), &UsersView::failed);
    stallServer(m_stall, 1500);
    m_view->lookUp(QStringLiteral("999"));
    QVERIFY(m_view->isBusy());
    QTest::mouseClick(m_view->cancelButton(), Qt::LeftButton);
    QVERIFY(!m_view->isBusy());
    QVERIFY(!m_view->cancelButton()->isVisibleTo(m_view.get()));
    QVERIFY(stallAnswered(m_stall));  // the stall is over; the cancelled answer comes next
    // The next request is answered; the cancelled one (user 999) never reaches the screen.
    m_view->lookUp(QString::number(Uid));
    QVERIFY(shown.wait(15000));
    QCOMPARE(shown.size(), 1);
    QCOMPARE(shown.first().at(0).value<UserMonth>().uid, Uid);
    QCOMPARE(m_view->shownUser()->uid, Uid);
    QVERIFY(failed.isEmpty());
}

void TestStall::cleanupTestCase()
{
    m_view.reset();
    m_server.reset();
}

LANTERN_WIDGET_TEST_SUITE(TestStall);

} // namespace tst_stall

#include "tst_stall.moc"
