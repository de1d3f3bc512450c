#pragma once

#include "core/errors.h"

namespace lantern {

/** The connection failed or broke; the context was discarded and the next command reconnects. */
class RedisIoError : public UnavailableError {
public:
    using UnavailableError::UnavailableError;
};

/** Redis did not answer within the command (or connect) timeout. */
class RedisTimeoutError final : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/** Redis answered with an error reply (-ERR, -NOSCRIPT, ...), or a reply of an unexpected shape. */
class RedisReplyError final : public LanternError {
public:
    using LanternError::LanternError;
};

} // namespace lantern
