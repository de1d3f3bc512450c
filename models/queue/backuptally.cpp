#include "queue/backuptally.h"

#include <algorithm>

namespace lantern {

void BackupTally::change(const QByteArray &backupKey, qint64 delta)
{
    qint64 &entries = m_lists[backupKey];
    entries = std::max<qint64>(0, entries + delta);
}

qint64 BackupTally::total() const
{
    qint64 sum = 0;
    for (const qint64 entries : m_lists)
        sum += entries;
    return sum;
}

} // namespace lantern
