#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace lantern {

/** One grab waiting to be persisted and paid, as grab.lua queues it (JSON). */
struct PayoutTask {
    qint64 campaignId = 0;
    qint64 seq = 0;
    qint64 uid = 0;
    qint64 amountCents = 0;
    qint64 atMs = 0;

    /** std::nullopt for anything malformed: such tasks go to the dead-letter list. */
    static std::optional<PayoutTask> fromJson(const QByteArray &json);
    /** The payout's business key: one envelope is paid once, whoever retries. */
    QString idempotencyKey() const { return QStringLiteral("cp:%1:%2").arg(campaignId).arg(seq); }
};

} // namespace lantern
