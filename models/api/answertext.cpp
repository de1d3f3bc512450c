#include "api/answertext.h"

#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "envelope/grabservice.h"

#include <QJsonDocument>

#include <charconv>

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

/** ,"name": (the comma after the first field) */
void appendName(QByteArray &out, const char *name)
{
    out += out.size() > 1 ? ",\"" : "\"";
    out += name;
    out += "\":";
}

void appendNumber(QByteArray &out, const char *name, qint64 value)
{
    appendName(out, name);
    char digits[24];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr - digits);
}

/** A plain() text in quotes. */
void appendText(QByteArray &out, const char *name, const QString &text)
{
    appendName(out, name);
    out += '"';
    for (const QChar c : text)
        out += char(c.unicode());
    out += '"';
}

/** "yyyy-MM-dd", for a year of four digits. */
void appendDay(QByteArray &out, const char *name, QDate date)
{
    appendName(out, name);
    char text[12] = {'"', 0, 0, 0, 0, '-', 0, 0, '-', 0, 0, '"'};
    const auto put = [&text](int at, int value, int width) {
        for (int i = width - 1; i >= 0; --i, value /= 10)
            text[at + i] = char('0' + value % 10);
    };
    put(1, date.year(), 4);
    put(6, date.month(), 2);
    put(9, date.day(), 2);
    out.append(text, sizeof text);
}

} // namespace

QByteArray checkinAnswerText(const CheckinOutcome &outcome)
{
    if (!plain(outcome.kind) || !outcome.date.isValid() || outcome.date.year() < 1000 || outcome.date.year() > 9999)
        return QJsonDocument(checkinOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    // Written into one buffer: no number or date goes through a QByteArray of its own.
    QByteArray out;
    out.reserve(128 + outcome.kind.size());
    out += '{';
    appendName(out, "already");
    out += outcome.already ? "true" : "false";
    appendDay(out, "date", outcome.date);
    appendText(out, "kind", outcome.kind);
    appendNumber(out, "month_count", outcome.monthCount);
    appendNumber(out, "points", outcome.points);
    appendNumber(out, "streak", outcome.streak);
    appendNumber(out, "uid", outcome.uid);
    out += '}';
    return out;
}

QByteArray grabAnswerText(const GrabOutcome &outcome)
{
    if (!plain(outcome.status))
        return QJsonDocument(grabOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    QByteArray out;
    out.reserve(96 + outcome.status.size());
    out += '{';
    if (outcome.seq > 0) {
        appendNumber(out, "amount_cents", outcome.amountCents);
        appendNumber(out, "envelope", outcome.seq);
    }
    if (outcome.replicas >= 0)
        appendNumber(out, "replicas", outcome.replicas);
    appendText(out, "status", outcome.status);
    out += '}';
    return out;
}

} // namespace lantern
