#pragma once

#include <QByteArray>

namespace lantern {

struct CheckinOutcome;
struct GrabOutcome;

// The answers of the HTTP API's hot endpoints as JSON text, written straight into bytes: byte for
// byte what QJsonDocument(checkinOutcomeJson(...)).toJson(QJsonDocument::Compact) writes (the keys
// in QJsonObject's order), without building the object (issue 28: the object, its keys and its
// conversion to UTF-8 were a tenth of serve's CPU per check-in). A string field with a character
// that JSON would escape takes the QJsonDocument path, so the text can never differ.

/** {"already","date","kind","month_count","points","streak","uid"} */
QByteArray checkinAnswerText(const CheckinOutcome &outcome);
/** {"amount_cents"?,"envelope"?,"replicas"?,"status"} */
QByteArray grabAnswerText(const GrabOutcome &outcome);

} // namespace lantern
