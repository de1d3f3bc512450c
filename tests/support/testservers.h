#pragma once

#include "redis/redisurl.h"
#include "sql/dburl.h"

#include <QList>
#include <QString>

namespace lantern::test {

/** The private servers scripts/test starts: LANTERN_TEST_REDIS and LANTERN_TEST_MYSQL.
    A missing variable fails the test (QFAIL), it never skips it. */
RedisUrl redisUrl();
/** A database of its own for this test process on the private MariaDB. */
DbUrl mysqlUrl();
/** A fresh SQLite file in a temp dir that lives as long as the process. */
DbUrl sqliteUrl();
/** Both SQL dialects, for data-driven tests: ("mysql", url), ("sqlite", url). */
QList<std::pair<QString, DbUrl>> sqlDialects();

/** A unique key prefix per test function, so tests never see each other's keys. */
QString uniquePrefix();

/** Sends `signal` to the child process `pid`: -1 (errno ESRCH) for a pid of 0 or less, which
    QProcess gives for a process that has ended. kill() itself would take 0 for the caller's own
    process group (SIGSTOP would freeze the test and ctest with it) and -1 for every process. */
int signalChild(qint64 pid, int signal);

/** Empties the test tables (in FK-safe order) of a migrated database. */
void resetTables(const DbUrl &url);

} // namespace lantern::test
