#pragma once

namespace lantern::cli {

class CommandContext;

int runMigrate(CommandContext &context);
int runWork(CommandContext &context);
int runRecover(CommandContext &context);
int runQueues(CommandContext &context);
int runToken(CommandContext &context);

} // namespace lantern::cli
