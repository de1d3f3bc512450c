#pragma once

#include "api/apihandler.h"

#include <QByteArray>

namespace lantern {

/** An HTTP/1.1 response: status line with the standard reason phrase, Content-Type,
    Content-Length, the extra headers, "Connection: close" when !keepAlive, blank line, body —
    appended to `out` (the connection's write buffer) in one go. 1xx, 204 and 304 responses get
    neither Content-Type, Content-Length nor body; 1xx no "Connection: close" either. */
void appendHttpResponse(QByteArray &out, const ApiResponse &response, bool keepAlive);

} // namespace lantern
