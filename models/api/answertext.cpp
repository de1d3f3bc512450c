#include "api/answertext.h"

#include "api/resultjson.h"
#include "checkin/checkinservice.h"
#include "core/datetext.h"
#include "core/textwriter.h"
#include "envelope/grabservice.h"

#include <QJsonDocument>

#include <utility>

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

/** An object's text: {"name":value,...} */
class ObjectText final {
public:
    explicit ObjectText(qsizetype expected) : m_out(expected) { m_out << '{'; }
    /** `"name":`, after a comma but for the first; the name's length is known when compiled. */
    template <qsizetype N>
    TextWriter &field(const char (&name)[N])
    {
        if (!std::exchange(m_first, false))
            m_out << ',';
        m_out << '"' << QByteArrayView(name, N - 1) << '"' << ':';
        return m_out;
    }
    template <qsizetype N>
    void number(const char (&name)[N], qint64 value)
    {
        field(name).number(value);
    }
    /** A plain() text, quoted. */
    template <qsizetype N>
    void text(const char (&name)[N], const QString &text)
    {
        TextWriter &out = field(name);
        out << '"';
        for (const QChar c : text)
            out << char(c.unicode());
        out << '"';
    }
    QByteArray take()
    {
        m_out << '}';
        return m_out.take();
    }

private:
    TextWriter m_out;
    bool m_first = true;
};

} // namespace

QByteArray checkinAnswerText(const CheckinOutcome &outcome)
{
    const int year = outcome.date.year();  // 0 for an invalid date
    if (!plain(outcome.kind) || year < 1000 || year > 9999)
        return QJsonDocument(checkinOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    // Written into one buffer: no number or date goes through a QByteArray of its own.
    ObjectText out(160 + outcome.kind.size());
    out.field("already") << (outcome.already ? QByteArrayView("true", 4) : QByteArrayView("false", 5));
    TextWriter &date = out.field("date") << '"';
    writeIsoDay(date, outcome.date);
    date << '"';
    out.text("kind", outcome.kind);
    out.number("month_count", outcome.monthCount);
    out.number("points", outcome.points);
    out.number("streak", outcome.streak);
    out.number("uid", outcome.uid);
    return out.take();
}

QByteArray grabAnswerText(const GrabOutcome &outcome)
{
    if (!plain(outcome.status))
        return QJsonDocument(grabOutcomeJson(outcome)).toJson(QJsonDocument::Compact);
    ObjectText out(128 + outcome.status.size());
    if (outcome.seq > 0) {
        out.number("amount_cents", outcome.amountCents);
        out.number("envelope", outcome.seq);
    }
    if (outcome.replicas >= 0)
        out.number("replicas", outcome.replicas);
    out.text("status", outcome.status);
    return out.take();
}

} // namespace lantern
