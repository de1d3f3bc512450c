#pragma once

namespace lantern::cli {

class CommandContext;

int runMigrate(CommandContext &context);
int runWork(CommandContext &context);
int runRecover(CommandContext &context);
int runQueues(CommandContext &context);
int runToken(CommandContext &context);

/** Asks a running `work` loop to finish its batch and stop (SIGTERM/SIGINT). */
void installStopHandlers();
/** Whether SIGTERM/SIGINT arrived. */
bool stopRequested();

} // namespace lantern::cli
