#include "redis/redishandles.h"

#include <hiredis/hiredis.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <unistd.h>

namespace lantern {

void RedisReaderDeleter::operator()(redisReader *reader) const
{
    redisReaderFree(reader);
}

void RedisReplyDeleter::operator()(redisReply *reply) const
{
    freeReplyObject(reply);
}

void SslDeleter::operator()(SSL *ssl) const
{
    SSL_free(ssl);
}

void SslContextDeleter::operator()(SSL_CTX *context) const
{
    SSL_CTX_free(context);
}

void X509Deleter::operator()(X509 *certificate) const
{
    X509_free(certificate);
}

void UniqueFd::reset(int fd)
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = fd;
}

} // namespace lantern
