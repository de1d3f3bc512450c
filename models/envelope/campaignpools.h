#pragma once

#include <QByteArrayList>
#include <QCoreApplication>

#include <optional>

namespace lantern {

struct Campaign;
class KeySchema;
class RedisClient;
struct RedisValue;

/** A campaign's pools in Redis (issue 10, docs/cluster.md "Sub-pools"). A campaign is one pool
    named by its id, or K sub-pools whose hash tags land on different masters of a cluster, so
    one giant campaign's grabs spread over them. Envelope seq s lies in pool (s - 1) mod K; a user
    belongs to the home pool homeOf(uid), where its draw and attempts live, so "already grabbed"
    and the attempts cap stay atomic in one slot. */
class CampaignPools final {
    Q_DECLARE_TR_FUNCTIONS(lantern::CampaignPools)

public:
    static constexpr int MaxPools = 64;

    /** The one pool of a campaign without sub-pools. */
    static CampaignPools single(qint64 campaignId);
    /** Names K pools for a campaign: the first is its id, each other "id.N" with the smallest N
        whose slot a master not used yet serves (round robin over the masters when K exceeds
        them); on one server simply "id.1" ... "id.K-1". Throws InvalidInputError for K outside
        1..MaxPools. */
    static CampaignPools choose(RedisClient &redis, const KeySchema &keys, qint64 campaignId, int count);
    /** From the first pool's meta field "pools" ("42,42.7,42.9"); an absent field is one pool.
        nullopt for a field that does not name this campaign's pools. */
    static std::optional<CampaignPools> fromField(qint64 campaignId, const QByteArray &field);
    /** The pools as SQL knows them: one for a campaign without sub-pools, the names a launch
        recorded (Campaign::poolNames) otherwise; nullopt before a launch named them, or for
        names that are not this campaign's. */
    static std::optional<CampaignPools> named(const Campaign &campaign);
    /** Reads the pools from the first pool's meta: one pool for a campaign not launched yet.
        Throws RedisReplyError for a field that does not name this campaign's pools. */
    static CampaignPools read(RedisClient &redis, const KeySchema &keys, qint64 campaignId);
    /** As read, from the reply to HGET of the first pool's meta "pools" (read in a pipeline). */
    static CampaignPools fromReply(qint64 campaignId, const RedisValue &reply);
    /** The pools of every launched campaign (the workers' set), by campaign id then pool number:
        "41", "42", "42.3", "42.17"; members that name no pool are left out. */
    static QByteArrayList launched(RedisClient &redis, const KeySchema &keys);
    /** The ids of every launched campaign, ascending. */
    static QList<qint64> launchedCampaigns(RedisClient &redis, const KeySchema &keys);
    /** The campaign a pool name belongs to: "42" and "42.7" are campaign 42; nullopt otherwise. */
    static std::optional<qint64> campaignOf(const QByteArray &poolName);

    qint64 campaignId() const { return m_campaignId; }
    int count() const { return int(m_names.size()); }
    const QByteArrayList &names() const { return m_names; }
    const QByteArray &name(int index) const { return m_names.at(index); }
    QByteArray field() const { return m_names.join(','); }
    /** The pool a user's draw and attempts live in: a mix of the uid's bits, mod K. */
    int homeOf(qint64 uid) const;
    /** The pool an envelope was dealt to at launch. */
    int poolOfSeq(qint64 seq) const { return int((seq - 1) % count()); }
    /** How many of `envelopes` pool `index` holds: seq index+1, index+1+K, ... */
    qint64 envelopesIn(int index, qint64 envelopes) const;

    bool operator==(const CampaignPools &other) const = default;

    /** A process-wide memory of launched campaigns' pools (they never change once launched), so a
        grab knows its home pool without a round trip; grab.lua answers 'stale' when it is wrong
        (a test that recreated a campaign id), and the grab forgets and reads again. */
    static std::optional<CampaignPools> remembered(const KeySchema &keys, qint64 campaignId);
    static void remember(const KeySchema &keys, const CampaignPools &pools);
    static void forget(const KeySchema &keys, qint64 campaignId);

private:
    CampaignPools(qint64 campaignId, QByteArrayList names) : m_campaignId(campaignId), m_names(std::move(names)) {}

    qint64 m_campaignId = 0;
    QByteArrayList m_names;
};

} // namespace lantern
