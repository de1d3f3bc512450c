#include "api/answertext.h"

#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "core/datetext.h"
#include "envelope/grabservice.h"

#include <QJsonDocument>

namespace lantern {

namespace {

/** Whether `text` goes into JSON as it is: letters, digits, '_' and '-' only. */
bool plain(const QString &text)
{
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (!((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '_' || u == '-'))
            return false;
    }
    return true;
}

void appendField(QByteArray &out, const char *name, const QByteArray &value)
{
    out += out.size() > 1 ? ",\"" : "\"";
    out += name;
    out += "\":";
    out += value;
}

QByteArray quoted(const QString &text)
{
    return '"' + text.toLatin1() + '"';
}

} // namespace

QByteArray checkinAnswerText(const CheckinOutcome &outcome)
{
    if (!plain(outcome.kind) || !outcome.date.isValid() || outcome.date.year() < 1000 || outcome.date.year() > 9999)
        return QJsonDocument(checkinOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    QByteArray out;
    out.reserve(128);
    out += '{';
    appendField(out, "already", outcome.already ? QByteArrayLiteral("true") : QByteArrayLiteral("false"));
    appendField(out, "date", '"' + isoDay(outcome.date) + '"');
    appendField(out, "kind", quoted(outcome.kind));
    appendField(out, "month_count", QByteArray::number(outcome.monthCount));
    appendField(out, "points", QByteArray::number(outcome.points));
    appendField(out, "streak", QByteArray::number(outcome.streak));
    appendField(out, "uid", QByteArray::number(outcome.uid));
    out += '}';
    return out;
}

QByteArray grabAnswerText(const GrabOutcome &outcome)
{
    if (!plain(outcome.status))
        return QJsonDocument(grabOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    QByteArray out;
    out.reserve(96);
    out += '{';
    if (outcome.seq > 0) {
        appendField(out, "amount_cents", QByteArray::number(outcome.amountCents));
        appendField(out, "envelope", QByteArray::number(outcome.seq));
    }
    if (outcome.replicas >= 0)
        appendField(out, "replicas", QByteArray::number(outcome.replicas));
    appendField(out, "status", quoted(outcome.status));
    out += '}';
    return out;
}

} // namespace lantern
