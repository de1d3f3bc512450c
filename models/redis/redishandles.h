#pragma once

#include <memory>
#include <utility>

struct redisReader;
struct redisReply;
typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;
typedef struct x509_st X509;

namespace lantern {

// The owners of every C handle of the Redis layer (redis-plus-plus's deleters are the model): no
// naked redisReaderFree, freeReplyObject, SSL_free or close() anywhere else.

struct RedisReaderDeleter {
    void operator()(redisReader *reader) const;
};
struct RedisReplyDeleter {
    void operator()(redisReply *reply) const;
};
struct SslDeleter {
    void operator()(SSL *ssl) const;
};
struct SslContextDeleter {
    void operator()(SSL_CTX *context) const;
};
struct X509Deleter {
    void operator()(X509 *certificate) const;
};

using RedisReaderPtr = std::unique_ptr<redisReader, RedisReaderDeleter>;
using RedisReplyPtr = std::unique_ptr<redisReply, RedisReplyDeleter>;
using SslPtr = std::unique_ptr<SSL, SslDeleter>;
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextDeleter>;
using X509Ptr = std::unique_ptr<X509, X509Deleter>;

/** A socket (or any descriptor) closed when its owner goes. */
class UniqueFd final {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd &&other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
    UniqueFd &operator=(UniqueFd &&other) noexcept
    {
        if (this != &other)
            reset(std::exchange(other.m_fd, -1));
        return *this;
    }
    UniqueFd(const UniqueFd &) = delete;
    UniqueFd &operator=(const UniqueFd &) = delete;

    int get() const { return m_fd; }
    bool isValid() const { return m_fd >= 0; }
    /** Closes the descriptor held (if any) and holds `fd`. */
    void reset(int fd = -1);

private:
    int m_fd = -1;
};

} // namespace lantern
