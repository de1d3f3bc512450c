#pragma once

#include <QCoreApplication>
#include <QString>

namespace lantern {

/** redis://[user:password@]host:port[/db], parsed and validated at the edge. */
struct RedisUrl {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisUrl)

public:
    QString host = QStringLiteral("127.0.0.1");
    int port = 6379;
    QString user;
    QString password;
    int db = 0;

    /** Throws InvalidInputError with a message naming what is wrong. */
    static RedisUrl parse(const QString &text);
    /** The URL without its password, for messages and logs. */
    QString redacted() const;
};

} // namespace lantern
