#include "envelope/payouttask.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <iterator>

namespace lantern {

namespace {

bool isValid(const PayoutTask &task)
{
    return task.campaignId > 0 && task.seq > 0 && task.uid > 0 && task.amountCents > 0 && task.atMs >= 0;
}

/** The shape grab.lua writes and nothing else: one flat object of the five fields, ids and amount
    as strings of digits, the time as digits, no spaces or escapes, in any order. Anything else
    (std::nullopt) is read by QJsonDocument, which decides. A drain reads 500 a batch: this costs a
    small fraction of a document and its object. */
std::optional<PayoutTask> readGrabShape(const QByteArray &json)
{
    const char *p = json.constData();
    const char *const end = p + json.size();
    const auto digits = [&p, end](bool quoted, qint64 &value) {
        if (quoted && (p == end || *p++ != '"'))
            return false;
        const auto [next, error] = std::from_chars(p, end, value);
        if (error != std::errc() || next == p || *p == '-' || (!quoted && *p == '0' && next - p > 1))  // JSON numbers: no leading 0
            return false;
        p = next;
        return !quoted || (p != end && *p++ == '"');
    };
    PayoutTask task;
    struct Field {
        QByteArrayView name;
        qint64 *value;
        bool quoted;
    };
    const Field fields[] = {{"campaign", &task.campaignId, true},
                            {"seq", &task.seq, true},
                            {"uid", &task.uid, true},
                            {"amount", &task.amountCents, true},
                            {"at", &task.atMs, false}};
    int seen = 0;  // a bit per field
    if (p == end || *p++ != '{')
        return std::nullopt;
    for (;;) {
        if (p == end || *p++ != '"')
            return std::nullopt;
        const char *const name = p;
        while (p != end && *p != '"')
            ++p;
        const QByteArrayView key(name, p - name);
        if (p == end || *p++ != '"' || p == end || *p++ != ':')
            return std::nullopt;
        const auto field = std::find_if(std::begin(fields), std::end(fields), [&key](const Field &f) { return f.name == key; });
        const int bit = 1 << (field - std::begin(fields));
        if (field == std::end(fields) || (seen & bit) != 0 || !digits(field->quoted, *field->value))
            return std::nullopt;
        seen |= bit;
        if (p == end)
            return std::nullopt;
        const char c = *p++;
        if (c == '}')
            break;
        if (c != ',')
            return std::nullopt;
    }
    if (task.atMs >= (qint64(1) << 53))  // beyond what the double QJsonDocument reads it as holds exactly
        return std::nullopt;
    if (p != end || seen != 31)
        return std::nullopt;
    return task;
}

} // namespace

std::optional<PayoutTask> PayoutTask::fromJson(const QByteArray &json)
{
    if (const auto task = readGrabShape(json))
        return isValid(*task) ? task : std::nullopt;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    // grab.lua writes ids and amounts as strings (exact for int64), the time as a number.
    const auto integer = [&object](const char *name, bool *ok) { return object.value(QLatin1String(name)).toString().toLongLong(ok); };
    PayoutTask task;
    bool okCampaign = false, okSeq = false, okUid = false, okAmount = false;
    task.campaignId = integer("campaign", &okCampaign);
    task.seq = integer("seq", &okSeq);
    task.uid = integer("uid", &okUid);
    task.amountCents = integer("amount", &okAmount);
    task.atMs = static_cast<qint64>(object.value(QLatin1String("at")).toDouble(-1));
    if (!okCampaign || !okSeq || !okUid || !okAmount || !isValid(task))
        return std::nullopt;
    return task;
}

} // namespace lantern
