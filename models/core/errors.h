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

} // namespace lantern
