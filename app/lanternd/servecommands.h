#pragma once

namespace lantern::cli {

class CommandContext;

/** `serve --listen HOST:PORT [--threads N]`: the client HTTP API until SIGTERM/SIGINT. */
int runServe(CommandContext &context);
/** `switch --feature checkin|grab --state on|off`: the API's kill switch, audited. */
int runSwitch(CommandContext &context);

} // namespace lantern::cli
