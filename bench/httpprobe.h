#pragma once

#include <QByteArray>

namespace lantern::bench {

struct HttpAnswer {
    int status = 0;
    QByteArray body;
};

/** One HTTP/1.1 request to 127.0.0.1:`port` on its own connection (Connection: close), with an
    empty body and `Authorization: Bearer <bearer>` unless `bearer` is empty. For the bench's
    set-up, never timed. Throws LanternError when the server cannot be reached or does not answer
    within 10 s. */
HttpAnswer httpRequest(quint16 port, const QByteArray &method, const QByteArray &path, const QByteArray &bearer = {});

} // namespace lantern::bench
