#pragma once

#include "checkin/checkinservice.h"
#include "checkin/monthbits.h"
#include "redis/redisconversation.h"

namespace lantern {

class KeySchema;

/** One run of checkin.lua (a check-in or a make-up) and the streak it reports, as a Redis
    conversation: the script's reply carries this month's and the previous month's bits, so a
    second round is needed only when a rolling streak fills both (six earlier months a round). */
class CheckinRun final : public RedisConversation {
    Q_DECLARE_TR_FUNCTIONS(lantern::CheckinRun)

public:
    /** Signs `day` for `uid`; the streak reported is the one as of `streakAsOf`. `makeup` is
        null for a normal check-in (validated by the caller, as CheckinService does). */
    CheckinRun(const KeySchema &keys, const CheckinRules &rules, qint64 uid, QDate day, QDate streakAsOf, const MakeupRequest *makeup,
               qint64 nowMs);

    QList<QByteArrayList> nextRound() override;
    void takeReplies(std::vector<RedisValue> replies) override;

    /** The outcome, once the conversation is over. */
    const CheckinOutcome &outcome() const { return m_outcome; }

private:
    void takeScriptReply(const RedisValue &reply);
    void takeMonths(const std::vector<RedisValue> &replies);
    /** Computes the streak from m_months, or asks for earlier months (m_pendingMonths). */
    void settleStreak();

    const KeySchema &m_keys;
    CheckinRules m_rules;
    QDate m_streakAsOf;
    QDate m_month;          // the first of the check-in's month, and of the month before it
    QDate m_previousMonth;
    QByteArrayList m_scriptCommand;  // the EVALSHA, built once and handed to the first round
    bool m_scriptSent = false;
    QList<MonthBits> m_months;     // newest first, as the streak calculator wants them
    QList<QDate> m_pendingMonths;  // firsts of the months the next round fetches
    bool m_done = false;
    CheckinOutcome m_outcome;
};

} // namespace lantern
