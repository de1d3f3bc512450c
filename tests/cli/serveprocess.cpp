#include "serveprocess.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#ifndef LANTERND_PATH
#error "LANTERND_PATH must name the lanternd binary (see tests/cli/CMakeLists.txt)"
#endif

namespace lantern::test::cli {

ServeProcess::ServeProcess(const Lanternd &lanternd, int threads, const QStringList &extra)
{
    m_process.setProcessEnvironment(sandboxEnvironment());
    m_process.start(QStringLiteral(LANTERND_PATH),
                    lanternd.withDefaults(QStringList{QStringLiteral("serve"), QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                                                      QStringLiteral("--threads"), QString::number(threads)}
                                          << extra));
}

ServeProcess::~ServeProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool ServeProcess::waitListening()
{
    static const QRegularExpression listening(QStringLiteral("listening on http://127\\.0\\.0\\.1:(\\d+)"));
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < 15000) {
        m_stderr += m_process.readAllStandardError();
        const QRegularExpressionMatch match = listening.match(QString::fromUtf8(m_stderr));
        if (match.hasMatch()) {
            m_port = match.captured(1).toUShort();
            return true;
        }
        if (m_process.state() == QProcess::NotRunning)
            return false;
        m_process.waitForReadyRead(200);
    }
    return false;
}

std::pair<int, QByteArray> ServeProcess::finish(int timeoutMs)
{
    if (!m_process.waitForFinished(timeoutMs))
        return {-1, {}};
    return {m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1, m_process.readAllStandardOutput()};
}

std::pair<int, QByteArray> ServeProcess::stop()
{
    terminate();
    return finish();
}

ServeClient::ServeClient(const Lanternd &lanternd, const QStringList &extra) : m_process(lanternd, 2, extra)
{
    m_network.setProxy(QNetworkProxy::NoProxy);
}

HttpReply ServeClient::request(const QByteArray &method, const QString &path, const QString &bearer, const QByteArray &body)
{
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_process.port()).arg(path)));
    if (!bearer.isNull())
        request.setRawHeader("Authorization", "Bearer " + bearer.toUtf8());
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(15000, &loop, &QEventLoop::quit);  // a hang fails the caller's comparison
    loop.exec();
    HttpReply result;
    if (reply->isFinished()) {
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        for (const auto &[name, value] : reply->rawHeaderPairs())
            result.headers.insert(name.toLower(), value);
    }
    reply->deleteLater();
    return result;
}

} // namespace lantern::test::cli
