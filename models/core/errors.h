#pragma once

#include <stdexcept>
#include <string>

#include <QString>

namespace lantern {

/** Base of the errors the command line maps to DESIGN §6 exit codes. Messages are for people. */
class LanternError : public std::runtime_error {
public:
    explicit LanternError(const QString &message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromStdString(what()); }
};

/** Bad input caught at the edge; nothing was written (exit 2). Open for RedisUrlMismatchError. */
class InvalidInputError : public LanternError {
public:
    using LanternError::LanternError;
};

/** Redis or SQL could not be reached or stopped answering (exit 3). */
class UnavailableError : public LanternError {
public:
    using LanternError::LanternError;
};

/** A business rule refused the action, e.g. make-up outside its window (exit 4). Open for
    subclasses such as the read-only connections' refusals. */
class RefusedError : public LanternError {
public:
    using LanternError::LanternError;
};

/** A business rule with a name of its own refused the action (exit 4, and stdout says
    {"error": code, "message": ...}), e.g. "needs_approval" before a big campaign's approval. */
class NamedRefusal final : public RefusedError {
public:
    NamedRefusal(QString code, const QString &message) : RefusedError(message), m_code(std::move(code)) {}
    const QString &code() const { return m_code; }

private:
    QString m_code;
};

/** The account may not do this (exit 5, {"error":"forbidden"}): Lantern's own check from the
    account's role, or a server's refusal (MariaDB 1142/1143/1044/1227, Redis NOPERM) when the
    rights changed under a running session. The message is the server's; the command line and
    the console put it in plain words with the account and the action. */
class ForbiddenError : public LanternError {
public:
    using LanternError::LanternError;
};

} // namespace lantern
